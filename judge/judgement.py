"""A judgement: one candidate, one run, every criterion's answer, and where it all came from.

One JSON line per judgement in `judgements.jsonl`, written the moment it exists. The record is
self-describing (format version, judge model, prompt and rubric hashes, package version) so a
saved run can be re-analysed without the code that made it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge import __version__
from judge.llm.types import Usage

Status = Literal["scored", "unparsed", "empty"]
Answerer = Literal["llm", "static", "none"]


class CriterionResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion_id: str
    weight: int
    answer: Literal["yes", "no"] | None
    """None: the criterion got no valid answer (it lowers coverage, not the score)."""
    reason: str = ""
    evidence: str = ""
    verified: bool | None = None
    """For a yes: was the evidence quote found in the diff? None for a no or no answer."""
    counted_yes: bool = False
    answerer: Answerer = "llm"
    preservation: bool = False
    """A preservation criterion: met when untouched, and it can only take points away."""
    p_yes: float | None = None
    """The judge's confidence that the criterion is met (graded answers), when known."""


class Judgement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    task_id: str
    candidate_id: str
    run_index: int = 0
    labels: dict[str, Any] = Field(default_factory=dict)
    rubric_hash: str
    judge_model: str
    prompt_hash: str
    package_version: str = __version__
    status: Status
    score: float | None
    graded_score: float | None = None
    """Like `score`, with each answer weighted by P(yes): breaks ties between strong patches.
    Equals `score` where no confidence was available."""
    coverage: float
    criteria: list[CriterionResult] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list)
    """The criterion order the judge was shown."""
    flags: list[str] = Field(default_factory=list)
    patch_size: int | None = None
    redactions: int = 0
    """Label strings redacted from what the judge saw (diff and task text)."""
    facts: list[dict] | None = None
    """Static facts shown to the judge; None when no repository view was available."""
    view: dict | None = None
    """What of the repository the judge saw (code context provenance), or why nothing."""
    """Changed lines of the candidate (added + removed); best-of-N prefers smaller on ties."""
    reason: str | None = None
    raw_reply: str | None = None
    """Kept for unparsed replies only, so a human can see what went wrong."""
    usage: Usage = Field(default_factory=lambda: Usage(calls=0))
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())

    @property
    def rank_score(self) -> float | None:
        """What ranking uses: the graded score where there is one, else the score."""
        return self.score if self.graded_score is None else self.graded_score

    @property
    def key(self) -> tuple[str, int]:
        return self.candidate_id, self.run_index

    @property
    def unverified(self) -> int:
        return sum(1 for c in self.criteria if c.answer == "yes" and c.verified is False)
