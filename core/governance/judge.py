"""The semantic judge: same, replaces, contradicts, or not sure (#40, R9).

`conflicts.relate` aligns word units; it is precise on statements built alike and blind to
paraphrase, translation and reformatting. The judge decides from signals that generalise,
taken together (`features`):

- **meaning**: the cosine of the two texts' embeddings (the store's multilingual embedder,
  trained on paraphrase and translation), shifted per pair of scripts (two Chinese texts
  run higher, a translation lower);
- **shared words** after canonicalisation (units of `statements.parse` on
  `canonical.canonical_text`: "十五" and "15" are one unit);
- **canonical slots** (`canonical.slots`): the same kind of value (a time, a date, an amount
  with its unit, a weekday) holding different values is a changed value; a value written
  differently ("2pm" / "14:00") is the same value;
- **polarity**, read in the clause that shares the fact, **update wording** ("switched to",
  "now", "no longer", "改到", "换成") and
  **addition wording** ("also", "too", "还", "也": another item of a list);
- what the unit rules (`conflicts.relate`) found.

A linear model over these scores three outcomes (duplicate, contradiction, neither); its
weights are fitted on the development part of `benchmarks/data/judge_pairs.jsonl` only
(`benchmarks/calibrate_judge.py` prints them). When the best outcome is not clearly ahead
(probability below `SURE`) and the pair is related, the answer is **unsure** with the
likeliest relation: the policy sends the new memory to the review queue as "possibly the
same as / possibly replaces / possibly contradicts m:...", never silently keeping both.
A contradiction replaces the old value when the new text uses update wording.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.governance.canonical import canonical_text, differing, is_calendar_word, slots
from core.governance.conflicts import Relation, relate
from core.governance.numerals import first_person
from core.governance.shown import shown_change
from core.governance.statements import CJK_CHAR, parse
from core.governance.text import STOPWORDS, squash, words_of
from core.patterns import lazy

# Wording that presents a statement as replacing an older value. Strong: it says so
# ("switched to", "no longer", "改成"); weak: it only dates the statement ("now", "现在"),
# which replaces only together with a changed value.
_UPDATE = lazy(
    r"\b(?:no longer|anymore|any more|no more|switched|switch(?:ed|ing)? to|moved|"
    r"migrated|replaced|changed|upgraded|downgraded|renamed|ripped out|dropped|took over|"
    r"correction|instead|from now on|outgrew|stepped down|upped|bumped|raised|lowered|cut)\b"
    r"|改到|改成|改为|改用|改了|换成|换到|换了|不再|已经换|迁到|迁移|升级|搬到|"
    r"调到|调去|更正|挪到|涨到|降到|接手|退了|戒了",
    2,  # re.IGNORECASE
)
_UPDATE_WEAK = lazy(r"\b(?:now|these days|since|starting|as of)\b|现在|以后|从此|开始", 2)
_ALSO = lazy(r"\b(?:also|too|as well|another|in addition|plus|separate)\b|还|也|另外|另", 2)
_LATIN = lazy(r"[A-Za-z]{2,}")

# Per pair of scripts (z: mostly Chinese, e: mostly Latin): how much higher its cosines run
# than between two English texts (medians of the development part).
SHIFT = {"ee": 0.0, "zz": 0.045, "ez": -0.05}
# At or above this cosine two texts say the same whatever word they exchanged (a paraphrase
# such as "allergic to penicillin" / "has a penicillin allergy").
IDENTICAL = 0.985
# The shared-words share assumed for a translation (about the development part's mean over
# related same-script pairs).
OVERLAP_UNKNOWN = 0.3
# Below this (shifted) cosine the two texts are about different things, whatever the model
# says (development part: unrelated English pairs 0.75-0.85).
RELATED = 0.845
# A duplicate or a contradiction is decided at or above these probabilities; a pair whose
# duplicate or contradiction probability reaches `UNSURE` but not its bar goes to review.
SURE_DUPLICATE = 0.7
SURE_CONTRADICTION = 0.65
UNSURE = 0.5

FEATURES = (
    "bias",
    "similarity",
    "overlap",
    "changed",
    "same_values",
    "update",
    "also",
    "denies",
    "rule_contradiction",
    "rule_duplicate",
    "rule_compatible",
    "swap",
    "added",
    "superset",
    "names_another",
    "cross",
    "numbers_differ",
    "dated",
)
# Fitted on dev, check and final-1 by benchmarks/calibrate_judge.py (`--parts`). Refits that
# add final-2 and final-3 learn that "now" makes a contradiction, and link chat lines such as
# "Congrats Nate! You must be so proud now." to a fact about Nate (docs/governance.md);
# rows: duplicate, contradiction, neither; columns: FEATURES.
WEIGHTS: dict[str, tuple[float, ...]] = {
    "duplicate": (
        -8.086,
        8.839,
        1.666,
        -0.923,
        1.047,
        -0.707,
        -0.981,
        -0.59,
        -0.284,
        0.353,
        -0.136,
        0.436,
        -0.341,
        -0.007,
        -0.576,
        0.008,
        -0.997,
        0.079,
    ),
    "contradiction": (
        -2.428,
        2.017,
        0.506,
        0.933,
        -0.74,
        1.791,
        -0.379,
        0.677,
        0.27,
        -0.103,
        0.028,
        0.016,
        0.02,
        -0.511,
        1.026,
        -0.292,
        0.642,
        -0.338,
    ),
    "neither": (
        10.514,
        -10.856,
        -2.172,
        -0.01,
        -0.308,
        -1.084,
        1.36,
        -0.088,
        0.014,
        -0.25,
        0.109,
        -0.452,
        0.321,
        0.519,
        -0.45,
        0.284,
        0.355,
        0.259,
    ),
}


@dataclass(frozen=True)
class Judgement:
    """A relation, or not sure (`kind == "unsure"`, `maybe` the likeliest relation)."""

    kind: str
    reason: str
    replaces: bool = False
    maybe: str = ""

    def relation(self) -> Relation:
        return Relation(self.kind, self.reason, self.replaces)


@dataclass(frozen=True)
class Signals:
    """What the judge sees of a pair."""

    similarity: float
    overlap: float
    changed: tuple[tuple[str, str, str], ...]
    same_values: bool
    update: bool
    also: bool
    denies: bool
    rule: Relation
    dated: bool = False  # weak update wording ("now", "现在")
    cross: bool = False  # written in two scripts (a translation shares no words)
    swap: bool = False  # mostly the same words, one or two exchanged ("Mom" / "Dad")
    names_swapped: bool = False  # what was exchanged are names on both sides
    added: bool = False  # the new statement states a value the old one lacks, changing none
    superset: bool = False  # the new statement has every word of the old one, and more
    names_another: bool = False  # it says it replaces a value the old statement does not hold
    numbers_differ: bool = False  # each states numbers, none in common, whatever they follow
    unshared_names: int = 0  # how many sides name something the other does not
    # The unit rules find another subject in the first slot, also once "the user" and "I"
    # are one person ("用户的儿子" / "我儿子" is one subject)
    other_subject: bool = False
    symbols_differ: bool = False  # the same words, other symbols ("5 €" / "5 $", 🟢 / 🔴)
    specific: bool = False  # the same values, not only a weekday (a date, time, amount, id)

    @property
    def evidence(self) -> bool:
        """A changed value, a denial, or a change the unit rules align."""
        return bool(
            self.changed or self.denies or self.rule.kind == "contradiction" or self.rule.replaces
        )

    @property
    def structural(self) -> bool:
        """The unit rules recognised a refinement or another item of a list."""
        return self.rule.reason.startswith(_STRUCTURAL)

    def vector(self) -> tuple[float, ...]:
        return (
            1.0,
            self.similarity,
            self.overlap,
            float(bool(self.changed)),
            float(self.same_values),
            float(self.update or self.dated),
            float(self.also),
            float(self.denies),
            float(self.rule.kind == "contradiction"),
            float(self.rule.kind == "duplicate"),
            float(self.rule.kind == "compatible"),
            float(self.swap),
            float(self.added),
            float(self.superset),
            float(self.names_another),
            float(self.cross),
            float(self.numbers_differ),
            float(self.dated and not self.update),
        )

    @property
    def aligned(self) -> bool:
        """The unit rules aligned the two statements into one frame (values written two ways
        aside)."""
        return self.rule.kind in ("contradiction", "compatible") and self.rule.reason != SAME_VALUES


def signals(new: str, old: str, similarity: float, rule: Relation | None = None) -> Signals:
    """The judge's view of a pair (the cosine, and the unit rules' relation when the caller
    has it, already computed)."""
    a, b = parse(canonical_text(new)), parse(canonical_text(old))
    ua, ub = set(a.units), set(b.units)
    overlap = len(ua & ub) / len(ua | ub) if ua | ub else 0.0
    only_a, only_b = _unabbreviated(ua - ub, ub - ua)
    swap = overlap >= 0.4 and 0.5 <= _size(only_a) <= 2 and 0.5 <= _size(only_b) <= 2
    names_a, names_b = parse(new).names | _lead_name(new), parse(old).names | _lead_name(old)
    names_swapped = bool(only_a & names_a) and bool(only_b & names_b)
    sa, sb = slots(new), slots(old)
    cross = _pair(new, old) == "ez"
    rule = rule if rule is not None else relate(new, old)
    changed = tuple(differing(sa, sb))
    same_values = bool(sa) and _values(sa) == _values(sb)
    if rule.kind == "contradiction" and not changed and _reformatted(rule.reason):
        # The rules read words; "9:30" / "9.30am" and "14:00" / "2pm" are one value. (A
        # word exchanged around values that are all the same stays the rules' contradiction:
        # "聚餐在外婆家 / 奶奶家, 12 点" is another value, "starts / begins in September 2026"
        # is wording, and nothing here tells the two apart; docs/governance.md.)
        rule = Relation("compatible", SAME_VALUES)
    if cross:
        # Words cannot be shared across scripts: the overlap is unknown, not zero.
        overlap = OVERLAP_UNKNOWN
    return Signals(
        similarity=similarity - SHIFT[_pair(new, old)],
        overlap=overlap,
        changed=changed,
        same_values=same_values,
        update=bool(_UPDATE.search(new)),
        dated=bool(_UPDATE_WEAK.search(new)) or a.replacing,
        also=bool(_ALSO.search(new)),
        denies=_polarity(new, ub) != _polarity(old, ua),
        rule=rule,
        cross=cross,
        swap=swap and not cross,
        names_swapped=names_swapped,
        added=bool(_values(sa) - _values(sb)) and _values(sb) <= _values(sa),
        superset=ub < ua and _size(ua - ub) >= 1,
        names_another=_names_another(new, old),
        numbers_differ=_numbers_differ(sa, sb),
        unshared_names=_unshared_names(new, old),
        other_subject=_other_subject(rule)
        and _other_subject(relate(first_person(new), first_person(old))),
        symbols_differ=words_of(new) == words_of(old) and squash(new) != squash(old),
        specific=same_values and any(k != "weekday" for k, _ in _values(sa)),
    )


# Clause boundaries: punctuation, and a full stop not inside a number ("2.5").
_CLAUSE = lazy(r"[,;:!?，；：、。！？]|\.(?!\d)")


def _polarity(text: str, other: set[str]) -> bool:
    """Whether `text` denies, read in the clause that shares most words with the other text:
    "朵朵12:30要睏午觉的哦，不睏下午要发脾气的" asserts the nap; its "不" is about
    something else. One clause, or none shared: the whole text."""
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    if len(clauses) < 2:
        return parse(text).negated
    shared = [len(set(parse(canonical_text(c)).units) & other) for c in clauses]
    best = max(shared)
    if best == 0:
        return parse(text).negated
    return parse(clauses[shared.index(best)]).negated


def _other_subject(rule: Relation) -> bool:
    return rule.reason.startswith("about a different subject")


def probabilities(sig: Signals) -> dict[str, float]:
    x = sig.vector()
    scores = {k: sum(w * v for w, v in zip(ws, x, strict=True)) for k, ws in WEIGHTS.items()}
    top = max(scores.values())
    exp = {k: math.exp(s - top) for k, s in scores.items()}
    total = sum(exp.values())
    return {k: e / total for k, e in exp.items()}


def judge(new: str, old: str, similarity: float | None) -> Judgement:
    """How `new` relates to `old`; with no similarity (no embedder) the unit rules decide."""
    rule = relate(new, old)
    if similarity is None or (rule.kind == "duplicate" and rule.reason.startswith("same text")):
        return Judgement(rule.kind, rule.reason, rule.replaces)
    sim = f"meaning similarity {similarity:.2f}"
    if similarity - SHIFT[_pair(new, old)] < RELATED:
        return Judgement("unrelated", sim)  # before the signals: a long text's cost a pair
    sig = signals(new, old, similarity, rule)
    replaces = (sig.update or sig.rule.replaces or (sig.dated and sig.evidence)) and not (
        sig.names_another
    )
    aligned = _aligned(sig, similarity, replaces, sim)
    if aligned is not None:
        return aligned
    dup, con = _adjusted(sig, probabilities(sig))
    why = _why(sig, sim)
    if dup >= SURE_DUPLICATE:
        return Judgement("duplicate", f"the same fact in other words ({why}; p={dup:.2f})")
    if con >= SURE_CONTRADICTION:
        return Judgement(
            "contradiction", f"same subject, another value ({why}; p={con:.2f})", replaces
        )
    if max(dup, con) >= UNSURE:
        maybe = "duplicate" if dup >= con else ("replaces" if replaces else "contradiction")
        return Judgement("unsure", f"{why}; p={max(dup, con):.2f}", maybe=maybe)
    if _said_twice(sig):
        return Judgement("unsure", f"the same values said another way ({why})", maybe="duplicate")
    return Judgement("compatible", f"related ({why})")


def _aligned(sig: Signals, similarity: float, replaces: bool, sim: str) -> Judgement | None:
    """The unit rules aligned the two statements into one frame and found a denial or one or
    two words exchanged ("allergic to penicillin / peanuts", "Mom / Dad flies"): not to be
    merged on closeness of meaning alone, and the rules say which it is: a changed value
    (contradiction) or another subject, list item or refinement. These are readings of the
    statements' structure, not weights: the model is not asked."""
    if not (sig.aligned and (sig.denies or (sig.swap and similarity < IDENTICAL))):
        return None
    if sig.structural or (
        sig.rule.kind != "contradiction" and (sig.names_swapped or sig.other_subject)
    ):
        return Judgement("compatible", f"{sig.rule.reason}; {sim}")
    if sig.unshared_names == 2 and not sig.update and not sig.changed:
        if sig.same_values:
            # The word exchanged is a name on each side, and every value is the same: one
            # value said of two things ("6 pods of the logging / gateway worker").
            return Judgement("compatible", f"the same values said of two named things; {sim}")
        # Two names and no value to compare ("events for shipping-svc / the inventory
        # frontend go through Redis streams", "metrics are in Datadog / New Relic"): the
        # exchanged name may be the subject or the value; the model and "not sure" decide.
        return None
    if sig.rule.kind == "contradiction" and not sig.names_another:
        return Judgement("contradiction", f"{sig.rule.reason}; {sim}", replaces)
    return None  # the rules' other readings ("adds detail", ...) are left to the model


