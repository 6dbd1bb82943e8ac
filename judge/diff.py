"""A lenient unified-diff parser: enough structure to judge, quote and derive rubrics.

Real agent patches are messy (blank context lines that lost their leading space, missing
`diff --git` lines, trailing junk), so the parser follows hunk line counts where they hold and
tolerates what does not matter. It rejects only text that is no diff at all, with the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
GIT_HEADER = re.compile(r"^diff --git (\S+) (\S+)")
# hunk body line kind → (old lines, new lines) it accounts for; a blank line is context whose
# space got lost, and `\ No newline at end of file` accounts for none
_NO_NEWLINE = (0, 0)
_BODY_STEP = {"+": (0, 1), "-": (1, 0), " ": (1, 1), "": (1, 1), "\\": _NO_NEWLINE}


class DiffError(ValueError):
    """Text that cannot be read as a unified diff; says which line and why."""


@dataclass
class Hunk:
    old_start: int
    new_start: int
    section: str
    lines: list[str] = field(default_factory=list)

    @property
    def added(self) -> list[str]:
        return [line[1:] for line in self.lines if line.startswith("+")]

    @property
    def removed(self) -> list[str]:
        return [line[1:] for line in self.lines if line.startswith("-")]


@dataclass
class FileDiff:
    old_path: str | None = None
    new_path: str | None = None
    binary: bool = False
    renamed: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The path a reviewer would name: the new one, or the old one for a deletion."""
        return self.new_path or self.old_path or ""

    @property
    def status(self) -> str:
        if self.old_path is None:
            return "added"
        if self.new_path is None:
            return "deleted"
        return "renamed" if self.renamed or self.old_path != self.new_path else "modified"


@dataclass
class ParsedDiff:
    files: list[FileDiff] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    def added_lines(self) -> list[str]:
        return [line for f in self.files for h in f.hunks for line in h.added]

    def removed_lines(self) -> list[str]:
        return [line for f in self.files for h in f.hunks for line in h.removed]


def _strip_prefix(path: str) -> str | None:
    path = path.strip().split("\t")[0]
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


class _Parser:
    def __init__(self, text: str) -> None:
        if "\r" in text:  # copies of a megabyte text only when there is something to fix
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = text.split("\n")
        self.diff = ParsedDiff()
        self.current: FileDiff | None = None
        self.hunk: Hunk | None = None
        self.old_left = self.new_left = 0

    def run(self) -> ParsedDiff:
        index, count = 0, len(self.lines)
        while index < count:
            if self.hunk is not None:
                index = self._hunk_body(index)
                continue
            self._header_line(index + 1, self.lines[index])
            index += 1
        return self.diff

    def _hunk_body(self, index: int) -> int:
        """Consume hunk body lines while the hunk's counts say more lines are due; returns
        the index of the first line after the body. One tight loop: this is the parser's hot
        path, run over every line of every candidate."""
        lines, body = self.lines, self.hunk.lines
        old_left, new_left, count = self.old_left, self.new_left, len(lines)
        while index < count and (old_left > 0 or new_left > 0):
            line = lines[index]
            index += 1
            step = _BODY_STEP.get(line[:1])
            if step is None:  # not a body line: the counts were wrong, the hunk ends here
                index -= 1
                break
            old_left, new_left = old_left - step[0], new_left - step[1]
            if step != _NO_NEWLINE:
                body.append(line or " ")
        self.hunk = None
        return index

    def _header_line(self, number: int, line: str) -> None:
        if match := GIT_HEADER.match(line):
            self._new_file(_strip_prefix(match.group(1)), _strip_prefix(match.group(2)))
        elif line.startswith("--- ") and self._next_is_plus(number):
            self._old_path(_strip_prefix(line[4:]))
        elif line.startswith("+++ ") and self.current is not None:
            self.current.new_path = _strip_prefix(line[4:])
        elif line.startswith("@@"):
            self._start_hunk(number, line)
        else:
            self._git_extended(line)

    def _next_is_plus(self, number: int) -> bool:
        return number < len(self.lines) and self.lines[number].startswith("+++ ")

    def _new_file(self, old: str | None, new: str | None) -> FileDiff:
        self.current = FileDiff(old_path=old, new_path=new)
        self.diff.files.append(self.current)
        return self.current

    def _old_path(self, old: str | None) -> None:
        if self.current is None or self.current.hunks or self.current.binary:
            self._new_file(old, None)
        self.current.old_path = old

    def _start_hunk(self, number: int, line: str) -> None:
        match = HUNK_HEADER.match(line)
        if match is None:
            raise DiffError(f"line {number}: malformed hunk header {line[:60]!r}")
        if self.current is None:
            raise DiffError(f"line {number}: hunk before any file header")
        old_start, old_len, new_start, new_len, section = match.groups()
        self.hunk = Hunk(int(old_start), int(new_start), section.strip())
        self.current.hunks.append(self.hunk)
        self.old_left = 1 if old_len is None else int(old_len)
        self.new_left = 1 if new_len is None else int(new_len)

    def _git_extended(self, line: str) -> None:
        if self.current is None:
            return
        if line.startswith(("new file mode", "--- /dev/null")):
            self.current.old_path = None
        elif line.startswith("deleted file mode"):
            self.current.new_path = None
        elif line.startswith(("rename from", "rename to", "similarity index")):
            self.current.renamed = True
        elif line.startswith(("Binary files", "GIT binary patch")):
            self.current.binary = True


def parse_diff(text: str) -> ParsedDiff:
    """Files and hunks of a unified diff; an empty text is an empty diff."""
    if not text.strip():
        return ParsedDiff()
    parsed = _Parser(text).run()
    if not parsed.files:
        raise DiffError("no file header (diff --git / --- +++) found: not a unified diff")
    return parsed


def changed_line_count(text: str) -> int:
    """Added plus removed lines, counted without parsing: a size even for a broken diff."""
    return sum(
        1
        for line in text.splitlines()
        if line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- "))
    )


def is_test_path(path: str) -> bool:
    """Test files: never evidence of behaviour and never a rubric criterion."""
    parts = path.lower().split("/")
    name = parts[-1]
    in_test_dir = any(p in ("test", "tests", "testing") for p in parts[:-1])
    test_name = name.startswith("test_") or name.endswith(("_test.py", "_tests.py"))
    return in_test_dir or test_name or name == "conftest.py"
