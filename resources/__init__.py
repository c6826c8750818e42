"""Data files shipped with Memory Center (templates, prompts, stylesheet, icons, translations).

A package only so that `importlib.resources` finds it the same way in a checkout, an
installed wheel and the frozen build; look files up through `core.resources`, not by path.
"""
