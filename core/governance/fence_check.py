"""Deletion-fence checks without decrypting every fence on every write (#13).

The standing fences' features (keyed unit hashes, value marks, the sealed embedding) are
decrypted once and kept until the fence tables change (`fences.state`: counts and latest
times, one cheap query). A candidate is embedded only when some fence could match it by
meaning: `match` needs its value marks inside the fence's and no reversed roles
(`_could_mean`), so a write that states a new value never waits for the model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from core.governance.fences import Features, FenceView, denies, features, match
from core.governance.statements import CJK_CHAR, affirmed
from core.patterns import lazy
from core.storage import fences, governed
from core.storage.store import WriteTx

Vector = tuple[str, Sequence[float]] | None


class FenceCheck:
    """Finds the standing fence a content meets (R19), with the fences cached."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: tuple[object, ...] | None = None
        self._views: list[FenceView] = []
        self._exact: dict[str, str] = {}

    def views(self, tx: WriteTx) -> list[FenceView]:
        """The standing fences, re-read only when the fence tables changed."""
        return self._read(tx)[0]

    def exact(self, tx: WriteTx, fingerprints: Sequence[str]) -> str | None:
        """The deleted memory whose standing fence has one of these content fingerprints."""
        known = self._read(tx)[1]
        return next((known[fp] for fp in fingerprints if fp in known), None)

    def _read(self, tx: WriteTx) -> tuple[list[FenceView], dict[str, str]]:
        state = fences.state_in(tx)
        with self._lock:
            if state != self._state:
                self._views = [
                    FenceView(f.memory_id, f.terms, f.marks, f.embedder, f.vector)
                    for f in fences.standing(tx.conn, tx.codec)
                ]
                self._exact = fences.standing_fingerprints(tx.conn, tx.codec)
                self._state = state
                # Fence rows changed outside Memory Center do not count; they are reported.
                governed.report(tx, governed.differences(tx.conn, tx.codec, governed.FENCE_TABLES))
            return self._views, self._exact

    def meet(
        self, tx: WriteTx, content: str, embed: Callable[[str], Vector]
    ) -> tuple[str | None, str]:
        """The fence `content` meets by units or meaning, and why; (None, "") when none."""
        views = self.views(tx)
        if not views:
            return None, ""
        # Features under every fingerprint key this device holds: a fence stood in a
        # member's private scope hashes its units with that member's key (#12). Each clause
        # is read once, for the denial check and as a piece.
        keys = tx.codec.fingerprint_keys()
        of = {text: [features(key, text) for key in keys] for text in (content, *_clauses(content))}
        # A message that denies the fenced fact in one of its clauses ("我对青霉素不过敏，上次
        # 皮试过了") states a new fact: none of its parts brings the deleted one back. The
        # clause must deny the fact itself: without its negation it is the fact ("Leo sits at
        # the nut-free table, he can't have nuts" restates the fact; its "can't" denies
        # something else).
        views = [v for v in views if not _denied(v, of, content, keys, embed)]
        for piece in pieces(content):
            found, why = _meet_one(views, of[piece], piece, embed, piece != content)
            if found is not None:
                if piece != content:
                    why = f'{why}, in the part "{piece}"'
                return found, why
        return None, ""


def _denied(
    view: FenceView,
    of: dict[str, list[Features]],
    content: str,
    keys: Sequence[bytes],
    embed: Callable[[str], Vector],
) -> bool:
    """Some clause of the message carries a negation the fenced fact lacks, and with the
    negation taken out it is the fenced fact (by units or meaning)."""
    for text, every in of.items():
        if text == content or not any(denies(f, view) for f in every):
            continue
        plain = affirmed(text)
        if _meet_one([view], [features(key, plain) for key in keys], plain, embed, True)[0]:
            return True
    return False


def _meet_one(
    views: list[FenceView],
    every: list[Features],
    content: str,
    embed: Callable[[str], Vector],
    part: bool,
) -> tuple[str | None, str]:
    """The fence `content` (one piece, with its features under each key) meets, and why."""
    near = any(v.vector is not None and _could_mean(feats, v) for feats in every for v in views)
    vector = embed(content) if near else None
    for feats in every:
        for view in views:
            if part and not feats.terms & view.terms:
                continue  # a clause that shares no word with the deleted fact is not it
            why = match(feats, vector, view)
            if why:
                return view.memory_id, why
    return None, ""


# Where a message divides into statements: sentence ends (not the full stop of a title:
# "My lawyer is Dr. Jones" is one statement), semicolons, dashes and commas.
_CLAUSE_END = lazy(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bMx)(?<!\bSt)(?<!\bProf)[.!?;]+(?:\s+|$)"
    r"|[。！？；\n]+\s*|\s+[—–-]{1,2}\s+|,\s+|[，、]\s*"
)


def pieces(content: str) -> list[str]:
    """The content, then each clause of it long enough to state a fact on its own.

    A deleted fact often comes back inside a longer message ("ugh, as I told you the
    appointment is April 17th, can you remind me ..."): the message as a whole carries other
    values and means more than the fact, so each clause is compared with the fences too."""
    clauses = [p for p in _clauses(content) if _long_enough(p)]
    return [content, *clauses] if clauses else [content]


def _clauses(content: str) -> list[str]:
    """Every clause of the content, however short ("没有高血压")."""
    parts = [p.strip() for p in _CLAUSE_END.split(content) if p and p.strip()]
    return parts if len(parts) > 1 else []


def _long_enough(clause: str) -> bool:
    """Three words, or six Chinese characters (a Chinese word is mostly two)."""
    cjk = len(CJK_CHAR.findall(clause))
    words = len([w for w in CJK_CHAR.sub(" ", clause).split() if w])
    return words + cjk / 2 >= 3


def _could_mean(new: Features, fence: FenceView) -> bool:
    """The conditions `match` puts on a match by meaning, checked before embedding: no value
    or polarity the deleted text lacked, and no reversed roles."""
    if not new.terms or not new.marks <= fence.marks:
        return False
    return not new.reverse & fence.marks
