"""Every file the program ships is found through core.resources, never by a path of its own.

A checkout, a wheel installed with `pip install .` and the frozen build must find the same
files; tests/packaging/ checks the latter two.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import resources
from core import InvalidInputError, ResourceUnavailableError, read_resource, resource_path
from core.resources import resource_root

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for d in ("core", "app", "ui") for p in sorted((ROOT / d).rglob("*.py"))]


def _ui_icon_names() -> set[str]:
    """Icon names the UI asks for: literal `icon("...")` calls and one per status."""
    names: set[str] = set()
    for path in sorted((ROOT / "ui").rglob("*.py")):
        names.update(re.findall(r"\bicon\(\"([a-z0-9-]+)\"\)", path.read_text(encoding="utf-8")))
    presentation = (ROOT / "ui" / "presentation.py").read_text(encoding="utf-8")
    statuses = re.search(r"STATUSES = \(([^)]*)\)", presentation)
    assert statuses is not None
    names.update(f"status-{s}" for s in re.findall(r"\"([a-z_]+)\"", statuses.group(1)))
    return names


def test_the_root_is_the_resources_package() -> None:
    assert resource_root() == Path(resources.__file__).parent
    assert resource_path("icons").is_dir()


def test_every_icon_the_ui_asks_for_is_shipped() -> None:
    names = _ui_icon_names()
    assert {"app", "undo", "search", "status-active", "status-deleted"} <= names
    missing = sorted(n for n in names if not resource_path("icons", f"{n}.svg").is_file())
    assert missing == []


def test_every_image_the_stylesheet_names_is_shipped() -> None:
    sheet = read_resource("style", "app.qss")
    images = re.findall(r"url\(\$\{icons\}/([^)]+)\)", sheet)
    assert images, "the stylesheet names no icons: the pattern no longer matches"
    assert [i for i in images if not resource_path("icons", i).is_file()] == []


def test_every_offered_language_has_a_compiled_translation() -> None:
    from ui.i18n import LANGUAGES

    codes = [code for code, _ in LANGUAGES if code not in ("system", "en")]
    assert "zh_CN" in codes
    for code in codes:
        qm = resource_path("i18n", f"memory_center_{code}.qm")
        assert qm.is_file() and qm.stat().st_size > 1000


def test_text_templates_are_read_through_core_resources() -> None:
    assert "{items}" in read_resource("templates", "memory_block.txt")
    prompt = read_resource("prompts", "extract_memories.txt")
    assert "$events" in prompt and "$today" in prompt


@pytest.mark.parametrize(
    "parts", [(), ("..", "pyproject.toml"), ("icons/../..",), ("",), ("/etc", "passwd")]
)
def test_names_that_leave_the_package_are_refused(parts: tuple[str, ...]) -> None:
    with pytest.raises(InvalidInputError, match="resource: path parts must be plain names"):
        resource_path(*parts)


def test_a_missing_resource_is_one_line_naming_it() -> None:
    with pytest.raises(ResourceUnavailableError) as err:
        read_resource("templates", "no_such_template.txt")
    assert "templates/no_such_template.txt" in str(err.value)
    assert "\n" not in str(err.value)


def test_no_module_finds_resources_relative_to_its_own_file() -> None:
    """`Path(__file__).parents[...] / "resources"` breaks every installed build."""
    offenders = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if '"resources"' in line and ("__file__" in line or "parent" in line or "/" in line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_a_damaged_language_setting_falls_back_to_english(qapp: object) -> None:
    from ui.i18n import install_translator

    assert install_translator(qapp, "../../../etc/passwd") is None  # type: ignore[arg-type]
    assert install_translator(qapp, "xx_YY") is None  # type: ignore[arg-type]
    translator = install_translator(qapp, "zh_CN")  # type: ignore[arg-type]
    assert translator is not None and translator.translate("Status", "active") == "生效"
    qapp.removeTranslator(translator)  # type: ignore[attr-defined]
