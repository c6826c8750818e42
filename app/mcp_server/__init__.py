"""`memory-center mcp`: the MCP server (stdio) any MCP-capable agent can use (R16, R30).

The server is started with a configured scope (flags or a TOML/JSON file). Every tool call
works inside that scope: a call may narrow it (add keys), never widen it. Tools: search_memory,
get_context, remember (a *suggestion*, never the user's explicit remember), record_event,
forget, list_recent. Resources: `memory://context`, `memory://review-queue`. Every tool call is
written to the event log as an `agent_call` event naming the client and session. Failures come
back as MCP tool errors reading `<error kind>: <message>`; the server never crashes on input.

Modules: `config` (settings from a file and flags), `gateway` (the tools over the agent
edge, without MCP), `tools` (registration on an MCP server), `command` (the CLI commands).
See docs/mcp.md for the schemas, the trust rules and client configuration.
"""

from app.mcp_server.command import main, mcp_command, serve, standalone
from app.mcp_server.config import (
    DEFAULT_BUDGET,
    ServerSettings,
    default_session,
    load_config,
    settings_from,
)
from app.mcp_server.gateway import Caller, Gateway, ToolFailure
from app.mcp_server.tools import build_server

__all__ = [
    "DEFAULT_BUDGET",
    "Caller",
    "Gateway",
    "ServerSettings",
    "ToolFailure",
    "build_server",
    "default_session",
    "load_config",
    "main",
    "mcp_command",
    "serve",
    "settings_from",
    "standalone",
]
