"""The `memory-center` command line (R30), assembled from its verb modules.

`root` holds the group, the per-invocation context and error handling; each verb group lives
in its own module, which imports `root` (never this package), and is registered here.
"""

from __future__ import annotations

from app.capture.cli import watch_command
from app.cli import events, index, memory, policy, retrieval, review, sessions, store, team
from app.cli.root import Context, cli, main
from app.evaluation.cli import eval_group
from app.hooks.cli import hook_group
from app.importers.cli import import_group
from app.mcp_server import mcp_command
from app.serialize import to_jsonable

for _command in (
    store.init,
    store.status,
    store.verify,
    store.key,
    events.event,
    review.remember,
    review.extract,
    review.candidates,
    memory.memory,
    retrieval.search,
    retrieval.inject,
    retrieval.snapshot,
    retrieval.replay,
    retrieval.resume,
    sessions.session,
    index.index,
    policy.policy,
    team.member,
    team.join,
    mcp_command,
    import_group,
    hook_group,
    watch_command,
    eval_group,
):
    cli.add_command(_command)

__all__ = ["Context", "cli", "main", "to_jsonable"]
