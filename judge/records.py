"""Tasks and candidates as the pipeline sees them, normalised from the field names people have.

A `Task` holds only what may reach a prompt. Test content (`test_patch`, `FAIL_TO_PASS`,
`PASS_TO_PASS`, …) is split off at load time into `withheld`, which no prompt builder accepts;
a candidate's every field other than its patch becomes a *label*, stored beside results and never
shown to the judge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

TASK_ID_FIELDS = ("instance_id", "task_id", "id")
DESCRIPTION_FIELDS = ("problem_statement", "description", "issue", "prompt")
HINT_FIELDS = ("hints_text", "hints")
REFERENCE_FIELDS = ("patch", "reference_patch", "gold_patch")
CANDIDATE_PATCH_FIELDS = ("model_patch", "patch", "diff", "candidate_patch")
CANDIDATE_ID_FIELDS = ("candidate_id",)
SOURCE_LABELS = ("model_name_or_path", "system", "model", "harness", "route", "agent")
WITHHELD_FIELDS = frozenset(
    {"test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "tests", "test_names", "test_results"}
)


class Task(BaseModel):
    """What rubric generation may see; the judge sees only `description`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    description: str
    repo: str | None = None
    base_commit: str | None = None
    hints: str | None = None
    reference_patch: str | None = None


class Candidate(BaseModel):
    """A patch to judge, with its labels kept apart from anything a prompt is built from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    candidate_id: str
    patch: str
    labels: dict[str, Any] = {}


class RecordError(ValueError):
    """A bad input record; the message names where it came from and what is wrong."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


@dataclass
class Loaded:
    """Records that loaded, the test content withheld from them, and the ones that did not."""

    tasks: dict[str, Task] = field(default_factory=dict)
    withheld: dict[str, dict[str, Any]] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    errors: list[RecordError] = field(default_factory=list)


def _first(row: Mapping[str, Any], names: Iterable[str]) -> tuple[str | None, Any]:
    for name in names:
        if name in row and row[name] is not None:
            return name, row[name]
    return None, None


def clean_text(text: str) -> str:
    """Lone surrogates (from JSON escapes of broken bytes) become U+FFFD, so every later
    step can encode the text as UTF-8."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _text(value: Any) -> str | None:
    return None if value is None else clean_text(str(value))


def task_from_row(row: Mapping[str, Any], source: str) -> tuple[Task, dict[str, Any]]:
    """A task and its withheld test fields; raises `RecordError` naming `source`."""
    _, task_id = _first(row, TASK_ID_FIELDS)
    if task_id in (None, ""):
        raise RecordError(source, f"no task id (expected one of {', '.join(TASK_ID_FIELDS)})")
    _, description = _first(row, DESCRIPTION_FIELDS)
    if not str(description or "").strip():
        raise RecordError(source, f"task {task_id} has no description")
    task = Task(
        task_id=str(task_id),
        description=clean_text(str(description)),
        repo=_text(row.get("repo")),
        base_commit=_text(row.get("base_commit")),
        hints=_text(_first(row, HINT_FIELDS)[1]) or None,
        reference_patch=_text(_first(row, REFERENCE_FIELDS)[1]) or None,
    )
    return task, {k: v for k, v in row.items() if k in WITHHELD_FIELDS}


def candidate_from_row(row: Mapping[str, Any], source: str) -> Candidate:
    """A candidate; `candidate_id` is derived from its source label when the row has none."""
    _, task_id = _first(row, TASK_ID_FIELDS[:2])
    if task_id in (None, ""):
        raise RecordError(source, "no task id (expected instance_id or task_id)")
    patch_field, patch = _first(row, CANDIDATE_PATCH_FIELDS)
    if patch_field is None:
        fields = ", ".join(CANDIDATE_PATCH_FIELDS)
        raise RecordError(source, f"candidate for {task_id} has no patch field ({fields})")
    _, candidate_id = _first(row, CANDIDATE_ID_FIELDS)
    used = {"instance_id", "task_id", "candidate_id", patch_field}
    labels = {k: v for k, v in row.items() if k not in used}
    return Candidate(
        task_id=str(task_id),
        candidate_id=str(candidate_id) if candidate_id else derived_id(str(task_id), labels, patch),
        patch=clean_text(str(patch)),
        labels=labels,
    )


def derived_id(task_id: str, labels: Mapping[str, Any], patch: str) -> str:
    """`task@source[#index]` when a source label exists, else `task@<patch hash>`: stable
    across re-runs, so resuming finds the same ids."""
    _, source = _first(labels, SOURCE_LABELS)
    suffix = f"#{labels['candidate_index']}" if "candidate_index" in labels else ""
    if source:
        return f"{task_id}@{source}{suffix}"
    return f"{task_id}@{hashlib.sha256(patch.encode()).hexdigest()[:12]}{suffix}"


class ErrorRecord(BaseModel):
    """One input record or work item that could not be processed, and why."""

    model_config = ConfigDict(extra="forbid")

    record: str
    reason: str
    run_index: int | None = None

    @classmethod
    def from_record_error(cls, error: RecordError) -> ErrorRecord:
        return cls(record=error.source, reason=error.reason)


class NothingProducedError(RuntimeError):
    """A job ended without a single result; its message says why in one paragraph and where the
    full list of failures is, so the command can exit 1 without a traceback."""


def explain_failures(what: str, errors: list[ErrorRecord], total: int, where: str) -> str:
    """One paragraph: how many items failed, the first few reasons, and where the rest are."""
    first = "; ".join(f"{e.record}: {e.reason}" for e in errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return (
        f"{what}: {len(errors)} of {total} failed. First reasons: {first}{more}. "
        f"The full list is in {where}."
    )
