"""Read-only tools over a clone at one commit, for a generator that explores the repository:
list a directory, read a line range, search text (`git grep` at the commit), show a definition
by name. Every read goes through `git` at the task's base commit (never a later commit, never
the work tree), paths are checked (no absolute paths, no `..`), and every output is capped."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from judge.repo.git import git, grep_at_commit, is_safe_commit, is_safe_path, read_at_commit
from judge.repo.python_defs import definitions

MAX_OUTPUT_CHARS = 6_000
MAX_LINES = 200
MAX_HITS = 40

SPECS = [
    {"name": "list_dir", "description": "List the files and folders of a directory.",
     "parameters": {"type": "object", "additionalProperties": False, "required": ["path"],
                    "properties": {"path": {"type": "string", "description": "'' for the root"}}}},
    {"name": "read_file", "description": "Read lines of a file (at most 200 at a time).",
     "parameters": {"type": "object", "additionalProperties": False,
                    "required": ["path", "start", "end"],
                    "properties": {"path": {"type": "string"}, "start": {"type": "integer"},
                                   "end": {"type": "integer"}}}},
    {"name": "search", "description": "Search the code for a regular expression (git grep).",
     "parameters": {"type": "object", "additionalProperties": False, "required": ["pattern"],
                    "properties": {"pattern": {"type": "string"}}}},
    {"name": "show_definition", "description": "Show a Python function or class by name.",
     "parameters": {"type": "object", "additionalProperties": False, "required": ["name"],
                    "properties": {"name": {"type": "string"}}}},
]  # fmt: skip


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS} characters cut ...]"


@dataclass
class RepoTools:
    """The tools of one task: one clone, one commit."""

    clone: Path
    commit: str

    def run(self, name: str, arguments: dict) -> str:
        """The tool's output as text; a refused or failed call says why (never raises)."""
        if not is_safe_commit(self.commit):
            return "error: no usable base commit"
        handlers = {
            "list_dir": self.list_dir,
            "read_file": self.read_file,
            "search": self.search,
            "show_definition": self.show_definition,
        }
        handler = handlers.get(name)
        if handler is None:
            return f"error: unknown tool {name!r}"
        try:
            return _cap(handler(**arguments))
        except TypeError as exc:
            return f"error: bad arguments for {name}: {exc}"

    def list_dir(self, path: str = "") -> str:
        path = path.strip("/")
        if path and not is_safe_path(path):
            return f"error: refused path {path!r}"
        target = f"{self.commit}:{path}" if path else f"{self.commit}:"
        done = git(self.clone, "ls-tree", "--name-only", target)
        if done.returncode:
            return f"error: no directory {path!r} at the base commit"
        return done.stdout.decode("utf-8", errors="replace")

    def read_file(self, path: str, start: int = 1, end: int = MAX_LINES) -> str:
        if not is_safe_path(path):
            return f"error: refused path {path!r}"
        text = read_at_commit(self.clone, self.commit, path)
        if text is None:
            return f"error: no file {path!r} at the base commit"
        start = max(int(start), 1)
        end = min(int(end), start + MAX_LINES - 1)
        rows = text.split("\n")[start - 1 : end]
        return "\n".join(f"{n:>5} {row}" for n, row in enumerate(rows, start))

    def search(self, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"error: bad pattern: {exc}"
        hits = grep_at_commit(self.clone, self.commit, pattern, ())
        shown = "\n".join(row[:300] for row in hits[:MAX_HITS])
        more = f"\n[... {len(hits) - MAX_HITS} more hits]" if len(hits) > MAX_HITS else ""
        return (shown + more) or "no match"

    def show_definition(self, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name or ""):
            return f"error: not a name: {name!r}"
        short = name.rsplit(".", 1)[-1]
        rows = grep_at_commit(self.clone, self.commit, rf"^\s*(async\s+)?(def|class)\s+{short}\b",
                              ("*.py",))  # fmt: skip
        found = []
        for path in sorted({r.split(":", 1)[0] for r in rows})[:5]:
            source = read_at_commit(self.clone, self.commit, path) or ""
            lines = source.split("\n")
            for d in definitions(source):
                if d.name == short and (d.qualname == name or "." not in name):
                    body = "\n".join(lines[d.start - 1 : min(d.end, d.start + MAX_LINES - 1)])
                    found.append(f"{path} lines {d.start}-{d.end}:\n{body}")
        return "\n\n".join(found) or f"no definition named {name!r}"
