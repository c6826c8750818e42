"""Compare configurations on recorded sessions: the work behind `eval ab`, shared by the
command line (cli.py) and the desktop's connectors page."""

from __future__ import annotations

from typing import Any

from app.evaluation.replay import Configuration, replay
from core.evaluation.ab import Score


def compare(configs: list[Configuration], sessions: list[Any]) -> dict[str, dict[str, Score]]:
    """Replay every session under each configuration: per configuration, the score of each
    session by name and their sum under "total"."""
    results: dict[str, dict[str, Score]] = {}
    for config in configs:
        per = {s.name: replay(s, config) for s in sessions}
        total = Score()
        for score in per.values():
            total = total.merge(score)
        results[config.name] = {**per, "total": total}
    return results


def document(results: dict[str, dict[str, Score]], names: list[str]) -> dict[str, Any]:
    """The JSON document of a comparison (what `eval ab --out` writes)."""
    return {
        "sessions": names,
        "configurations": {
            config: {
                "total": per["total"].summary(),
                "leaks": per["total"].leaks,
                "per_session": {n: per[n].summary() for n in names},
            }
            for config, per in results.items()
        },
    }
