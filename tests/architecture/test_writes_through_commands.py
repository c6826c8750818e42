"""#39: the application and the desktop change the store only through commands: no module of
app/ or ui/ (nor the SDK or the agent edge) calls a namespace's write operation directly;
each goes through `service.commands.run`, where the agent edge stamps it."""

from __future__ import annotations

import ast
from pathlib import Path

from core.services.commands import HANDLERS

ROOT = Path(__file__).resolve().parents[2]
WRITES = {(namespace, operation) for namespace, operation in HANDLERS.values()}
SOURCES = [
    *sorted((ROOT / "app").rglob("*.py")),
    *sorted((ROOT / "ui").rglob("*.py")),
    ROOT / "core/sdk.py",
    ROOT / "core/agents/edge.py",
]


def _direct_writes(path: Path, base: Path = ROOT) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Attribute) and (receiver.attr, node.func.attr) in WRITES:
            found.append(f"{path.relative_to(base)}:{node.lineno} {receiver.attr}.{node.func.attr}")
    return found


def test_the_application_writes_only_through_commands() -> None:
    direct = [hit for path in SOURCES for hit in _direct_writes(path)]
    assert not direct, "write through service.commands.run instead:\n" + "\n".join(direct)


def test_the_check_finds_a_direct_write(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f(service):\n    service.review.approve('m1')\n", encoding="utf-8")
    assert _direct_writes(probe, tmp_path) == ["probe.py:2 review.approve"]
