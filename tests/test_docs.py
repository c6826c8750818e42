"""The documentation names only commands, flags, MCP tools and resources that exist.

Every `memory-center ...` command in README.md and docs/*.md -- in code spans, in tables
(`list\\|show ID` alternatives, `` `init` / `status` `` siblings) and in shell blocks -- is
walked through the real click command tree: each word must be a subcommand, each `--flag`
an option of the command it follows, and there may be no more positional words than the
command takes. MCP tool tables are checked against the tools the server registers, with
their argument names, and every registered tool must be documented.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

from app.cli import cli
from app.mcp_server import Gateway, ServerSettings, build_server
from core import Scope

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
PROGRAM = "memory-center"
COMMAND_START = re.compile(rf"(?:^|(?<=\|)|(?<=\|\s)|(?<=--\s))\s*{PROGRAM}\s")
SPAN = re.compile(r"`([^`\n]+)`")
SIBLINGS = re.compile(rf"`{PROGRAM} ([^`]+)`((?:\s*/\s*`[^`]+`)+)")
FENCE = re.compile(r"^[ \t]*```[^\n]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Mention:
    """One documented command line: where it is and its words after the program name."""

    where: str
    words: tuple[str, ...]


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _span_mentions(name: str, text: str) -> list[Mention]:
    """Commands in inline code spans, with table alternatives and siblings expanded."""
    found: list[Mention] = []
    for m in SPAN.finditer(text):
        body = m.group(1).replace("\\|", "|")
        if body.startswith(PROGRAM + " "):
            where = f"{name}:{_line_of(text, m.start())}"
            found += [Mention(where, tuple(alt)) for alt in _alternatives(body)]
    for m in SIBLINGS.finditer(text):
        where = f"{name}:{_line_of(text, m.start())}"
        for sibling in SPAN.findall(m.group(2)):
            if not sibling.startswith(PROGRAM + " "):  # full commands were found above
                found.append(Mention(where, tuple(_clean(sibling.replace("\\|", "|").split()))))
    return found


def _alternatives(body: str) -> list[list[str]]:
    """`memory-center candidates list|approve ID` -> [candidates list], [candidates approve ID].

    An alternative after a `|` replaces the last subcommand word of the first one, so it
    is resolved against the same group.
    """
    first, *others = body.split("|")
    head = _clean(first.split()[1:])
    parent = _group_path(head)
    return [head] + [parent + _clean(other.split()) for other in others]


def _group_path(words: list[str]) -> list[str]:
    """The words that name the group of the last subcommand in `words`."""
    command: click.Command = cli
    path: list[str] = []
    for word in words:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        path.append(word)
        command = command.commands[word]
    return path[:-1]


def _clean(words: list[str]) -> list[str]:
    """Drop optional-part brackets and `...`; keep the words themselves."""
    out = [w.strip("[]") for w in words]
    return [w for w in out if w and w != "..." and w != "…"]


def _block_mentions(name: str, text: str) -> list[Mention]:
    """Commands in fenced blocks: shell lines (with `\\` continuations) and usage synopses."""
    found: list[Mention] = []
    for fence in FENCE.finditer(text):
        start_line = _line_of(text, fence.start(1))
        for number, line in _logical_lines(fence.group(1)):
            for m in COMMAND_START.finditer(line):
                words = _shell_words(line[m.end() :])
                found.append(Mention(f"{name}:{start_line + number}", tuple(_clean(words))))
    return found


def _logical_lines(block: str) -> list[tuple[int, str]]:
    """Join backslash continuations and indented synopsis continuations (`    [--flag X]`)."""
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate(block.splitlines()):
        continues = lines and (lines[-1][1].endswith("\\") or raw.lstrip().startswith("["))
        if continues and raw[:1].isspace():
            prev_number, prev = lines[-1]
            lines[-1] = (prev_number, prev.rstrip("\\").rstrip() + " " + raw.strip())
        else:
            lines.append((number, raw))
    return lines


def _shell_words(rest: str) -> list[str]:
    """Words of one shell command, stopping at a pipe, `;`, `&&` or a comment."""
    lexer = shlex.shlex(rest, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words: list[str] = []
    for word in lexer:
        if word in {"|", ";", "&&", "||", "&"}:
            break
        words.append(word)
    return words


def _mentions() -> list[Mention]:
    found: list[Mention] = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        found += _span_mentions(name, text) + _block_mentions(name, text)
    return found


MENTIONS = _mentions()


def _options(command: click.Command) -> dict[str, click.Option]:
    return {
        flag: param
        for param in command.params
        if isinstance(param, click.Option)
        for flag in (*param.opts, *param.secondary_opts)
    }


def _max_positionals(command: click.Command) -> float:
    total = 0.0
    for param in command.params:
        if isinstance(param, click.Argument):
            total += float("inf") if param.nargs < 0 else param.nargs
    return total


def _check_words(words: tuple[str, ...]) -> str | None:
    """Walk the command tree; return what is wrong, or None."""
    command: click.Command = cli
    rest = list(words)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        word = rest.pop(0)
        if word not in command.commands:
            known = ", ".join(sorted(command.commands))
            return f"{_name(command)} has no subcommand {word!r} (known: {known})"
        command = command.commands[word]
    return _check_arguments(command, rest)


def _name(command: click.Command) -> str:
    return PROGRAM if command is cli else str(command.name)


def _check_arguments(command: click.Command, words: list[str]) -> str | None:
    options = _options(command)
    positionals = 0
    while words:
        word = words.pop(0)
        if not word.startswith("-") or word == "-":
            positionals += 1
            continue
        flag = word.split("=", 1)[0]
        option = options.get(flag)
        if option is None:
            return f"{_name(command)} has no option {flag} (it has {', '.join(sorted(options))})"
        if not option.is_flag and not option.count and "=" not in word and words:
            del words[: option.nargs]
    if positionals > _max_positionals(command):
        return f"{_name(command)} takes at most {_max_positionals(command):g} arguments"
    return None


def test_the_docs_mention_commands_at_all() -> None:
    # A parser that finds nothing would make the next test pass vacuously.
    assert len(MENTIONS) > 30
    assert any(m.where.startswith("docs/") for m in MENTIONS)
    assert {m.words[0] for m in MENTIONS if m.words} >= {"init", "mcp", "memory", "import"}


@pytest.mark.parametrize("mention", MENTIONS, ids=lambda m: f"{m.where} {' '.join(m.words)}")
def test_every_documented_command_exists_with_its_flags(mention: Mention) -> None:
    problem = _check_words(mention.words)
    assert problem is None, f"{mention.where}: `{PROGRAM} {' '.join(mention.words)}`: {problem}"


def test_the_checker_catches_what_it_should() -> None:
    assert _check_words(("memory", "delete", "ID", "--purge")) is None
    assert "no subcommand 'purge-all'" in str(_check_words(("memory", "purge-all")))
    assert "no option --purgee" in str(_check_words(("memory", "delete", "ID", "--purgee")))
    assert "at most" in str(_check_words(("verify", "extra")))


# --- MCP ----------------------------------------------------------------------------------

TOOL_ROW = re.compile(r"^\|\s*`(?P<tool>[a-z_]+)`\s*\|(?P<args>[^|]*)\|", re.MULTILINE)
ARGUMENT = re.compile(r"`([a-z_]+)`\s*:")
RESOURCE = re.compile(r"`(memory://[\w\-/]+)`")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    # The gateway opens the store on the first call; listing tools opens nothing.
    settings = ServerSettings(tmp_path_factory.mktemp("docs"), Scope.of({"user": "d"}), "docs")
    return build_server(Gateway(settings))


def _tool_tables() -> dict[str, tuple[str, set[str]]]:
    """Tool name -> (where, argument names) from every `| tool | arguments |` table."""
    tables: dict[str, tuple[str, set[str]]] = {}
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        if not re.search(r"^\|\s*tool\s*\|", text, re.MULTILINE):
            continue
        for m in TOOL_ROW.finditer(text):
            where = f"{path.relative_to(ROOT).as_posix()}:{_line_of(text, m.start())}"
            tables[m.group("tool")] = (where, set(ARGUMENT.findall(m.group("args"))))
    return tables


def test_documented_tools_and_arguments_are_registered(server: Any) -> None:
    registered = {t.name: t for t in asyncio.run(server.list_tools())}
    documented = _tool_tables()
    assert documented, "no MCP tool table found in the docs"
    for name, (where, arguments) in documented.items():
        assert name in registered, f"{where}: tool {name!r} is not registered"
        schema = set(registered[name].input_schema.get("properties", {}))
        assert arguments <= schema, f"{where}: {name} has no argument(s) {arguments - schema}"
    undocumented = set(registered) - set(documented)
    assert not undocumented, f"tools missing from the docs' tool table: {sorted(undocumented)}"


def test_documented_resources_are_registered(server: Any) -> None:
    registered = {str(r.uri) for r in asyncio.run(server.list_resources())}
    for path in DOCS:
        for uri in RESOURCE.findall(path.read_text(encoding="utf-8")):
            assert uri in registered, f"{path.name}: resource {uri} is not registered"
