"""The reference judge on the full development split: quality and speed targets.

    python benchmarks/reference_judge.py --shared ../shared/data/swebench

Derives reference rubrics for every task with candidates, judges every candidate (gold patches
as well) once, and prints the per-task AUC (empty patches excluded and included), the
failure-quality Spearman ρ (systems grouped by agent+model per `configs/systems.yaml`; over all
failing patches and over the tasks every compared system attempted) and the wall time of each
stage. Targets: mean per-task AUC ≥ 0.76 with empty patches excluded; judging all candidates in
under 30 s on a 2-core machine. The full report is written to --out.
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

from judge.config import load_app_settings  # noqa: E402
from judge.jsonl import read_jsonl  # noqa: E402
from judge.judgement import Judgement  # noqa: E402
from judge.judges import ReferenceJudge  # noqa: E402
from judge.llm.client import LLMClient  # noqa: E402
from judge.score_run import ScoreSummary, judge_all, pending_work  # noqa: E402
from rubric_gen.run import RubricSummary, rubrics_for_tasks  # noqa: E402
from validation.frame import judgements_frame  # noqa: E402
from validation.metrics import all_checks  # noqa: E402
from validation.validate import ValidateJob, load_inputs, selection_of  # noqa: E402

AUC_TARGET = 0.76
SECONDS_TARGET = 30.0


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
    print(f"AUC (empty excluded) {auc:.3f}, target >= {AUC_TARGET}: {auc_ok}")
    best = result["best_of_n"]
    beats = "PASS" if best["picked"] > best["random"] else "FAIL"
    print(f"best-of-N: picked {best['picked']:.3f} vs random {best['random']:.3f}: {beats}")
    judged = result["judged"]
    print(f"judged {judged} in {seconds:.1f} s (target < {SECONDS_TARGET:.0f} s): {speed_ok}")


if __name__ == "__main__":
    main()
