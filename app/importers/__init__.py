"""Transcript importers: Claude Code session logs and ChatGPT exports (R30).

`claude_code.parse` and `chatgpt.parse` turn a source into sessions of events;
`base.write_sessions` writes them idempotently (by source id) and runs extraction.
`cli.import_group` is the `memory-center import` command group.
"""

from app.importers.base import ImportReport, Problem, SourceEvent, SourceSession, write_sessions

__all__ = ["ImportReport", "Problem", "SourceEvent", "SourceSession", "write_sessions"]
