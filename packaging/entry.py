"""Entry point of the frozen desktop build: one executable for every verb (gui, mcp, ...)."""

from app.cli import main

if __name__ == "__main__":
    main()
