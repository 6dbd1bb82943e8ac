"""Fit a diff into the judge's token budget by file, not by position.

Cutting a diff at a point in the text lets a large generated or data file (a lock file, a
migration, a fixture, a whitespace flood) that happens to come first push the real code change
out of view, and a correct fix then scores low. So files are ranked: non-test source first (whole
hunks), then tests, then everything else; what does not fit is summarised by path and size with
a visible marker, and the diff keeps its original file order.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from judge.diff import is_test_path
from judge.fencing import CHARS_PER_TOKEN, estimate_tokens, truncate

_PLAIN_START = re.compile(r"^--- \S.*\n\+\+\+ ", re.MULTILINE)
_PATH = re.compile(r"^(?:diff --git a/\S+ b/(\S+)|\+\+\+ (?:b/)?(\S+))", re.MULTILINE)
LOCK_FILES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "pipfile.lock",
        "cargo.lock",
        "go.sum",
        "uv.lock",
        "composer.lock",
        "gemfile.lock",
    }
)
DATA_SUFFIXES = (
    ".json",
    ".csv",
    ".tsv",
    ".svg",
    ".min.js",
    ".map",
    ".snap",
    ".lock",
    ".ipynb",
    ".pickle",
    ".pkl",
    ".npy",
    ".bin",
    ".dat",
    ".xml",
    ".yaml",
    ".yml",
    ".txt",
)
GENERATED_DIRS = (
    "migrations/",
    "fixtures/",
    "__snapshots__/",
    "vendor/",
    "dist/",
    "build/",
    "node_modules/",
    "generated/",
)
SOURCE, TESTS, OTHER = 0, 1, 2


@dataclass
class FileChunk:
    """One file's part of a diff, as text, with its rank for the budget."""

    text: str
    path: str
    rank: int

    @property
    def changes(self) -> tuple[int, int]:
        """Added and removed lines, headers not counted (C-speed counts: omitted files can
        be megabytes)."""
        text = "\n" + self.text
        added = text.count("\n+") - text.count("\n+++ ")
        return added, text.count("\n-") - text.count("\n--- ")

    def summary(self) -> str:
        added, removed = self.changes
        return f"{self.path} (+{added}/-{removed} lines)"


def _is_data(path: str) -> bool:
    """A lock file, a data format, or a file under a generated directory."""
    lower = path.lower()
    generated = any(f"/{d}" in f"/{lower}" for d in GENERATED_DIRS)
    return lower.rsplit("/", 1)[-1] in LOCK_FILES or lower.endswith(DATA_SUFFIXES) or generated


def _whitespace_flood(text: str) -> bool:
    """Lines added, none with anything on them."""
    added = [x[1:] for x in text.split("\n") if x.startswith("+") and not x.startswith("+++ ")]
    return bool(added) and not any(x.strip() for x in added)


def _is_other(path: str, text: str) -> bool:
    return _is_data(path) or _whitespace_flood(text)


def file_rank(path: str, text: str) -> int:
    if _is_other(path, text) or "Binary files" in text or "GIT binary patch" in text:
        return OTHER
    return TESTS if is_test_path(path) else SOURCE


def line_starts(text: str, prefix: str) -> list[int]:
    """Offsets of the lines that begin with `prefix`. `str.find` scans in C, where a `^` regex
    in MULTILINE mode tries a match at every character of a megabyte diff."""
    found = [0] if text.startswith(prefix) else []
    needle = "\n" + prefix
    at = text.find(needle)
    while at != -1:
        found.append(at + 1)
        at = text.find(needle, at + 1)
    return found


def _file_starts(diff: str) -> list[int]:
    """Where each file's part begins (`diff --git`, or `---`/`+++` without it), from 0."""
    starts = line_starts(diff, "diff --git ") or [m.start() for m in _PLAIN_START.finditer(diff)]
    return starts if starts[:1] == [0] else [0, *starts]


def _chunk(text: str) -> FileChunk:
    match = _PATH.search(text)
    path = next((g for g in match.groups() if g), "") if match else ""
    return FileChunk(text, path, file_rank(path, text))


def split_files(diff: str) -> list[FileChunk]:
    """The diff cut at each file header."""
    bounds = [*_file_starts(diff), len(diff)]
    texts = (diff[begin:end] for begin, end in itertools.pairwise(bounds))
    return [_chunk(text) for text in texts if text]


def _fit_hunks(chunk: FileChunk, budget_chars: int) -> str | None:
    """As many whole hunks of one file as fit, or None when not even its first one does."""
    starts = line_starts(chunk.text, "@@ ")
    if not starts:
        return None
    cuts = [*starts[1:], len(chunk.text)]
    fitting = [cut for cut in cuts if cut <= budget_chars]
    if not fitting:
        return None
    kept = chunk.text[: fitting[-1]]
    left = len(starts) - len(fitting)
    return kept + f"[... {left} more hunks of {chunk.path} not shown ...]\n" if left else kept


def _choose(chunks: list[FileChunk], budget_chars: int) -> dict[int, str]:
    """Index → text shown, by rank then position; a file that does not fit whole gives its
    leading whole hunks."""
    shown: dict[int, str] = {}
    left = budget_chars
    for index in sorted(range(len(chunks)), key=lambda i: (chunks[i].rank, i)):
        chunk = chunks[index]
        text = chunk.text if len(chunk.text) <= left else _fit_hunks(chunk, left)
        if text is not None:
            shown[index] = text
            left -= len(text)
    return shown


def budget_diff(diff: str, max_tokens: int) -> tuple[str, bool]:
    """The diff within `max_tokens`: whole files by rank, whole hunks of the file that does
    not fit, the rest summarised; the flag says whether anything was left out."""
    if estimate_tokens(diff) <= max_tokens:
        return diff, False
    chunks = split_files(diff)
    budget = max_tokens * CHARS_PER_TOKEN - 200 - 60 * len(chunks)  # room for the summary
    shown = _choose(chunks, max(budget, 0))
    if not shown:
        return truncate(diff, max_tokens)
    omitted = [c.summary() for i, c in enumerate(chunks) if i not in shown]
    parts = [shown[i] for i in sorted(shown)] + _omission_note(omitted)
    return "".join(p if p.endswith("\n") else p + "\n" for p in parts).rstrip("\n"), True


def _omission_note(omitted: list[str]) -> list[str]:
    if not omitted:
        return []
    return [f"[... truncated by file: {len(omitted)} files not shown: {'; '.join(omitted)} ...]"]
