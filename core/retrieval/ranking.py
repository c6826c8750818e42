"""Ranking is not top-k similarity (R14). The score is a documented weighted sum.

    score = 0.55 relevance      hybrid: 0.4 BM25 x confidence + 0.6 vector (see `fuse`)
          + 0.10 specificity    how much of the request's scope the memory's scope names
          + 0.10 authority      user-confirmed 1 > tool-verified .67 > inferred .33 > untrusted 0
          + 0.10 confidence     the record's confidence
          + 0.10 freshness      exp(-age / 180 days) since valid_from
          + 0.05 usage          1 when injected in the last 7 days, else 0
          - 0.05 cost           tokens / 200, capped at 1
    then x0.5 when stale (a fresh observation contradicts it) and x0.8 when redacted.

Hits with zero relevance are not hits: memory is injected because it bears on the goal.
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
from collections.abc import Mapping
from dataclasses import dataclass

from core.governance.policy import REDACTED, STALE, authority
from core.governance.text import estimate_tokens, tokens
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.patterns import lazy
from core.retrieval import when

WEIGHTS = {
    "relevance": 0.55,
    "specificity": 0.10,
    "authority": 0.10,
    "confidence": 0.10,
    "freshness": 0.10,
    "usage": 0.05,
    "cost": -0.05,
}
FRESHNESS_DAYS = 180.0
VECTOR_TOP = 8
# Hybrid relevance (see `fuse`): keyword and vector parts, measured by
# benchmarks/embedder_eval.py on paraphrase and lexical queries (docs/retrieval.md).
KEYWORD_WEIGHT = 0.4
VECTOR_WEIGHT = 0.6
# A small, rank-decaying share for the nearest neighbours beyond the window, so a relevant
# memory worded differently (a broader-scope note, a chat turn) is still a hit and fills
# budget that would otherwise stay empty; it never outranks a windowed or keyword hit by much.
VECTOR_TAIL_WEIGHT = 0.1
VECTOR_TAIL_TOP = 30
VECTOR_TAIL_WINDOWS = 3.0
# The keyword ranking's own tail (injection only): measured on the conversation benchmark
# (docs/retrieval.md): evidence in budget 0.718 -> 0.738, each of the five conversations up.
KEYWORD_TAIL_WEIGHT = 0.2
KEYWORD_TAIL_TOP = VECTOR_TAIL_TOP
KEYWORD_ONLY_WEIGHT = 0.6  # no vector scores (no embedder, or the index degraded)
KEYWORD_MIN_CONFIDENCE = 0.1
LOOKUP_MIN_CONFIDENCE = 0.5
# A memory said inside the span of time a request names (see `in_span`).
TIME_WEIGHT = 0.3
TIME_SLACK = dt.timedelta(days=1)
# A hit said by the person the request names (see `by_speaker`).
SPEAKER_WEIGHT = 0.3
# A hit that states a time, for a request that asks for one (see `states_the_time`, #44):
# chosen once, half the other request-signal nudges (many turns mention some time), and not
# tuned on the benchmark's questions.
WHEN_ANSWER_WEIGHT = 0.15


@dataclass(frozen=True)
class Scored:
    """A record with its score and signals."""

    record: MemoryRecord
    score: float
    signals: Mapping[str, float]


def score(
    record: MemoryRecord,
    relevance: float,
    request: Scope,
    now: dt.datetime,
    recently_used: bool = False,
) -> Scored:
    """Combine the signals for one hit (relevance already normalised to 0..1)."""
    age_days = max(0.0, (now - record.valid_from).total_seconds() / 86400)
    signals = {
        "relevance": relevance,
        "specificity": len(record.scope) / max(1, len(request)),
        "authority": authority(record) / 3,
        "confidence": record.confidence,
        "freshness": math.exp(-age_days / FRESHNESS_DAYS),
        "usage": 1.0 if recently_used else 0.0,
        "cost": min(1.0, estimate_tokens(record.content) / 200),
    }
    total = sum(WEIGHTS[k] * v for k, v in signals.items())
    if STALE in record.flags:
        total *= 0.5
    if REDACTED in record.flags:
        total *= 0.8
    return Scored(record, round(total, 6), {k: round(v, 4) for k, v in signals.items()})


def fuse(
    keyword: Mapping[str, float],
    vector: Mapping[str, float],
    window: float,
    *,
    query: str = "",
    ideal: float | None = None,
    tail: bool = True,
) -> dict[str, float]:
    """Hybrid relevance in 0..1 from BM25 scores and cosine similarities.

    Vector part (weight `VECTOR_WEIGHT`): cosines of dense embedders are compressed into a
    narrow band whatever the topic, so no absolute threshold separates relevant from
    unrelated; a memory counts as a strong vector hit when it is among the best `VECTOR_TOP`
    of the visible set and within `window` of the best cosine, scaled to 0..1 inside that
    window. With `tail` (injection) the best `VECTOR_TAIL_TOP` within `VECTOR_TAIL_WINDOWS`
    windows also get a small rank-decaying share (`VECTOR_TAIL_WEIGHT`): on chat-like stores
    the evidence is often the ninth or twentieth neighbour, and a memory the budget has room
    for must not be dropped. The keyword ranking has the same kind of tail (its best
    `KEYWORD_TAIL_TOP`, `KEYWORD_TAIL_WEIGHT` decaying by rank, not scaled by its
    confidence): when the keyword confidence is low its hits get little weight, yet the
    evidence of a chat question is often among them. A search lists only the real hits
    (no tail).

    Keyword part (weight `KEYWORD_WEIGHT`): BM25 normalised to the best keyword hit, times the
    keyword ranking's confidence, `1 - second best / best` (at least
    `KEYWORD_MIN_CONFIDENCE`). BM25 normalised to its best hit says nothing about whether
    that hit is any good: a request that merely shares generic words ("port", "周末") with
    many memories gives a flat BM25 ranking whose top is usually wrong, while a request that
    reuses a memory's distinctive token (a port, a ticket id, a name) singles that memory
    out with a wide margin. The margin is scale-free (independent of the corpus size and of
    BM25's absolute scores), so keywords override the embedder only when they are decisive,
    and otherwise just nudge the order of the vector's candidates. Measured on
    benchmarks/retrieval_set.jsonl (docs/retrieval.md): the previous rule (keyword 0.6,
    ungated) lost 0.12 MRR to the embedder on paraphrases.

    With `ideal` (`KeywordIndex.ideal(query)`, the score of a document matching the whole
    request) the confidence is instead the coverage `best / ideal`: how much of the request,
    weighted by idf, the best keyword hit matches. A paraphrase that shares one generic word
    covers little; a look-up of a distinctive token, or a question that names the people and
    things of one chat turn, covers much, even when several turns match about as well (where
    the margin would wrongly call the keywords undecided). Measured on the conversation
    benchmark and the retrieval set (docs/retrieval.md).

    Without vector scores (no embedder, or a degraded index) the keyword part is the whole
    signal: `KEYWORD_ONLY_WEIGHT` x normalised BM25, ungated, as before. Either kind of hit
    makes a memory a hit; a memory with neither is not one.
    """
    out = _keyword_part(keyword, bool(vector), query, ideal)
    if tail and vector:
        for mid, part in _keyword_tail(keyword).items():
            out[mid] = out.get(mid, 0.0) + part
    if vector:
        for mid, part in _vector_part(vector, window, tail).items():
            out[mid] = out.get(mid, 0.0) + part
    return out


def _keyword_part(
    keyword: Mapping[str, float], with_vectors: bool, query: str, ideal: float | None
) -> dict[str, float]:
    best_kw = max(keyword.values(), default=0.0)
    if best_kw <= 0:
        return {}
    if with_vectors:
        ranked = sorted(keyword.values(), reverse=True)
        second = ranked[1] if len(ranked) > 1 else 0.0
        floor = LOOKUP_MIN_CONFIDENCE if is_lookup(query) else KEYWORD_MIN_CONFIDENCE
        confidence = max(floor, 1.0 - second / best_kw)
        if ideal:
            confidence = min(1.0, best_kw / ideal)
        weight = KEYWORD_WEIGHT * confidence
    else:
        weight = KEYWORD_ONLY_WEIGHT
    return {mid: weight * value / best_kw for mid, value in keyword.items() if value > 0}


def _keyword_tail(keyword: Mapping[str, float]) -> dict[str, float]:
    """A rank-decaying share for the best `KEYWORD_TAIL_TOP` keyword hits, whatever the
    keyword confidence: the budget is filled from the tops of both rankings."""
    top = heapq.nlargest(KEYWORD_TAIL_TOP, keyword.items(), key=lambda kv: (kv[1], kv[0]))
    return {
        mid: KEYWORD_TAIL_WEIGHT * (1.0 - rank / KEYWORD_TAIL_TOP)
        for rank, (mid, value) in enumerate(top)
        if value > 0
    }


def _vector_part(vector: Mapping[str, float], window: float, tail: bool) -> dict[str, float]:
    best = max(vector.values())
    floor = best - window
    out: dict[str, float] = {}
    top = sorted(vector.items(), key=lambda kv: -kv[1])[:VECTOR_TAIL_TOP]
    for rank, (mid, cos) in enumerate(top):
        part = 0.0
        if rank < VECTOR_TOP and cos > floor:
            part = VECTOR_WEIGHT * (cos - floor) / window
        if tail and cos > best - VECTOR_TAIL_WINDOWS * window:
            part += VECTOR_TAIL_WEIGHT * (1.0 - rank / VECTOR_TAIL_TOP)
        if part > 0:
            out[mid] = part
    return out


def in_span(
    relevance: Mapping[str, float],
    vector: Mapping[str, float],
    records: Mapping[str, MemoryRecord],
    span: tuple[dt.datetime, dt.datetime],
) -> dict[str, float]:
    """Nudge memories whose own time lies in the span the request names (#17).

    "What did Mei paint on 13 October?" asks about what was said then: a hit said that day
    gains `TIME_WEIGHT`, and so does a near vector neighbour said that day even if it was no
    hit (its words differ from the question's). A day of slack either side absorbs time zones
    and turns that report the previous evening.

    A recorded turn is also about the time its own words name, resolved against when it was
    said (#44): "I went to the museum yesterday", said on 6 July, is about 5 July, so a
    request for 5 July finds it though it was said a day later, and a request for the week
    of a trip finds the turn that said "two weekends ago" a fortnight after it.
    """
    start, end = span[0] - TIME_SLACK, span[1] + TIME_SLACK
    out = dict(relevance)
    for mid in set(relevance) | set(vector):
        rec = records.get(mid)
        if rec is None:
            continue
        about = _event_span(rec)
        inside = start <= rec.valid_from < end
        if inside or (about is not None and about[0] < span[1] and span[0] < about[1]):
            out[mid] = out.get(mid, 0.0) + TIME_WEIGHT
    return out


# (memory id, revision) -> what its words say about time; a record's words never change
# under one revision, so each is read once.
_TIME_FACTS: dict[tuple[str, int], tuple[bool, tuple[dt.datetime, dt.datetime] | None]] = {}
_TIME_FACTS_LIMIT = 100_000


def _time_facts(rec: MemoryRecord) -> tuple[bool, tuple[dt.datetime, dt.datetime] | None]:
    key = (rec.id, rec.revision)
    found = _TIME_FACTS.get(key)
    if found is None:
        said = rec.own_time()
        span = when.event_span(rec.content, said) if said is not None else None
        found = (span is not None or when.states_time(rec.content, said), span)
        if len(_TIME_FACTS) >= _TIME_FACTS_LIMIT:
            _TIME_FACTS.clear()
        _TIME_FACTS[key] = found
    return found


def _event_span(rec: MemoryRecord) -> tuple[dt.datetime, dt.datetime] | None:
    return _time_facts(rec)[1]


def states_the_time(
    relevance: Mapping[str, float], records: Mapping[str, MemoryRecord], query: str
) -> dict[str, float]:
    """Nudge the hits that state a time, for a request that asks for one (#44).

    "When did Melanie run a charity race?" is answered by the turn that says when ("I ran
    a charity race last Saturday"), not by the later turns about the race: among the hits,
    those whose words place something in time (a date, "yesterday", "last week", "two days
    ago", "in 2022"; `when.states_time`) gain `WHEN_ANSWER_WEIGHT`. This is the answer type
    of the request, read from its form ("when", "what year", "how long ago", "什么时候"),
    not a rule about any topic; nothing changes for other requests.
    """
    if not when.asks_when(query):
        return dict(relevance)
    out = dict(relevance)
    for mid in relevance:
        rec = records.get(mid)
        if rec is not None and _time_facts(rec)[0]:
            out[mid] += WHEN_ANSWER_WEIGHT
    return out


def by_speaker(
    relevance: Mapping[str, float], records: Mapping[str, MemoryRecord], query: str
) -> dict[str, float]:
    """Nudge the hits said by the person the request names (#17).

    "What did Melanie paint?" is most often answered by Melanie's own words: among the hits,
    those whose `speaker` the request names gain `SPEAKER_WEIGHT`. The speaker's name is
    matched as a name (one of its words, or the whole name for CJK), never as a keyword of
    the text. Nothing changes when the request names no speaker among the hits, or names
    every speaker there (no preference to read).
    """
    speakers = {rec.speaker for mid in relevance if (rec := records.get(mid)) and rec.speaker}
    if len(speakers) < 2:
        return dict(relevance)
    named = {s for s in speakers if names_person(query, s)}
    if not named or named == speakers:
        return dict(relevance)
    out = dict(relevance)
    for mid in relevance:
        rec = records.get(mid)
        if rec is not None and rec.speaker in named:
            out[mid] += SPEAKER_WEIGHT
    return out


_NAME_WORD = lazy(r"[^\W\d_]{2,}")


def names_person(query: str, name: str) -> bool:
    """True when `query` names the person called `name`: the whole name, or one of its
    words of three letters or more ("Mei" in "What did Mei Lin say", "Melanie's").

    Names are often words too ("Will", "May", "Mark", "Hope"): in a request written with
    capitals, a name counts only capitalised and not as its first word ("Will it rain?",
    "what will Jon do" name nobody). A request written all in lower case is matched
    case-insensitively.
    """
    whole = name.casefold().strip()
    if whole and whole in query.casefold() and not whole.isascii():
        return True  # a CJK name has no word boundaries
    parts = {w for w in _NAME_WORD.findall(whole) if len(w) >= 3}
    if not parts:
        return False
    cased = query != query.casefold()
    for position, match in enumerate(_NAME_WORD.finditer(query)):
        word = match.group()
        if word.casefold() not in parts:
            continue
        if not cased or (word[0].isupper() and position > 0):
            return True
    return False


_IDENTIFIER = lazy(r"[a-z][\w]*[-_./:#]\w|\d")


def is_lookup(query: str) -> bool:
    """True when the request names an identifier (a port, version, path, ticket, host).

    Such requests reuse the memory's own distinctive token, where BM25 is precise; for them
    the keyword ranking keeps a higher weight even when its margin is small.
    """
    return any(_IDENTIFIER.search(t) for t in tokens(query))


def rank(
    relevance: Mapping[str, float],
    records: Mapping[str, MemoryRecord],
    request: Scope,
    now: dt.datetime,
    recently_used: set[str] | None = None,
) -> list[Scored]:
    """Score every hit (relevance already in 0..1) and sort best first, ties by id."""
    used = recently_used or set()
    scored = [
        score(records[mid], value, request, now, mid in used)
        for mid, value in relevance.items()
        if mid in records and value > 0
    ]
    return sorted(scored, key=lambda s: (-s.score, s.record.id))
