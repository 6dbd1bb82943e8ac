"""Labelled candidates for validation: flat JSONL with `resolved`, folders of such files, and
the SWE-bench experiments layout (`<run>/all_preds.jsonl` + `<run>/results/results.json`).

Every candidate gets the labels validation needs: `run` (the raw run name), `system` and
`condition` (from the system rules), `resolved` and `empty`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judge.loaders import load_candidates
from judge.records import Candidate, Loaded, RecordError, Task
from validation.systems import SystemRules

RUN_FIELDS = ("system", "model_name_or_path", "run")


def _run_name(candidate: Candidate, fallback: str) -> str:
    return next((str(candidate.labels[f]) for f in RUN_FIELDS if candidate.labels.get(f)), fallback)


def _label(candidate: Candidate, rules: SystemRules, fallback_run: str) -> Candidate:
    run = _run_name(candidate, fallback_run)
    system, condition = rules.assign(run)
    labels: dict[str, Any] = {
        **candidate.labels,
        "run": run,
        "system": system,
        "condition": condition,
        "empty": not candidate.patch.strip(),
    }
    return candidate.model_copy(update={"labels": labels})


def _experiments_run(folder: Path, loaded: Loaded) -> list[Candidate]:
    """`all_preds.jsonl` plus `results/results.json` whose `resolved` lists instance ids."""
    results_path = folder / "results" / "results.json"
    try:
        resolved = set(json.loads(results_path.read_text(encoding="utf-8")).get("resolved", []))
    except (OSError, json.JSONDecodeError) as exc:
        loaded.errors.append(RecordError(str(results_path), f"cannot read verdicts: {exc}"))
        return []
    preds = load_candidates(folder / "all_preds.jsonl")
    loaded.errors += preds.errors
    return [
        c.model_copy(update={"labels": {**c.labels, "resolved": c.task_id in resolved}})
        for c in preds.candidates
    ]


def _files(location: Path) -> list[Path]:
    if location.is_dir():
        return sorted([*location.glob("*.jsonl"), *location.glob("*.jsonl.gz")])
    return [location]


def _unlabelled(location: Path, loaded: Loaded) -> list[tuple[Candidate, str]]:
    """Candidates of one location, each with the run name to use when its row names none."""
    if (location / "all_preds.jsonl").exists():
        return [(c, location.name) for c in _experiments_run(location, loaded)]
    pairs: list[tuple[Candidate, str]] = []
    for path in _files(location):
        run = path.name.split(".jsonl")[0]
        part = load_candidates(path, defaults={"system": run})
        loaded.errors += part.errors
        pairs += [(c, run) for c in part.candidates]
    return pairs


def load_labelled(locations: list[str | Path], rules: SystemRules) -> Loaded:
    """All candidates from all locations, labelled; bad records are named in `errors`."""
    loaded = Loaded()
    for location in map(Path, locations):
        for candidate, run in _unlabelled(location, loaded):
            loaded.candidates.append(_label(candidate, rules, run))
    _require_verdicts(loaded)
    return loaded


def _require_verdicts(loaded: Loaded) -> None:
    kept = []
    for candidate in loaded.candidates:
        if isinstance(candidate.labels.get("resolved"), bool):
            kept.append(candidate)
        else:
            reason = "has no resolved verdict (true/false): validation needs one"
            loaded.errors.append(RecordError(candidate.candidate_id, reason))
    loaded.candidates = kept


def gold_candidates(tasks: dict[str, Task]) -> list[Candidate]:
    """Each task's reference patch as a candidate, labelled `gold` (the judge is not told)."""
    return [
        Candidate(
            task_id=task.task_id,
            candidate_id=f"{task.task_id}@gold",
            patch=task.reference_patch,
            labels={
                "run": "gold",
                "system": "gold",
                "condition": "gold",
                "gold": True,
                "resolved": True,
                "empty": False,
            },
        )
        for task in tasks.values()
        if task.reference_patch
    ]
