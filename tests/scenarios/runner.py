"""Acceptance-scenario runner (README of the scenario corpus, sections 2 to 5).

Plays one scenario file against a fresh store through `ProductAdapter`, step by step, and raises
`ScenarioFailure` (an AssertionError) at the first step that does not behave as stated, naming the
scenario, the step number (1-based), its op and what differed.

Script mode prints one line per scenario and the totals, which is how the team reads "N of M
scenarios pass":

    python -m tests.scenarios.runner [scenario ids or paths ...]
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import queue
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.scenarios import adapter as product
from tests.scenarios.adapter import Opener, ProductAdapter, ServiceLacksError
from tests.scenarios.common import StepFailure, fail
from tests.scenarios.schema import ScenarioFormatError, validate
from tests.scenarios.text import all_match, as_patterns

STEP_LIMIT_S = 60.0
"""Stall guard for every step (README 2.6); inject and search calls also get 10 s each, timed
around the product call itself (see `common.within_hot_path`)."""
ENV_DIR = "MEMORY_CENTER_SCENARIOS_DIR"


def default_scenario_dir() -> Path:
    """`$MEMORY_CENTER_SCENARIOS_DIR`, else `../shared/scenarios` next to the repository."""
    configured = os.environ.get(ENV_DIR)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2].parent / "shared" / "scenarios"


class ScenarioFailure(AssertionError):
    """A scenario step did not behave as stated."""

    def __init__(self, scenario_id: str, index: int, op: str, message: str) -> None:
        super().__init__(f"{scenario_id}: step {index} {op}: {message}")
        self.scenario_id = scenario_id
        self.index = index
        self.op = op
        self.message = message


@dataclass
class InjectCall:
    """What an inject label names: the call and the snapshot it recorded."""

    snapshot_id: str
    session: str | None
    result: Any


@dataclass
class PendingError:
    """Outcome of a step that must fail, kept for the `expect_error` step after it."""

    error: BaseException | None
    before: list[tuple[str, str, int, str]]


@dataclass
class _Job:
    fn: Callable[[], Any]
    future: Future[Any] = field(default_factory=Future)


class _Worker:
    """One daemon thread that makes every product call of a scenario.

    A hung step then only blocks this thread: the runner times out on the future and reports a
    stall instead of hanging the test session. Using one thread for the whole scenario keeps any
    thread affinity the product's connections may have.
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self.stalled = False
        threading.Thread(target=self._loop, name="scenario-worker", daemon=True).start()

    def _loop(self) -> None:
        while (job := self._jobs.get()) is not None:
            if not job.future.set_running_or_notify_cancel():
                continue
            try:
                job.future.set_result(job.fn())
            except BaseException as exc:  # handed to the caller
                job.future.set_exception(exc)

    def run(self, fn: Callable[[], Any], timeout: float) -> Any:
        """Run `fn` on the worker; raise StepFailure when it takes longer than `timeout`."""
        job = _Job(fn)
        self._jobs.put(job)
        started = time.monotonic()
        try:
            return job.future.result(timeout)
        except TimeoutError:
            if job.future.done():
                raise
            self.stalled = True
            fail(f"stalled: still running after {time.monotonic() - started:.1f} s")

    def stop(self) -> None:
        """Let the thread end after its current job."""
        self._jobs.put(None)


# --- the run of one scenario -------------------------------------------------------------------


