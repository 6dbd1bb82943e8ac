"""The code around a change, read at the base commit: what the judge needs but the diff hides.

For each file a patch changes: the whole pre-change body of every function or class a hunk
touches; the signatures (and first docstring line) of repository definitions that the added
lines call; and the definitions that call what changed. Ranked in that order and capped by a
token budget. Python is read with `ast`, Java, JavaScript and TypeScript with tree-sitter
(there, a hunk outside any function gets the lines around it); other files get line windows.
Callees and callers are searched among files of the changed file's own language family.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass

from judge.diff import FileDiff, Hunk, ParsedDiff, is_test_path
from judge.fencing import estimate_tokens, truncate
from judge.repo import tree_defs
from judge.repo.python_defs import Definition, definitions, innermost
from judge.repo.syntax import suffix

Reader = Callable[[str], str | None]
Grep = Callable[[str, tuple[str, ...]], list[str]]
"""(extended regex, path globs) → `path:line:text` rows at the base commit."""

PYTHON_GLOBS = ("*.py",)
# a caller is searched for among files of the changed file's own language family
FAMILIES = {
    ".py": PYTHON_GLOBS,
    ".java": ("*.java",),
    **dict.fromkeys(
        (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx"),
        ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.ts", "*.tsx"),
    ),
}

WINDOW_LINES = 15
MAX_CALLEES = 8
MAX_CALLERS = 5
_NOT_CODE = ("#", '"', "'", "*", "//")  # a grep hit in a comment or docstring
_CALL = re.compile(r"(?:\.|\b)([A-Za-z_]\w*)\s*\(")
_COMMON = frozenset(set(dir(builtins)) | set(keyword.kwlist) | {"self", "cls", "super"})
# Java and JavaScript words that a call-shaped regex would take for calls
_C_KEYWORDS = frozenset(
    {"switch", "catch", "function", "new", "this", "typeof", "synchronized", "throw", "do",
     "instanceof", "void", "delete", "await", "yield", "require", "console", "String", "Object",
     "Math", "Array", "Number", "Boolean", "Promise", "JSON", "Error", "get", "set", "equals",
     "toString", "hashCode", "length", "size", "push", "map", "filter", "forEach"}
)  # fmt: skip


@dataclass(frozen=True)
class ContextItem:
    """One piece of code shown to the judge, with where it comes from."""

    path: str
    name: str
    kind: str  # changed_body | callee | caller | window
    start: int
    end: int
    text: str

    def render(self) -> str:
        label = {
            "changed_body": "before the patch, the whole definition it changes",
            "callee": "a definition the added lines call (signature)",
            "caller": "a caller of a changed definition",
            "window": "lines around a change, before the patch",
        }[self.kind]
        return f"`{self.path}` lines {self.start}-{self.end} ({label}):\n{self.text}"

    def provenance(self) -> dict:
        return {"path": self.path, "name": self.name, "kind": self.kind,
                "lines": [self.start, self.end]}  # fmt: skip


def touched_old_lines(hunk: Hunk) -> list[int]:
    """Base-commit lines a hunk removes, or next to which it inserts."""
    line, touched = hunk.old_start, []
    for text in hunk.lines:
        if text.startswith("-"):
            touched.append(line)
            line += 1
        elif text.startswith("+"):
            touched.append(max(line, 1))
        else:
            line += 1
    return touched


def family(path: str) -> tuple[str, ...] | None:
    """The globs of the path's language family (None: a language we do not read)."""
    return FAMILIES.get(suffix(path))


def called_names(parsed: ParsedDiff, globs: tuple[str, ...] = PYTHON_GLOBS) -> list[str]:
    """Names the added non-test lines of one language family call, in order of appearance,
    without builtins and keywords."""
    comment, common = ("#", _COMMON) if globs == PYTHON_GLOBS else ("//", _COMMON | _C_KEYWORDS)
    code = [line.split(comment, 1)[0] for line in _added_lines(parsed, globs)]
    names = (name for line in code for name in _CALL.findall(line))
    return list(dict.fromkeys(name for name in names if name not in common))


def _added_lines(parsed: ParsedDiff, globs: tuple[str, ...]) -> list[str]:
    """Lines the patch adds to non-test files of one language family."""
    files = [f for f in parsed.files if not is_test_path(f.path) and family(f.path) == globs]
    return [line for file in files for hunk in file.hunks for line in hunk.added]


