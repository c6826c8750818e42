"""`memory-center eval ab --transcripts DIR --policy A.json --policy B.json`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from app.evaluation.compare import compare, document
from app.evaluation.replay import load_configuration
from app.evaluation.sessions import load_dir
from core import MemoryCenterError
from core.evaluation.ab import table

if TYPE_CHECKING:
    from app.cli.root import Context


@click.group("eval")
def eval_group() -> None:
    """Measure what memory is worth on recorded sessions (R29)."""


@eval_group.command("ab")
@click.option(
    "--transcripts",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of recorded sessions: <name>.jsonl with <name>.eval.json.",
)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A configuration JSON (repeat: two or more to compare).",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON here.")
@click.pass_obj
def eval_ab(obj: Context, transcripts: Path, policies: tuple[Path, ...], out: Path | None) -> None:
    """Replay recorded sessions under each configuration and compare them.

    Reports evidence recall and precision of injected memory against the memories each next
    turn used, leakage (must be 0), stale citations, wrong adoption, tokens injected per
    call and hook latency (in process, without process start).
    """
    try:
        configs = [load_configuration(p) for p in policies]
        sessions = load_dir(transcripts)
        if len({c.name for c in configs}) != len(configs):
            raise click.UsageError("configuration names must differ")
        results = compare(configs, sessions)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    doc = document(results, [s.name for s in sessions])
    if out is not None:
        out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    totals = {name: per["total"] for name, per in results.items()}
    obj.emit(doc, lambda: click.echo(table(totals)))
