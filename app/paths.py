"""Where things live on the user's machine."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "memory-center"
DATA_DIR_ENV = "MEMORY_CENTER_DATA_DIR"
PASSPHRASE_ENV = "MEMORY_CENTER_PASSPHRASE"
DATABASE_URL_ENV = "MEMORY_CENTER_DATABASE_URL"
LLM_URL_ENV = "MEMORY_CENTER_LLM_URL"
LLM_MODEL_ENV = "MEMORY_CENTER_LLM_MODEL"
LLM_KEY_ENV = "MEMORY_CENTER_LLM_KEY"
# The optional model judge (#40): asked about review items the rule judge could not decide.
JUDGE_URL_ENV = "MEMORY_CENTER_JUDGE_URL"
JUDGE_MODEL_ENV = "MEMORY_CENTER_JUDGE_MODEL"
JUDGE_KEY_ENV = "MEMORY_CENTER_JUDGE_KEY"
# How long an agent's read (a hook's injection, an MCP search) may take before it answers
# "no memory" (R17); the engine's default when unset. A slow or loaded machine raises it.
HOT_PATH_ENV = "MEMORY_CENTER_HOT_PATH_SECONDS"


def default_data_dir() -> Path:
    """The store directory: $MEMORY_CENTER_DATA_DIR, else the platform's user data dir."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return platform_data_dir()


def platform_data_dir() -> Path:
    """The platform's user data dir for the store, whatever the environment names."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "store"


def passphrase_from_env() -> str | None:
    """The passphrase given through the environment, if any."""
    value = os.environ.get(PASSPHRASE_ENV)
    return value if value else None


def database_url_from_env() -> str | None:
    """A PostgreSQL server given through the environment, if any (empty means unset)."""
    value = os.environ.get(DATABASE_URL_ENV, "").strip()
    return value or None


def hot_path_from_env() -> float | None:
    """$MEMORY_CENTER_HOT_PATH_SECONDS as seconds, or None when unset (the engine checks
    the range and names the setting when it is out of it).

    Raises:
        InvalidInputError: the value is not a number.
    """
    value = os.environ.get(HOT_PATH_ENV, "").strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        from core import InvalidInputError

        raise InvalidInputError(
            HOT_PATH_ENV, f"must be a number of seconds, not {value!r}"
        ) from None
