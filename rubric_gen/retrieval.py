"""Repository context for task-mode rubrics: the code the task is about, found without the fix.

Read at the task's base commit only (never HEAD or the work tree, which contain the fix). The
repository's non-test source definitions are ranked by relevance to the task text: files and
definitions the issue names (paths, identifiers, traceback frames) first, then a BM25 ranking
(rank_bm25) over definitions; the top ones are shown whole, with path and line numbers, within
`rubrics.max_context_tokens`. Python definitions come from `ast`; other languages are cut into
line windows. Every rubric records what was shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rank_bm25 import BM25Okapi

from judge.diff import is_test_path
from judge.fencing import estimate_tokens, fence, truncate
from judge.records import Task
from judge.repo.git import find_clone, is_safe_commit, list_files, read_many
from judge.repo.python_defs import definitions
from judge.repo.syntax import GRAMMARS, suffix

SOURCE_SUFFIXES = frozenset({".py", *GRAMMARS})
WINDOW = 60  # lines per chunk of a file that is not Python
MAX_CLASS_LINES = 150
MAX_FILE_BYTES = 400_000
NAMED_BOOST = 10.0  # a definition the task names outranks any lexical match
PATH_BOOST = 5.0
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATHLIKE = re.compile(r"[\w./-]+\.(?:py|js|jsx|ts|tsx|java)\b")
_FRAME = re.compile(r'File "([^"]+)", line \d+, in (\w+)')
_HYPHENATED = re.compile(r"(?<![\w-])(?:--)?([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w-])")
MIN_LITERAL_CHARS = 6


@dataclass(frozen=True)
class Chunk:
    path: str
    name: str
    start: int
    end: int
    text: str

    def provenance(self) -> dict:
        return {"path": self.path, "name": self.name, "lines": [self.start, self.end]}

    def render(self) -> str:
        numbered = "\n".join(
            f"{n:>5} {row}" for n, row in enumerate(self.text.split("\n"), self.start)
        )
        where = f"`{self.path}` lines {self.start}-{self.end} ({self.name})"
        return f"{where}, at the base commit:\n{numbered}"


@dataclass
class Retrieved:
    shown: list[Chunk] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def blocks(self) -> list[str]:
        return [fence(chunk.render(), "repository_code") for chunk in self.shown]


def tokens(text: str) -> list[str]:
    """Identifier parts, lower-cased: `parse_port`, `ParsePort` and `parsePort` all give
    `parse` and `port` (and the whole name)."""
    out = []
    for word in _WORD.findall(text):
        parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", word.replace("_", " "))
        out.append(word.lower())
        out += [p.lower() for p in parts if len(p) > 1 and p.lower() != word.lower()]
    return out


def _units(found: list) -> list:
    """Whole classes up to `MAX_CLASS_LINES`, else their methods; top-level functions whole
    (nested functions stay inside them)."""
    units, covered = [], []
    for d in found:  # outermost first
        if any(start <= d.start and d.end <= end for start, end in covered):
            continue
        small = d.end - d.start <= MAX_CLASS_LINES
        if d.kind == "def" or small:
            units.append(d)
            covered.append((d.start, d.end))
    return units


def _python_chunks(path: str, source: str) -> list[Chunk]:
    lines = source.split("\n")
    return [
        Chunk(path, d.qualname, d.start, d.end, "\n".join(lines[d.start - 1 : d.end]))
        for d in _units(definitions(source))
    ]


def _windows(path: str, source: str) -> list[Chunk]:
    lines = source.split("\n")
    return [
        Chunk(path, f"lines {i + 1}-{min(i + WINDOW, len(lines))}", i + 1,
              min(i + WINDOW, len(lines)), "\n".join(lines[i : i + WINDOW]))
        for i in range(0, len(lines), WINDOW)
    ]  # fmt: skip


def chunks_of(path: str, source: str) -> list[Chunk]:
    if path.endswith(".py"):
        return _python_chunks(path, source) or _windows(path, source)
    return _windows(path, source)


def source_paths(paths: list[str]) -> list[str]:
    return [p for p in paths if suffix(p) in SOURCE_SUFFIXES and not is_test_path(p)
            and "/test/" not in f"/{p}" and "/tests/" not in f"/{p}"]  # fmt: skip


def _named(task_text: str) -> tuple[set[str], set[str]]:
    """Paths and identifiers the task names (traceback frames included)."""
    paths = {m.group(0).lstrip("./") for m in _PATHLIKE.finditer(task_text)}
    frames = _FRAME.findall(task_text)
    paths |= {p.lstrip("./") for p, _ in frames}
    names = {w for w in _WORD.findall(task_text) if _codelike(w, task_text)}
    return paths, names | {n for _, n in frames}


def _codelike(word: str, text: str) -> bool:
    """An identifier the issue names as code, not an English word: snake_case, CamelCase,
    dotted, called, or quoted in backticks."""
    if (
        "_" in word.strip("_")
        or re.search(r"[a-z][A-Z]", word)
        or re.search(r"^[A-Z][a-z]+[A-Z]", word)
    ):
        return True
    return bool(
        re.search(
            rf"`[^`]*\b{re.escape(word)}\b[^`]*`|\b{re.escape(word)}\(|\.{re.escape(word)}\b", text
        )
    )


def hyphenated_names(task_text: str) -> set[str]:
    """Hyphenated names the task uses (`unused-import`, `--ignore-paths`): a program's message
    and option names, which no identifier can spell and its source holds as quoted strings."""
    return {name for name in _HYPHENATED.findall(task_text) if len(name) >= MIN_LITERAL_CHARS}


def quoting_files(files: dict[str, str], names: set[str]) -> set[str]:
    """Files that hold one of the names as a string literal: where the option or message is
    declared, even when that is class-level code no definition chunk covers."""
    quoted = [f"{q}{name}{q}" for name in names for q in "\"'"]
    return {path for path, text in files.items() if any(q in text for q in quoted)}


def _path_named(path: str, named_paths: set[str]) -> bool:
    return any(path.endswith(n) or n.endswith(path) for n in named_paths)


def rank(
    chunks: list[Chunk], task_text: str, quoting: frozenset[str] | set[str] = frozenset()
) -> list[Chunk]:
    """Task-named definitions and files first (`quoting`: files holding a name the task uses
    as a string literal count as named), then BM25 over identifier tokens."""
    if not chunks:
        return []
    corpus = [tokens(f"{c.path} {c.name} {c.text}") for c in chunks]
    scores = BM25Okapi(corpus).get_scores(tokens(task_text))
    named_paths, named = _named(task_text)
    boosted = [
        score
        + (NAMED_BOOST if c.name.rsplit(".", 1)[-1] in named else 0.0)
        + (PATH_BOOST if _path_named(c.path, named_paths) or c.path in quoting else 0.0)
        for c, score in zip(chunks, scores, strict=True)
    ]
    order = sorted(range(len(chunks)), key=lambda i: (-boosted[i], chunks[i].path, chunks[i].start))
    return [chunks[i] for i in order]


def fit(ranked: list[Chunk], max_tokens: int) -> list[Chunk]:
    shown, budget = [], max_tokens
    for chunk in ranked:
        cost = estimate_tokens(chunk.render()) + 20
        if cost <= budget:
            shown.append(chunk)
            budget -= cost
        elif not shown and budget > 200:
            text, _ = truncate(chunk.text, budget - 100)
            shown.append(Chunk(chunk.path, chunk.name, chunk.start, chunk.end, text))
            break
    return shown


def retrieve(task: Task, repos_dir: Path, max_tokens: int) -> Retrieved:
    """The top definitions for the task text, read at its base commit."""
    clone = find_clone(repos_dir, task.repo or "")
    commit = task.base_commit or ""
    if clone is None:
        return Retrieved(notes=[f"{task.task_id}: no clone of {task.repo!r} under {repos_dir}"])
    if not is_safe_commit(commit):
        return Retrieved(notes=[f"{task.task_id}: refused base commit {commit[:60]!r}"])
    files = read_many(clone, commit, source_paths(list_files(clone, commit)))
    chunks = [c for path, text in files.items() if len(text) < MAX_FILE_BYTES
              for c in chunks_of(path, text)]  # fmt: skip
    text = f"{task.description}\n{task.hints or ''}"
    quoting = quoting_files(files, hyphenated_names(text))
    return Retrieved(shown=fit(rank(chunks, text, quoting), max_tokens))
