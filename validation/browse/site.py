"""Write the browsable site of a run folder: an index in a few useful orders, one page per
repository and one per task. Judgements are read task by task through a byte-offset index of
the judgements file, so only one task's judgements are in memory at a time."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from judge.config import load_app_settings
from judge.judgement import Judgement
from judge.select import pick_all
from validation.browse.pages import CandidateView, candidate_view, rubric_rows, task_auc
from validation.browse.store import CandidateStore
from validation.report import _environment
from validation.run_inputs import manifest, pairwise_inputs, selectable

ORDERS = {
    "index.html": ("every task", lambda r: r.task_id),
    "worst-auc.html": ("worst AUC first", lambda r: (r.auc is None, r.auc or 0.0, r.task_id)),
    "closest-call.html": ("closest call first", lambda r: (r.margin is None, r.margin or 0.0)),
}


@dataclass
class TaskRow:
    task_id: str
    repo: str
    candidates: int
    best: float | None
    spread: float | None
    pick: str | None
    pick_resolved: bool | None
    auc: float | None
    margin: float | None
    page: str


def page_name(task_id: str) -> str:
    """A safe file name: readable, plus a hash so two ids never collide."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", task_id)[:80]
    return f"tasks/{slug}-{hashlib.sha256(task_id.encode()).hexdigest()[:8]}.html"


def offsets_by_task(path: Path) -> dict[str, list[int]]:
    """Byte offset of every judgement line, grouped by task (a few bytes per judgement)."""
    found: dict[str, list[int]] = defaultdict(list)
    with path.open("rb") as handle:
        offset = 0
        for line in handle:
            if line.strip():
                match = re.search(rb'"task_id":\s*"((?:[^"\\\\]|\\\\.)*)"', line)
                if match:
                    found[json.loads(b'"' + match.group(1) + b'"')].append(offset)
            offset += len(line)
    return found


def read_at(path: Path, offsets: list[int]) -> list[Judgement]:
    judgements = []
    with path.open("rb") as handle:
        for offset in offsets:
            handle.seek(offset)
            judgements.append(Judgement.model_validate_json(handle.readline()))
    return judgements


def _row(task_id, repo, views: list[CandidateView], pick, page) -> TaskRow:
    scores = [v.graded for v in views if v.graded is not None]
    chosen = next((v for v in views if v.picked), None)
    resolved = chosen.labels.get("resolved") if chosen else None
    return TaskRow(
        task_id, repo, len(views), max(scores) if scores else None,
        (max(scores) - min(scores)) if scores else None,
        pick.candidate_id if pick else None,
        resolved if isinstance(resolved, bool) else None,
        task_auc(views), pick.margin if pick else None, page,
    )  # fmt: skip


class SiteWriter:
    def __init__(self, run_dir: Path, out: Path) -> None:
        self.run_dir, self.out = run_dir, out
        found = manifest(run_dir)
        validating = found["command"] == "validate"
        self.inputs = pairwise_inputs(run_dir, "none:browse", 3, validating)
        self.scratch = tempfile.TemporaryDirectory(prefix="rubric-judge-browse-")
        self.store = None
        if not validating:  # a score run may be huge: its patches wait on disk
            location = found["inputs"]["candidates"]
            self.store = CandidateStore.from_file(location, Path(self.scratch.name))
        self.keep = selectable(run_dir)
        self.max_diff_tokens = load_app_settings().judge.max_diff_tokens
        self.env = _environment()

    def candidate(self, candidate_id: str):
        if self.store is not None:
            return self.store.get(candidate_id)
        return self.inputs.candidates.get(candidate_id)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        self.scratch.cleanup()

    def task_page(self, task_id: str, judgements: list[Judgement]) -> TaskRow:
        pool = [j for j in judgements if self.keep is None or j.candidate_id in self.keep]
        picks = pick_all(pool)
        pick = picks[0] if picks else None
        runs: dict[str, list[Judgement]] = defaultdict(list)
        for judgement in sorted(judgements, key=lambda j: (j.candidate_id, j.run_index)):
            runs[judgement.candidate_id].append(judgement)
        views = [
            candidate_view(self.candidate(cid), group, self.max_diff_tokens, pick)
            for cid, group in runs.items()
        ]
        views.sort(key=lambda v: (-(v.graded or 0.0), v.candidate_id))
        task = self.inputs.tasks.get(task_id)
        rubric = self.inputs.rubrics.get(task_id)
        page = page_name(task_id)
        html = self.env.get_template("browse_task.html.j2").render(
            task_id=task_id, task=task, rubric=rubric, criteria=rubric_rows(rubric),
            views=views, pick=pick, auc=task_auc(views), home="../index.html",
        )  # fmt: skip
        target = self.out / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        return _row(task_id, task.repo if task else "", views, pick, page)

    def indexes(self, rows: list[TaskRow]) -> list[str]:
        repos = sorted({r.repo for r in rows})
        pages = {f"repo-{re.sub(r'[^A-Za-z0-9_.-]+', '-', repo)}.html": repo for repo in repos}
        written = []
        for name, (title, key) in ORDERS.items():
            written.append(self._index(name, title, sorted(rows, key=key), pages))
        for name, repo in pages.items():
            chosen = [r for r in rows if r.repo == repo]
            written.append(self._index(name, f"repository {repo}", chosen, pages))
        return written

    def _index(self, name: str, title: str, rows: list[TaskRow], repos: dict) -> str:
        html = self.env.get_template("browse_index.html.j2").render(
            title=title, rows=rows, orders=ORDERS, repos=repos, run_dir=str(self.run_dir)
        )
        (self.out / name).write_text(html, encoding="utf-8")
        return name


def write_site(run_dir: Path, out: Path) -> Path:
    """The site of `run_dir` in `out`; returns the index page."""
    writer = SiteWriter(run_dir, out)
    path = run_dir / "judgements.jsonl"
    try:
        rows = [
            writer.task_page(task_id, read_at(path, offsets))
            for task_id, offsets in sorted(offsets_by_task(path).items())
        ]
        writer.indexes(rows)
    finally:
        writer.close()
    return out / "index.html"
