"""No SQL above `core/storage/` (#15): the engine's other layers reach tables only through
storage repositories. A module above storage may name `sqlalchemy.Connection` (to pass a
read connection through), nothing else of SQLAlchemy, never the schema, and never call
`.execute(`."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[3] / "core"
ALLOWED_SQLALCHEMY = {"Connection"}
# Modules still allowed to run SQL above storage while they move down (none at present; a
# module put here must leave again once clean, see the last test).
PENDING: set[str] = set()


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"line {node.lineno}: {why}" for node in ast.walk(tree) for why in _why(node)]


def _why(node: ast.AST) -> list[str]:
    """What is wrong with one node (nothing for most)."""
    if isinstance(node, ast.ImportFrom) and node.module:
        return _import_from(node.module, {a.name for a in node.names})
    if isinstance(node, ast.Import):
        return [
            f"imports {a.name}"
            for a in node.names
            if a.name.split(".")[0] == "sqlalchemy" or a.name == "core.storage.schema"
        ]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return ["calls .execute("] if node.func.attr == "execute" else []
    if isinstance(node, ast.Attribute) and node.attr == "_revision":
        is_store = isinstance(node.value, ast.Name) and node.value.id == "Store"
        return ["reads the store's private _revision"] if is_store else []
    return []


def _import_from(module: str, names: set[str]) -> list[str]:
    if module.split(".")[0] == "sqlalchemy" and names - ALLOWED_SQLALCHEMY:
        return [f"imports {sorted(names - ALLOWED_SQLALCHEMY)} from sqlalchemy"]
    if module == "core.storage.schema" or (module == "core.storage" and "schema" in names):
        return ["imports the storage schema"]
    return []


def _modules_above_storage() -> list[Path]:
    return [p for p in sorted(CORE.rglob("*.py")) if "storage" not in p.relative_to(CORE).parts[:1]]


def test_no_sql_outside_core_storage() -> None:
    bad = {
        str(p.relative_to(CORE)): v
        for p in _modules_above_storage()
        if str(p.relative_to(CORE)) not in PENDING and (v := _violations(p))
    }
    assert bad == {}, f"SQL above core/storage: {bad}"


def test_the_check_finds_sql(tmp_path: Path) -> None:
    # The checker itself: each form of SQL it forbids is found in a sample module.
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from sqlalchemy import select, Connection\n"
        "from core.storage import schema as s\n"
        "import sqlalchemy\n"
        "def f(conn):\n"
        "    return conn.execute(select(s.memories)), Store._revision(conn)\n",
        encoding="utf-8",
    )
    found = _violations(sample)
    assert len(found) == 5, found
    assert any("['select']" in line for line in found)
    assert any(".execute(" in line for line in found)


def test_the_pending_list_is_not_stale() -> None:
    # Once a pending module is clean it must leave the list, so it cannot regress silently.
    for name in PENDING:
        assert _violations(CORE / name), f"{name} has no SQL any more: drop it from PENDING"
