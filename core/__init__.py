"""Memory Center's engine. Only the names re-exported here are public API."""

import importlib
from typing import TYPE_CHECKING, Any

from core.errors import (
    AuthenticationFailedError,
    ChainBrokenError,
    ConflictError,
    DamagedRowError,
    IntegrityError,
    InvalidInputError,
    InvalidStateError,
    KeyUnavailableError,
    MemoryCenterError,
    NotFoundError,
    NotPermittedError,
    PolicyDeniedError,
    PrivateScopeError,
    ResourceUnavailableError,
    RotationInterruptedError,
    ScopeRequiredError,
    ScopeWidenedError,
    ServerUnavailableError,
    StoreVersionError,
    WriteSpooledError,
    WrongPassphraseError,
)
from core.model import *  # noqa: F403 - the model is public by design
from core.model import __all__ as _model_all

if TYPE_CHECKING:
    from core.crypto.keys import write_user_file
    from core.governance.agents import AgentInfo, agent_of_session
    from core.governance.llm_extractor import LLMExtractor
    from core.governance.policy import PolicySettings
    from core.resources import read_resource, resource_path
    from core.service import MemoryService, SpoolService
    from core.workflows.spool import OfflineWriter

# Loaded on first use: a command that only prints help or reads a model type should not pay
# for the whole engine (SQLAlchemy, numpy, the sensitivity rules) at import time.
_LAZY = {
    "AgentInfo": "core.governance.agents",
    "agent_of_session": "core.governance.agents",
    "LLMExtractor": "core.governance.llm_extractor",
    "MemoryService": "core.service",
    "SpoolService": "core.service",
    "OfflineWriter": "core.workflows.spool",
    "PolicySettings": "core.governance.policy",
    "read_resource": "core.resources",
    "resource_path": "core.resources",
    "write_user_file": "core.crypto.keys",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AgentInfo",
    "agent_of_session",
    "AuthenticationFailedError",
    "ChainBrokenError",
    "ConflictError",
    "DamagedRowError",
    "IntegrityError",
    "InvalidInputError",
    "InvalidStateError",
    "NotPermittedError",
    "KeyUnavailableError",
    "LLMExtractor",
    "MemoryCenterError",
    "MemoryService",
    "SpoolService",
    "NotFoundError",
    "OfflineWriter",
    "PolicyDeniedError",
    "PolicySettings",
    "PrivateScopeError",
    "ResourceUnavailableError",
    "RotationInterruptedError",
    "ScopeRequiredError",
    "ScopeWidenedError",
    "ServerUnavailableError",
    "StoreVersionError",
    "WriteSpooledError",
    "WrongPassphraseError",
    "read_resource",
    "resource_path",
    "write_user_file",
    *_model_all,
]
