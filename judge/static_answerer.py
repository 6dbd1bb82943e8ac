"""Answering machine-checkable criteria from the candidate diff alone: no model, no variance.

Only criteria that carry a `check` are answered; the rest stay unanswered (they lower coverage
and are never guessed). The evidence is the diff line that decided the answer.
"""

from __future__ import annotations

from judge.code_facts import code_files, file_symbols, token_delta
from judge.diff import FileDiff, ParsedDiff
from judge.judgement import CriterionResult
from judge.rubric import Check, Criterion

STATIC_VERSION = "static-v1"


def _file(diff: ParsedDiff, path: str | None) -> FileDiff | None:
    return next((f for f in diff.files if path in (f.old_path, f.new_path)), None)


def _touches(check: Check, diff: ParsedDiff) -> tuple[bool, str]:
    found = _file(diff, check.path)
    return found is not None, f"diff --git a/{check.path} b/{check.path}" if found else ""


def _changes_symbol(check: Check, diff: ParsedDiff) -> tuple[bool, str]:
    found = _file(diff, check.path)
    if found is None or check.symbol not in file_symbols(found):
        return False, ""
    return True, f"{check.path}: {check.symbol}"


def _token(check: Check, diff: ParsedDiff) -> tuple[bool, str]:
    plus, minus, plus_line, minus_line = token_delta(diff, check.token or "", check.path)
    if check.kind == "adds_token":
        return (True, plus_line or "") if plus > minus else (False, "")
    return (True, minus_line or "") if minus > plus else (False, "")


_ANSWER = {
    "touches_file": _touches,
    "changes_symbol": _changes_symbol,
    "adds_token": _token,
    "removes_token": _token,
}


def answer_check(check: Check, diff: ParsedDiff) -> tuple[bool, str]:
    """(yes?, the evidence line). Test files and binary files never count as a change."""
    code_only = ParsedDiff(files=code_files(diff))
    return _ANSWER[check.kind](check, code_only)


def static_result(criterion: Criterion, diff: ParsedDiff) -> CriterionResult:
    if criterion.check is None:
        return CriterionResult(
            criterion_id=criterion.id,
            weight=criterion.weight,
            answer=None,
            answerer="none",
            reason="no machine check for this criterion",
        )
    yes, evidence = answer_check(criterion.check, diff)
    return CriterionResult(
        criterion_id=criterion.id,
        weight=criterion.weight,
        answer="yes" if yes else "no",
        reason=f"static {criterion.check.kind}",
        evidence=evidence,
        verified=True if yes else None,
        counted_yes=yes,
        answerer="static",
    )
