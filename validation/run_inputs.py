"""What a saved run folder was made from: the tasks, candidates and rubrics behind its
judgements, read back for `select --pairwise` (which needs the patches themselves)."""

from __future__ import annotations

import json
from pathlib import Path

from judge.config import load_app_settings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.types import ConfigError
from judge.loaders import load_candidates, load_tasks
from judge.repo.view import CodeViewer
from judge.rubric_store import load_rubrics
from judge.tiebreak import TieBreakInputs
from validation.validate import ValidateJob, load_inputs


def manifest(run_dir: Path) -> dict:
    path = run_dir / "manifest.json"
    if not path.exists():
        raise ConfigError(f"{run_dir} has no manifest.json: is it a run folder?")
    return json.loads(path.read_text(encoding="utf-8"))


def pairwise_inputs(
    run_dir: Path, model: str, top_k: int, with_candidates: bool = True
) -> TieBreakInputs:
    """Tasks, rubrics and (unless `with_candidates` is off: a caller that streams them) the
    candidates behind a run's judgements."""
    found = manifest(run_dir)
    inputs = found["inputs"]
    rubrics = load_rubrics(Path(inputs.get("rubrics") or run_dir / "rubrics.jsonl"))
    if found["command"] == "validate":
        loaded = load_inputs(_validate_job(run_dir, inputs))
        tasks, candidates = loaded.tasks, loaded.candidates
    else:
        tasks = load_tasks(inputs["tasks"]).tasks
        candidates = load_candidates(inputs["candidates"]).candidates if with_candidates else []
    repos_dir = inputs.get("repos_dir")
    viewer = None
    if repos_dir:
        judge = load_app_settings().judge
        cache = Path(judge.view_cache_dir) if judge.view_cache_dir else None
        viewer = CodeViewer(Path(repos_dir), judge.max_context_tokens, cache)
    by_id = {c.candidate_id: c for c in candidates}
    return TieBreakInputs(model, tasks, by_id, rubrics, top_k, viewer)


def _validate_job(run_dir: Path, inputs: dict) -> ValidateJob:
    systems = inputs.get("systems")
    return ValidateJob(
        out=run_dir,
        data=inputs.get("data"),
        candidates=tuple(inputs.get("candidates") or ()),
        limit=inputs.get("limit"),
        repos=tuple(inputs.get("repos") or ()),
        systems=Path(systems) if systems else None,
        groups=tuple(inputs.get("groups") or ()),
    )


def selectable(run_dir: Path) -> set[str] | None:
    """Validation runs hold gold patches and other conditions: those are never picked."""
    if manifest(run_dir).get("command") != "validate":
        return None
    return {
        j.candidate_id
        for j in read_jsonl(run_dir / "judgements.jsonl", Judgement)
        if not j.labels.get("gold") and j.labels.get("condition", "standard") == "standard"
    }
