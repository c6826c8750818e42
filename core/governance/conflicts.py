"""Explicit rules for duplicates and contradictions between memories (R9).

Two statements are compared as sequences of units (Latin words, single CJK characters):

- **duplicate**: same normalised text, or the same units up to wording (high overlap and no
  differing *value* units such as numbers, versions, names);
- **contradiction**: the same statement with a different value in one place ("staging runs
  in eu-west-1" / "... us-east-2"; "外婆家" / "奶奶家"), or two different members of a known
  category of tools about the same subject (yarn / pnpm), or an explicit replacement
  ("instead of yarn", "改用", "不再") naming something the old statement says.

Replacement wording also decides supersede-versus-conflict at equal authority.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from core.governance.text import STOPWORDS, normalize, squash, stem

_UNIT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[a-z0-9][a-z0-9_.:/+#-]*[a-z0-9+#]|[a-z0-9]")
_VALUE = re.compile(r"\d|[\u3400-\u4dbf\u4e00-\u9fff]|^[a-z]+[-_.][a-z0-9]")
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

CATEGORIES: dict[str, frozenset[str]] = {
    "js package manager": frozenset({"npm", "yarn", "pnpm", "bun"}),
    "python packaging": frozenset({"pip", "poetry", "uv", "pipenv", "conda", "pdm", "hatch"}),
    "test runner": frozenset({"jest", "vitest", "mocha", "pytest", "unittest", "nose", "ava"}),
    "e2e framework": frozenset({"playwright", "cypress", "selenium", "puppeteer"}),
    "database": frozenset({"postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb"}),
    "ci": frozenset({"jenkins", "gitlab-ci", "circleci", "travis", "buildkite"}),
    "cloud region": frozenset(),
    "editor": frozenset({"vim", "neovim", "emacs", "vscode", "intellij"}),
    "formatter": frozenset({"black", "ruff", "yapf", "autopep8", "prettier", "eslint"}),
    "bundler": frozenset({"webpack", "vite", "rollup", "parcel", "esbuild", "turbopack"}),
}

_REPLACE = re.compile(
    r"\b(?:now|instead of|switched (?:to|from)|moved (?:to|from)|migrated (?:to|from)|"
    r"no longer|replaced|replaces|changed to|from now on|anymore|not .* any ?more)\b"
    r"|改用|不再|换成|改成|现在|已经换|迁移到|从此",
    re.IGNORECASE,
)


TOOL_NAMES = frozenset().union(*CATEGORIES.values())

# Predicates that hold for many values at once: "does not eat X" and "does not eat Y" are
# both true, so a different value there is another fact, not a contradiction.
_LIST_VALUED = re.compile(
    r"不吃|不喝|不能吃|过敏|爱吃|爱喝|喜欢吃|喜欢喝|讨厌|不喜欢|"
    r"\b(?:doesn't|does not|don't|do not|never) (?:eat|drink|like)|allergic to|\balso\b"
    r"|\b(?:likes?|enjoys?|loves?) (?:to )?(?:eat|drink)",
    re.IGNORECASE,
)


def units(text: str) -> list[str]:
    """The comparison units of a text, stop words removed."""
    return [_stem(u) for u in _UNIT.findall(normalize(text)) if u not in STOPWORDS]


def _stem(unit: str) -> str:
    """Plural folding as for search, except tool names ("emacs", "postgres") stay whole."""
    return unit if unit in TOOL_NAMES else stem(unit)


@dataclass(frozen=True)
class Relation:
    """How a new statement relates to an existing one."""

    kind: str  # "duplicate", "contradiction", "unrelated"
    reason: str
    replaces: bool = False


def relate(new: str, old: str) -> Relation:
    """Classify the relation of `new` to `old`."""
    if squash(new) == squash(old):
        return Relation("duplicate", "same text after normalisation")
    a, b = units(new), units(old)
    if not a or not b:
        return Relation("unrelated", "")
    replaces = explicitly_replaces(new, old)
    category = _category_clash(a, b)
    if category:
        return Relation("contradiction", f"different {category}: {category_values(a, b)}", replaces)
    matcher = difflib.SequenceMatcher(a=b, b=a, autojunk=False)
    ratio = matcher.ratio()
    only_new, only_old = _differences(matcher, a, b)
    if _same_in_other_words(ratio, a, b, only_new, only_old):
        return Relation("duplicate", f"same statement in other words (similarity {ratio:.2f})")
    if _different_value(matcher, ratio, only_new, only_old) and not _both_list_valued(new, old):
        change = f"{_join(only_old)} → {_join(only_new)}"
        return Relation(
            "contradiction", f"same statement with a different value ({change})", replaces
        )
    if replaces and _shares_subject(a, b) and ratio >= 0.2 and only_old:
        return Relation("contradiction", "explicitly replaces what the older memory says", True)
    return Relation("unrelated", "")


def _different_value(
    matcher: difflib.SequenceMatcher[str], ratio: float, only_new: list[str], only_old: list[str]
) -> bool:
    """One place differs: a value (number, name, place) or a single substituted word."""
    if ratio < 0.6 or not only_new or not only_old:
        return False
    blocks = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if len(blocks) > 2:
        return False
    if _has_value(only_new):
        return True
    return len(blocks) == 1 and blocks[0][0] == "replace" and len(only_new) <= 2


def _both_list_valued(new: str, old: str) -> bool:
    return bool(_LIST_VALUED.search(new) and _LIST_VALUED.search(old))


def explicitly_replaces(new: str, old: str) -> bool:
    """True when `new` uses replacement wording ("now", "instead of", "改用" ...)."""
    return bool(_REPLACE.search(new))


def category_values(a: list[str], b: list[str]) -> str:
    """The clashing category members, for reasons."""
    for members in CATEGORIES.values():
        x, y = members & set(a), members & set(b)
        if x and y and x != y:
            return f"{'/'.join(sorted(y))} → {'/'.join(sorted(x))}"
    return ""


def _category_clash(a: list[str], b: list[str]) -> str | None:
    if not _shares_subject(a, b):
        return None
    for name, members in CATEGORIES.items():
        x, y = members & set(a), members & set(b)
        if x and y and x != y:
            return name
    return None


_GENERIC = frozenset(
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
        "now",
        "instead",
        "always",
        "never",
        "every",
        "project",
        "team",
    ]
)


def _shares_subject(a: list[str], b: list[str]) -> bool:
    """Both talk about the same thing: a shared name or content word (web-shop, Alice, Jira),
    or two shared Chinese characters. Generic verbs ("uses", "prefers") are not a subject:
    two projects that both "use" something do not contradict each other."""
    common = (set(a) & set(b)) - _GENERIC
    cjk = sum(1 for u in common if _CJK_CHAR.match(u))
    return cjk >= 2 or any(len(u) >= 3 and not _CJK_CHAR.match(u) for u in common)


def _differences(
    matcher: difflib.SequenceMatcher[str], a: list[str], b: list[str]
) -> tuple[list[str], list[str]]:
    only_new: list[str] = []
    only_old: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            only_old.extend(b[i1:i2])
            only_new.extend(a[j1:j2])
    return only_new, only_old


def _same_in_other_words(
    ratio: float, a: list[str], b: list[str], only_new: list[str], only_old: list[str]
) -> bool:
    """Rewordings: no differing value, and the same words (reordered) or one side's words
    contained in the other's. A swapped content word (dark -> light) is not a rewording."""
    if _has_value(only_new) or _has_value(only_old):
        return False
    sa, sb = set(a), set(b)
    if sa == sb:
        return True
    return ratio >= 0.6 and (sa <= sb or sb <= sa)


def _join(items: list[str]) -> str:
    out = ""
    for unit in items:
        cjk = bool(re.match(r"[\u3400-\u9fff]", unit))
        out += unit if (cjk or not out) else " " + unit
    return out


def _has_value(items: list[str]) -> bool:
    return any(_VALUE.search(u) for u in items)
