"""The code around a change, read at the base commit: what the judge needs but the diff hides.

For each file a patch changes: the whole pre-change body of every function or class a hunk
touches; the signatures (and first docstring line) of repository definitions that the added
lines call; and the definitions that call what changed. Ranked in that order and capped by a
token budget. Python is read with `ast`; other languages get line windows around each hunk.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass

from judge.diff import FileDiff, Hunk, ParsedDiff, is_test_path
from judge.fencing import estimate_tokens, truncate
from judge.repo.python_defs import Definition, definitions, innermost

Reader = Callable[[str], str | None]
Grep = Callable[[str], list[str]]

WINDOW_LINES = 15
MAX_CALLEES = 8
MAX_CALLERS = 5
_NOT_CODE = ("#", '"', "'", "*", "//")  # a grep hit in a comment or docstring
_CALL = re.compile(r"(?:\.|\b)([A-Za-z_]\w*)\s*\(")
_COMMON = frozenset(set(dir(builtins)) | set(keyword.kwlist) | {"self", "cls", "super"})


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


def called_names(parsed: ParsedDiff) -> list[str]:
    """Names the added non-test lines call, in order of appearance, without builtins."""
    seen: dict[str, None] = {}
    for file in parsed.files:
        if is_test_path(file.path):
            continue
        for hunk in file.hunks:
            for line in hunk.added:
                for name in _CALL.findall(line.split("#", 1)[0]):
                    if name not in _COMMON:
                        seen.setdefault(name)
    return list(seen)


def _lines(source: str, start: int, end: int) -> str:
    rows = source.splitlines()[start - 1 : end]
    return "\n".join(f"{number:>5} {row}" for number, row in enumerate(rows, start))


def _changed_bodies(file: FileDiff, source: str) -> list[ContextItem]:
    defs = definitions(source)
    chosen: dict[str, Definition] = {}
    for hunk in file.hunks:
        for line in touched_old_lines(hunk):
            found = innermost(defs, line)
            if found is not None:
                chosen.setdefault(found.qualname, found)
    return [
        ContextItem(file.path, d.qualname, "changed_body", d.start, d.end,
                    _lines(source, d.start, d.end))
        for d in chosen.values()
    ]  # fmt: skip


def _windows(file: FileDiff, source: str) -> list[ContextItem]:
    items = []
    for hunk in file.hunks:
        touched = touched_old_lines(hunk) or [hunk.old_start]
        start = max(min(touched) - WINDOW_LINES, 1)
        end = max(touched) + WINDOW_LINES
        items.append(
            ContextItem(
                file.path,
                hunk.section or file.path,
                "window",
                start,
                min(end, len(source.splitlines())),
                _lines(source, start, end),
            )
        )
    return items


def _signature_item(path: str, d: Definition, kind: str, extra: str = "") -> ContextItem:
    doc = f'\n      """{d.doc}"""' if d.doc else ""
    text = f"{d.start:>5} {d.signature}{doc}{extra}"
    return ContextItem(path, d.qualname, kind, d.start, d.end, text)


class CodeContext:
    """Builds the context items of one patch from a reader and a searcher at the base commit."""

    def __init__(self, read: Reader, grep: Grep) -> None:
        self.read, self.grep = read, grep
        self._defs: dict[str, list[Definition]] = {}

    def defs(self, path: str) -> list[Definition]:
        if path not in self._defs:
            source = self.read(path) if path.endswith(".py") else None
            self._defs[path] = definitions(source) if source else []
        return self._defs[path]

    def changed(self, parsed: ParsedDiff) -> list[ContextItem]:
        items: list[ContextItem] = []
        for file in parsed.files:
            if file.old_path is None or is_test_path(file.path) or file.binary:
                continue
            source = self.read(file.old_path)
            if source is None:
                continue
            python = file.old_path.endswith(".py") and definitions(source)
            items += _changed_bodies(file, source) if python else _windows(file, source)
        return items

    def find(self, name: str, local: list[str]) -> list[tuple[str, Definition]]:
        """Definitions named `name`: in the changed files first, else anywhere (non-test)."""
        hits = [(p, d) for p in local for d in self.defs(p) if d.name == name]
        if hits:
            return hits
        pattern = rf"^\s*(async\s+)?(def|class)\s+{re.escape(name)}\b"
        paths = {row.split(":", 1)[0] for row in self.grep(pattern)}
        return [
            (p, d)
            for p in sorted(paths)
            if not is_test_path(p)
            for d in self.defs(p)
            if d.name == name
        ][:3]

    def callees(self, parsed: ParsedDiff) -> list[ContextItem]:
        local = [f.old_path for f in parsed.files if f.old_path and f.old_path.endswith(".py")]
        items = []
        for name in called_names(parsed)[:MAX_CALLEES]:
            items += [_signature_item(p, d, "callee") for p, d in self.find(name, local)]
        return items

    def callers(self, changed: list[ContextItem]) -> list[ContextItem]:
        """Up to MAX_CALLERS functions that call a changed one (outside tests), each once."""
        names = [item.name.rsplit(".", 1)[-1] for item in changed if item.kind == "changed_body"]
        found: dict[tuple[str, str], ContextItem] = {}
        for name in (n for n in names if not n.startswith("__")):
            for row in self.grep(rf"\b{re.escape(name)}\s*\(")[: MAX_CALLERS * 3]:
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
