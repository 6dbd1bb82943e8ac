"""Problems a patch introduces, found by ruff (never a hand-written analyser): findings present
after the patch, absent before it, on lines the patch added."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

# undefined names, names used before assignment, redefinitions, unused imports, syntax errors
RULES = "F821,F822,F823,F811,F401,F632,F706,F704"
# what breaks code when it runs; an unused import or a redefinition is only worth a note
ERROR_CODES = frozenset({"F821", "F822", "F823", "F632", "F706", "F704", "invalid-syntax"})
TIMEOUT_S = 30


@dataclass(frozen=True)
class Finding:
    code: str
    line: int
    message: str


def ruff_findings(path: str, source: str) -> list[Finding] | None:
    """ruff's findings for one file read from stdin; None when ruff could not run."""
    try:
        result = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache",
             "--select", RULES, "--output-format", "json", "--stdin-filename", path, "-"],
            input=source.encode("utf-8", errors="replace"),
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )  # fmt: skip
        rows = json.loads(result.stdout or b"[]")
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return None
    return [
        Finding(row.get("code") or "syntax", row["location"]["row"], row["message"]) for row in rows
    ]


def introduced(path: str, before: str | None, after: str, added_lines: set[int]) -> list[Finding]:
    """Findings on added lines of `after` whose (code, message) the base file did not have."""
    found = ruff_findings(path, after) or []
    old = {(f.code, f.message) for f in ruff_findings(path, before) or []} if before else set()
    return [f for f in found if f.line in added_lines and (f.code, f.message) not in old]