def _lines(source: str, start: int, end: int) -> str:
    rows = source.splitlines()[start - 1 : end]
    return "\n".join(f"{number:>5} {row}" for number, row in enumerate(rows, start))


def _changed_bodies(file: FileDiff, source: str) -> list[ContextItem]:
    defs = definitions(source)
    chosen: dict[str, Definition] = {}
    for definition in (d for hunk in file.hunks for d in _touched_defs(defs, hunk)):
        chosen.setdefault(definition.qualname, definition)  # the first of a repeated name
    return [_body_item(file.path, source, d) for d in chosen.values()]


def _window(file: FileDiff, source: str, hunk: Hunk) -> ContextItem:
    touched = touched_old_lines(hunk) or [hunk.old_start]
    start = max(min(touched) - WINDOW_LINES, 1)
    end = max(touched) + WINDOW_LINES
    last = min(end, len(source.splitlines()))
    text = _lines(source, start, end)
    return ContextItem(file.path, hunk.section or file.path, "window", start, last, text)


def _windows(file: FileDiff, source: str) -> list[ContextItem]:
    return [_window(file, source, hunk) for hunk in file.hunks]


def _function_bodies(file: FileDiff, source: str, defs: list[Definition]) -> list[ContextItem]:
    """Java/JS/TS: the whole function or method each hunk touches; a hunk outside any (a
    field, an import) gets the lines around it, not a whole class."""
    functions = [d for d in defs if d.kind == "def"]
    per_hunk = [(hunk, _touched_defs(functions, hunk)) for hunk in file.hunks]
    bodies = dict.fromkeys(d for _, found in per_hunk for d in found)  # overloads each shown
    windows = [_window(file, source, hunk) for hunk, found in per_hunk if not found]
    return [_body_item(file.path, source, d) for d in bodies] + windows


def _touched_defs(defs: list[Definition], hunk: Hunk) -> list[Definition]:
    """The innermost definition of each line the hunk touches, in order, repeats removed."""
    found = (innermost(defs, line) for line in touched_old_lines(hunk))
    return list(dict.fromkeys(d for d in found if d is not None))


def _body_item(path: str, source: str, d: Definition) -> ContextItem:
    return ContextItem(
        path, d.qualname, "changed_body", d.start, d.end, _lines(source, d.start, d.end)
    )


def _signature_item(path: str, d: Definition, kind: str, extra: str = "") -> ContextItem:
    doc = f'\n      """{d.doc}"""' if d.doc else ""
    text = f"{d.start:>5} {d.signature}{doc}{extra}"
    return ContextItem(path, d.qualname, kind, d.start, d.end, text)


def _definitions(path: str, source: str) -> list[Definition]:
    return definitions(source) if path.endswith(".py") else tree_defs.definitions(path, source)


def _file_items(file: FileDiff, source: str, defs: list[Definition]) -> list[ContextItem]:
    """Python: the bodies a hunk touches; Java/JS/TS: the functions, else windows; any other
    file, or one that does not parse: windows."""
    if not defs:
        return _windows(file, source)
    if file.old_path.endswith(".py"):
        return _changed_bodies(file, source)
    return _function_bodies(file, source, defs)


