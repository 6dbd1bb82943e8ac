"""Scale: N candidates per run in bounded memory, without any LLM.

    python benchmarks/scale.py [--sizes 1000 10000 100000]

Builds N synthetic candidates from the shipped sample (its real patches repeated with distinct
ids) and times, each step in a fresh process with its peak memory (RSS) measured by
`/usr/bin/time`: `batch export score` (the requests the cache cannot answer), `batch import` of
a synthetic result file answering every request, `score` completing from the cache, and the
metrics table read from the judgements file. Prints a table and the growth ratios
time(100k)/time(10k) and memory(100k)/memory(10k). Targets: ≤ 500 MB in every step at 100k,
memory ratio ≤ 1.5, ≥ 3,000 candidates/s for export and for score from the cache.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS  # noqa: E402

CLI = str(ROOT / ".venv" / "bin" / "rubric-judge")
PYTHON = sys.executable
JUDGE = "openai:gpt-4.1-mini"


def build(folder: Path, n: int) -> Path:
    with gzip.open(SAMPLE_CANDIDATES, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    path = folder / "candidates.jsonl"
    with path.open("w") as out:
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["candidate_id"] = f"{row['instance_id']}@synthetic-{i}"
            out.write(json.dumps(row) + "\n")
    return path


def answer(folder: Path) -> Path:
    """A result line per exported request: every criterion answered "no"."""
    results = folder / "results.jsonl"
    with (folder / "requests.jsonl").open() as src, results.open("w") as out:
        for line in src:
            request = json.loads(line)
            schema = request["body"]["response_format"]["json_schema"]["schema"]
            reply = {cid: {"reason": "r", "evidence": "", "answer": "no"}
                     for cid in schema["properties"]}  # fmt: skip
            body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": json.dumps(reply)}}],
                    "usage": {"prompt_tokens": 1000, "completion_tokens": 100}}  # fmt: skip
            out.write(
                json.dumps(
                    {
                        "id": "r",
                        "custom_id": request["custom_id"],
                        "error": None,
                        "response": {"status_code": 200, "body": body},
                    }
                )
                + "\n"
            )
    return results


def measured(command: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and peak RSS in MB of one command, by /usr/bin/time."""
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], env=env, check=False,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{command[:3]} failed: {done.stderr[-2000:]}")
    seconds, kilobytes = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) / 1024


METRICS = (
    "import sys; from validation.frame import frame_from_file;"
    "from validation.metrics import all_checks;"
    "all_checks(frame_from_file(sys.argv[1]), n_boot=200)"
)


def run_size(n: int, root: Path) -> dict:
    folder = root / str(n)
    folder.mkdir()
    candidates = build(folder, n)
    env = {**os.environ, "OPENAI_API_KEY": "sk-scale-benchmark-not-a-key"}
    config = folder / "c.yaml"
    config.write_text(f"llm:\n  cache_path: {folder / 'cache.sqlite'}\n")
    rubrics = folder / "rubrics.jsonl"
    subprocess.run([CLI, "rubrics", str(SAMPLE_TASKS), "--generator", "reference", "--out",
                    str(rubrics), "--config", str(config)], env=env, check=True,
                   capture_output=True)  # fmt: skip
    base = [str(SAMPLE_TASKS), str(candidates), "--rubrics", str(rubrics), "--judge", JUDGE,
            "--out", str(folder / "run"), "--config", str(config)]  # fmt: skip
    steps = {
        "export": measured(
            [CLI, "batch", "export", "score", *base, "--file", str(folder / "requests.jsonl")], env
        ),
    }
    results = answer(folder)
    steps["import"] = measured([CLI, "batch", "import", str(results), "--config", str(config)],
                               env)  # fmt: skip
    steps["score_from_cache"] = measured([CLI, "score", *base], env)
    steps["metrics"] = measured([PYTHON, "-c", METRICS, str(folder / "run" / "judgements.jsonl")],
                                env)  # fmt: skip
    return {"n": n, **{k: {"seconds": s, "peak_mb": round(m, 1), "per_s": round(n / s)}
                       for k, (s, m) in steps.items()}}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rubric-judge-scale-") as folder:
        rows = [run_size(n, Path(folder)) for n in args.sizes]
    steps = ["export", "import", "score_from_cache", "metrics"]
    print(f"{'N':>8} " + " ".join(f"{s:>28}" for s in steps))
    for row in rows:
        cells = [f"{row[s]['seconds']:7.1f} s {row[s]['peak_mb']:7.0f} MB {row[s]['per_s']:6}/s"
                 for s in steps]  # fmt: skip
        print(f"{row['n']:>8} " + " ".join(f"{c:>28}" for c in cells))
    by_n = {row["n"]: row for row in rows}
    if 10000 in by_n and 100000 in by_n:
        for step in steps:
            big, small = by_n[100000][step], by_n[10000][step]
            print(f"{step}: time x{big['seconds'] / small['seconds']:.1f}, "
                  f"memory x{big['peak_mb'] / small['peak_mb']:.2f} (100k / 10k)")  # fmt: skip
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