def _said_twice(sig: Signals) -> bool:
    """The same specific values in two differently built sentences, no name on one side
    only, no list word ("also", "还"), nothing changed or denied: most likely one fact said
    another way, which the embedder alone cannot tell from two facts sharing a date or an
    amount. Not merged silently, not left silently: a person decides. (One word exchanged in
    one frame is the rules' question, not this: another subject or another value.)"""
    return sig.specific and not (
        sig.also
        or sig.changed
        or sig.denies
        or sig.rule.replaces
        or sig.names_another
        or sig.unshared_names
        or sig.names_swapped  # "Mom / Dad flies to Chicago on May 3": two people
        or sig.swap  # one word exchanged in one frame: "desk / laptop owns release step 3"
    )


def _adjusted(sig: Signals, probs: dict[str, float]) -> tuple[float, float]:
    """The model's duplicate and contradiction probabilities, held down where a signal rules
    an outcome out or makes it a question for the user.

    Each guard states a reason a merge or a conflict would be wrong whatever the corpus
    (another subject, a changed value, names the embedder hardly sees); everything else is a
    feature the model weighs (hand guards fitted to one corpus cost recall on the next:
    measured by leaving one author out at a time, `benchmarks/calibrate_judge.py --cv`)."""
    dup, con = probs["duplicate"], probs["contradiction"]
    below = UNSURE - 0.01
    if sig.other_subject:
        # The rules found another subject in the first slot ("the checkout / refunds
        # service ..."): the same frame about two things neither repeats nor contradicts.
        dup, con = min(dup, below), min(con, below)
    if sig.unshared_names == 2:
        # Each names something the other does not ("gateway-job" / "the coupons service"):
        # the same value said of two things is two facts; the embedder hardly sees names, so
        # such a pair is never merged silently.
        dup = min(dup, SURE_DUPLICATE - 0.01)
    if sig.added or sig.superset or sig.names_swapped:
        # All the older statement says, and more (added detail), or another named subject:
        # a merge would drop what the new one adds.
        dup = min(dup, below)
    if sig.symbols_differ:
        # The words are the same and only symbols differ: the symbols are the values, and
        # the embedder hardly sees them. Never merged silently; a person decides.
        dup, con = min(dup, below), max(con, UNSURE)
    if (sig.changed or sig.denies or sig.rule.kind == "contradiction") and dup >= below:
        # A changed value or a denial is never the same fact, however close the meaning: a
        # merge would drop one of the two facts without a trace. What the model gave the
        # duplicate goes to the other two outcomes in proportion (not the same fact: then a
        # contradiction or neither).
        rest = 1.0 - dup
        con = con / rest if rest > 0 else 1.0
        dup = below
    if sig.rule.kind == "contradiction" and not sig.names_another and max(dup, con) >= UNSURE:
        con = max(con, SURE_CONTRADICTION)  # closely related, and the rules align a change
    if sig.unshared_names == 2 and not (sig.update or sig.changed):
        # Two names exchanged and no value changed: at most "possibly contradicts".
        con = min(con, SURE_CONTRADICTION - 0.01)
    if (sig.swap or sig.rule.kind == "contradiction") and sig.similarity < IDENTICAL:
        # A word or two exchanged on each side ("dark / light mode", "外婆家 / 奶奶家") may be
        # a paraphrase or another value; the embedder cannot tell the two apart, so such a
        # pair is never merged silently: at most "possibly the same", a person decides.
        dup = min(dup, SURE_DUPLICATE - 0.01)
    return dup, con


