"""The rubric: weighted yes/no criteria, frozen per task before any candidate is judged.

`Rubric` is the one type every generator (LLM or reference) produces and the judge consumes.
Its hash covers the criteria only, so a judgement names exactly the questions it answered.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Category = Literal[
    "localization", "root_cause", "behavior", "edge_cases", "scope", "code_quality", "preservation"
]
PRESERVATION = "preservation"  # "keeps X working": met when untouched, can only take points
CheckKind = Literal["touches_file", "changes_symbol", "adds_token", "removes_token"]


class Check(BaseModel):
    """A machine-checkable form of a structural criterion, answered without an LLM."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: CheckKind
    path: str | None = None
    symbol: str | None = None
    token: str | None = None


class Criterion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    question: str
    """Phrased so that *yes* is the desirable answer."""
    weight: int = Field(ge=1, le=5)
    category: Category
    anchors: list[str] = Field(default_factory=list)
    """File paths and symbols the question refers to."""
    rationale: str = ""
    """For humans reading the rubric; never shown to the judge."""
    check: Check | None = None


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    task_id: str
    criteria: list[Criterion]
    generator: str
    prompt_hash: str
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    rubric_hash: str = ""
    source: str = ""
    """"task" (written without the merged fix) or "reference" (built from it: an upper bound)."""
    context: list[dict] = Field(default_factory=list)
    """What of the repository the generator was shown (path, name, lines), read at the base
    commit."""
    exploration: list[dict] = Field(default_factory=list)
    """`--context explore`: every tool call (turn, tool, arguments), what it returned and its
    size."""

    def model_post_init(self, _context: object) -> None:
        if not self.rubric_hash:
            self.rubric_hash = content_hash(self.task_id, self.criteria)

    @property
    def total_weight(self) -> int:
        return sum(c.weight for c in self.criteria)

    def criterion(self, criterion_id: str) -> Criterion:
        return next(c for c in self.criteria if c.id == criterion_id)


def content_hash(task_id: str, criteria: list[Criterion]) -> str:
    payload = {"task_id": task_id, "criteria": [c.model_dump() for c in criteria]}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
