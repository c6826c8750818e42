"""A statement taken apart for comparison (R9): units, polarity, values, replacement wording.

Comparing two memories needs more than their words: "Kim is allergic to penicillin" and
"Kim is not allergic to penicillin" share every content word, and "Lisbon, 12-14 May" and
"Porto, 19-21 May" share none of their values. So each text becomes a `Statement`:

- **units**: Latin words (plural-folded, possessive dropped) and single CJK characters,
  without stop words, function characters, negation and replacement markers;
- **negated**: whether the statement denies what it says ("not", "no longer", "不", "没");
- **values**: the units that carry a value — numbers, times, versions, identifiers, proper
  names (capitalised inside a sentence), CJK numerals;
- **replaced**: what the statement says it replaces ("instead of yarn", "不再用 Jenkins",
  "switched from Octopus Energy"), taken out of the units;
- **replacing**: whether it uses replacement wording at all ("now", "改成", "from now on");
- **list_valued**: whether its predicate holds for many values at once (allergies, likes,
  things one pays for or takes), so another value is another fact, not a contradiction.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

from core.governance.han import simplified
from core.governance.text import STOPWORDS, normalize, stem
from core.patterns import lazy

UNIT = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff]|[a-z0-9$€£¥][a-z0-9_.:/+#$%-]*[a-z0-9+#%]|[a-z0-9]")
CJK_CHAR = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_IDENTIFIER = lazy(r"\d|^[a-z]+[-_.][a-z0-9]")
_CAPITALISED = lazy(r"\b[A-Z][A-Za-z]+")
_SENTENCE = lazy(r"[^.!?。！？\n]+")

# Function characters of Chinese that carry no content of their own.
_CJK_FUNCTION = frozenset("的了是在都也很就还着过把被给和与及呢吧啊呀吗嘛哦")
# Extra English words that do not change what a statement says.
_FILLER = frozenset(
    [
        "currently",
        "actually",
        "still",
        "again",
        "now",
        "instead",
        "switched",
        "switch",
        "moved",
        "migrated",
        "changed",
        "change",
        "replaced",
        "replaces",
        "replace",
        "anymore",
        "longer",
        "ever",
        "every",
        "each",
        "already",
        "plan",
        "today",
        "going",
        "will",
        "wait",
        "yes",
        "okay",
        "ok",
        "kept",
        "held",
        "being",
        "get",
        "gets",
        "got",
        "s",
        "t",
        # interjections and small talk: they frame a chat turn, not a fact
        "wow",
        "hey",
        "hi",
        "hello",
        "oh",
        "haha",
        "yeah",
        "thanks",
        "thank",
        "congrats",
        "omg",
        "lol",
    ]
)
# With romanised Hindi's "nahi" / "nahin", which English-script chat mixes in ("complaint
# wapas nahi li").
_NEGATION_EN = lazy(
    r"\b(?:not|no|never|without|none|nobody|nothing|neither|nor|cannot|nahi|nahin)\b|n't\b"
    r"|\bno longer\b",
    re.IGNORECASE,
)
# 不 except where it starts a word that is not a denial (不过 "but", 不错 "good" ...).
# Not 非常 ("very"), 无锡 (a city), 别人 ("others"), 未来 ("future"). Cantonese denies with
# 唔 and 冇 (唔该 is "thanks"). Traditional characters are read as Simplified (`parse`).
_NEGATION_ZH = lazy(
    r"不(?!过(?!敏)|错|同|久|少|断|管|仅|但|光|论)|没有?|别(?![人的处])|未(?!来)|无法|无需|无须|并非"
    r"|唔(?!该)|冇"
)
_REPLACING = lazy(
    r"\b(?:now|instead|switched|switch(?:es|ing)?|moved|migrated|replac\w*|changed|"
    r"no longer|anymore|any more|from now on|change of plan|going forward|rather than)\b"
    r"|改(?=[\u4e00-\u9fff])|换成|换到|换了|不再|现在|已经换|迁移到|从此|以后|而不是|代替|取代",
    re.IGNORECASE,
)
# "instead of X", "switched from X", "不再用 X": X is what the new statement replaces.
_REPLACED = lazy(
    r"(?:\binstead of|\brather than|\b(?:switched|moved|migrated)\b([^,.;]{0,30}?)\bfrom"
    r"|\bno longer (?:uses?|using|takes?|runs?|on)"
    r"|不再用|不再使用|不再走|不再|而不是|取代了?|代替了?)"
    r"\s*([^,.;!?，。；！？]{1,40}?)(?=$|[,.;!?，。；！？]|\s+(?:to|for|with|and|in|on)\b|，|了)",
    re.IGNORECASE,
)
_LIST_VALUED = lazy(
    r"\b(?:allergic|allergy|allergies|likes?|loves?|enjoys?|hates?|dislikes?|eats?|drinks?|"
    r"takes?|pays? for|collaborates? with|speaks?|plays?|owns?|collects?|supports?)\b"
    r"|过敏|喜欢|爱吃|爱喝|讨厌|不吃|不喝|吃|喝|交|合作|会说|收藏|养了?",
    re.IGNORECASE,
)
# Words too generic to make two statements about the same subject.
GENERIC = frozenset(
    [
        "use",
        "uses",
        "used",
        "using",
        "run",
        "runs",
        "ran",
        "require",
        "requires",
        "required",
        "prefer",
        "prefers",
        "preferred",
        "like",
        "likes",
        "want",
        "wants",
        "need",
        "needs",
        "build",
        "builds",
        "built",
        "store",
        "stores",
        "stored",
        "work",
        "works",
        "keep",
        "keeps",
        "make",
        "makes",
        "set",
        "sets",
        "get",
        "gets",
        "go",
        "goes",
        "always",
        "never",
        "every",
        "project",
        "team",
        "we",
        "us",
        "our",
    ]
)


@dataclass(frozen=True)
class Statement:
    """The comparable parts of one text."""

    text: str
    units: tuple[str, ...]
    negated: bool
    values: frozenset[str]
    replaced: tuple[str, ...]
    replacing: bool
    list_valued: bool
    names: frozenset[str] = frozenset()

    def is_value(self, unit: str) -> bool:
        """A unit that carries a value rather than structure."""
        return unit in self.values

    @functools.cached_property
    def unit_counts(self) -> Counter[str]:
        """How often each unit occurs (kept: a statement is compared with many others)."""
        return Counter(self.units)


def is_number(unit: str) -> bool:
    """An amount, a date, a time: digits with at most a short suffix ("3pm", "12th", "5%")."""
    return bool(_NUMBER.fullmatch(unit))


_NUMBER = lazy(r"[$€£¥]?\d[\d.,:/%-]*[a-z]{0,3}")


@functools.lru_cache(maxsize=8192)
def parse(text: str) -> Statement:
    """Take a text apart; see the module docstring (cached: a scope's memories are compared
    with every new candidate)."""
    norm = arabic_numerals(normalize(_CONTRACTION.sub("", simplified(text))))
    replaced_phrases = [m.group(2) for m in _REPLACED.finditer(norm)]
    # Drop the marker and the replaced phrase; keep what stands between ("moved *the docs*
    # from Read the Docs"): it names the subject.
    body = _REPLACED.sub(lambda m: f" {m.group(1) or ''} ", norm)
    names = _names(text) | _letter_labels(text)
    core = units_of(_strip_negation(_REPLACING.sub(" ", body)))
    replaced = tuple(u for phrase in replaced_phrases for u in units_of(phrase)[:3])
    values = frozenset(u for u in (*core, *replaced) if _valueish(u, names))
    return Statement(
        text=text,
        units=tuple(core),
        negated=_negated(body),
        values=values,
        replaced=replaced,
        replacing=bool(_REPLACING.search(norm)),
        list_valued=bool(_LIST_VALUED.search(norm)),
        names=frozenset(names),
    )


def units_of(text: str) -> list[str]:
    """Comparison units: stop words, filler and CJK function characters removed."""
    out = []
    for raw in UNIT.findall(normalize(text)):
        unit = raw[:-2] if raw.endswith("'s") else raw
        unit = unit.lstrip("$€£¥")
        if not unit or unit in STOPWORDS or unit in _FILLER or unit in _CJK_FUNCTION:
            continue
        out.append(_fold(stem(unit)))
    return out


def _fold(word: str) -> str:
    """Third-person and short plurals ("eats", "runs", "cats") fold too; "bus", "this" stay."""
    if len(word) == 4 and word.isalpha() and word.endswith("s") and word[-2] not in "sui":
        return word[:-1]
    return word


def _names(text: str) -> set[str]:
    """Capitalised words that do not start a sentence: names of people, places, products."""
    out: set[str] = set()
    # A word also written in lower case ("the hotel ... Hotel Artemide") is not a name.
    lower = {w for w in re.findall(r"\b[a-z][a-z]+", text)}
    for sentence in _SENTENCE.finditer(text):
        found = list(_CAPITALISED.finditer(sentence.group()))
        lead = len(sentence.group()) - len(sentence.group().lstrip())
        for m in found:
            # A sentence-initial word is a name when it addresses or labels ("Audrey, ...",
            # "Caroline: ...").
            labelled = sentence.group()[m.end() : m.end() + 1] in (":", ",")
            if m.start() > lead or labelled:
                out.update((m.group().casefold(), stem(m.group().casefold())))
    return out - lower - {stem(w) for w in lower}


# Words whose meaning depends on who says them: "I", "my", "we", "you" (and 我, 你, 您, 咱).
_SPEAKER_RELATIVE = lazy(
    r"\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|yourselves)\b"
    r"|[我你您咱]",
    re.IGNORECASE,
)


def speaker_relative(text: str) -> bool:
    """True when the statement speaks of its speaker or the one addressed ("I moved to
    Paris", "你应该试试"): said by another person it is about someone else (#17)."""
    return _SPEAKER_RELATIVE.search(text) is not None


def _letter_labels(text: str) -> set[str]:
    """Single capital letters that label a thing ("ward C", "plan B", "B病区", "vitamin D"):
    values, like names. "I" is a pronoun and "A" before a word an article."""
    return {m.group().casefold() for m in _LETTER_LABEL.finditer(text)}


_LETTER_LABEL = lazy(r"(?<![A-Za-z'’])(?:[B-HJ-Z]|A(?!\s+[a-z]))(?![A-Za-z'’])")


# Contractions whose stem is not the positive verb ("can't" -> "ca"): read as the verb.
_NOT_CONTRACTED = lazy(r"\b(ca|wo|sha)n't\b|\b(\w+)n't\b", re.IGNORECASE)
_STEM = {"ca": "can", "wo": "will", "sha": "shall"}


def affirmed(text: str) -> str:
    """The text with its negations taken out: what it says when it does not deny ("he can't
    have nuts" -> "he can have nuts", "没有高血压" -> "有高血压" without 没)."""
    plain = _NOT_CONTRACTED.sub(
        lambda m: _STEM.get(m.group(1).casefold(), m.group(1)) if m.group(1) else m.group(2),
        simplified(text),
    )
    return " ".join(_NEGATION_ZH.sub(" ", _NEGATION_EN.sub(" ", plain)).split())


def _strip_negation(text: str) -> str:
    return _NEGATION_ZH.sub(" ", _NEGATION_EN.sub(" ", text.replace("n't", " not")))


def _negated(text: str) -> bool:
    count = len(_NEGATION_EN.findall(text)) + len(_NEGATION_ZH.findall(text))
    return count % 2 == 1


def _valueish(unit: str, names: set[str]) -> bool:
    if CJK_CHAR.match(unit):
        return False  # Chinese numbers were turned into digits; other characters are words
    return bool(_IDENTIFIER.search(unit)) or unit in names


_CONTRACTION = lazy(r"(?<=[A-Za-z])'(?:m|re|ve|ll|d)\b|(?<=\b[Ii])'m\b")
_DIGIT = dict(zip("〇零一二两三四五六七八九", "00122345678 9".replace(" ", ""), strict=True))
# A run of Chinese numerals that is a number: before a unit of time, count or measure, or
# after 周/星期 (weekdays). "一直", "一共", "万一" are words, not numbers.
_CJK_NUMBER = lazy(
    r"(?<=[周期拜])[一二三四五六日天]|[〇零一二两三四五六七八九十]+(?=[月日号点年周岁度元块个次天分秒倍层楼轮人家周])"
)


def arabic_numerals(text: str) -> str:
    """Chinese numbers of time, count and measure as digits: "三月" -> "3月", "十二点" -> "12点"."""
    return _CJK_NUMBER.sub(lambda m: _to_int(m.group()), text)


def _to_int(run: str) -> str:
    if run in ("日", "天"):
        return "7"
    if "十" not in run:
        return "".join(_DIGIT.get(c, c) for c in run)
    tens, _, ones = run.partition("十")
    value = int(_DIGIT.get(tens, "1") or "1") * 10 + (int(_DIGIT[ones]) if ones else 0)
    return str(value)


def is_cjk(unit: str) -> bool:
    """True for a single CJK character unit."""
    return bool(CJK_CHAR.match(unit))