class CodeContext:
    """Builds the context items of one patch from a reader and a searcher at the base commit."""

    def __init__(self, read: Reader, grep: Grep) -> None:
        self.read, self.grep = read, grep
        self._defs: dict[str, list[Definition]] = {}

    def defs(self, path: str) -> list[Definition]:
        if path not in self._defs:
            source = self.read(path) if suffix(path) in FAMILIES else None
            self._defs[path] = _definitions(path, source) if source else []
        return self._defs[path]

    def changed(self, parsed: ParsedDiff) -> list[ContextItem]:
        items: list[ContextItem] = []
        for file in parsed.files:
            if file.old_path is None or is_test_path(file.path) or file.binary:
                continue
            source = self.read(file.old_path)
            if source is None:
                continue
            items += _file_items(file, source, self.defs(file.old_path))
        return items

    def find(
        self, name: str, local: list[str], globs: tuple[str, ...] = PYTHON_GLOBS
    ) -> list[tuple[str, Definition]]:
        """Definitions named `name`: in the changed files first, else anywhere (non-test) in
        the same language family."""
        hits = [(p, d) for p in local for d in self.defs(p) if d.name == name]
        if hits:
            return hits
        found = self._defined(name) if globs == PYTHON_GLOBS else self._declared(name, globs)
        return [(p, d) for p, d in found if not is_test_path(p)][:3]

    def _defined(self, name: str) -> list[tuple[str, Definition]]:
        """Python: files with a `def` or `class` line for the name, and those definitions."""
        pattern = rf"^\s*(async\s+)?(def|class)\s+{re.escape(name)}\b"
        paths = {row.split(":", 1)[0] for row in self.grep(pattern, PYTHON_GLOBS)}
        return [(p, d) for p in sorted(paths) for d in self.defs(p) if d.name == name]

    def _declared(self, name: str, globs: tuple[str, ...]) -> list[tuple[str, Definition]]:
        """Java/JS/TS: a grep hit `name(` on a definition's own header lines (a declaration
        has no keyword to search for)."""
        found = {}
        for row in self.grep(rf"\b{re.escape(name)}\s*[(=]", globs):
            path, _, rest = row.partition(":")
            number = rest.partition(":")[0]
            line = int(number) if number.isdigit() else 0
            for d in self.defs(path):
                if d.name == name and d.start <= line <= d.start + 2:
                    found.setdefault((path, d.qualname), (path, d))
        return sorted(found.values(), key=lambda pair: (pair[0], pair[1].start))

    def callees(self, parsed: ParsedDiff) -> list[ContextItem]:
        """Signatures of what the added lines call, per language family, Python first."""
        families = dict.fromkeys(f for f in map(family, parsed.paths) if f is not None)
        items = []
        for globs in sorted(families, key=lambda g: g != PYTHON_GLOBS):
            local = [f.old_path for f in parsed.files if f.old_path and family(f.old_path) == globs]
            for name in called_names(parsed, globs)[:MAX_CALLEES]:
                found = self.find(name, local, globs)
                items += [_signature_item(p, d, "callee") for p, d in found]
        return items

    def callers(self, changed: list[ContextItem]) -> list[ContextItem]:
        """Up to MAX_CALLERS functions that call a changed one (outside tests), each once."""
        names = [
            (item.name.rsplit(".", 1)[-1], FAMILIES.get(suffix(item.path), PYTHON_GLOBS))
            for item in changed
            if item.kind == "changed_body"
        ]
        found: dict[tuple[str, str], ContextItem] = {}
        for name, globs in ((n, g) for n, g in names if not n.startswith("__")):
            for row in self.grep(rf"\b{re.escape(name)}\s*\(", globs)[: MAX_CALLERS * 3]:
                caller = self._caller(row, name)
                if caller is not None:
                    found.setdefault(caller[0], caller[1])
                if len(found) >= MAX_CALLERS:
                    return list(found.values())
        return list(found.values())

    def _caller(self, row: str, name: str) -> tuple[tuple[str, str], ContextItem] | None:
        """A `git grep -n` row as the calling function's signature and the call line; None
        for tests, recursion, comments and docstrings."""
        path, _, rest = row.partition(":")
        number, _, text = rest.partition(":")
        if is_test_path(path) or not number.isdigit():
            return None
        definition = innermost(self.defs(path), int(number))
        call = text.strip()[:160]
        if definition is None or definition.name == name or call.startswith(_NOT_CODE):
            return None
        item = _signature_item(path, definition, "caller", f"\n  {number:>5}   {call}")
        return (path, definition.qualname), item


def fit(items: list[ContextItem], max_tokens: int) -> tuple[list[ContextItem], list[ContextItem]]:
    """Items in rank order within the budget (an oversized body is cut with a marker); the
    ones left out."""
    shown, left_out, budget, seen = [], [], max_tokens, set()
    for item in items:
        key = (item.path, item.name, item.kind)
        if key in seen:
            continue
        seen.add(key)
        cost = estimate_tokens(item.render())
        if cost <= budget:
            shown.append(item)
            budget -= cost
        elif item.kind in ("changed_body", "window") and budget > 200:
            text, _ = truncate(item.text, budget - 60)
            shown.append(ContextItem(item.path, item.name, item.kind, item.start, item.end, text))
            budget = 0
        else:
            left_out.append(item)
    return shown, left_out


def code_context(
    parsed: ParsedDiff, builder: CodeContext, max_tokens: int
) -> tuple[list[ContextItem], list[ContextItem]]:
    """Changed bodies, then callees, then callers, within `max_tokens`."""
    changed = builder.changed(parsed)
    ranked = changed + builder.callees(parsed) + builder.callers(changed)
    return fit(ranked, max_tokens)