SAME_VALUES = "the same values written differently"
# What the unit rules recognise from a statement's structure: a refinement ("Node 20" /
# "Node 20.11.1") and another item of a list-valued predicate (allergies, likes).
_STRUCTURAL = ("a more precise value", "another value of a list-valued fact")


def _reformatted(reason: str) -> bool:
    """Every change the unit rules name ("9:30 → 9.30am") is one value written two ways."""
    _, found, changes = reason.partition("with a different value: ")
    if not found:
        return False
    for change in changes.split(", "):
        old, arrow, new = change.partition(" → ")
        so, sn = slots(old), slots(new)
        if not (arrow and so and sn) or differing(so, sn) or not _values(so) & _values(sn):
            return False
    return True


# What names a thing: a hyphenated identifier ("gateway-job", "scheduler-api"), a
# capitalised word inside a sentence ("... go to Jonas"), or the word before a noun that says
# what kind of thing it is ("the coupons service", "the translation worker").
_IDENT = lazy(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b")
_INNER_CAPITAL = lazy(r"(?<=[a-z0-9,;:] )[A-Z][a-z]+\b")
_KIND_OF = lazy(
    r"\b([a-z][a-z0-9]+) (?:service|svc|worker|job|frontend|backend|api|app|server|cluster|"
    r"database|db|repo|pipeline|bot|team|project|module|queue|bucket)s?\b",
    2,
)
_WORDS = lazy(r"[a-z0-9]+")


def names(text: str) -> set[str]:
    """The names a text uses for things (see `_IDENT`), folded; "the" etc. never count."""
    found = {m.group().casefold() for m in _IDENT.finditer(text)}
    found |= {m.group().casefold() for m in _INNER_CAPITAL.finditer(text)}
    found |= {m.group(1).casefold() for m in _KIND_OF.finditer(text)}
    return {n for n in found if n not in STOPWORDS and not is_calendar_word(n)}


def _unshared_names(new: str, old: str) -> int:
    """Sides naming something the other text does not mention at all (a name of one side
    counts as mentioned when the other's words contain it, "gateway-job" / "the gateway")."""
    a, b = names(new), names(old)
    words_a, words_b = set(_WORDS.findall(new.casefold())), set(_WORDS.findall(old.casefold()))
    only_a = {n for n in a if not set(_WORDS.findall(n)) <= words_b}
    only_b = {n for n in b if not set(_WORDS.findall(n)) <= words_a}
    return int(bool(only_a)) + int(bool(only_b))


def _numbers_differ(a: frozenset[tuple[str, str]], b: frozenset[tuple[str, str]]) -> bool:
    """Both texts state numbers and share none, whatever word each follows ("set 3°C" /
    "set to 5 degrees", "we have 3 aliquots" / "there are 5"): weaker than a changed slot,
    since "PostgreSQL 16" / "port 5432" are two attributes; the model weighs it."""
    na = {v for k, v in a if k.startswith(("num:", "qty:"))}
    nb = {v for k, v in b if k.startswith(("num:", "qty:"))}
    return bool(na and nb) and not na & nb


def _names_another(new: str, old: str) -> bool:
    """The new text says what it replaces ("instead of ward C", "不再坐2号线") and the old one
    holds none of those values."""
    a, b = parse(new), parse(old)
    named = [u for u in a.replaced if u in a.values]
    return bool(named) and not any(u in b.units for u in named)


def _lead_name(text: str) -> set[str]:
    """A capitalised first word ("Mom flies ...") is a name when it is not a function word."""
    first = text.split(maxsplit=1)[0] if text.split() else ""
    word = first.strip(".,:;!?").casefold().removesuffix("'s").removesuffix("’s")
    return {word} if first[:1].isupper() and word.isalpha() and word not in STOPWORDS else set()


def _unabbreviated(a: set[str], b: set[str]) -> tuple[set[str], set[str]]:
    """The words of each side that are not an abbreviation of a word of the other ("dev" /
    "developer", "bday" / "birthday", "appt" / "appointment")."""
    pairs = {(x, y) for x in a for y in b if _abbreviates(x, y) or _abbreviates(y, x)}
    return a - {x for x, _ in pairs}, b - {y for _, y in pairs}


def _abbreviates(short: str, long: str) -> bool:
    if not (short.isalpha() and long.isalpha()) or len(short) < 2 or short[0] != long[0]:
        return False
    rest = iter(long)
    return len(short) < len(long) and all(c in rest for c in short)


def _size(units: set[str]) -> float:
    """Words, a CJK character counting half (Chinese words are mostly two)."""
    return sum(0.5 if CJK_CHAR.match(u) else 1.0 for u in units)


def _values(found: frozenset[tuple[str, str]]) -> set[tuple[str, str]]:
    """Values without the word a bare number follows (":9000" is "port 9000")."""
    return {("num" if k.startswith("num:") else k, v) for k, v in found}


def _why(sig: Signals, sim: str) -> str:
    parts = [sim, f"shared words {sig.overlap:.2f}"]
    if sig.changed:
        parts.append("changed: " + "; ".join(shown_change(*c) for c in sig.changed))
    if sig.denies:
        parts.append("one denies the other")
    if sig.update:
        parts.append("update wording")
    if sig.rule.kind in ("duplicate", "contradiction") and sig.rule.reason:
        parts.append(sig.rule.reason)
    return ", ".join(parts)


def script(text: str) -> str:
    """z: mostly Chinese; e: mostly Latin."""
    cjk = len(CJK_CHAR.findall(text))
    latin = sum(len(w) for w in _LATIN.findall(text))
    return "z" if cjk * 2 >= latin else "e"


def _pair(a: str, b: str) -> str:
    pair = "".join(sorted(script(a) + script(b)))
    return pair
