"""Repository context for task-mode rubrics, measured without any LLM.

    python benchmarks/retrieval.py --shared ../shared/data/swebench --clones DIR

For every development-split task whose repository is cloned under DIR: does the context shown
to the rubric generator (read at the base commit, ranked from the task text alone) contain every
non-test file the merged fix changes (file recall) and every function or class it changes
(definition recall), and how large is it? Beside it, a plain BM25 over whole files with the same
budget, so the value of ranking definitions is visible. Targets at the default budget: file
recall ≥ 0.85, definition recall ≥ 0.65. Prints per repository and overall.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rank_bm25 import BM25Okapi  # noqa: E402

from judge.config import RubricSettings  # noqa: E402
from judge.diff import is_test_path, parse_diff  # noqa: E402
from judge.fencing import estimate_tokens  # noqa: E402
from judge.loaders import load_tasks  # noqa: E402
from judge.repo.context import touched_old_lines  # noqa: E402
from judge.repo.git import find_clone, list_files, read_many  # noqa: E402
from judge.repo.python_defs import definitions, innermost  # noqa: E402
from rubric_gen.retrieval import Chunk, fit, retrieve, source_paths, tokens  # noqa: E402

FILE_TARGET, DEFINITION_TARGET = 0.85, 0.65


def changed(task, read) -> tuple[set[str], set[tuple[str, int, int]]]:
    """Non-test files the fix changes, and the (path, start, end) of definitions it changes."""
    files, defs = set(), set()
    for file in parse_diff(task.reference_patch).files:
        if file.old_path is None or is_test_path(file.path):
            continue
        files.add(file.old_path)
        source = read(file.old_path) if file.old_path.endswith(".py") else None
        found = definitions(source) if source else []
        for hunk in file.hunks:
            for line in touched_old_lines(hunk):
                d = innermost(found, line)
                if d is not None:
                    defs.add((file.old_path, d.start, d.end))
    return files, defs


def recall(shown: list[Chunk], files: set[str], defs: set) -> tuple[bool, float | None]:
    paths = {c.path for c in shown}
    covered = sum(
        any(c.path == p and c.start <= end and start <= c.end for c in shown)
        for p, start, end in defs
    )
    return files <= paths, (covered / len(defs) if defs else None)


def whole_files(task, clone, budget: int) -> list[Chunk]:
    """Baseline: BM25 over whole source files, shown whole (the first one cut to fit)."""
    sources = read_many(clone, task.base_commit, source_paths(list_files(clone, task.base_commit)))
    chunks = [Chunk(p, p, 1, text.count("\n") + 1, text) for p, text in sources.items()]
    corpus = [tokens(f"{c.path} {c.text}") for c in chunks]
    scores = BM25Okapi(corpus).get_scores(tokens(task.description))
    ranked = [chunks[i] for i in sorted(range(len(chunks)), key=lambda i: -scores[i])]
    return fit(ranked, budget)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data" / "swebench")
    parser.add_argument("--clones", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "retrieval.json")
    parser.add_argument("--limit", type=int, default=None, help="every k-th task (quick runs)")
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    budget = RubricSettings().max_context_tokens
    attempted = {
        json.loads(line)["instance_id"]
        for path in (args.shared / "predictions").glob("*.jsonl")
        for line in path.read_text().splitlines()
        if line.strip()
    }
    tasks = [t for t in load_tasks(args.shared / "instances.jsonl").tasks.values()
             if t.task_id in attempted and find_clone(args.clones, t.repo or "")]  # fmt: skip
    rows, started = [], time.perf_counter()
    ordered = sorted(tasks, key=lambda t: t.task_id)
    if args.limit:
        ordered = ordered[:: max(len(ordered) // args.limit, 1)]
    for task in ordered:
        clone = find_clone(args.clones, task.repo)
        files, defs = changed(task, lambda p, c=clone, t=task: read_many(c, t.base_commit,
                                                                         [p]).get(p))  # fmt: skip
        shown = retrieve(task, args.clones, budget).shown
        baseline = [] if args.no_baseline else whole_files(task, clone, budget)
        ours, base = recall(shown, files, defs), recall(baseline, files, defs)
        rows.append({"task": task.task_id, "repo": task.repo, "file": ours[0], "defs": ours[1],
                     "base_file": base[0], "base_defs": base[1],
                     "tokens": sum(estimate_tokens(c.render()) for c in shown)})  # fmt: skip
    summary = summarise(rows)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    summary["budget_tokens"] = budget
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "tasks": rows}, indent=2))
    print(json.dumps(summary, indent=2))
    overall = summary["overall"]
    print(
        f"file recall {overall['file_recall']:.3f} (target {FILE_TARGET}), definition recall "
        f"{overall['definition_recall']:.3f} (target {DEFINITION_TARGET}); whole-file BM25: "
        f"{overall['baseline_file_recall']:.3f} / {overall['baseline_definition_recall']:.3f}"
    )


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 3) if values else None


def _figures(rows: list[dict]) -> dict:
    return {
        "tasks": len(rows),
        "file_recall": _mean(float(r["file"]) for r in rows),
        "definition_recall": _mean(r["defs"] for r in rows),
        "baseline_file_recall": _mean(float(r["base_file"]) for r in rows),
        "baseline_definition_recall": _mean(r["base_defs"] for r in rows),
        "mean_context_tokens": _mean(r["tokens"] for r in rows),
    }


def summarise(rows: list[dict]) -> dict:
    by_repo = defaultdict(list)
    for row in rows:
        by_repo[row["repo"]].append(row)
    return {
        "overall": _figures(rows),
        "per_repo": {repo: _figures(group) for repo, group in sorted(by_repo.items())},
    }


if __name__ == "__main__":
    main()
