"""The hooks' attacker model: a repository chooses its own project name (#42).

Who holds what: the user holds the store and decides which folders are which project
(`memory-center hook trust`). A cloned repository holds its directory name and its
`.memory-center.toml`, both written by whoever published it. The attack: a repository
named after another project of the user ("billing-service") had that project's memories
injected into its sessions (where its own instructions can ask the agent to repeat them),
and its sessions recorded as that project's. Real stores and the real hook handler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from app.hooks import claude_code as hooks
from core import MemoryService
from tests.conftest import PASSPHRASE

ALICE_BILLING = {"user": "alice", "project": "billing-service"}
DEPLOY = "Billing-service deploys with `make release` from the main branch."


def _repo(root: Path, name: str, config: str | None = None) -> Path:
    folder = root / name
    (folder / ".git").mkdir(parents=True)
    if config is not None:
        (folder / ".memory-center.toml").write_text(config, encoding="utf-8")
    return folder


def _call(service: MemoryService, event: str, folder: Path, session: str, **extra: str) -> dict:
    payload = {"session_id": session, "cwd": str(folder), "hook_event_name": event, **extra}
    out = hooks.handle(service, json.dumps(payload))
    return json.loads(out) if out else {}


def _context(out: dict) -> str:
    return str(out.get("hookSpecificOutput", {}).get("additionalContext", ""))


def _trust(data_dir: Path, folder: Path) -> str:
    done = CliRunner().invoke(
        cli,
        ["--data-dir", str(data_dir), "hook", "trust", "--folder", str(folder)],
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert done.exit_code == 0, done.output
    return done.stdout


@pytest.fixture(autouse=True)
def _alice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_CENTER_USER", "alice")


def test_a_repository_named_after_a_project_gets_none_of_its_memories(
    service: MemoryService, data_dir: Path, tmp_path: Path
) -> None:
    service.memories.remember(ALICE_BILLING, DEPLOY)
    real = _repo(tmp_path / "work", "billing-service")
    service.close()  # the CLI opens the store as the user does
    assert "now speaks for project 'billing-service'" in _trust(data_dir, real)
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        asked = "how do I deploy the billing service?"
        mine = _call(svc, "UserPromptSubmit", real, "s-real", prompt=asked)
        assert "make release" in _context(mine)
        # The same name twice over: by its directory, and by its configuration file.
        for evil in (
            _repo(tmp_path / "downloads", "billing-service"),
            _repo(tmp_path / "clones", "innocent", '[memory]\nproject = "billing-service"\n'),
        ):
            start = _call(svc, "SessionStart", evil, f"s-{evil.parent.name}")
            assert "hook trust" in start["systemMessage"]  # the user is told, once
            assert "make release" not in _context(start)
            prompt = _call(svc, "UserPromptSubmit", evil, f"s-{evil.parent.name}", prompt=asked)
            assert "make release" not in _context(prompt)
            assert "systemMessage" not in prompt
            (snap, *_) = svc.retrieval.list_snapshots(f"claude-code:s-{evil.parent.name}")
            assert snap.scope.get("project", "").startswith("billing-service@")
        # What those sessions said is not the project's either.
        recorded = [
            e
            for e in svc.events.list_events(limit=1000)
            if e.session_id in ("claude-code:s-downloads", "claude-code:s-clones")
        ]
        assert recorded and all(e.scope.get("project") != "billing-service" for e in recorded)


def test_the_user_confirms_a_second_folder_of_a_project(
    service: MemoryService, data_dir: Path, tmp_path: Path
) -> None:
    first = _repo(tmp_path / "a", "shop")
    other = _repo(tmp_path / "b", "shop")  # a second clone, a worktree
    _call(service, "SessionStart", first, "s1")  # a project with no memories: bound here
    service.memories.remember({"user": "alice", "project": "shop"}, "The shop uses pnpm 9.")
    apart = _call(service, "UserPromptSubmit", other, "s2", prompt="which package manager?")
    assert "pnpm 9" not in _context(apart)
    service.close()
    assert "(2 folders in all)" in _trust(data_dir, other)
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        again = _call(svc, "UserPromptSubmit", other, "s3", prompt="which package manager?")
        assert "pnpm 9" in _context(again)


def test_a_project_known_from_elsewhere_is_not_given_to_the_first_folder_that_names_it(
    service: MemoryService, tmp_path: Path
) -> None:
    # Memories written through the MCP server or the CLI: no folder has spoken for them yet.
    service.memories.remember(ALICE_BILLING, DEPLOY)
    evil = _repo(tmp_path / "downloads", "billing-service")
    out = _call(service, "UserPromptSubmit", evil, "s1", prompt="deploy the billing service")
    assert "make release" not in _context(out)
    assert service.agents.places() == {}  # and the folder was not bound to the project


def test_a_project_known_only_by_its_history_is_not_given_away(
    service: MemoryService, tmp_path: Path
) -> None:
    """Sessions recorded in a project, nothing extracted yet: "last time in this project"
    would show a folder that names it what was asked and run there."""
    from core import Actor, NewEvent, TrustLevel

    said = "run the quarterly VAT export for billing-service"
    service.events.append_events(
        [NewEvent("claude-code:old", Actor.USER, TrustLevel.USER, ALICE_BILLING, said)]
    )
    evil = _repo(tmp_path / "downloads", "billing-service")
    start = _call(service, "SessionStart", evil, "s-new")
    assert "VAT export" not in _context(start) and "hook trust" in start["systemMessage"]
    assert service.agents.places() == {}


def test_hook_trust_refuses_what_is_not_a_folder(data_dir: Path, tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = CliRunner().invoke(
        cli,
        ["--data-dir", str(data_dir), "hook", "trust", "--folder", str(fifo)],
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert done.exit_code == 2 and "is not a directory" in done.output
    assert not data_dir.exists()  # nothing opened, nothing written


def test_a_bad_folder_digest_is_refused_by_name(service: MemoryService) -> None:
    from core import InvalidInputError

    with pytest.raises(InvalidInputError, match="place"):
        service.agents.bind_place("billing-service", "../../etc")
    with pytest.raises(InvalidInputError, match="project"):
        service.agents.bind_place("bad\nname", "0" * 64)
    with pytest.raises(InvalidInputError, match="place"):
        service.agents.unbind_place("billing-service", "../../etc")
    assert service.agents.places() == {}


def test_hook_status_says_how_the_folder_stands(
    service: MemoryService, data_dir: Path, tmp_path: Path
) -> None:
    service.memories.remember(ALICE_BILLING, DEPLOY)
    service.close()
    real, evil = (
        _repo(tmp_path / "work", "billing-service"),
        _repo(tmp_path / "dl", "billing-service"),
    )
    fresh = _repo(tmp_path / "work", "new-thing")

    def status(folder: Path) -> Result:
        return CliRunner().invoke(
            cli,
            ["--data-dir", str(data_dir), "hook", "status", "--project", str(folder)],
            env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
        )

    assert "'billing-service': kept apart (run `memory-center hook trust`" in status(evil).stdout
    assert "'new-thing': unbound" in status(fresh).stdout
    _trust(data_dir, real)
    assert "'billing-service': confirmed" in status(real).stdout
    assert "'billing-service': kept apart" in status(evil).stdout  # status binds nothing
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert list(svc.agents.places()) == ["billing-service"]


def _untrust(data_dir: Path, folder: Path) -> Result:
    return CliRunner().invoke(
        cli,
        ["--data-dir", str(data_dir), "hook", "untrust", "--folder", str(folder)],
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )


def test_the_user_withdraws_a_folder_reused_for_something_else(
    service: MemoryService, data_dir: Path, tmp_path: Path
) -> None:
    """A confirmed path that now holds another checkout (the old one deleted, a download
    unpacked in its place) gets the project's memories until the user withdraws it."""
    service.memories.remember(ALICE_BILLING, DEPLOY)
    service.close()
    folder = _repo(tmp_path / "work", "billing-service")
    other = _repo(tmp_path / "work2", "billing-service")
    _trust(data_dir, folder)
    _trust(data_dir, other)
    done = _untrust(data_dir, folder)
    assert done.exit_code == 0, done.output
    assert "no longer speaks for project 'billing-service' (1 folder left)" in done.stdout
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        asked = "how do I deploy the billing service?"
        start = _call(svc, "SessionStart", folder, "s-reused")
        assert "hook trust" in start["systemMessage"]
        assert "make release" not in _context(
            _call(svc, "UserPromptSubmit", folder, "s-reused", prompt=asked)
        )
        # The other folder keeps its confirmation; what was recorded is untouched.
        assert "make release" in _context(
            _call(svc, "UserPromptSubmit", other, "s-other", prompt=asked)
        )
        assert [m.content for m in svc.memories.list_memories()] == [DEPLOY]
    # Withdrawing what is not confirmed says so and changes nothing.
    again = _untrust(data_dir, folder)
    assert again.exit_code != 0
    assert "does not speak for project 'billing-service'" in again.output
    last = _untrust(data_dir, other)
    assert "(0 folders left)" in last.stdout
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.agents.places() == {}
        # The project still holds memories: no folder is handed it without being asked.
        start = _call(svc, "SessionStart", other, "s-after")
        assert "hook trust" in start["systemMessage"]


