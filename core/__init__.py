"""Memory Center's engine. Only the names re-exported here are public API."""

from core.errors import (
    ChainBrokenError,
    ConflictError,
    DamagedRowError,
    IntegrityError,
    InvalidInputError,
    InvalidStateError,
    KeyUnavailableError,
    MemoryCenterError,
    NotFoundError,
    PolicyDeniedError,
    ResourceUnavailableError,
    RotationInterruptedError,
    ScopeRequiredError,
    ScopeWidenedError,
    ServerUnavailableError,
    StoreVersionError,
    WriteSpooledError,
    WrongPassphraseError,
)
from core.governance.llm_extractor import LLMExtractor
from core.governance.policy import PolicySettings
from core.model import *  # noqa: F403 - the model is public by design
from core.model import __all__ as _model_all
from core.resources import read_resource, resource_path
from core.service import MemoryService

__all__ = [
    "ChainBrokenError",
    "ConflictError",
    "DamagedRowError",
    "IntegrityError",
    "InvalidInputError",
    "InvalidStateError",
    "KeyUnavailableError",
    "LLMExtractor",
    "MemoryCenterError",
    "MemoryService",
    "NotFoundError",
    "PolicyDeniedError",
    "PolicySettings",
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
    *_model_all,
]
