"""Entry point of the frozen desktop build: one executable for every verb (gui, mcp, ...).

The same entry as the `memory-center` console script: the window paints before the engine
is imported; every other verb goes to the command line.
"""

from app.launch import main

if __name__ == "__main__":
    main()