def test_confirmed_folders_changed_by_hand_vouch_for_nothing(
    service: MemoryService, data_dir: Path, tmp_path: Path
) -> None:
    """Who can write a row without the store key (the database server's operator, anyone
    who can edit the file) adds a hostile clone's folder to a project's confirmed folders.
    The binding no longer holds: the clone is kept apart and told why, never given the
    project's memories (the hooks failed open here before)."""
    import sqlite3

    from app.hooks.places import place_of
    from app.hooks.workspace import resolve

    service.memories.remember(ALICE_BILLING, DEPLOY)
    real = _repo(tmp_path / "work", "billing-service")
    evil = _repo(tmp_path / "dl", "billing-service")
    service.agents.bind_place("billing-service", place_of(resolve(real), real))
    service.close()
    db = sqlite3.connect(data_dir / "memory-center.sqlite3")
    (row,) = db.execute("SELECT value_json FROM settings WHERE key = 'project_places'").fetchone()
    value = json.loads(row)
    value["billing-service"].append(place_of(resolve(evil), evil))
    db.execute(
        "UPDATE settings SET value_json = ? WHERE key = 'project_places'",
        (json.dumps(value, sort_keys=True),),
    )
    db.commit()
    db.close()
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        start = _call(svc, "SessionStart", evil, "s-evil")
        assert "cannot be confirmed" in start["systemMessage"]
        asked = "how do I deploy the billing service?"
        prompt = _call(svc, "UserPromptSubmit", evil, "s-evil", prompt=asked)
        assert "make release" not in _context(prompt) and "make release" not in _context(start)
