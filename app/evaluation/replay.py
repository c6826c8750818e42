"""Replay recorded sessions through the Claude Code hooks under a configuration (R29).

For each recorded session and configuration: a fresh encrypted store seeded with the
session's memories, a project directory whose `.memory-center.toml` carries the
configuration (budgets; memory off means the session is opted out: nothing injected,
nothing extracted), then every hook call in the order Claude Code makes them (SessionStart,
per turn UserPromptSubmit / PostToolUse / Stop, PreCompact half-way, SessionEnd), with the
user's actions from the sidecar between turns. The transcript file grows turn by turn as
Claude Code would write it. `core.evaluation.ab` scores the snapshots it leaves.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.compose import embedder_from_env
from app.evaluation.sessions import RecordedSession, hook_payloads, lifecycle_payload
from app.hooks.claude_code import SESSION_PREFIX, handle
from app.hooks.places import place_of
from app.hooks.workspace import USER_ENV, resolve
from core import InvalidInputError, MemoryService, PolicySettings
from core.evaluation.ab import Call, Score, score_session
from core.model import commands as c

CLI = c.Origin("cli")


@dataclass(frozen=True)
class Configuration:
    """One side of the comparison, read from a policy JSON file."""

    name: str
    memory: bool = True
    budget_tokens: int = 400
    session_budget_tokens: int = 250
    extract_each_turn: bool = False
    policy: dict[str, Any] = field(default_factory=dict)


def load_configuration(path: Path) -> Configuration:
    """Read a configuration file. Raises InvalidInputError naming the file and field."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(str(path), f"not a readable JSON file: {exc}") from None
    if not isinstance(doc, dict):
        raise InvalidInputError(str(path), "must be a JSON object")
    known = {
        "name",
        "memory",
        "budget_tokens",
        "session_budget_tokens",
        "extract_each_turn",
        "policy",
    }
    unknown = sorted(set(doc) - known)
    if unknown:
        raise InvalidInputError(f"{path}: {unknown[0]}", f"unknown key; allowed: {sorted(known)}")
    name = doc.get("name", path.stem)
    budgets = [doc.get(k, d) for k, d in (("budget_tokens", 400), ("session_budget_tokens", 250))]
    for key, value in zip(("budget_tokens", "session_budget_tokens"), budgets, strict=True):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 20_000:
            raise InvalidInputError(f"{path}: {key}", "must be a whole number from 1 to 20000")
    for flag in ("memory", "extract_each_turn"):
        if not isinstance(doc.get(flag, False), bool):
            raise InvalidInputError(f"{path}: {flag}", "must be true or false")
    if not isinstance(name, str) or not name:
        raise InvalidInputError(f"{path}: name", "must be a non-empty string")
    policy = doc.get("policy", {})
    if not isinstance(policy, dict):
        raise InvalidInputError(f"{path}: policy", "must be an object of policy settings")
    PolicySettings.from_dict({**PolicySettings().to_dict(), **policy})  # names a bad setting
    return Configuration(
        name,
        doc.get("memory", True),
        budgets[0],
        budgets[1],
        doc.get("extract_each_turn", False),
        policy,
    )


def replay(session: RecordedSession, config: Configuration) -> Score:
    """Replay one session under one configuration in a throw-away store; its score."""
    with tempfile.TemporaryDirectory(prefix="mc-ab-") as tmp:
        work = Path(tmp)
        svc = MemoryService.open(
            work / "store",
            passphrase=secrets.token_hex(16),
            prefer_keyring=False,
            embedder=embedder_from_env(),
        )
        # The hooks take the user from the environment, never from the repository's file.
        before = os.environ.get(USER_ENV)
        os.environ[USER_ENV] = session.user
        try:
            return _replay(svc, session, config, work)
        finally:
            svc.close()
            if before is None:
                os.environ.pop(USER_ENV, None)
            else:
                os.environ[USER_ENV] = before


