"""Build the shipped validation sample from the shared SWE-bench files.

    python -m validation.build_sample --shared ../shared/data/swebench --out validation/data

Picks instances that have both resolved and unresolved candidates, stratified by repository
(proportional, at least one per repository), preferring instances attempted by more systems;
keeps every candidate of the chosen instances and the full instance rows (test fields included:
the leak audit needs them; loading drops them before any prompt). Deterministic: the same
inputs give byte-identical files.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict
from pathlib import Path

from validation.systems import STANDARD, load_system_rules

DEFAULT_SIZE = 40


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _eligible(rows: list[dict]) -> bool:
    verdicts = {bool(r.get("resolved")) for r in rows if (r.get("model_patch") or "").strip()}
    return verdicts == {True, False}


def _allocate(by_repo: dict[str, list[str]], size: int) -> dict[str, int]:
    """Seats per repository: proportional to its eligible instances, at least one each."""
    total = sum(len(v) for v in by_repo.values())
    seats = {repo: max(1, round(size * len(ids) / total)) for repo, ids in by_repo.items()}
    while sum(seats.values()) > size:
        largest = max(seats, key=lambda r: (seats[r], r))
        seats[largest] -= 1
    return {repo: min(n, len(by_repo[repo])) for repo, n in seats.items()}


def choose(instances: dict[str, dict], candidates: list[dict], size: int) -> list[str]:
    rules = load_system_rules()
    rows_by_task: dict[str, list[dict]] = defaultdict(list)
    for row in candidates:
        rows_by_task[row["instance_id"]].append(row)

    def systems(task: str) -> int:
        assigned = [rules.assign(r["system"]) for r in rows_by_task[task]]
        return len({s for s, condition in assigned if condition == STANDARD})

    by_repo: dict[str, list[str]] = defaultdict(list)
    for task, rows in sorted(rows_by_task.items()):
        if task in instances and _eligible(rows):
            by_repo[instances[task]["repo"]].append(task)
    chosen = []
    for repo, seats in sorted(_allocate(by_repo, size).items()):
        ranked = sorted(by_repo[repo], key=lambda t: (-systems(t), -len(rows_by_task[t]), t))
        chosen += ranked[:seats]
    return sorted(chosen)


def _write_gz(path: Path, rows: list[dict]) -> None:
    data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows).encode("utf-8")
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write(data)


def build(shared: Path, out: Path, size: int = DEFAULT_SIZE) -> dict[str, int]:
    instances = {r["instance_id"]: r for r in _read_jsonl(shared / "instances.jsonl")}
    candidates = [
        {**row, "system": row.get("system") or path.stem}
        for path in sorted((shared / "predictions").glob("*.jsonl"))
        for row in _read_jsonl(path)
    ]
    chosen = set(choose(instances, candidates, size))
    out.mkdir(parents=True, exist_ok=True)
    _write_gz(out / "instances.jsonl.gz", [instances[t] for t in sorted(chosen)])
    kept = [c for c in candidates if c["instance_id"] in chosen]
    kept.sort(key=lambda c: (c["instance_id"], c["system"]))
    _write_gz(out / "candidates.jsonl.gz", kept)
    return {"instances": len(chosen), "candidates": len(kept)}


def main() -> None:
    parser = argparse.ArgumentParser(description="Build the shipped validation sample.")
    parser.add_argument("--shared", type=Path, default=Path("../shared/data/swebench"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE)
    args = parser.parse_args()
    print(json.dumps(build(args.shared, args.out, args.size)))


if __name__ == "__main__":
    main()
