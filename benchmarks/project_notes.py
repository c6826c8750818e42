"""False conflict sets among notes about one software project's components (#40, R9).

    python benchmarks/project_notes.py [--notes 2000] [--seed 40]

A seeded generator writes `--notes` technical notes about the components of one project
(services, workers, jobs, front ends), each component with its own consistent facts:
language and runtime version, port, datastore, queue, deploy target, test framework,
owner, alert channel, replicas, memory limit, SLO, schedule. Every (component, attribute)
is stated once, sometimes restated later in other words; no two notes disagree. The notes
are remembered one by one into one scope of a real encrypted store, then counted:

- notes that joined a conflict set (a false conflict: notes about different components, or
  about different attributes of one, never contradict each other); goal <= 1 %;
- notes that superseded another (a false replacement), notes sent to review as "possibly",
  and merges (restatements merge; a merge of two different facts is a false duplicate).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import MemoryService

PREFIXES = [
    "auth",
    "ledger",
    "billing",
    "search",
    "checkout",
    "catalog",
    "inventory",
    "pricing",
    "payments",
    "notifications",
    "profile",
    "session",
    "media",
    "upload",
    "gateway",
    "router",
    "scheduler",
    "reports",
    "analytics",
    "export",
    "import",
    "audit",
    "feature-flags",
    "geo",
    "shipping",
    "returns",
    "invoices",
    "coupons",
    "reviews",
    "recommendations",
    "chat",
    "email",
    "sms",
    "push",
    "webhooks",
    "sync",
    "backup",
    "metrics",
    "tracing",
    "logging",
    "config",
    "secrets",
    "identity",
    "orders",
    "carts",
    "wishlist",
    "loyalty",
    "fraud",
    "risk",
    "tax",
    "currency",
    "translation",
]
KINDS = ("svc", "service", "worker", "api", "job", "frontend")
LANGS = (
    ("Go", "1.21"),
    ("Go", "1.22"),
    ("Python", "3.11"),
    ("Python", "3.12"),
    ("Kotlin", "1.9"),
    ("Java", "17"),
    ("Java", "21"),
    ("TypeScript", "5.3"),
    ("Rust", "1.75"),
    ("Node", "20"),
    ("Node", "18"),
)
STORES = (
    "PostgreSQL 15",
    "PostgreSQL 16",
    "MySQL 8",
    "Redis 7",
    "MongoDB 6",
    "DynamoDB",
    "Cassandra 4",
    "Elasticsearch 8.11",
    "SQLite",
    "ClickHouse",
)
QUEUES = ("Kafka", "RabbitMQ", "SQS", "NATS", "Pub/Sub", "Redis streams")
TARGETS = (
    "EKS in us-east-1",
    "GKE in europe-west1",
    "ECS Fargate",
    "Cloud Run",
    "the on-prem Nomad cluster",
    "Lambda",
    "AKS in westeurope",
)
TESTS = ("pytest", "Jest", "Vitest", "JUnit 5", "go test", "Playwright", "Cypress", "Kotest")
PEOPLE = (
    "Priya",
    "Marcus",
    "Wei",
    "Dana",
    "Olu",
    "Sofia",
    "Kenji",
    "Amara",
    "Lukas",
    "Ines",
    "Tomás",
    "Mei",
    "Ravi",
    "Hana",
    "Jonas",
)
TEAMS = ("platform", "payments", "growth", "search", "core", "data", "mobile", "infra")

TEMPLATES: dict[str, tuple[str, ...]] = {
    "lang": (
        "{c} is written in {lang} {ver}.",
        "{c} runs on {lang} {ver}",
        "The {c} codebase is {lang} ({ver}).",
        "we built {c} with {lang} {ver}",
    ),
    "port": (
        "{c} listens on port {port}.",
        "{c} serves on :{port}",
        "The {c} container exposes port {port}.",
        "{c} is reachable on port {port} inside the cluster",
    ),
    "store": (
        "{c} keeps its data in {store}.",
        "{c} uses {store} as its datastore",
        "Persistence for {c} is {store}.",
        "{c} writes to a {store} instance",
    ),
    "queue": (
        "{c} consumes events from {queue}.",
        "{c} publishes to {queue}",
        "Events for {c} go through {queue}.",
    ),
    "deploy": (
        "{c} is deployed to {target}.",
        "{c} ships to {target}",
        "We run {c} on {target}.",
    ),
    "tests": (
        "{c} tests run with {tests}.",
        "The {c} test suite uses {tests}",
        "{c} is tested with {tests}.",
    ),
    "owner": (
        "{person} owns {c}.",
        "{c} is owned by the {team} team, {person} is the lead",
        "Questions about {c} go to {person}.",
    ),
    "alerts": (
        "Alerts for {c} go to #{slug}-alerts.",
        "{c} pages the {team} on-call rotation",
        "{c} alerts are routed to #{slug}-alerts on Slack.",
    ),
    "replicas": (
        "{c} runs {replicas} replicas in production.",
        "prod has {replicas} pods of {c}",
        "{c} is scaled to {replicas} instances",
    ),
    "memory": (
        "The memory limit of {c} is {mem} MiB.",
        "{c} pods get {mem}Mi of memory",
        "{c} is capped at {mem} MiB RAM",
    ),
    "slo": (
        "{c} has a p99 latency target of {slo} ms.",
        "The SLO for {c} is {avail}% availability",
        "{c} must answer within {slo} ms at p99",
    ),
    "schedule": (
        "{c} runs every {minutes} minutes.",
        "{c} is triggered by a cron at {hour}:00 UTC",
        "The {c} batch kicks off nightly at {hour}:30",
    ),
}
RESTATE = 0.08  # share of notes that restate an earlier fact in other words


def components(rng: random.Random) -> list[dict[str, object]]:
    out = []
    for prefix, kind in [(p, k) for p in PREFIXES for k in rng.sample(KINDS, 4)]:
        name = f"{prefix}-{kind}" if kind in ("svc", "api", "job") else f"the {prefix} {kind}"
        lang, ver = rng.choice(LANGS)
        out.append(
            {
                "c": name,
                "slug": prefix,
                "lang": lang,
                "ver": ver,
                "port": rng.choice((80, 443, 3000, 5000, 8000, 8080, 8081, 8443, 9000, 9090))
                + rng.randrange(0, 20),
                "store": rng.choice(STORES),
                "queue": rng.choice(QUEUES),
                "target": rng.choice(TARGETS),
                "tests": rng.choice(TESTS),
                "person": rng.choice(PEOPLE),
                "team": rng.choice(TEAMS),
                "replicas": rng.randrange(2, 13),
                "mem": rng.choice((256, 512, 768, 1024, 2048, 4096)),
                "slo": rng.choice((50, 100, 150, 200, 250, 300, 500)),
                "avail": rng.choice(("99.9", "99.95", "99.5", "99.99")),
                "minutes": rng.choice((5, 10, 15, 30, 60)),
                "hour": rng.randrange(0, 24),
            }
        )
    return out


def notes(n: int, seed: int) -> list[tuple[str, str, str]]:
    """(text, component, attribute) for `n` notes; restatements repeat a (c, attribute)."""
    rng = random.Random(seed)
    comps = components(rng)
    pairs = [(c, a) for c in comps for a in TEMPLATES]
    rng.shuffle(pairs)
    out: list[tuple[str, str, str]] = []
    said: list[tuple[dict[str, object], str, int]] = []
    for c, attribute in pairs:
        if len(out) >= n:
            break
        if said and rng.random() < RESTATE:
            old_c, old_a, old_t = rng.choice(said)
            others = [i for i in range(len(TEMPLATES[old_a])) if i != old_t]
            t = rng.choice(others)
            out.append((TEMPLATES[old_a][t].format(**old_c), str(old_c["c"]), old_a))
            continue
        t = rng.randrange(len(TEMPLATES[attribute]))
        said.append((c, attribute, t))
        out.append((TEMPLATES[attribute][t].format(**c), str(c["c"]), attribute))
    return [(text[0].upper() + text[1:], comp, a) for text, comp, a in out[:n]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    items = notes(args.notes, args.seed)
    counts: Counter[str] = Counter()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mc-notes-") as tmp:
        svc = MemoryService.open(Path(tmp) / "s", passphrase="project notes", prefer_keyring=False)
        try:
            scope = {"user": "dev", "project": "shop"}
            about: dict[str, tuple[str, str]] = {}
            for text, comp, attribute in items:
                out = svc.memories.remember(scope, text).value
                counts[out.outcome] += 1
                if out.record is not None:
                    about.setdefault(out.record.id, (comp, attribute))
                if any("possibly " in r for r in out.reasons):
                    counts["possibly"] += 1
                if out.superseded:
                    counts["superseded another"] += 1
                if out.conflicts_with:
                    counts["joined a conflict set"] += 1
                    if args.verbose:
                        old = svc.memories.get_memory(out.conflicts_with[0])
                        print(f"  CONFLICT {text!r} / {old.content!r}")
                into = out.record if out.outcome == "merged" else None
                if into is not None and about.get(into.id) != (comp, attribute):
                    counts["false merge"] += 1
                    if args.verbose:
                        print(f"  MERGE {text!r} into {into.content!r}")
            sets = {r.conflict_set for r in svc.memories.list_memories() if r.conflict_set}
        finally:
            svc.close()
    took = time.perf_counter() - start
    n = len(items)
    print(f"== {n} project notes remembered one by one ({took:.1f} s, {n / took:.1f}/s)")
    print(f"  outcomes {dict(counts)}")
    rate = counts["joined a conflict set"] / n
    print(f"  conflict sets formed: {len(sets)}; notes that joined one: {rate:.2%} (goal <= 1 %)")
    print(
        f"  false replacements: {counts['superseded another'] / n:.2%}; "
        f"false merges: {counts['false merge'] / n:.2%}; sent to review: "
        f"{counts['possibly'] / n:.2%}"
    )


if __name__ == "__main__":
    main()