class ScenarioRun:
    """State of one scenario being played: the store, the labels and the security window."""

    def __init__(
        self, scenario: Mapping[str, Any], data_dir: Path, opener: Opener | None = None
    ) -> None:
        self.scenario = scenario
        self.sid: str = scenario["id"]
        self.product = ProductAdapter(data_dir, opener=opener)
        self.events: dict[str, str] = {}
        self.memories: dict[str, list[str]] = {}  # label -> ids it denoted, current last
        self.injects: dict[str, InjectCall] = {}
        self.latest_inject: dict[str, InjectCall] = {}  # session -> its latest inject
        self.snapshot_ids: list[str] = []
        self.scopes: list[dict[str, str]] = []
        self.security_seen: set[str] = set()
        self.pending: PendingError | None = None
        self.handlers: dict[str, Callable[[Mapping[str, Any]], None]] = _handlers(self)

    # playing

    def play(self) -> None:
        """Run every step in order; raise ScenarioFailure at the first failing one.

        Opening and closing the store count as steps 0 and N+1, so a store that cannot be
        opened or closed is reported like any other failing step.
        """
        worker = _Worker()
        steps: list[Mapping[str, Any]] = self.scenario["steps"]
        try:
            self._guarded(worker, 0, "open", self.product.open, STEP_LIMIT_S)
            for index, step in enumerate(steps, start=1):
                must_fail = index < len(steps) and steps[index]["op"] == "expect_error"
                run_step = functools.partial(self._step, step, must_fail)
                self._guarded(worker, index, step["op"], run_step, STEP_LIMIT_S)
            self._guarded(worker, len(steps) + 1, "close", self.product.close, STEP_LIMIT_S)
        finally:
            if not worker.stalled:
                worker.run(self.product.close, STEP_LIMIT_S)  # idempotent; after a failure
            worker.stop()

    def _guarded(
        self, worker: _Worker, index: int, op: str, fn: Callable[[], Any], limit: float
    ) -> None:
        """Run one step on the worker and turn whatever went wrong into a ScenarioFailure."""
        try:
            worker.run(fn, limit)
        except (StepFailure, ServiceLacksError) as exc:
            raise ScenarioFailure(self.sid, index, op, str(exc)) from exc
        except Exception as exc:
            raise ScenarioFailure(self.sid, index, op, _describe_error(exc)) from exc

    def _step(self, step: Mapping[str, Any], must_fail: bool) -> None:
        handler = self.handlers[step["op"]]
        if not must_fail:
            handler(step)
            return
        before = self.fingerprint()
        try:
            handler(step)
        except (StepFailure, ServiceLacksError):
            raise
        except Exception as exc:
            self.pending = PendingError(exc, before)
        else:
            self.pending = PendingError(None, before)

    def fingerprint(self) -> list[tuple[str, str, int, str]]:
        """Every memory's (id, status, revision, content): what a failed step must not change."""
        return sorted(
            (r.id, product.stored_status_of(r.status), r.revision, r.content)
            for r in self.product.all_memories()
        )

    # labels and matchers

    def event_id(self, label: str) -> str:
        """The id of the event an event label names."""
        return self.events[label]

    def label_ids(self, label: str) -> list[str]:
        """Every id a memory label has denoted (oldest first); empty when unbound."""
        return self.memories.get(label, [])

    def bind_memory(self, label: str | None, record: Any) -> None:
        """Bind a memory label to a record, or leave it unbound when nothing was stored."""
        if label is not None:
            self.memories[label] = [record.id] if record is not None else []

    def follow(self, old_id: str, value: Any) -> None:
        """A label follows its memory when an action answers with a new record (e.g. edit)."""
        record = _record_in(value)
        if record is None or record.id == old_id:
            return
        for ids in self.memories.values():
            if ids and ids[-1] == old_id:
                ids.append(record.id)

    def records(self, matcher: Mapping[str, Any], *, lineage: bool = False) -> list[Any]:
        """Records selected by a matcher, in every status and scope (README 3.4)."""
        if matcher.get("nonexistent"):
            return []
        if "label" in matcher:
            ids = self.label_ids(matcher["label"])
            ids = ids if lineage else ids[-1:]
            pool = [r for r in (self.product.memory(i) for i in ids) if r is not None]
        else:
            pool = self.product.all_memories()
        return [r for r in pool if self._fits(r, matcher)]

    def _fits(self, record: Any, matcher: Mapping[str, Any]) -> bool:
        if "contains" in matcher and all_match(
            record.content or "", as_patterns(matcher["contains"])
        ):
            return False
        if "from_event" in matcher and self.event_id(matcher["from_event"]) not in tuple(
            record.source_event_ids
        ):
            return False
        if any(record.scope.get(k) != v for k, v in matcher.get("scope", {}).items()):
            return False
        return "kind_in" not in matcher or product.kind_of(record) in matcher["kind_in"]

    def ids(self, matcher: Mapping[str, Any]) -> set[str]:
        """Ids a matcher stands for in past calls: a label also names its earlier revisions."""
        if set(matcher) == {"label"}:
            return set(self.label_ids(matcher["label"]))
        return {r.id for r in self.records(matcher, lineage=True)}

    def one_id(self, matcher: Mapping[str, Any]) -> str:
        """The single record an action targets; unbound labels and `nonexistent` give an id
        the product does not know, so the product itself must answer not_found."""
        if matcher.get("nonexistent"):
            return self.product.fake_memory_id()
        if "label" in matcher and not self.label_ids(matcher["label"]):
            return self.product.fake_memory_id()
        return str(self.one_record(matcher).id)

    def one_record(self, matcher: Mapping[str, Any]) -> Any:
        """The single record a matcher selects, or fail saying none or several matched."""
        found = self.records(matcher)
        if len(found) != 1:
            what = "no record" if not found else f"{len(found)} records"
            fail(f"matcher {_show(matcher)} selected {what}, expected exactly one")
        return found[0]

    def by_for(self, step: Mapping[str, Any], scope: Mapping[str, str] | None) -> str:
        """`by` defaults to the scope's user, then to a fixed default user (README 4)."""
        return step.get("by") or (scope or {}).get("user") or product.DEFAULT_USER

    def by_for_memory(self, step: Mapping[str, Any], memory_id: str) -> str:
        """For actions, `by` defaults to the user of the matched memory's scope."""
        record = None if step.get("by") else self.product.memory(memory_id)
        return self.by_for(step, record.scope if record is not None else None)

    def note_scope(self, scope: Any) -> None:
        """Remember a scope the scenario used (expect_nowhere searches every one)."""
        if isinstance(scope, Mapping) and scope and dict(scope) not in self.scopes:
            self.scopes.append(dict(scope))

    def now(self) -> dt.datetime:
        """The product clock's instant."""
        return self.product.now()

    def security_window(self) -> list[Any]:
        """Security events recorded since the previous security expectation."""
        events = self.product.security_events()
        new = [e for e in events if e.event_id not in self.security_seen]
        self.security_seen.update(e.event_id for e in events)
        return new

    def inject_call(self, label: str) -> InjectCall:
        """The inject a label names."""
        return self.injects[label]


