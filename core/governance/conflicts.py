"""Duplicates and contradictions between memories, from the structure of the statements (R9).

Both texts are taken apart (`statements.parse`) and their units aligned. What the two share
is the *frame* (subject and predicate: "team offsite is in ... from ... to ..."); what differs
are *slots*. Then:

- **contradiction**: one says the opposite of the other (negation: "is allergic" / "is not
  allergic", "要" / "不要", "uses X" / "no longer uses X"); or both fill the same frame with
  different values in one or more slots (dates, times, numbers with units, versions, places,
  people, amounts, a swapped word such as tabs/spaces or 上午/下午); or the new one says it
  replaces something ("instead of yarn", "不再用 Jenkins") that the old one states;
- **compatible**: a refinement (a value made more precise, "Node 20" / "Node 20.11.1", or
  detail added), another member of a list-valued fact (allergies, likes, things one takes or
  pays for), or the same predicate about a different subject (the first slot differs);
- **duplicate**: the same units up to wording and order, with no value changed;
- **unrelated**: too little frame in common. Replacement wording ("now", "现在") never makes a
  relation on its own: it only tells an actual contradiction that the new value replaces the
  old one.

Each contradiction carries a reason naming the shared frame and the changed slots, so a
reviewer can see why one memory superseded or conflicts with another.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from core.governance.statements import GENERIC, Statement, is_cjk, is_number, parse, units_of
from core.governance.text import squash

Opcode = tuple[str, int, int, int, int]


def units(text: str) -> list[str]:
    """The comparison units of a text (kept for callers and tests)."""
    return units_of(text)


@dataclass(frozen=True)
class Relation:
    """How a new statement relates to an existing one.

    Attributes:
        kind: "duplicate", "contradiction", "compatible" or "unrelated".
        reason: why, in words a reviewer can check (the frame and the changed slots).
        replaces: the new statement says it replaces the old value (supersede at equal
            authority rather than a conflict set).
    """

    kind: str
    reason: str
    replaces: bool = False


_UNRELATED = Relation("unrelated", "")


def relate(new: str, old: str) -> Relation:
    """Classify the relation of `new` to `old`."""
    if squash(new) == squash(old):
        return Relation("duplicate", "same text after normalisation")
    a, b = parse(new), parse(old)
    if not a.units or not b.units:
        return _UNRELATED
    if _asks(new) or _asks(old):
        # A question asserts nothing, so nothing to contradict ("Is this your painting?").
        rel = _Alignment(a, b).classify()
        return rel if rel.kind == "duplicate" else _UNRELATED
    named = _names_old_value(a, b)
    if named:
        return Relation("contradiction", named, True)
    align = _Alignment(a, b)
    rel = _negation(align, a, b) if a.negated != b.negated else align.classify()
    if rel.kind == "contradiction" and _replaces_another(a, b):
        # "moved to ward D instead of ward C" replaces what says ward C: an older memory
        # about ward B is not replaced; it contradicts only if the two share a subject
        # beyond the kind of thing named ("ward", "号公寓"): then it is a conflict to review.
        beyond = align.content_frame(without=set(a.replaced) - a.values)
        return Relation("contradiction", rel.reason, False) if beyond >= 1 else _UNRELATED
    return rel


def _replaced_values(a: Statement) -> list[str]:
    """The values the replaced phrase names ("instead of ward C": c)."""
    return [u for u in a.replaced if u in a.values]


def _replaces_another(a: Statement, b: Statement) -> bool:
    """The new statement names the values it replaces, and the old one holds none of them."""
    values = _replaced_values(a)
    return bool(values) and not any(v in b.units for v in values)


def may_conflict(new: str, old: str) -> bool:
    """False only when `relate(new, old)` can be neither a duplicate nor a contradiction, so
    the policy settles most pairs of a big scope without aligning them (#13)."""
    if squash(new) == squash(old):
        return True
    a, b = parse(new), parse(old)
    return bool(a.units and b.units) and _may_relate(a, b)


def _may_relate(a: Statement, b: Statement) -> bool:
    """Whether a duplicate or contradiction rule could fire. Each rule needs one of:
    a difflib ratio of at least 0.25 (bounded above by the shared units counted with
    repeats), units Jaccard >= 0.8, three quarters of the smaller unit set shared (a
    denial), or replacement wording naming the old value."""
    if a.replaced:
        return True
    ca, cb = a.unit_counts, b.unit_counts
    if len(ca) > len(cb):
        ca, cb = cb, ca
    shared = [u for u in ca if u in cb]
    inter = len(shared)
    if not inter:
        return False
    if (
        inter >= 0.75 * len(ca)  # the smaller set
        or inter >= 0.8 * (len(ca) + len(cb) - inter)  # the union
    ):
        return True
    bound = 0.25 * (len(a.units) + len(b.units))
    # Each shared unit counts at least once, so the sum over repeats is needed only when
    # the distinct shared units fall short (a tenth of this check's time at 10k, #13).
    return 2 * inter >= bound or 2 * sum(min(ca[u], cb[u]) for u in shared) >= bound


def _asks(text: str) -> bool:
    return text.rstrip().endswith(("?", "？"))


def explicitly_replaces(new: str, old: str) -> bool:
    """True when `new` uses replacement wording ("now", "instead of", "改用" ...)."""
    return parse(new).replacing


def _names_old_value(a: Statement, b: Statement) -> str | None:
    """ "instead of yarn" / "不再用 Jenkins": the new statement names what the old one says."""
    if not a.replaced:
        return None
    old_units = set(b.units)
    # A value in the replaced phrase (a number, a name, a version) says which statement is
    # replaced: "instead of region 3" replaces what says region 3, not every memory that
    # mentions a region.
    values = _replaced_values(a)
    if values and not any(v in old_units for v in values):
        return None
    named = [u for u in a.replaced if u in old_units and u not in GENERIC]
    rest = [u for u in dict.fromkeys(a.units) if u in old_units and u not in GENERIC]
    # Besides the replaced thing, the new statement adds little: its new value, not a
    # conversation of its own that happens to say "instead of" and share a name.
    added = [u for u in dict.fromkeys(a.units) if u not in old_units and u not in GENERIC]
    if not named or not rest or _size(added) > 4:
        return None
    return (
        f"says it replaces {_join(named)}, which the older memory states "
        f"(same subject: {_join(rest[:4])})"
    )


def _negation(align: _Alignment, a: Statement, b: Statement) -> Relation:
    """Opposite polarity: a contradiction only when, polarity aside, both say the same
    ("not allergic to peanuts" does not deny "allergic to penicillin")."""
    core = align.classify()
    same = core.kind == "duplicate" or core.reason.startswith("adds detail")
    if not (same and align.same_core()):
        return _UNRELATED
    which = "new" if a.negated else "old"
    reason = (
        f"one denies what the other states ({which} statement is negated; "
        f"same subject: {_join(align.frame()[:5])})"
    )
    return Relation("contradiction", reason, a.replacing and a.negated)


class _Alignment:
    """The two unit sequences aligned: shared frame, changed slots, added detail."""

    def __init__(self, a: Statement, b: Statement) -> None:
        self.a, self.b = a, b
        self.matcher = difflib.SequenceMatcher(a=b.units, b=a.units, autojunk=False)
        self.ratio = self.matcher.ratio()
        self.ops: list[Opcode] = [op for op in self.matcher.get_opcodes() if op[0] != "equal"]

    def frame(self) -> list[str]:
        """Shared units in order."""
        return [
            self.b.units[i]
            for tag, i1, i2, _, _ in self.matcher.get_opcodes()
            if tag == "equal"
            for i in range(i1, i2)
        ]

    def content_frame(self, without: set[str] | frozenset[str] = frozenset()) -> int:
        """How much subject the two share: Latin content words count 1, CJK characters 1/2
        (`without`: units not to count)."""
        shared = set(self.frame()) - GENERIC - without
        return sum(1 for u in shared if not is_cjk(u)) + sum(1 for u in shared if is_cjk(u)) // 2

    def same_core(self) -> bool:
        """The same statement up to wording (used when only the polarity differs)."""
        sa, sb = set(self.a.units), set(self.b.units)
        small = min(len(sa), len(sb))
        return self.ratio >= 0.6 or (small > 0 and len(sa & sb) >= 0.75 * small)

    def classify(self) -> Relation:
        swaps = [op for op in self.ops if op[0] == "replace"]
        extra = [op for op in self.ops if op[0] != "replace"]
        if not swaps:
            return self._without_swaps(extra)
        if (
            self.content_frame() < 1
            or self.ratio < self._min_ratio(swaps)
            or not self._beyond_names()
        ):
            return self._maybe_duplicate()
        return self._with_swaps(swaps, extra)

    def _beyond_names(self) -> bool:
        """Names alone ("Caroline", "Mel") are no frame: two chat turns share them. Any other
        shared unit is ("build", "uses" in "the build uses Gradle")."""
        named = self.a.names | self.b.names
        return any(u not in named for u in self.frame())

    def _min_ratio(self, swaps: list[Opcode]) -> float:
        """How much must be shared: less when every change is a value (a name, a number),
        since "My manager is Elena Rossi" / "... James Carter" share little but the slot."""
        old = [u for op in swaps for u in self._side(op, new=False)]
        new = [u for op in swaps for u in self._side(op, new=True)]
        only_values = all(map(self.b.is_value, old)) and all(map(self.a.is_value, new))
        return 0.25 if only_values else 0.4

    def _maybe_duplicate(self) -> Relation:
        sa, sb = set(self.a.units), set(self.b.units)
        if sa == sb or (_jaccard(sa, sb) >= 0.8 and not self._value_differs()):
            return Relation(
                "duplicate", f"same statement in other words (units {_jaccard(sa, sb):.2f})"
            )
        return _UNRELATED

    def _value_differs(self) -> bool:
        va, vb = self.a.values, self.b.values
        return bool(va ^ vb)

    def _without_swaps(self, extra: list[Opcode]) -> Relation:
        sa, sb = set(self.a.units), set(self.b.units)
        if sa == sb or (_jaccard(sa, sb) >= 0.8 and not self._value_differs()):
            return Relation(
                "duplicate", f"same statement in other words (units {_jaccard(sa, sb):.2f})"
            )
        added = [u for op in extra for u in self._side(op, new=True) + self._side(op, new=False)]
        if any(self.a.is_value(u) or self.b.is_value(u) for u in added):
            return Relation("compatible", f"adds detail ({_join(added)})")
        if set(self.a.units) == set(self.b.units) or (self.ratio >= 0.6 and _size(added) <= 1):
            return Relation(
                "duplicate", f"same statement in other words (similarity {self.ratio:.2f})"
            )
        if self.ratio >= 0.5:
            return Relation("compatible", f"adds detail ({_join(added)})")
        return _UNRELATED

    def _with_swaps(self, swaps: list[Opcode], extra: list[Opcode]) -> Relation:
        changes = [(self._side(op, new=False), self._side(op, new=True)) for op in swaps]
        if all(_refines(old, new) for old, new in changes):
            return Relation("compatible", f"a more precise value ({_pairs(changes)})")
        plain = [c for c in changes if not self._has_value(c)]
        first = changes[0][0] + changes[0][1]
        if self._subject_swap(swaps[0]) and not any(is_number(u) for u in first):
            return Relation("compatible", f"about a different subject ({_pairs(changes[:1])})")
        if self._reworded(changes, plain):
            return Relation("duplicate", "same statement in other words (a word rephrased)")
        if any(bool((set(old) ^ set(new)) & GENERIC) for old, new in changes):
            # "runs on Node 18" / "uses Tailwind": the predicate itself differs, so these
            # are two facts about the subject, not two values of one.
            return Relation(
                "compatible", f"another predicate about the subject ({_pairs(changes)})"
            )
        numbers = any(is_number(u) for old, new in changes for u in old + new)
        if self.a.list_valued and self.b.list_valued and not numbers:
            return Relation(
                "compatible", f"another value of a list-valued fact ({_pairs(changes)})"
            )
        if (
            self.ratio < 0.6
            and not self._says_replaced()
            and (
                len(plain) > 1
                or any(_size(o + n) > 6 for o, n in changes)
                # several slots changed at once: a changed word must be a single word
                or (len(changes) > 1 and any(_size(o + n) > 2 for o, n in plain))
            )
        ):
            return _UNRELATED
        if sum(len(self._side(op, new=True)) for op in extra) > max(2, len(self.frame()) // 2):
            return _UNRELATED
        reason = (
            f"same subject ({_join(self._subject())}) with a different value: {_pairs(changes)}"
        )
        return Relation("contradiction", reason, self.a.replacing)

    def _says_replaced(self) -> bool:
        """Replacement wording over a substantial shared frame: the same slot, new values
        (酒店换了，在西安改住 ... / 在西安住 ...), even where the values are not recognisable."""
        swaps = [op for op in self.ops if op[0] == "replace"]
        small = all(
            max(_size(self._side(op, new=True)), _size(self._side(op, new=False))) <= 1.5
            for op in swaps
        )
        named = self.a.values | self.b.values
        subject = [u for u in set(self.frame()) - GENERIC if u not in named]
        return self.a.replacing and _size(subject) >= 2 and small

    def _subject_swap(self, op: Opcode) -> bool:
        """The first thing differs: the subject ("Mom" / "Dad"; 小雪 / 小刚 after a shared 小)."""
        _, i1, _, j1, _ = op
        lead = 1 if self.b.units and is_cjk(self.b.units[0]) else 0
        return i1 <= lead and j1 <= lead

    def _reworded(
        self, changes: list[tuple[list[str], list[str]]], plain: list[tuple[list[str], list[str]]]
    ) -> bool:
        """Only words of unequal length exchanged (截止到 / 截止日期是), all values kept."""
        sa, sb = set(self.a.units), set(self.b.units)
        return (
            len(plain) == len(changes)
            and not self._value_differs()
            and _jaccard(sa, sb) >= 0.75
            and all(len(old) != len(new) for old, new in changes)
        )

    def _subject(self) -> list[str]:
        frame = [u for u in self.frame() if u not in GENERIC]
        return frame[:5]

    def _has_value(self, change: tuple[list[str], list[str]]) -> bool:
        old, new = change
        return any(self.b.is_value(u) for u in old) or any(self.a.is_value(u) for u in new)

    def _side(self, op: Opcode, *, new: bool) -> list[str]:
        _, i1, i2, j1, j2 = op
        return list(self.a.units[j1:j2]) if new else list(self.b.units[i1:i2])


def _size(items: list[str]) -> float:
    """Length in words: a CJK character counts half (Chinese words are mostly two)."""
    return sum(0.5 if is_cjk(u) else 1.0 for u in items)


def _refines(old: list[str], new: list[str]) -> bool:
    """ "20" → "20.11.1": the new value makes the old one more precise (or the reverse)."""
    x, y = "".join(old), "".join(new)
    return bool(x and y) and (y.startswith(x + ".") or x.startswith(y + "."))


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _pairs(changes: list[tuple[list[str], list[str]]]) -> str:
    return ", ".join(f"{_join(old)} → {_join(new)}" for old, new in changes)


def _join(items: list[str]) -> str:
    out = ""
    for unit in items:
        out += unit if (is_cjk(unit) or not out) else " " + unit
    return out
