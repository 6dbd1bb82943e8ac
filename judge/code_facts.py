"""Facts read off a parsed diff without running anything: which symbols a hunk changes, which
tokens it adds or removes. Shared by the reference rubric generator and the static answerer, so
both sides of a check are computed the same way.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections import Counter
from dataclasses import dataclass

from judge.diff import FileDiff, Hunk, ParsedDiff, is_test_path

_PY_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")
_CALL_LIKE = re.compile(r"([A-Za-z_]\w*)\s*\(")
_TOKEN = re.compile(
    r"""(?P<str>"(?:[^"\\]|\\.){2,80}"|'(?:[^'\\]|\\.){2,80}')"""
    r"|(?P<num>\b\d+\.\d+\b|\b\d{2,}\b)"
    r"|(?P<ident>\b[A-Za-z_][A-Za-z0-9_]{2,}\b)"
)
_COMMENT = re.compile(r"\s#.*$|^\s*#.*$")

STOPWORDS = frozenset(
    set(keyword.kwlist)
    | set(dir(builtins))
    | {
        "self",
        "cls",
        "args",
        "kwargs",
        "value",
        "values",
        "name",
        "data",
        "result",
        "obj",
        "item",
        "items",
        "key",
        "keys",
        "other",
        "func",
        "res",
        "ret",
        "val",
        "tmp",
        "msg",
        "the",
        "and",
        "for",
        "not",
        "None",
        "True",
        "False",
        "return",
        "elif",
        "else",
        "def",
        "class",
        "import",
        "from",
        "lambda",
        "pass",
        "raise",
        "yield",
        "with",
        "assert",
        "len",
        "str",
        "int",
        "list",
        "dict",
        "set",
        "tuple",
        "isinstance",
        "getattr",
        "hasattr",
        "super",
        "__init__",
        "np",
        "numpy",
        "this",
        "var",
        "let",
        "const",
        "function",
        "public",
        "private",
        "static",
        "void",
        "new",
        "null",
        "nil",
        "end",
    }
)
CODE_SUFFIXES = (".py", ".pyx", ".pyi", ".c", ".h", ".cpp", ".js", ".ts", ".java", ".go", ".rs")


@dataclass(frozen=True)
class TokenChange:
    token: str
    path: str
    kind: str  # "adds" or "removes"
    line: str  # a diff line showing it, for evidence


_DEAD_START = re.compile(r"^(\s*)(?:if|while|elif)\s+(?:False|0|None|not\s+True)\s*:\s*(?:#.*)?$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def live_added(hunk: Hunk) -> list[str]:
    """Added lines, without the bodies of blocks that can never run (`if False:`, `if 0:` …):
    dead code that mentions the right names must not count as a change."""
    live: list[str] = []
    dead_indent: int | None = None
    for line in hunk.lines:
        body = line[1:]
        if dead_indent is not None and body.strip() and _indent(body) <= dead_indent:
            dead_indent = None
        if dead_indent is not None:
            continue
        if line.startswith("+") and (match := _DEAD_START.match(body)):
            dead_indent = len(match.group(1))
            continue
        if line.startswith("+"):
            live.append(body)
    return live


def definition_name(line: str) -> str | None:
    """`def foo(` / `class Foo(` → the name; a C-like signature → the called name."""
    if match := _PY_DEF.match(line):
        return match.group(1)
    match = _CALL_LIKE.search(line)
    return match.group(1) if match and match.group(1) not in STOPWORDS else None


def changed_symbols(hunk: Hunk) -> set[str]:
    """The nearest definition above each changed line inside the hunk, else the hunk header's."""
    current = definition_name(hunk.section) if hunk.section else None
    found: set[str] = set()
    for line in hunk.lines:
        body = line[1:]
        if (name := _PY_DEF.match(body)) is not None:
            current = name.group(1)
        if line[:1] in "+-" and current:
            found.add(current)
    return found


def file_symbols(file: FileDiff) -> set[str]:
    return set().union(*(changed_symbols(h) for h in file.hunks)) if file.hunks else set()


def code_files(diff: ParsedDiff) -> list[FileDiff]:
    """Files whose changes count as behaviour: not tests, not binary."""
    return [f for f in diff.files if not f.binary and not is_test_path(f.path)]


def strip_comment(line: str) -> str:
    return _COMMENT.sub("", line)


def tokens_of(line: str) -> list[str]:
    """Distinctive tokens on a line: identifiers (not stopwords), string literals, numbers."""
    found = []
    for match in _TOKEN.finditer(strip_comment(line)):
        token = match.group(0)
        if match.group("ident") and token in STOPWORDS:
            continue
        found.append(token)
    return found


def _counts(lines: list[str]) -> Counter[str]:
    return Counter(t for line in lines for t in tokens_of(line))


def _grown(lines: list[str], more: Counter[str], than: Counter[str], context: set[str]) -> dict:
    """token → first line showing it, for tokens counted more often in `more` than in `than`."""
    found: dict[str, str] = {}
    for line in lines:
        for token in tokens_of(line):
            if more[token] > than[token] and token not in context:
                found.setdefault(token, line)
    return found


def token_changes(file: FileDiff) -> list[TokenChange]:
    """Tokens whose count goes up (added) or down (removed) across the file's hunks, each with
    a line that shows it; tokens already present in the hunks' context are not distinctive."""
    added = [line for h in file.hunks for line in h.added]
    removed = [line for h in file.hunks for line in h.removed]
    context = {
        t for h in file.hunks for line in h.lines if line[:1] == " " for t in tokens_of(line)
    }
    plus, minus = _counts(added), _counts(removed)
    adds = _grown(added, plus, minus, context)
    removes = _grown(removed, minus, plus, context)
    return [TokenChange(t, file.path, "adds", line) for t, line in adds.items()] + [
        TokenChange(t, file.path, "removes", line) for t, line in removes.items()
    ]


def _occurrences(lines: list[str], token: str, marker: str) -> tuple[int, str | None]:
    hits = [line for line in lines if token in tokens_of(line)]
    return len(hits), (marker + hits[0] if hits else None)


def token_delta(
    diff: ParsedDiff, token: str, path: str | None = None
) -> tuple[int, int, str | None, str | None]:
    """How often a token appears on live added and on removed code lines (of one file when
    `path` is given, else of the whole diff), with one example line of each."""
    files = [f for f in code_files(diff) if path is None or path in (f.old_path, f.new_path)]
    added = [line for f in files for h in f.hunks for line in live_added(h)]
    removed = [line for f in files for h in f.hunks for line in h.removed]
    plus, plus_line = _occurrences(added, token, "+")
    minus, minus_line = _occurrences(removed, token, "-")
    return plus, minus, plus_line, minus_line
