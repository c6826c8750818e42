"""CLI verbs of the memory write and read paths (R7, R13-R22, R26), through CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from tests.conftest import PASSPHRASE

SCOPE = ["--scope", "user=alice", "--scope", "project=web-shop"]


@pytest.fixture
def run(tmp_path: Path) -> Any:
    """Invoke the CLI on one store, returning the click Result."""
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_DATA_DIR": str(tmp_path / "s")}
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, list(args), env=env, input=input, catch_exceptions=False)

    assert invoke("init").exit_code == 0
    return invoke


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output + (result.stderr or "")
    return json.loads(result.stdout)


def test_remember_search_inject_and_snapshot(run: Any) -> None:
    """R7, R15, R18: the user's remember is active, searchable, injected and recorded."""
    out = _json(run("--json", "remember", *SCOPE, "--text", "Remember: web-shop uses pnpm 9."))
    assert out["outcome"] == "active"
    mid = out["record"]["id"]
    hits = _json(run("--json", "search", *SCOPE, "which package manager does web-shop use"))
    assert hits[0]["memory_id"] == mid
    # A goal that shares a word with the memory: a fresh process's injection answers from
    # keywords while the model still loads (by design), which on a busy machine is the case.
    goal = "install the web-shop deps"
    injected = _json(run("--json", "inject", *SCOPE, "--budget", "300", "--session", "s1", goal))
    assert "pnpm 9" in injected["result"]["text"]
    snap_id = injected["result"]["snapshot_id"]
    snap = _json(run("--json", "snapshot", "show", snap_id))
    assert snap["injected"][0]["memory_id"] == mid and snap["policy_version"]
    human = run("snapshot", "show", snap_id)
    assert human.exit_code == 0 and "pnpm 9" in human.stdout


def test_inject_says_how_it_answered_and_an_opted_out_session_is_not_degraded(run: Any) -> None:
    """#43 item 8: an opted-out session's inject says "opted out", not "memory unavailable";
    a one-shot inject waits for its indexes to load, so it answers with both (#44)."""
    run("remember", *SCOPE, "--text", "Remember: web-shop uses pnpm 9.")
    first = run("inject", *SCOPE, "--session", "s-out", "install the web-shop deps")
    assert first.exit_code == 0 and "pnpm 9" in first.stdout
    assert "keyword and vector search" in first.stderr
    assert run("session", "opt-out", "s-out").exit_code == 0
    out = run("inject", *SCOPE, "--session", "s-out", "install the web-shop deps")
    assert out.exit_code == 0 and "pnpm 9" not in out.stdout
    assert "opted out" in out.stderr and "DEGRADED" not in out.stderr
    as_json = _json(run("--json", "inject", *SCOPE, "--session", "s-out", "web-shop deps"))
    assert as_json["result"]["mode"] == "opted_out" and not as_json["result"]["degraded"]
    assert as_json["snapshot"]["mode"] == "opted_out"


def test_review_queue_through_the_cli(run: Any) -> None:
    """R25: extract suggests, candidates list/edit/approve/reject work on ids and short refs."""
    run(
        "event",
        "add",
        "--session",
        "s1",
        "--actor",
        "user",
        "--trust",
        "user",
        *SCOPE,
        "--text",
        "For the record, we always run make check before pushing.",
    )
    run(
        "event",
        "add",
        "--session",
        "s1",
        "--actor",
        "user",
        "--trust",
        "user",
        *SCOPE,
        "--text",
        "We decided to use Renovate for dependency updates.",
    )
    outcomes = _json(run("--json", "extract", "--session", "s1"))
    assert {o["outcome"] for o in outcomes} == {"candidate"}
    queue = _json(run("--json", "candidates", "list"))
    assert len(queue) == 2
    first, second = queue[0]["id"], queue[1]["id"]
    edited = _json(
        run(
            "--json",
            "candidates",
            "edit",
            "m:" + first[-8:],
            "--text",
            "web-shop always runs make check before a push.",
            "--approve",
        )
    )
    assert edited["status"] == "active" and "make check" in edited["content"]
    rejected = _json(run("--json", "candidates", "reject", second, "--reason", "not true"))
    assert rejected["status"] == "rejected"
    assert _json(run("--json", "candidates", "list")) == []


