"""Build a `MemoryService` for a data directory, resolving the passphrase the user's way."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from app import one_shot
from app.paths import (
    JUDGE_KEY_ENV,
    JUDGE_MODEL_ENV,
    JUDGE_URL_ENV,
    LLM_KEY_ENV,
    LLM_MODEL_ENV,
    LLM_URL_ENV,
    database_url_from_env,
    hot_path_from_env,
    passphrase_from_env,
)
from core import (
    KeyUnavailableError,
    MemoryService,
    OfflineWriter,
    SpoolService,
    WrongPassphraseError,
)
from core.index.embedder import EMBEDDER_ENV
from core.index.heap import map_big_blocks_apart

PassphrasePrompt = Callable[[bool], str | None]
"""Asks the user for a passphrase; the flag says whether a new one is being chosen."""


def open_service(
    data_dir: Path,
    *,
    create: bool = True,
    prompt: PassphrasePrompt | None = None,
    database_url: str | None = None,
    member: str | None = None,
    warm_model: bool = True,
    graph_on_demand: bool = False,
) -> MemoryService:
    """Open the store, using the OS keyring, else $MEMORY_CENTER_PASSPHRASE, else `prompt`.

    The tables live on a PostgreSQL server when `database_url` (or
    $MEMORY_CENTER_DATABASE_URL) names one, or when the directory was set up that way.
    `member` names this device's member when a server store is created.
    `warm_model`: start loading the embedding model in the background (a long-running
    process: GUI, MCP server, hook daemon); one-shot CLI commands load it only when used.
    `graph_on_demand`: a process without a hot path (the memory center) leaves the vector
    graph in its file and searches exactly (`leave_vector_graph_on_disk`).

    Raises:
        KeyUnavailableError: no key could be had (no keyring, no passphrase).
        WrongPassphraseError: the passphrase given does not unlock the store.
    """
    if warm_model:
        # A long-running process holds the big indexes: keep its resident memory down.
        map_big_blocks_apart()
    service = _open(data_dir, create, prompt, database_url, member)
    one_shot.settled()
    if graph_on_demand:
        service.index.leave_vector_graph_on_disk()
    if warm_model:
        service.index.warm_up()
    return service


def _open(
    data_dir: Path,
    create: bool,
    prompt: PassphrasePrompt | None,
    database_url: str | None,
    member: str | None,
) -> MemoryService:
    passphrase = passphrase_from_env()
    url = database_url or database_url_from_env()
    embedder = embedder_from_env()
    hot_path = hot_path_from_env()

    def opened(secret: str | None) -> MemoryService:
        return apply_environment(
            MemoryService.open(
                data_dir,
                passphrase=secret,
                create=create,
                database_url=url,
                embedder=embedder,
                member=member,
                hot_path_seconds=hot_path,
            )
        )

    try:
        return opened(passphrase)
    except WrongPassphraseError:
        raise
    except KeyUnavailableError as exc:
        if passphrase is not None or prompt is None:
            raise
        first = exc
    new_store = not _has_key_file(data_dir)
    asked = prompt(new_store)
    if not asked:
        # Nobody could be asked (no terminal) or the user declined: say how to give one.
        raise first
    return opened(asked)


def offline_writer(
    data_dir: Path, reason: str, prompt: PassphrasePrompt | None = None
) -> OfflineWriter:
    """Writes for a server store that cannot be opened now (R23), with this machine's key
    copy unlocked the way `open_service` unlocks it: the keyring, else
    $MEMORY_CENTER_PASSPHRASE, else `prompt` (only when a key file exists to unlock).

    Raises:
        ResourceUnavailableError: not a server store, or never opened on this machine.
        KeyUnavailableError / WrongPassphraseError: the key copy cannot be unlocked.
    """
    passphrase = passphrase_from_env()
    if passphrase is None and prompt is not None and _has_key_file(data_dir):
        passphrase = prompt(False)
    return SpoolService.offline_writer(data_dir, passphrase=passphrase, reason=reason)


def _has_key_file(data_dir: Path) -> bool:
    return (data_dir / "keyfile.json").exists()


def embedder_from_env() -> str | None:
    """The embedder named by $MEMORY_CENTER_EMBEDDER (it wins over the one stored in the
    store); None when unset, so the store's choice, else the default, applies."""
    return os.environ.get(EMBEDDER_ENV) or None


def apply_environment(service: MemoryService) -> MemoryService:
    """Apply opt-in configuration from the environment: the LLM extractor and the model
    judge (both off by default).

    MEMORY_CENTER_LLM_URL (an OpenAI-compatible base URL) and MEMORY_CENTER_LLM_MODEL turn
    the extractor on; MEMORY_CENTER_LLM_KEY is sent as the bearer token when set. Its
    proposals still go through the MemoryPolicy like any other candidate.
    MEMORY_CENTER_JUDGE_URL and MEMORY_CENTER_JUDGE_MODEL (and MEMORY_CENTER_JUDGE_KEY) name
    the model judge `candidates settle` asks about the review items the rule judge could
    not decide (#40); its answers are applied under the trust rules.
    """
    url, model = os.environ.get(LLM_URL_ENV), os.environ.get(LLM_MODEL_ENV)
    if url and model:
        from core import LLMExtractor  # its HTTP client loads only when it is configured

        service.memories.extractor = LLMExtractor(
            url, model, api_key=os.environ.get(LLM_KEY_ENV) or None
        )
    url, model = os.environ.get(JUDGE_URL_ENV), os.environ.get(JUDGE_MODEL_ENV)
    if url and model:
        from core.governance.model_judge import ModelJudge

        service.review.model_judge = ModelJudge(
            url, model, api_key=os.environ.get(JUDGE_KEY_ENV) or None
        )
    return service
