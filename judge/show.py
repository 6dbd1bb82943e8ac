"""Reading a run folder back for humans: one judgement as a table."""

from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table
from rich.text import Text

from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.rubric import Rubric
from judge.rubric_store import load_rubrics
from judge.score_run import JUDGEMENTS, MANIFEST

MAX_CELL = 160


def find_judgements(run_dir: Path, candidate_id: str) -> list[Judgement]:
    found = [
        j for j in read_jsonl(run_dir / JUDGEMENTS, Judgement) if j.candidate_id == candidate_id
    ]
    return sorted(found, key=lambda j: j.run_index)


def run_rubric(run_dir: Path, task_id: str) -> Rubric | None:
    """The task's rubric from the rubrics file the run used, when it is still there."""
    manifest_path = run_dir / MANIFEST
    if not manifest_path.exists():
        return None
    rubrics_path = Path(json.loads(manifest_path.read_text()).get("inputs", {}).get("rubrics", ""))
    return load_rubrics(rubrics_path).get(task_id) if rubrics_path.is_file() else None


def rubric_provenance(rubric: Rubric | None) -> list[str]:
    """How the rubric was written, and what of the repository its generator read."""
    if rubric is None:
        return []
    lines = [f"rubric: {rubric.generator}, source {rubric.source or 'unrecorded'}"]
    lines += [
        f"rubric context: {c['path']}:{c['lines'][0]}-{c['lines'][1]} {c['name']}"
        for c in rubric.context
    ]
    lines += [
        f"explored, turn {s['turn']}: {s['tool']}({json.dumps(s['arguments'])}) → "
        f"{s['chars']} chars"
        for s in rubric.exploration
    ]
    return lines


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _answer_cell(answer: str | None, counted: bool, verified: bool | None) -> str:
    if answer is None:
        return "—"
    if answer == "yes" and verified is False:
        return "yes (unverified)" + ("" if counted else " → no")
    return answer


def judgement_table(judgement: Judgement, questions: dict[str, str]) -> Table:
    score = "none" if judgement.score is None else f"{judgement.score:.3f}"
    title = (
        f"{judgement.candidate_id} (run {judgement.run_index}) · {judgement.status} · "
        f"score {score} · coverage {judgement.coverage:.2f}"
    )
    table = Table("criterion", "weight", "answer", "evidence", "reason", title=Text(title))
    for result in judgement.criteria:
        label = result.criterion_id
        if result.criterion_id in questions:
            label += f": {_cut(questions[result.criterion_id])}"
        cells = (
            label + (" [preservation: only subtracts]" if result.preservation else ""),
            str(result.weight),
            _answer_cell(result.answer, result.counted_yes, result.verified),
            _cut(result.evidence),
            _cut(result.reason),
        )
        table.add_row(*(Text(cell) for cell in cells))  # Text: patch text is never markup
    table.caption = "\n".join(_caption(judgement)) or None
    return table


def _caption(judgement: Judgement) -> list[str]:
    """Flags, the scoring rule when preservation criteria are in play, and the repository
    view: the static facts shown and the code context's provenance."""
    lines = ["flags: " + ", ".join(judgement.flags)] if judgement.flags else []
    if any(r.preservation for r in judgement.criteria):
        lines.append(
            "score = (met achievement weight - broken preservation weight) / answered "
            "achievement weight, at least 0"
        )
    return lines + _fact_lines(judgement) + _context_lines(judgement.view or {})


def _fact_lines(judgement: Judgement) -> list[str]:
    """The static facts shown; why there were none, when the view was unavailable."""
    if judgement.facts is None:
        return (
            [f"repository view unavailable: {judgement.view.get('note')}"] if judgement.view else []
        )
    if not judgement.facts:
        return ["facts: none found"]
    return [f"fact: {_where(fact)}: {fact['message']}" for fact in judgement.facts]


def _where(fact: dict) -> str:
    return f"{fact['path']}:{fact['line']}" if fact.get("line") else fact["path"]


def _context_lines(view: dict) -> list[str]:
    return [
        f"context: {item['kind']} {item['path']}:{item['lines'][0]}-{item['lines'][1]} "
        f"{item['name']}"
        for item in view.get("context", [])
    ]