def test_memory_controls_history_and_chain(run: Any) -> None:
    """R26, R5, R22: disable/enable/downgrade/exclude/quarantine write history; chain shows use."""
    mid = _json(
        run(
            "--json",
            "remember",
            "--scope",
            "user=alice",
            "--text",
            "Remember: wrap Python at 79 characters.",
        )
    )["record"]["id"]
    assert _json(run("--json", "memory", "disable", mid))["status"] == "disabled"
    assert _json(run("--json", "memory", "enable", mid))["status"] == "active"
    down = _json(run("--json", "memory", "downgrade", mid, *SCOPE))
    assert down["scope"] == {"project": "web-shop", "user": "alice"}
    assert _json(run("--json", "memory", "exclude", mid, "--session", "s9"))["status"] == "active"
    run("inject", *SCOPE, "--session", "s2", "reformat the Python code")
    report = _json(run("--json", "memory", "quarantine", mid, "--reason", "wrong rule"))
    assert report["affected_sessions"] == ["s2"]
    shown = _json(run("--json", "memory", "show", mid))
    actions = [d["action"] for d in shown["history"]]
    assert actions[:1] == ["remember"] and {
        "disable",
        "enable",
        "downgrade",
        "exclude",
        "quarantine",
    } <= set(actions)
    chain = _json(run("--json", "memory", "chain", mid))
    assert chain["activation"]["to_status"] == "active" and chain["sessions"] == ["s2"]


def test_delete_purge_replay_and_resume(run: Any, tmp_path: Path) -> None:
    """R19, R21: delete with purge; replay marks it; resume never re-injects it."""
    mid = _json(run("--json", "remember", *SCOPE, "--text", "Remember: the staging port is 5434."))[
        "record"
    ]["id"]
    snap = _json(run("--json", "inject", *SCOPE, "--session", "s1", "staging port"))["result"][
        "snapshot_id"
    ]
    stone = _json(run("--json", "memory", "delete", mid, "--reason", "moved", "--purge"))
    assert stone["purged"] and "vector_index" in stone["cleaned"]
    replayed = _json(run("--json", "replay", snap))
    # The port as a number of its own: a timestamp's microseconds may hold the digits.
    assert not re.search(r"(?<!\d)5434(?!\d)", replayed["text"])
    assert "deleted" in replayed["items"][0]["marks"]
    resumed = _json(run("--json", "resume", "s1"))
    assert resumed["items"] == [] and resumed["removed"][0]["memory_id"] == mid
    case = tmp_path / "case.json"
    assert run("memory", "export-case", mid, "--output", str(case)).exit_code == 0
    assert json.loads(case.read_text())["expected"]["exclude_memory_ids"] == [mid]


def test_policy_settings_and_index_verbs(run: Any) -> None:
    """R7 settings are stored and used; the indexes report and rebuild."""
    settings = _json(
        run("--json", "policy", "set", "confirm_scope_kinds=global", "inferred_ttl_days=7")
    )
    assert settings["confirm_scope_kinds"] == ["global"] and settings["inferred_ttl_days"] == 7.0
    out = _json(
        run("--json", "remember", "--scope", "user=alice", "--text", "Remember: I like tea.")
    )
    assert out["outcome"] == "candidate"
    bad = run("policy", "set", "bogus=1")
    assert bad.exit_code == 1 and "policy.bogus" in bad.stderr
    zero = run("policy", "set", "inferred_ttl_days=0")  # the error states the range refused
    assert zero.exit_code == 1 and "above 0 and at most 3650" in zero.stderr
    status = _json(run("--json", "index", "rebuild"))
    assert status["keyword_documents"] == 0 and "vector" in status


