"""The files Memory Center ships with: templates, prompts, stylesheet, icons, translations.

They live in the top-level `resources` package and are found through `importlib.resources`,
never relative to a source file, so a checkout, a wheel installed with `pip install .` and
the frozen desktop build (packaging/build.sh) all find them the same way. Qt needs real file
system paths (icons, the stylesheet's `url(...)`, translator files), so the package must sit
on disk, not in a zip; every install we make does.
"""

from __future__ import annotations

import importlib.resources
from functools import cache
from pathlib import Path

from core.errors import InvalidInputError, ResourceUnavailableError

PACKAGE = "resources"


@cache
def resource_root() -> Path:
    """The directory of the `resources` package.

    Raises:
        ResourceUnavailableError: the package is not installed, or not on the file system.
    """
    try:
        root = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError as exc:
        raise ResourceUnavailableError(
            f"the {PACKAGE!r} package is not installed; reinstall Memory Center"
        ) from exc
    if not isinstance(root, Path):
        raise ResourceUnavailableError(
            f"the {PACKAGE!r} package is not on the file system ({root!r}); install it unzipped"
        )
    return root


def resource_path(*parts: str) -> Path:
    """The path of a shipped file or folder, e.g. `resource_path("icons", "app.svg")`.

    The path may not exist (callers such as icon look-ups decide what a missing file means);
    use `read_resource` for text that must be there.
    """
    if not parts or any(not p or p in (".", "..") or "/" in p or "\\" in p for p in parts):
        raise InvalidInputError("resource", f"path parts must be plain names, got {parts!r}")
    return resource_root().joinpath(*parts)


def read_resource(*parts: str) -> str:
    """The UTF-8 text of a shipped file.

    Raises:
        ResourceUnavailableError: the file is missing or unreadable (one line naming it).
    """
    path = resource_path(*parts)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        name = "/".join(parts)
        raise ResourceUnavailableError(f"cannot read resource {name} at {path}: {exc}") from exc


__all__ = ["PACKAGE", "read_resource", "resource_path", "resource_root"]