def _replay(
    svc: MemoryService, session: RecordedSession, config: Configuration, work: Path
) -> Score:
    if config.policy:
        svc.commands.run(c.UpdatePolicySettings(dict(config.policy)), CLI)
    ids = _seed(svc, session)
    project = _project(work, session, config)
    # The replayed user works in their own project's folder: confirmed, as `hook trust` does.
    svc.commands.run(c.BindProjectPlace(session.project, place_of(resolve(project), project)), CLI)
    transcript = work / f"{session.session_id}.jsonl"
    transcript.touch()
    name = SESSION_PREFIX + session.session_id

    def lifecycle(event: str, **extra: Any) -> dict[str, Any]:
        return lifecycle_payload(session, event, transcript, project, **extra)

    calls = [_call(svc, name, lifecycle("SessionStart", source="startup"), frozenset(), False)]
    middle = max(1, len(session.turns) // 2)
    for number, turn in enumerate(session.turns, start=1):
        payloads = hook_payloads(session, turn, transcript, project)
        used = frozenset(ids[k] for k in turn.used if k in ids)
        calls.append(_call(svc, name, payloads["prompt"], used))
        with transcript.open("a", encoding="utf-8") as out:
            out.write("\n".join(turn.lines) + "\n")
        for payload in [*payloads["tools"], payloads["stop"]]:
            handle(svc, json.dumps(payload))
        if number == middle:
            handle(svc, json.dumps(lifecycle("PreCompact", trigger="auto")))
        _act(svc, session, ids, number, name)
    handle(svc, json.dumps(lifecycle("SessionEnd", reason="exit")))
    score = score_session(svc, calls, seeded=ids.values())
    events = svc.events.list_events(session=name, limit=10_000)
    score.degraded = sum(1 for e in events if e.kind.value == "degraded")
    return score


def _seed(svc: MemoryService, session: RecordedSession) -> dict[str, str]:
    """The session's memories as the user's own (active); key -> memory id."""
    ids = {}
    for mem in session.memories:
        out = svc.commands.run(
            c.Remember(mem["scope"], mem["text"], kind=mem.get("kind")), CLI
        ).value
        if out.record is not None:
            ids[mem["key"]] = out.record.id
    return ids


def _project(work: Path, session: RecordedSession, config: Configuration) -> Path:
    project = work / "projects" / session.project
    (project / ".git").mkdir(parents=True)
    (project / ".memory-center.toml").write_text(
        "[memory]\n"
        f"opt_out = {'false' if config.memory else 'true'}\n"
        f"budget_tokens = {config.budget_tokens}\n"
        f"session_budget_tokens = {config.session_budget_tokens}\n"
        f"extract_each_turn = {'true' if config.extract_each_turn else 'false'}\n",
        encoding="utf-8",
    )
    return project


def _call(
    svc: MemoryService,
    name: str,
    payload: dict[str, Any],
    used: frozenset[str],
    labelled: bool = True,
) -> Call:
    before = len(svc.retrieval.list_snapshots(name)) if _exists(svc, name) else 0
    t0 = time.perf_counter()
    handle(svc, json.dumps(payload, ensure_ascii=False))
    latency = (time.perf_counter() - t0) * 1000
    snaps = svc.retrieval.list_snapshots(name) if _exists(svc, name) else []
    snapshot = snaps[-1].id if len(snaps) > before else None
    return Call(snapshot, used, latency, labelled)


def _exists(svc: MemoryService, name: str) -> bool:
    return any(s.id == name for s in svc.events.list_sessions(limit=10_000))


def _act(
    svc: MemoryService, session: RecordedSession, ids: dict[str, str], turn: int, name: str
) -> None:
    """The user's actions recorded after this turn (delete, observe, correct)."""
    scope = {"user": session.user, "project": session.project}
    for action in (a for a in session.actions if a.get("after_turn") == turn):
        if "delete" in action:
            svc.commands.run(
                c.Delete(
                    ids[action["delete"]], reason="the user deleted it", requested_by=session.user
                ),
                CLI,
            )
        elif "observe" in action:
            seen = action["observe"]
            svc.commands.run(
                c.Observe(scope, seen["text"], session=name, contradicts=ids[seen["contradicts"]]),
                CLI,
            )
        elif "correct" in action:
            _correct(svc, set(ids.values()), action["correct"], session.user)


def _correct(svc: MemoryService, seeded: set[str], spec: dict[str, str], user: str) -> None:
    """The user corrects what the agent adopted: a matching new memory is deleted/rejected."""
    needle = spec["match"].casefold()
    for record in svc.memories.list_memories():
        if record.id in seeded or needle not in record.content.casefold():
            continue
        if record.status.value == "active":
            svc.commands.run(
                c.Delete(record.id, reason=spec.get("reason", "corrected"), requested_by=user), CLI
            )
        elif record.status.value in ("candidate", "quarantined"):
            svc.commands.run(
                c.Reject(record.id, reason=spec.get("reason", "corrected"), by=user), CLI
            )