def test_bad_input_names_the_problem_and_changes_nothing(run: Any) -> None:
    """Clear errors, exit 1, nothing written."""
    before = _json(run("--json", "status"))["revision"]
    for args in (
        ("remember", "--scope", "user=alice", "--text", "   "),
        ("remember", "--scope", "planet=mars", "--text", "x"),
        ("memory", "delete", "mem_missing", "--reason", "x"),
        ("search", "--scope", "user=alice", ""),
        ("inject", "--scope", "user=alice", "--budget", "0", "goal"),
    ):
        result = run(*args)
        assert result.exit_code in (1, 2), args
    assert _json(run("--json", "status"))["revision"] == before


def test_export_then_import_into_another_store(run: Any, tmp_path: Path) -> None:
    """Memories move between stores; imported ones are suggestions the policy decides."""
    run("remember", *SCOPE, "--text", "Remember: web-shop deploys from the release branch.")
    run("remember", *SCOPE, "--text", "Remember my token sk-proj-Qm8vX2rT7LpN4wZ9cB6yH1kD3fJ5sA0e")
    target = tmp_path / "export.json"
    summary = _json(run("--json", "memory", "export", str(target)))
    assert summary["memories"] == 1  # the rejected secret is not exported
    assert "release branch" in target.read_text() and "Qm8vX2rT" not in target.read_text()
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_DATA_DIR": str(tmp_path / "t")}
    other = CliRunner()
    assert other.invoke(cli, ["init"], env=env).exit_code == 0
    result = other.invoke(cli, ["--json", "memory", "import", str(target)], env=env)
    assert result.exit_code == 0, result.output
    (outcome,) = json.loads(result.stdout)
    assert outcome["outcome"] == "candidate"
    again = other.invoke(cli, ["--json", "memory", "import", str(target)], env=env)
    assert json.loads(again.stdout)[0]["outcome"] == "merged"
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "memory-center-export-v1", "memories": [{"content": ""}]}')
    bad = other.invoke(cli, ["memory", "import", str(broken)], env=env)
    assert bad.exit_code == 1 and "memories[0].content" in bad.stderr


def test_bulk_approve_by_ids_and_by_scope(run: Any) -> None:
    """#13: `candidates approve` takes many ids (one transaction), or every suggestion of a
    scope with --all-suggested; a bad id approves nothing."""
    for project, text in [
        ("web-shop", "We always run make check before pushing."),
        ("web-shop", "We decided to use Renovate for dependency updates."),
        ("billing", "We always export invoices as PDF."),
        ("billing", "We decided to number invoices per year."),
    ]:
        scope = ["--scope", "user=alice", "--scope", f"project={project}"]
        session = f"s-{project}-{len(text)}"
        args = ["--session", session, "--actor", "user", "--trust", "user", *scope]
        assert run("event", "add", *args, "--text", text).exit_code == 0
        assert run("extract", "--session", session).exit_code == 0
    queue = _json(run("--json", "candidates", "list"))
    by_project = {
        p: [r["id"] for r in queue if r["scope"]["project"] == p] for p in ("web-shop", "billing")
    }
    assert len(by_project["web-shop"]) == 2 and len(by_project["billing"]) == 2
    bad = run("candidates", "approve", by_project["web-shop"][0], "mem_nope")
    assert bad.exit_code == 1 and "mem_nope" in bad.stderr
    assert len(_json(run("--json", "candidates", "list"))) == 4  # nothing approved
    done = _json(run("--json", "candidates", "approve", *by_project["web-shop"]))
    assert {r["status"] for r in done} == {"active"} and len(done) == 2
    rest = _json(
        run("--json", "candidates", "approve", "--all-suggested", "--scope", "project=billing")
    )
    assert sorted(r["id"] for r in rest) == sorted(by_project["billing"])
    assert _json(run("--json", "candidates", "list")) == []
    neither = run("candidates", "approve")
    assert neither.exit_code == 2 and "--all-suggested" in neither.stderr


