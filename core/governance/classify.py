"""Rule-based recognisers for what a piece of text *is* (R6, R7, R11).

Each recogniser is explicit and tested in English and Chinese: requests to remember,
instruction-like content aimed at the agent (prompt injection), temporary constraints that
must not become long-term memory, and reusable multi-step procedures (skill suggestions).
The Chinese words are written in Simplified characters; Traditional ones are read as their
Simplified forms (`han.simplified`).
"""

from __future__ import annotations

import re

from core.governance.han import simplified
from core.patterns import lazy

_REMEMBER = lazy(
    r"^\s*(?:please\s+)?(?:remember|keep in mind|note|don't forget|do not forget|make a note)\b"
    r"(?:\s+(?:that|this|:|-))?[:,\s-]*"
    r"|^\s*(?:请)?(?:记住|记一下|记下|记得|帮我记住|帮我记一下)[:：，,\s]*",
    re.IGNORECASE,
)
# An imperative: at the start of a sentence or clause, or after "please" ("I can't
# remember the port" is not a request to remember anything).
_REMEMBER_ANYWHERE = lazy(
    r"(?:^|[.!?;:,]\s*|\bplease\s+|\band\s+)"
    r"(?:remember|keep in mind|don't forget|do not forget|make a note)\b"
    r"|(?<![不没])记住|记一下|记下来|帮我记",
    re.IGNORECASE,
)

_INSTRUCTION = lazy(
    r"(?:ignore (?:all |any )?(?:previous|prior|above) (?:instructions|rules)"
    r"|(?:note|message|attention) to (?:ai|llm|the) (?:assistants?|agents?|models?)"
    r"|ai (?:assistants?|agents?)[^.]{0,40}(?:must|should|please)"
    r"|remember (?:this|these) (?:rule|instruction)s?"
    r"|remember (?:forever|permanently)|(?:forever|permanently) remember"
    r"|from now on,? (?:always|never|you)"
    r"|always (?:set|send|use|disable|include|run)\b.{0,80}"
    r"|send (?:the |your )?(?:api key|credentials|token|password)s?"
    r"|disable (?:tls|ssl|certificate) verification|verify_ssl\s*=\s*false"
    r"|系统提示|忽略(?:之前|以上|前面)的?(?:所有)?(?:指令|规则|说明)"
    r"|(?:ai|AI)\s*助[理手][^。]{0,20}(?:注意|必须|请)"
    r"|永久记住|永远记住|今后所有|从现在起(?:都|一律|必须)|以后(?:一律|必须|都要))",
    re.IGNORECASE,
)

_TEMPORARY = lazy(
    r"\b(?:today(?!\.\w)|tonight|for now|for this (?:session|task|run|time|once)|this time"
    r"|right now|just this once|for the moment|temporarily|until (?:tomorrow|later)"
    r"|for the next (?:hour|few minutes)|this afternoon|this morning)\b"
    r"|今天|今晚|这次|这一次|暂时|先别|先不|临时|目前先|这会儿|本次",
    re.IGNORECASE,
)
_LONG_TERM = lazy(
    r"\b(?:always|never|every time|from now on|in general|by default|going forward)\b"
    r"|总是|一直|每次|以后|永远|默认|一律",
    re.IGNORECASE,
)

_STEP_MARKERS = lazy(
    r"(?:(?:^|\n|\s|[;；:：,，。(（])(?:\d+[.)、]|step \d+|first(?:ly)?,?|then,?|next,?"
    r"|after that,?|finally,?)"
    r"|第[一二三四五六七八九十\d]+步|首先|然后|接着|之后|最后)",
    re.IGNORECASE,
)
_SEQUENCE_ARROWS = lazy(r"(?:->|→|=>)")


def strip_remember(text: str) -> str:
    """Drop a leading 'remember that' / '记住：' so the memory holds the fact itself."""
    # The same span of the writer's text: folding keeps every character's place.
    found = _REMEMBER.match(simplified(text))
    stripped = text[found.end() :].strip() if found else text.strip()
    return stripped or text.strip()


def asks_to_remember(text: str) -> bool:
    """True when the text explicitly asks to remember something."""
    text = simplified(text)
    return bool(_REMEMBER.match(text) or _REMEMBER_ANYWHERE.search(text))


def is_instruction_like(text: str) -> bool:
    """True for content that tries to instruct the agent (a prompt-injection risk, R11)."""
    return bool(_INSTRUCTION.search(simplified(text)))


def is_temporary(text: str) -> bool:
    """True for a constraint that holds only now ("skip the tests today", "今天先别跑测试")."""
    text = simplified(text)
    return bool(_TEMPORARY.search(text)) and not _LONG_TERM.search(text)


def is_procedure(text: str) -> bool:
    """True for a reusable multi-step procedure (three or more ordered steps)."""
    text = simplified(text)
    steps = len(_STEP_MARKERS.findall(text))
    arrows = len(_SEQUENCE_ARROWS.findall(text))
    return steps >= 3 or arrows >= 2 or (steps >= 2 and arrows >= 1)