def _handlers(run: ScenarioRun) -> dict[str, Callable[[Mapping[str, Any]], None]]:
    """The dispatch table op -> handler; each handler lives in one of the op modules."""
    from tests.scenarios import ops_assert, ops_input, ops_read

    table: dict[str, Callable[[Mapping[str, Any]], None]] = {}
    for module in (ops_input, ops_read, ops_assert):
        for op, fn in module.HANDLERS.items():
            table[op] = _bound(fn, run)
    return table


def _bound(
    fn: Callable[[ScenarioRun, Mapping[str, Any]], None], run: ScenarioRun
) -> Callable[[Mapping[str, Any]], None]:
    return lambda step: fn(run, step)


def _record_in(value: Any) -> Any:
    """The memory record inside an action's answer (record, outcome or report), if any."""
    for candidate in (value, getattr(value, "record", None), getattr(value, "memory", None)):
        if hasattr(candidate, "id") and hasattr(candidate, "status"):
            return candidate
    return None


def _describe_error(exc: BaseException) -> str:
    if product.is_product_error(exc):
        return f"product raised {product.error_kind(exc)}: {exc}"
    return f"unexpected {type(exc).__name__}: {exc}"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


# --- entry points ------------------------------------------------------------------------------


def load(path: Path) -> dict[str, Any]:
    """Read and validate one scenario file."""
    scenario = json.loads(path.read_text(encoding="utf-8"))
    validate(scenario, file_stem=path.stem)
    return scenario  # type: ignore[no-any-return]


def run_scenario(path: Path) -> None:
    """Play one scenario file against a fresh store in a temporary directory."""
    play(load(path))


def play(scenario: Mapping[str, Any], opener: Opener | None = None) -> None:
    """Validate and play an already loaded scenario against a fresh store."""
    validate(scenario)
    with tempfile.TemporaryDirectory(prefix="mc-scenario-", ignore_cleanup_errors=True) as tmp:
        ScenarioRun(scenario, Path(tmp) / "store", opener).play()


def scenario_paths(directory: Path, wanted: Sequence[str] = ()) -> list[Path]:
    """Scenario files of a directory, optionally only the given ids or paths."""
    if not wanted:
        return sorted(directory.glob("*.json"))
    paths = []
    for item in wanted:
        candidate = Path(item)
        paths.append(candidate if candidate.suffix == ".json" else directory / f"{item}.json")
    return paths


def _outcome_line(path: Path) -> tuple[bool, str]:
    try:
        run_scenario(path)
    except ScenarioFailure as exc:
        return False, f"FAIL {exc.scenario_id} step {exc.index} {exc.op}: {exc.message}"
    except (ScenarioFormatError, OSError, ValueError) as exc:
        return False, f"FAIL {path.stem} (scenario file): {exc}"
    return True, f"PASS {path.stem}"


def main(argv: Sequence[str] | None = None) -> int:
    """Print PASS / FAIL per scenario and "N passed, M failed"; exit 1 when any failed."""
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    args = list(sys.argv[1:] if argv is None else argv)
    directory = default_scenario_dir()
    if not directory.is_dir() and not all(a.endswith(".json") for a in args):
        print(f"scenario directory not found: {directory}; set {ENV_DIR}", file=sys.stderr)
        return 2
    passed = failed = 0
    for path in scenario_paths(directory, args):
        ok, line = _outcome_line(path)
        print(line.replace("\n", " "), flush=True)
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    # Re-import under the package name so op modules and this file share one set of classes.
    from tests.scenarios.runner import main as _main

    raise SystemExit(_main())