def test_remember_declares_what_it_replaces_or_restates(run: Any) -> None:
    """#40: `--replaces` supersedes the user's own older memory; `--same-as` merges; a bad
    reference is refused naming the option, and nothing is written."""
    old = _json(run("--json", "remember", *SCOPE, "--text", "Deploys go out on Mondays."))
    old_id = old["record"]["id"]
    ref = f"m:{old_id[-8:]}"
    new = _json(
        run("--json", "remember", *SCOPE, "--text", "We ship Thursdays now.", "--replaces", ref)
    )
    assert new["superseded"] == [old_id]
    same = _json(
        run(
            "--json",
            "remember",
            *SCOPE,
            "--text",
            "Thursday is ship day.",
            "--same-as",
            new["record"]["id"],
        )
    )
    assert same["outcome"] == "merged"
    before = _json(run("--json", "memory", "list"))
    bad = run("remember", *SCOPE, "--text", "Ship on Fridays.", "--replaces", "mem_nope")
    assert bad.exit_code != 0
    assert "replaces" in bad.output + (bad.stderr or "") and "mem_nope" in bad.stderr
    assert _json(run("--json", "memory", "list")) == before


def test_candidates_answer_settles_a_possible_relation_and_refuses_bad_answers(run: Any) -> None:
    """#40: an item "possibly the same as / replaces / contradicts m:..." is answered from
    the command line as with the desktop's keys; a bad answer or a memory with nothing to
    answer is refused."""
    first = _json(
        run(
            "--json",
            "remember",
            *SCOPE,
            "--text",
            "My work laptop is a 14-inch MacBook Pro with 16GB of RAM.",
        )
    )
    second = _json(
        run("--json", "remember", *SCOPE, "--text", "the work MBP I have has 32 GB RAM.")
    )
    assert second["outcome"] == "candidate"
    assert any(r.startswith("possibly ") for r in second["reasons"]), second["reasons"]
    mid = second["record"]["id"]
    bad = run("candidates", "answer", mid, "maybe")
    assert bad.exit_code == 2 and "'maybe' is not one of" in bad.output
    nothing = run("candidates", "answer", first["record"]["id"], "same")
    assert nothing.exit_code == 1 and "has no possible relation to answer" in nothing.output
    assert [r["id"] for r in _json(run("--json", "candidates", "list"))] == [mid]  # lost nothing
    answered = _json(run("--json", "candidates", "answer", mid, "replaces"))
    assert {r["id"]: r["status"] for r in answered} == {
        mid: "active",
        first["record"]["id"]: "superseded",
    }
    assert _json(run("--json", "candidates", "list")) == []
    undone = run("memory", "undo", "--last")
    assert undone.exit_code == 0
    assert [r["id"] for r in _json(run("--json", "candidates", "list"))] == [mid]


@pytest.mark.slow
def test_approve_all_suggested_beyond_one_transaction(tmp_path: Path) -> None:
    """More suggestions than one batch command takes (10,000): --all-suggested approves them
    a batch at a time instead of failing on the limit; ids given by hand stay one
    transaction and are refused by count. The hashing embedder keeps 10,001 writes quick."""
    from core import MemoryService
    from core.model.limits import MAX_BATCH

    store, total = tmp_path / "s", MAX_BATCH + 1
    with MemoryService.open(
        store, passphrase=PASSPHRASE, prefer_keyring=False, create=True, embedder="hashing"
    ) as svc:
        for start in range(0, total, 5_001):
            items = [
                {"scope": {"user": "alice"}, "text": f"Build box {i} runs nightly job {i * 7}"}
                for i in range(start, min(start + 5_001, total))
            ]
            svc.memories.suggest_many(items)
    env = {
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_DATA_DIR": str(store),
        "MEMORY_CENTER_EMBEDDER": "hashing",
    }

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)

    done = run("candidates", "approve", "--all-suggested")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"approved {total}"
    assert _json(run("--json", "candidates", "list")) == []
    too_many = run("candidates", "approve", *(f"mem_{n}" for n in range(total)))
    assert too_many.exit_code == 2 and f"at most {MAX_BATCH} ids" in too_many.stderr
