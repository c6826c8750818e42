"""#17: the keyword index stems English words (Snowball), and nothing else changes form."""

from __future__ import annotations

import threading
from pathlib import Path

from core import MemoryService
from core.governance.text import tokens
from core.retrieval import keyword_file
from core.retrieval.keyword import KeywordIndex
from core.retrieval.terms import english_stem, search_terms
from core.storage.framing import write_file
from tests.conftest import PASSPHRASE

SCOPE = {"user": "caro"}


def test_inflected_english_words_meet_their_stem() -> None:
    index = KeywordIndex()
    index.add("a", "Caroline: Researching adoption agencies, it's been a dream to have a family.")
    index.add("b", "Melanie: We went camping by the lake last summer.")
    assert list(index.search("What did Caroline research?")) == ["a"]
    assert list(index.search("which agency")) == ["a"]
    assert list(index.search("camped at a lake")) == ["b"]


def test_identifiers_cjk_and_other_scripts_keep_their_form() -> None:
    assert search_terms("acme-auth 3.1.4 on ci-runner-07 port 6380") == tokens(
        "acme-auth 3.1.4 on ci-runner-07 port 6380"
    )
    assert search_terms("我们的服务器部署在上海机房") == tokens("我们的服务器部署在上海机房")
    assert english_stem("größe") == "größe"  # not ASCII: folded as before, never stemmed
    assert english_stem("runs") == "run"  # short words: the plural fold of `tokens()`
    assert english_stem("hotels") == english_stem("hotel") == "hotel"


def test_stemming_from_many_threads_gives_one_answer() -> None:
    # A Snowball stemmer object keeps state between calls; reads run on several threads.
    words = [f"{stem}{end}" for stem in ("paint", "connect", "research") for end in ("ing", "ed")]
    english_stem.cache_clear()
    results: list[list[str]] = []

    def work() -> None:
        results.append([english_stem(w) for w in words * 50])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[0] for r in results)
    assert set(results[0]) == {"paint", "connect", "research"}


def test_a_keyword_file_of_the_earlier_format_is_rebuilt_not_read(data_dir: Path) -> None:
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        record = svc.memories.remember(
            SCOPE, "Caroline is researching adoption agencies."
        ).value.record
        assert record is not None
    finally:
        svc.close()
    path = data_dir / "index" / keyword_file.FILE_NAME
    # The file an earlier version wrote: format 1, terms folded for plurals only.
    old = KeywordIndex()
    old.add(record.id, "nothing that matches", record.revision)
    data = bytearray(keyword_file.plaintext(old, 10**6))
    data[len(keyword_file.MAGIC)] = 1  # the format byte
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        sealed = svc._store.codec.seal(bytes(data), keyword_file.aad(path))
        write_file(path, sealed, "keyword index")
        assert svc.verify().ok  # sealed by this store: not damage, only another format
    finally:
        svc.close()
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        hits = svc.retrieval.search_memory(SCOPE, "what is Caroline research about", limit=5)
        assert [h.memory_id for h in hits] == [record.id]
        assert not svc.index.catalog.keywords.search("matches")
    finally:
        svc.close()  # writes the rebuilt file in this version's format
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        index, _meta = keyword_file.load(path, svc._store.codec)
        assert index.knows("agencies") and index.knows("research")
    finally:
        svc.close()
