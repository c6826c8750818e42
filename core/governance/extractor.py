"""Extraction: turn raw events into memory proposals (R6, R12). Proposals only, never memories.

`RuleExtractor` is explicit, offline and bilingual (English and Chinese). It reads raw
events (by id, never summaries of summaries), and filters tool noise, stack traces and
failure logs, temporary paths, one-off commands and temporary constraints. Trust is not
decided here: the ledger derives it from the source events.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from core.errors import MemoryCenterError
from core.governance import classify
from core.governance.han import simplified
from core.governance.keep_worthy import KeepWorthy, decide
from core.model.enums import Actor, EventKind, MemoryKind, TrustLevel
from core.model.records import Event
from core.patterns import lazy

SKIP_KINDS = frozenset(
    {
        EventKind.MEMORY_DECISION,
        EventKind.SECURITY,
        EventKind.DEGRADED,
        EventKind.AGENT_CALL,
        EventKind.TOOL_CALL,
        EventKind.PERMISSION,
        EventKind.BRANCH,
        EventKind.ERROR,
        EventKind.OBSERVATION,
    }
)
MIN_LEN, MAX_LEN = 8, 800


@dataclass(frozen=True)
class Proposal:
    """Something an extractor thinks may be worth remembering."""

    content: str
    kind: MemoryKind
    source_event_ids: tuple[str, ...]
    explicit: bool = False


MeaningOf = Callable[[Sequence[str]], tuple[str, Any] | None]
"""Passage vectors of texts and the name of the embedder that made them (None: no embedder)."""


@dataclass(frozen=True)
class _Open:
    """A user's statement the word rules judged (`by_rule`); the keep-worthiness model
    may add it when the rules pass it over."""

    proposal: Proposal
    text: str
    by_rule: bool


class Extractor(Protocol):
    """Anything that proposes memories from events."""

    name: str

    def extract(self, events: Sequence[Event]) -> list[Proposal]:
        """Proposals from these events, in event order."""
        ...


_QUESTION = lazy(
    r"[?？]\s*$|^\s*(?:can|could|would|will) you\b"
    r"|^\s*(?:please )?(?:look up|find|check|search|tell me)\b"
    r"|^\s*(?:请)?帮我|^\s*(?:能|可以)不能?|吗[？?。]?\s*$",
    re.IGNORECASE,
)
_ASKS = lazy(r"[?？]\s+\S")
"""A question followed by more text ("When are invoices generated? I need to rerun ..."):
the line asks for something; it states nothing to keep (#42)."""
_TASK = lazy(
    r"^\s*(?:please\s+|now\s+|then\s+)?(?:summari[sz]e|write|create|add|fix|implement|make|"
    r"build|generate|run|show|list|explain|refactor|update|rename|delete|remove|install|"
    r"set up|draft|translate|review|debug|open|look at|give me|help me|rewrite|convert|"
    r"compare|analy[sz]e|plan|describe|print)(?=\s)",
    re.IGNORECASE,
)
"""A request for work ("Summarise how to deploy ...", "Write a shell script ..."): a task of
that turn, not something to remember, unless it states a rule (always, never, every ...).
The verb must be followed by a space: "open-sdk's minimum protobuf is 3.21" names a project,
it asks for nothing."""
_FILLER = lazy(
    r"^\s*(?:(?:ok(?:ay)?|good|great|thanks|thank you|sure(?: thing)?|yes|yeah)"
    r"(?:[\s,]+(?-i:[A-Z][\w'’-]*))?\s*[.,:!，。：！]+"
    r"|(?:also|and|for the record|heads-up|fyi|btw|reminder|另外|好的|好|嗯|那|对了|顺便说一下)"
    r"[.,:!，。：！\s]+)\s*",
    re.IGNORECASE,
)
"""What opens a message without saying anything: an interjection with its punctuation and
the name of the person spoken to ("Thanks, Maria! ...", "Sure thing, Jon! ..."), or a
connective ("also ...", "btw ..."). An interjection without punctuation may begin what is
said ("Good to know ...", "Great news: ...") and is left whole, so a suggestion never
starts mid-phrase ("to know! ...")."""
_PREFERENCE = lazy(
    r"\b(?:i|we) (?:prefer|like|love|hate|dislike|want|don't like|do not like|usually)\b"
    r"|\bprefers?\b|偏好|喜欢|不喜欢|不吃|不喝|习惯|讨厌",
    re.IGNORECASE,
)
_CONVENTION = lazy(
    r"\b(?:always|never|must|should|convention|by default|every (?:time|push|commit|release))\b"
    r"|统一|一律|必须|规范|约定|都要|总是|不要|别用",
    re.IGNORECASE,
)
_DECISION = lazy(
    r"\b(?:we decided|decided to|let's go with|we'll use|we will use|going with|is set to)\b"
    r"|定为|决定|就用|改用|定在|选定",
    re.IGNORECASE,
)
_FACT = lazy(
    r"\b(?:uses?|runs?|requires?|lives?|works?|is|are|has|have|reads?|deploys?|listens? on)\b"
    r"|用的是|使用|是|在|位于|跑在|端口",
    re.IGNORECASE,
)
_PAST = lazy(r"\b(?:was|were|failed|yesterday|last (?:week|month)|did)\b|昨天|上周", re.IGNORECASE)
_INFERRED = lazy(
    r"\b(?:the )?user (?:seems to |probably |likely )?(?:prefers?|likes?|wants?)\b"
    r"|\b(?:alice|bob|they|he|she) (?:seems to|probably) prefer"
    r"|用户(?:似乎|可能|好像)?(?:偏好|喜欢|更喜欢)",
    re.IGNORECASE,
)
_NOISE = lazy(
    r"Traceback \(most recent call last\)|^\s*at [\w.$]+\(|FAILED |Error:|Exception:|"
    r"exit code [1-9]|^\s*\$ |/tmp/|/var/folders/|\bstack trace\b|npm ERR!",
    re.IGNORECASE | re.MULTILINE,
)
LOCKFILES = {
    "pnpm-lock.yaml": "pnpm",
    "yarn.lock": "yarn",
    "package-lock.json": "npm",
    "bun.lockb": "bun",
    "poetry.lock": "Poetry",
    "uv.lock": "uv",
    "Pipfile.lock": "Pipenv",
}
_VERSION_FILE = lazy(r"cat (\.nvmrc|\.python-version|\.node-version|\.tool-versions)\s*\n\s*(\S+)")


_SENTENCE_END = lazy(r"(?<=[.!?。！？])\s+")
_REACTION = lazy(
    r"^\s*(?:wow|whoa|woo+|yay|aw+|hey|hi|hello|congrat\w*|awesome|amazing|cool|nice|sweet|"
    r"haha\w*|lol|sounds?\b|that(?:'s|’s| is| was| must| sounds)\b|what an?\b|so (?:glad|happy)|"
    r"glad\b|(?:i'm|i am) (?:so )?(?:glad|happy|sorry) (?:to hear|for you)|"
    r"definitely|totally|absolutely|exactly|no doubts?|i (?:totally |completely )?agree|"
    r"agreed|thank\w*|let's|let us|talk (?:to you )?soon|bye|good luck|take care|way to go|"
    r"keep (?:it up|up|going|at it|rock\w*|me posted)|stay (?:strong|positive|motivated|safe)|"
    r"believe in|hang in|go for it|don't give up|have fun|fingers crossed|crossing my fingers)\b",
    re.IGNORECASE,
)
"""A sentence that reacts to the other person or greets them: it says nothing about the
speaker ("That sounds great!", "Congrats!", "Let's catch up soon")."""
_ADDRESSED = lazy(r"\b(?:you|your|you're|you’re|you've|you'll|you'd|yours|yourself)\b", re.I)
_POINTING = lazy(
    r"^\s*(?:this|that|these|those|it|here)(?:'s|’s|'re| is| was| are| were| must| looks?"
    r"| sounds?| seems?| feels?)\b"
    r"|\b(?:these|those)\b|\b(?:of|about|with|for|on|in|into|to|at) (?:it|that)\b|\bworth it\b",
    re.IGNORECASE,
)
"""A sentence about something outside the text ("It was awesome", "That's my dog", "Here's
a pic", "these kids", "reminders of it"): what it speaks of is in the turns around it, not
in the suggestion."""
_SOON = lazy(
    r"\b(?:soon|tomorrow|later|next (?:week|weekend|month|time|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)
"""A sentence about the next days ("Next Friday works", "Let's plan a session soon"): an
arrangement of the moment, unless the speaker tells it of themselves."""
_SPOKEN_FILLER = lazy(
    r"^\s*(?i:(?:yeah|yep|yup|oh|ah|well|hmm+|um+|no|yes|but|and|so)\b[\s,.!]*)+(?:[A-Z][a-z]+[,!]\s*)?"
)
"""Spoken fillers at a sentence's start, and the name of the person spoken to after them
("Yeah Maria, ...")."""
_EVALUATION = lazy(
    r"(?:\b(?:is|are|was|were|(?:must|would|will|can) be)|'s|’s)\s+"
    r"(?:(?:so|really|super|very|such|pretty|totally|always|much|more|most|truly|just|quite|"
    r"incredibly|a|the)\s+){0,3}"
    r"(?:important|key|vital|crucial|essential|priceless|great|awesome|amazing|lovely|must|"
    r"wonderful|cool|fun|nice|beautiful|special|rewarding|exciting|inspiring|meaningful|"
    r"incredible|fantastic|tough|hard|worth it)\b",
    re.IGNORECASE,
)
"""A sentence that only judges ("Taking care of ourselves is so important", "Meal times are
always fun"): an opinion of the moment, not a fact about anyone, unless the speaker says it
of themselves."""
_FIRST_PERSON = lazy(r"\b(?:i|i'm|i’m|i've|i'll|i'd|me|my|mine|myself)\b", re.IGNORECASE)
_RULE_FOR_YOU = lazy(
    r"\byou (?:must|should|always|never|need to|have to)\b(?! be\b)"
    r"|^\s*(?:always|never|don't|do not|make sure)\b",
    re.IGNORECASE,
)
"""A sentence addressed to someone that gives them a rule ("you must always ...", "never
...") rather than cheering them ("I'm always here for you", "you must be so proud")."""


def own_part(text: str) -> str:
    """The sentences of `text` that could state something about its speaker or their work,
    read on their own: without reactions to the other person, sentences addressed to them
    (unless they state a rule: "you must always ..."), and sentences whose subject is
    outside the text. A conversation between people is mostly such sentences (#42)."""
    kept = []
    for sentence in _SENTENCE_END.split(text):
        sentence = _SPOKEN_FILLER.sub("", sentence, count=1).strip()
        if not sentence or _REACTION.search(sentence) or _POINTING.search(sentence):
            continue
        if _ADDRESSED.search(sentence) and not _RULE_FOR_YOU.search(sentence):
            continue
        judged = _EVALUATION.search(sentence) or _SOON.search(sentence)
        cheered = sentence.endswith("!") and not _RULE_FOR_YOU.search(sentence)
        if (judged or cheered) and not _FIRST_PERSON.search(sentence):
            continue
        kept.append(sentence)
    return " ".join(kept)


class RuleExtractor:
    """The default extractor: explicit rules, English and Chinese, and, given the store's
    embedder (`meaning`), a model of what a reviewer approves that adds a user's statement
    the rules pass over when it is sure (`core/governance/keep_worthy.py`, #42)."""

    name = "rules-v1"

    def __init__(self, meaning: MeaningOf | None = None) -> None:
        self._meaning = meaning

    def extract(self, events: Sequence[Event]) -> list[Proposal]:
        """Proposals from these events."""
        found: list[Proposal | _Open] = []
        for event in events:
            if event.kind in SKIP_KINDS or event.redacted:
                continue
            proposal = self._one(event)
            if proposal is not None:
                found.append(proposal)
        opened = [p for p in found if isinstance(p, _Open)]
        kept = self._decide(opened) if opened else set()
        return [
            p.proposal if isinstance(p, _Open) else p
            for p in found
            if not isinstance(p, _Open) or id(p) in kept
        ]

    def _decide(self, opened: list[_Open]) -> set[int]:
        """Which open statements to suggest (by `id`): the rules' choice, and what the model
        is sure of besides; the rules' alone when there is no model for this embedder."""
        kept = {id(o) for o in opened if o.by_rule}
        passed_over = [o for o in opened if not o.by_rule]  # only these can change
        if not passed_over or self._meaning is None:
            return kept
        try:
            made = self._meaning([o.text for o in passed_over])
            model = KeepWorthy.for_embedder(made[0]) if made is not None else None
            if model is None or made is None:
                return kept
            probabilities = model.probabilities(made[1])
        except (MemoryCenterError, RuntimeError, OSError, ValueError):
            return kept  # no usable vectors: the rules decide, as without an embedder
        return kept | {
            id(o) for o, p in zip(passed_over, probabilities, strict=True) if decide(p, False)
        }

    def _one(self, event: Event) -> Proposal | _Open | None:
        text = event.text.strip()
        if event.kind == EventKind.COMPACTION:
            return self._statement(event, text, allow_explicit=False)
        if event.actor == Actor.USER:
            return self._statement(event, text, allow_explicit=True)
        if event.actor == Actor.ASSISTANT:
            return self._inferred(event, text)
        if event.actor == Actor.TOOL:
            return self._tool(event, text)
        return None

    def _statement(
        self, event: Event, text: str, *, allow_explicit: bool
    ) -> Proposal | _Open | None:
        if not MIN_LEN <= len(text) <= MAX_LEN * 2 or classify.is_temporary(text):
            return None
        explicit = allow_explicit and classify.asks_to_remember(text)
        if classify.is_procedure(text):
            return Proposal(_clean(text), MemoryKind.SKILL_SUGGESTION, (event.id,), explicit)
        if explicit:
            return Proposal(_clean(text), infer_kind(text), (event.id,), True)
        # The rules read Chinese in Simplified characters; the suggestion keeps the writer's.
        body = simplified(_FILLER.sub("", text).strip())
        if len(body) > MAX_LEN or _QUESTION.search(body) or _NOISE.search(body):
            return None
        if _ASKS.search(body) or (_TASK.search(body) and not _CONVENTION.search(body)):
            return None
        own = own_part(body)
        stated = _PREFERENCE.search(own) or _CONVENTION.search(own) or _DECISION.search(own)
        by_rule = bool(stated) or bool(_FACT.search(own) and not _PAST.search(own))
        proposal = Proposal(suggested_text(text), infer_kind(body), (event.id,))
        if allow_explicit and self._meaning is not None:
            # What the user said (not an agent's compaction summary): meaning decides, read
            # off the words the reviewer will see, without the opening "Thanks, Mel!".
            return _Open(proposal, proposal.content, by_rule)
        return proposal if by_rule else None

    def _inferred(self, event: Event, text: str) -> Proposal | None:
        said = simplified(text)
        if _INFERRED.search(said) and len(text) <= MAX_LEN and not classify.is_temporary(text):
            return Proposal(_capitalise(text), MemoryKind.PREFERENCE, (event.id,))
        return None

    def _tool(self, event: Event, text: str) -> Proposal | None:
        if event.trust == TrustLevel.UNTRUSTED:
            # Outside content is never a fact; instruction-like content is proposed so
            # that the policy quarantines it and the user sees the attempt (R11).
            if classify.is_instruction_like(text) and len(text) <= MAX_LEN * 2:
                return Proposal(_capitalise(text), MemoryKind.CONVENTION, (event.id,))
            return None
        if event.trust != TrustLevel.TOOL_VERIFIED:
            return None
        project = event.scope.get("project") or event.scope.get("repo") or "This project"
        version = _VERSION_FILE.search(text)
        if version:
            file, value = version.groups()
            tool = "Node" if "node" in file or "nvm" in file else "the toolchain"
            return Proposal(
                f"{project} pins {tool} {value} in {file}.", MemoryKind.FACT, (event.id,)
            )
        for lockfile, manager in LOCKFILES.items():
            if re.search(rf"(?:^|\s){re.escape(lockfile)}(?:\s|$)", text):
                return Proposal(
                    f"{project} uses {manager} as its package manager ({lockfile} is present).",
                    MemoryKind.FACT,
                    (event.id,),
                )
        return None


def infer_kind(text: str) -> MemoryKind:
    """Preference, convention, decision or fact, by wording."""
    text = simplified(text)
    if _PREFERENCE.search(text):
        return MemoryKind.PREFERENCE
    if _DECISION.search(text):
        return MemoryKind.DECISION
    if _CONVENTION.search(text):
        return MemoryKind.CONVENTION
    return MemoryKind.FACT


def suggested_text(text: str) -> str:
    """The words of a user's statement as a suggestion shows them: without the opening
    interjection, sentence case. The keep-worthiness model is fitted on, and reads, these."""
    return _capitalise(_FILLER.sub("", text.strip()).strip())


def _clean(text: str) -> str:
    return classify.strip_remember(_FILLER.sub("", text).strip())


def _capitalise(text: str) -> str:
    """Sentence case for prose, but never for identifiers such as `web-shop` or `pnpm`."""
    first = text.split(" ", 1)[0] if text else ""
    if not first or not first.isalpha() or not first.islower() or len(first) < 3:
        return text
    return text[:1].upper() + text[1:]
