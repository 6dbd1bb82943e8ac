"""The reference judge on the full development split: quality and speed targets.

    python benchmarks/reference_judge.py --shared ../shared/data/swebench

Derives reference rubrics for every task with candidates, judges every candidate (gold patches
as well) once, and prints the per-task AUC (empty patches excluded and included), the
failure-quality Spearman ρ (systems grouped by agent+model per `configs/systems.yaml`; over all
failing patches and over the tasks every compared system attempted) and the wall time of each
stage. Targets: mean per-task AUC ≥ 0.76 with empty patches excluded; judging all candidates in
under 30 s on a 2-core machine. The full report is written to --out.

It then measures the settings honestly: a grid of reference settings is scored per task, and
each repository is held out in turn while the settings are chosen on the other eleven (the
simplest within 0.01 of the best); the cross-validated AUC is the mean over the held-out tasks.
Target: cross-validated AUC ≥ 0.76 with empty patches excluded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contextlib  # noqa: E402

import pandas as pd  # noqa: E402

from judge.config import ReferenceSettings, load_app_settings  # noqa: E402
from judge.jsonl import read_jsonl  # noqa: E402
from judge.judgement import Judgement  # noqa: E402
from judge.judges import ReferenceJudge  # noqa: E402
from judge.llm.client import LLMClient  # noqa: E402
from judge.score_run import ScoreSummary, judge_all, pending_work  # noqa: E402
from rubric_gen.generator import RubricFailure  # noqa: E402
from rubric_gen.reference import reference_rubric  # noqa: E402
from rubric_gen.run import RubricSummary, rubrics_for_tasks  # noqa: E402
from validation.cross_validation import choose, leave_one_repo_out  # noqa: E402
from validation.frame import judgements_frame  # noqa: E402
from validation.metrics import all_checks, task_aucs  # noqa: E402
from validation.validate import ValidateJob, load_inputs, selection_of  # noqa: E402

AUC_TARGET = 0.76
SECONDS_TARGET = 30.0
TOLERANCE = 0.01  # differences inside this are noise: the simpler setting wins


def grid() -> list[ReferenceSettings]:
    """Candidate settings, simplest first: fewer kinds of criteria, smaller caps, equal
    weights."""
    settings = [
        ReferenceSettings(
            file_weight=fw, symbol_weight=sw, token_weight=1, max_symbols=ms, max_tokens=mt
        )
        for mt in (0, 4, 8, 12)
        for ms in (0, 3, 6)
        for fw in (1, 2)
        for sw in (1, 3)
    ]
    return sorted(settings, key=_complexity)


def _complexity(s: ReferenceSettings) -> tuple:
    features = int(s.max_tokens > 0) + int(s.max_symbols > 0)
    return (
        features,
        s.max_tokens + s.max_symbols,
        int(s.file_weight != 1) + int(s.symbol_weight != 1),
    )


def _name(s: ReferenceSettings) -> str:
    return f"f{s.file_weight}-s{s.symbol_weight}x{s.max_symbols}-t{s.token_weight}x{s.max_tokens}"


async def _task_aucs(inputs, setting: ReferenceSettings) -> pd.DataFrame:
    """Per-task AUC (empty patches excluded) of the reference judge under one setting."""
    judge = ReferenceJudge()
    rubrics = {}
    for task in inputs.tasks.values():
        with contextlib.suppress(RubricFailure):
            rubrics[task.task_id] = reference_rubric(task, setting)
    judgements = [
        await judge.judge(inputs.tasks[c.task_id], c, rubrics[c.task_id], 0)
        for c in inputs.candidates
        if c.task_id in rubrics and not c.labels.get("gold")
    ]
    repos = {t: task.repo or "" for t, task in inputs.tasks.items()}
    aucs, _ = task_aucs(judgements_frame(judgements, repos), include_empty=False)
    return aucs


async def cross_validate(inputs) -> dict:
    settings = grid()
    frames = []
    for setting in settings:
        aucs = await _task_aucs(inputs, setting)
        frames.append(aucs.assign(setting=_name(setting)))
    table = pd.concat(frames, ignore_index=True)
    order = [_name(s) for s in settings]
    held_out = leave_one_repo_out(table, order, TOLERANCE)
    means = table.groupby("setting")["auc"].mean()
    chosen_all = choose(means, order, TOLERANCE)
    default = _name(ReferenceSettings())
    return {
        "settings_tried": len(settings),
        "cv_auc_mean": float(held_out["auc"].mean()),
        "cv_tasks": len(held_out),
        "per_repo": {
            repo: {
                "setting": g["setting"].iloc[0],
                "auc": round(float(g["auc"].mean()), 3),
                "tasks": len(g),
            }
            for repo, g in held_out.groupby("repo")
        },
        "chosen_on_all_repos": chosen_all,
        "in_sample_auc_of_chosen": float(means[chosen_all]),
        "default": default,
        "in_sample_auc_of_default": float(means[default]),
        "best_in_sample": means.idxmax(),
        "best_in_sample_auc": float(means.max()),
    }


async def run(shared: Path, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("rubrics.jsonl", "judgements.jsonl"):
        (out / stale).unlink(missing_ok=True)
    settings = load_app_settings(cache_enabled=False)
    job = ValidateJob(
        out=out,
        data=str(shared / "instances.jsonl"),
        candidates=(str(shared / "predictions"),),
        runs=1,
    )
    timings = {}
    started = time.perf_counter()
    inputs = load_inputs(job)
    timings["load_s"] = time.perf_counter() - started
    async with LLMClient(settings.llm, use_cache=False) as client:
        started = time.perf_counter()
        rubrics = await rubrics_for_tasks(
            client,
            "reference",
            list(inputs.tasks.values()),
            out / "rubrics.jsonl",
            settings,
            RubricSummary(),
        )
        timings["rubrics_s"] = time.perf_counter() - started
        summary = ScoreSummary()
        path = out / "judgements.jsonl"
        work = pending_work(inputs.candidates, inputs.tasks, rubrics, "reference", path, 1, summary)
        started = time.perf_counter()
        await judge_all(client, ReferenceJudge(), inputs.tasks, rubrics, work, path, summary)
        timings["judging_s"] = time.perf_counter() - started
    started = time.perf_counter()
    judgements = read_jsonl(path, Judgement)
    checks = all_checks(judgements_frame(judgements))
    selection = selection_of(judgements, job)
    timings["metrics_s"] = time.perf_counter() - started
    started = time.perf_counter()
    cross_validation = await cross_validate(inputs)
    timings["cross_validation_s"] = time.perf_counter() - started
    non_gold = [c for c in inputs.candidates if not c.labels.get("gold")]
    return {
        "tasks": len(inputs.tasks),
        "candidates": len(non_gold),
        "gold_candidates": len(inputs.candidates) - len(non_gold),
        "judged": summary.judged,
        "errors": len(summary.errors) + len(inputs.errors),
        "auc_without_empty": _auc(checks["auc_without_empty"]),
        "auc_with_empty": _auc(checks["auc_with_empty"]),
        "failure_quality_all": _rho(checks["failure_quality"]),
        "failure_quality_common_tasks": _rho(checks["failure_quality_common_tasks"]),
        "best_of_n": selection,
        "cross_validation": cross_validation,
        "timings": {k: round(v, 2) for k, v in timings.items()},
    }


def _auc(auc: dict) -> dict:
    return {
        k: auc[k]
        for k in ("mean", "median", "ci95", "pooled", "tasks", "pairs", "tasks_skipped_one_class")
    }


def _rho(check: dict) -> dict:
    keep = ("status", "spearman_rho", "ci95", "permutation_p", "systems", "tasks", "reason")
    return {k: check[k] for k in keep if k in check}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data" / "swebench")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "dev-reference-benchmark")
    args = parser.parse_args()
    if not (args.shared / "instances.jsonl").exists():
        raise SystemExit(f"no SWE-bench data at {args.shared}: pass --shared")
    result = asyncio.run(run(args.shared, args.out))
    print(json.dumps(result, indent=2))
    auc = result["auc_without_empty"]["mean"]
    seconds = result["timings"]["judging_s"]
    auc_ok = "PASS" if auc >= AUC_TARGET else "FAIL"
    speed_ok = "PASS" if seconds < SECONDS_TARGET else "FAIL"
    print(f"AUC (empty excluded) {auc:.3f} in-sample, target >= {AUC_TARGET}: {auc_ok}")
    cv = result["cross_validation"]
    cv_ok = "PASS" if cv["cv_auc_mean"] >= AUC_TARGET else "FAIL"
    print(
        f"AUC (empty excluded) {cv['cv_auc_mean']:.3f} leave-one-repository-out over "
        f"{cv['cv_tasks']} tasks, target >= {AUC_TARGET}: {cv_ok}; chosen on all repositories: "
        f"{cv['chosen_on_all_repos']} (in-sample {cv['in_sample_auc_of_chosen']:.3f}; default "
        f"{cv['default']} {cv['in_sample_auc_of_default']:.3f})"
    )
    best = result["best_of_n"]
    beats = "PASS" if best["picked"] > best["random"] else "FAIL"
    print(f"best-of-N: picked {best['picked']:.3f} vs random {best['random']:.3f}: {beats}")
    judged = result["judged"]
    print(f"judged {judged} in {seconds:.1f} s (target < {SECONDS_TARGET:.0f} s): {speed_ok}")


if __name__ == "__main__":
    main()
