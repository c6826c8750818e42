"""The hybrid relevance (`ranking.fuse`): keyword coverage, vector window and tail (#17, R14)."""

from __future__ import annotations

import datetime as dt

from core.retrieval.keyword import KeywordIndex
from core.retrieval.ranking import (
    KEYWORD_TAIL_WEIGHT,
    VECTOR_TAIL_TOP,
    VECTOR_TOP,
    fuse,
)

DOCS = {
    "a": "Caroline went to the LGBTQ support group on Tuesday.",
    "b": "Caroline said the weather was nice on Tuesday.",
    "c": "Melanie painted a sunrise over the lake.",
    "d": "Melanie and Caroline talked about the weather.",
}


def _index() -> KeywordIndex:
    index = KeywordIndex()
    for doc_id, text in DOCS.items():
        index.add(doc_id, text)
    return index


def test_keyword_weight_follows_how_much_of_the_request_is_covered() -> None:
    """A request whose distinctive words one memory matches keeps its keyword weight; one that
    shares a single common word with the store gets little of it."""
    index = _index()
    vector = {k: 0.80 for k in DOCS}
    specific = "Caroline support group"
    vague = "how is Caroline doing these days with everything"
    strong = fuse(
        index.search(specific),
        vector,
        0.05,
        query=specific,
        ideal=index.ideal(specific),
        tail=False,
    )
    weak = fuse(
        index.search(vague), vector, 0.05, query=vague, ideal=index.ideal(vague), tail=False
    )
    assert max(strong, key=lambda k: strong[k]) == "a"
    assert strong["a"] - strong["c"] > 3 * (weak["a"] - weak["c"])


def test_ideal_counts_unknown_words_at_the_highest_idf() -> None:
    """Words the store has never seen make the ideal larger, never smaller."""
    index = _index()
    assert index.ideal("Caroline zeppelin") > index.ideal("Caroline")
    assert KeywordIndex().ideal("anything") == 0.0


def test_vector_tail_makes_near_neighbours_hits_below_the_window() -> None:
    """The nearest `VECTOR_TAIL_TOP` within three windows are hits; a windowed hit stays ahead
    of every tail-only hit; far memories are not hits."""
    vector = {f"m{i:02d}": 0.90 - 0.004 * i for i in range(40)}
    vector["far"] = 0.40
    out = fuse({}, vector, 0.05)
    assert "far" not in out
    ranked = sorted(vector, key=lambda k: -vector[k])
    assert all(m in out for m in ranked[:VECTOR_TAIL_TOP] if vector[m] > 0.90 - 0.15)
    assert all(m not in out for m in ranked[VECTOR_TAIL_TOP:])
    windowed = [m for m in ranked[:VECTOR_TOP] if vector[m] > 0.85]
    tail_only = [m for m in out if m not in windowed]
    assert min(out[m] for m in windowed[:-1]) > max(out[m] for m in tail_only)


def test_without_vectors_keywords_alone_decide() -> None:
    """No embedder: normalised BM25, as before."""
    index = _index()
    out = fuse(index.search("sunrise lake"), {}, 0.05, query="sunrise lake")
    assert set(out) == {"c"} and out["c"] > 0


def test_spans_are_timezone_aware_days() -> None:
    """Resolved spans are whole UTC days (guards the `in_span` comparison with valid_from)."""
    from core.retrieval.when import resolve

    span = resolve("on 2023-05-07", dt.datetime(2024, 1, 1, tzinfo=dt.UTC))
    assert span is not None and span[0].tzinfo is not None
    assert span[1] - span[0] == dt.timedelta(days=1)


def test_keyword_tail_fills_injections_not_searches() -> None:
    """Injection (tail): the best keyword hits keep a rank-decaying share even when the
    keyword confidence is low, so they are in line for the budget; a search is unchanged."""
    index = _index()
    vague = "how is Caroline doing these days with everything"
    keyword = index.search(vague)
    vector = {"c": 0.90, "a": 0.70, "b": 0.70, "d": 0.70}  # the vector favours another memory
    ideal = index.ideal(vague)
    search = fuse(keyword, vector, 0.05, query=vague, ideal=ideal, tail=False)
    inject = fuse(keyword, vector, 0.05, query=vague, ideal=ideal, tail=True)
    best_kw = max(keyword, key=lambda k: keyword[k])
    assert inject[best_kw] - search.get(best_kw, 0.0) >= KEYWORD_TAIL_WEIGHT * 0.9
    ranked = sorted(keyword, key=lambda k: (-keyword[k], k))
    shares = [inject[m] - search.get(m, 0.0) for m in ranked]
    assert shares == sorted(shares, reverse=True)  # decays with the keyword rank
    assert fuse(keyword, {}, 0.05, query=vague, tail=True) == fuse(keyword, {}, 0.05, query=vague)
