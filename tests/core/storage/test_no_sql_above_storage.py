"""No SQL above `core/storage/` (#15): the engine's other layers reach tables only through
storage repositories. A module above storage may name `sqlalchemy.Connection` (to pass a
read connection through), nothing else of SQLAlchemy, never the schema, and never call
`.execute(`."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[3] / "core"
ALLOWED_SQLALCHEMY = {"Connection"}
# Purge steps that rewrite every place a copy of deleted content can hide; they are to move
# into storage repositories next (the list of places stays in the workflow).
PENDING = {"workflows/copies.py"}


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] == "sqlalchemy":
                names = {a.name for a in node.names} - ALLOWED_SQLALCHEMY
                if names:
                    found.append(f"line {node.lineno}: imports {sorted(names)} from sqlalchemy")
            if node.module == "core.storage.schema" or (
                node.module == "core.storage" and any(a.name == "schema" for a in node.names)
            ):
                found.append(f"line {node.lineno}: imports the storage schema")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sqlalchemy" or alias.name == "core.storage.schema":
                    found.append(f"line {node.lineno}: imports {alias.name}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "execute"
        ):
            found.append(f"line {node.lineno}: calls .execute(")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "_revision"
            and isinstance(node.value, ast.Name)
            and node.value.id == "Store"
        ):
            found.append(f"line {node.lineno}: reads the store's private _revision")
    return found


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
