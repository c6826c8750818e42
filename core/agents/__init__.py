"""The agent edge: the one place where agents (the Python SDK, the MCP server) meet memory.

See `core/agents/edge.py`.
"""

from core.agents.edge import (
    DEFAULT_TRUST,
    ROLES,
    TRUST_CEILING,
    AgentEdge,
    HotPathGuard,
    narrow_scope,
    trust_for,
)
from core.model.origin import EXTERNAL_SOURCES

__all__ = [
    "DEFAULT_TRUST",
    "EXTERNAL_SOURCES",
    "ROLES",
    "TRUST_CEILING",
    "AgentEdge",
    "HotPathGuard",
    "narrow_scope",
    "trust_for",
]
