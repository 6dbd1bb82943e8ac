"""Static facts on real patches, without any LLM: false alarms and detections per repository.

    python benchmarks/static_facts.py --shared ../shared/data/swebench --clones DIR

DIR holds clones of the SWE-bench repositories (normal or bare) as `owner__name` or
`owner/name`; tasks of repositories without a clone are left out. Every candidate patch of the
development split (and every gold patch) is applied to its task's base commit in a temporary
index and checked: does it apply, does each changed file parse, which ruff findings does it
introduce on its added lines, which calls it adds do not match their signature.

Prints per repository the share of *resolved* candidates with any error fact (false alarms —
target ≤ 2 %), the share of unresolved ones with one (detections), the gold patches' false-alarm
rate, and the per-task AUC of the reference judge beside a variant that answers "no" to every
criterion of a file with an error fact (and to all of them when the patch does not apply).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.blinding import strip_git_metadata  # noqa: E402
from judge.config import ReferenceSettings  # noqa: E402
from judge.diff import parse_diff  # noqa: E402
from judge.judges import ReferenceJudge  # noqa: E402
from judge.repo.facts import ERROR_KINDS  # noqa: E402
from judge.repo.view import CodeViewer  # noqa: E402
from judge.scoring import score_and_coverage  # noqa: E402
from rubric_gen.generator import RubricFailure  # noqa: E402
from rubric_gen.reference import reference_rubric  # noqa: E402
from validation.frame import judgements_frame  # noqa: E402
from validation.metrics import task_aucs  # noqa: E402
from validation.validate import ValidateJob, load_inputs  # noqa: E402

FALSE_ALARM_TARGET = 0.02


def _errored_files(facts) -> set[str]:
    return {f.path for f in facts if f.kind in ERROR_KINDS}


def _added_in(patch: str, paths: set[str]) -> str:
    try:
        files = parse_diff(strip_git_metadata(patch)).files
    except Exception:  # a malformed diff: no added text to attribute
        return ""
    return "\n".join(line for f in files if f.path in paths for h in f.hunks for line in h.added)


def with_facts(judgement, rubric, facts, patch: str):
    """The reference judgement with every criterion of a broken file answered "no"."""
    broken = _errored_files(facts)
    if not broken:
        return judgement
    everything = "(patch)" in broken
    added = _added_in(patch, broken)
    checks = {c.id: c.check for c in rubric.criteria}
    results = []
    for result in judgement.criteria:
        check = checks.get(result.criterion_id)
        hit = everything or (
            check is not None
            and (check.path in broken or (check.token is not None and check.token in added))
        )
        results.append(result.model_copy(update={"counted_yes": False, "answer": "no"})
                       if hit and result.answer is not None else result)  # fmt: skip
    score, coverage = score_and_coverage(results)
    return judgement.model_copy(update={"criteria": results, "score": score, "coverage": coverage})


def _rate(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


async def run(shared: Path, clones: Path, cache: Path) -> dict:
    job = ValidateJob(out=cache, data=str(shared / "instances.jsonl"),
                      candidates=(str(shared / "predictions"),), runs=1)  # fmt: skip
    inputs = load_inputs(job)
    viewer = CodeViewer(clones, max_tokens=0, cache_dir=cache / "views")
    judge, settings = ReferenceJudge(), ReferenceSettings()
    counts: dict[str, Counter] = defaultdict(Counter)
    kinds: Counter = Counter()
    plain, aware, examples = [], [], []
    started = time.perf_counter()
    for candidate in inputs.candidates:
        task = inputs.tasks[candidate.task_id]
        if not candidate.patch.strip():
            continue
        view = viewer.view(task, candidate.patch)
        if not view.available:
            continue
        errors = [f for f in view.facts if f.kind in ERROR_KINDS]
        kinds.update(f.kind for f in errors)
        label = "gold" if candidate.labels.get("gold") else (
            "resolved" if candidate.labels.get("resolved") else "unresolved")  # fmt: skip
        counts[task.repo][label] += 1
        counts[task.repo][f"{label}_flagged"] += bool(errors)
        if errors and label in ("gold", "resolved") and len(examples) < 40:
            examples.append({"candidate": candidate.candidate_id,
                             "facts": [f.render() for f in errors[:3]]})  # fmt: skip
        if label == "gold":
            continue
        try:
            rubric = reference_rubric(task, settings)
        except RubricFailure:
            continue
        judgement = await judge.judge(task, candidate, rubric, 0)
        plain.append(judgement)
        aware.append(with_facts(judgement, rubric, view.facts, candidate.patch))
    seconds = time.perf_counter() - started
    repos = {t: task.repo or "" for t, task in inputs.tasks.items()}
    auc_plain, _ = task_aucs(judgements_frame(plain, repos), include_empty=False)
    auc_aware, _ = task_aucs(judgements_frame(aware, repos), include_empty=False)
    per_repo = {
        repo: {
            "resolved": c["resolved"],
            "false_alarm_rate": _rate(c["resolved_flagged"], c["resolved"]),
            "unresolved": c["unresolved"],
            "detection_rate": _rate(c["unresolved_flagged"], c["unresolved"]),
            "gold": c["gold"],
            "gold_false_alarm_rate": _rate(c["gold_flagged"], c["gold"]),
        }
        for repo, c in sorted(counts.items())
    }
    total = sum(counts.values(), Counter())
    return {
        "repositories": len(per_repo),
        "per_repo": per_repo,
        "overall": {
            "resolved": total["resolved"],
            "false_alarm_rate": _rate(total["resolved_flagged"], total["resolved"]),
            "unresolved": total["unresolved"],
            "detection_rate": _rate(total["unresolved_flagged"], total["unresolved"]),
            "gold": total["gold"],
            "gold_false_alarm_rate": _rate(total["gold_flagged"], total["gold"]),
        },
        "fact_kinds": dict(kinds),
        "reference_auc": {
            "plain": float(auc_plain["auc"].mean()),
            "with_facts": float(auc_aware["auc"].mean()),
            "tasks": len(auc_plain),
        },
        "false_alarm_examples": examples,
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data" / "swebench")
    parser.add_argument("--clones", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "static-facts-benchmark")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    result = asyncio.run(run(args.shared, args.clones, args.out))
    (args.out / "static_facts.json").write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "false_alarm_examples"}, indent=2))
    overall = result["overall"]
    ok = "PASS" if (overall["false_alarm_rate"] or 0) <= FALSE_ALARM_TARGET else "FAIL"
    print(f"false alarms on resolved candidates {overall['false_alarm_rate']} "
          f"(target <= {FALSE_ALARM_TARGET}): {ok}; detections on unresolved "
          f"{overall['detection_rate']}; reference AUC {result['reference_auc']['plain']:.3f} "
          f"-> {result['reference_auc']['with_facts']:.3f} with facts")  # fmt: skip


if __name__ == "__main__":
    main()
