"""Build a `MemoryService` for a data directory, resolving the passphrase the user's way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.paths import passphrase_from_env
from core import KeyUnavailableError, MemoryService, WrongPassphraseError

PassphrasePrompt = Callable[[bool], str | None]
"""Asks the user for a passphrase; the flag says whether a new one is being chosen."""


def open_service(
    data_dir: Path,
    *,
    create: bool = True,
    prompt: PassphrasePrompt | None = None,
) -> MemoryService:
    """Open the store, using the OS keyring, else $MEMORY_CENTER_PASSPHRASE, else `prompt`.

    Raises:
        KeyUnavailableError: no key could be had (no keyring, no passphrase).
        WrongPassphraseError: the passphrase given does not unlock the store.
    """
    passphrase = passphrase_from_env()
    try:
        return MemoryService.open(data_dir, passphrase=passphrase, create=create)
    except WrongPassphraseError:
        raise
    except KeyUnavailableError as exc:
        if passphrase is not None or prompt is None:
            raise
        first = exc
    new_store = not (data_dir / "keyfile.json").exists()
    asked = prompt(new_store)
    if not asked:
        # Nobody could be asked (no terminal) or the user declined: say how to give one.
        raise first
    return MemoryService.open(data_dir, passphrase=asked, create=create)
