"""What one task page shows: candidates × criteria, the diff as the judge saw it with the
quoted evidence marked, each criterion's reason beside it."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from judge.blinding import blind_patch
from judge.diff_budget import budget_diff
from judge.evidence import normalised_diff
from judge.judgement import Judgement
from judge.records import Candidate
from judge.rubric import Rubric
from judge.select import Pick

MIN_QUOTE_CHARS = 4


@dataclass
class DiffLine:
    text: str
    kind: str  # add | remove | context | header
    marks: list[str] = field(default_factory=list)  # criterion ids whose evidence quotes it


@dataclass
class CandidateView:
    candidate_id: str
    labels: dict
    score: float | None
    graded: float | None
    coverage: float
    spread: float | None
    answers: dict[str, str]  # criterion id -> yes | no | unverified | unanswered
    reasons: dict[str, str]
    diff: list[DiffLine]
    picked: bool = False
    flags: list[str] = field(default_factory=list)
    facts: list[dict] | None = None


def _kind(line: str) -> str:
    if line.startswith(("diff --git", "+++ ", "--- ", "@@")):
        return "header"
    return {"+": "add", "-": "remove"}.get(line[:1], "context")


def _quote_lines(quote: str) -> list[str]:
    lines = [normalised_diff(q) for q in quote.splitlines()]
    return [q for q in lines if len(q) >= MIN_QUOTE_CHARS]


def marked_diff(shown: str, evidence: dict[str, str]) -> list[DiffLine]:
    """The diff's lines, each marked with the criteria whose quoted evidence it holds."""
    quotes = {cid: _quote_lines(q) for cid, q in evidence.items() if q.strip()}
    lines = []
    for raw in shown.split("\n"):
        body = normalised_diff(raw)
        marks = [cid for cid, parts in quotes.items() if body and any(p in body for p in parts)]
        lines.append(DiffLine(raw, _kind(raw), marks))
    return lines


def _answer(result) -> str:
    if result.answer is None:
        return "unanswered"
    if result.answer == "yes" and not result.counted_yes:
        return "unverified"
    return result.answer


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _present(values) -> list[float]:
    return [v for v in values if v is not None]


def _spread(scores: list[float]) -> float | None:
    return max(scores) - min(scores) if len(scores) > 1 else None


def shown_diff(candidate: Candidate | None, max_diff_tokens: int) -> str:
    """The diff as the judge saw it (blinded, within its budget)."""
    if candidate is None or not candidate.patch.strip():
        return ""
    return budget_diff(blind_patch(candidate.patch, candidate.labels), max_diff_tokens)[0]


def candidate_view(
    candidate: Candidate | None, runs: list[Judgement], max_diff_tokens: int, pick: Pick | None
) -> CandidateView:
    first = runs[0]
    scores = _present(j.score for j in runs)
    evidence = {r.criterion_id: r.evidence for r in first.criteria if r.answer == "yes"}
    return CandidateView(
        candidate_id=first.candidate_id,
        labels=first.labels,
        score=_mean(scores),
        graded=_mean(_present(j.rank_score for j in runs)),
        coverage=_mean([j.coverage for j in runs]) or 0.0,
        spread=_spread(scores),
        answers={r.criterion_id: _answer(r) for r in first.criteria},
        reasons={r.criterion_id: r.reason for r in first.criteria},
        diff=marked_diff(shown_diff(candidate, max_diff_tokens), evidence),
        picked=pick is not None and pick.candidate_id == first.candidate_id,
        flags=first.flags,
        facts=first.facts,
    )


def _labelled(view: CandidateView) -> bool:
    resolved = view.labels.get("resolved")
    return isinstance(resolved, bool) and not view.labels.get("gold") and view.graded is not None


def _won(p: float, n: float) -> float:
    return 1.0 if p > n else 0.5 if p == n else 0.0


def task_auc(views: list[CandidateView]) -> float | None:
    """(wins + ½ ties) / pairs over labelled, non-gold candidates; None without both kinds."""
    labelled = [v for v in views if _labelled(v)]
    pos = [v.graded for v in labelled if v.labels["resolved"]]
    neg = [v.graded for v in labelled if not v.labels["resolved"]]
    if not pos or not neg:
        return None
    return statistics.fmean(_won(p, n) for p in pos for n in neg)


def rubric_rows(rubric: Rubric | None) -> list[dict]:
    if rubric is None:
        return []
    return [
        {"id": c.id, "question": c.question, "weight": c.weight, "category": c.category,
         "check": c.check.model_dump(exclude_none=True) if c.check else None}
        for c in rubric.criteria
    ]  # fmt: skip
