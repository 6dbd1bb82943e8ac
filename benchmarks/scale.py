"""Scale: N candidates per run in bounded memory, without any LLM.

    python benchmarks/scale.py [--sizes 1000 10000 100000]

Builds N synthetic candidates from the shipped sample (its real patches repeated with distinct
ids, each with a one-line file of its own so every candidate is a distinct request) and times,
each step in a fresh process with its peak memory (the whole process tree: prompt workers
included): `batch export score` (the requests the cache cannot answer), `batch import` of a
synthetic result file answering every request like a real reply, `score` completing from the
cache, and the metrics table read from the judgements file. Prints a table and the growth ratios
time(100k)/time(10k) and memory(100k)/memory(10k). Targets: ≤ 500 MB in every step at 100k,
memory ratio ≤ 1.5, ≥ 3,000 candidates/s for export and for score from the cache.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS  # noqa: E402

CLI = str(ROOT / ".venv" / "bin" / "rubric-judge")
PYTHON = sys.executable
JUDGE = "openai:gpt-4.1-mini"


def _own_file(i: int) -> str:
    """A one-line new file that makes candidate i's patch its own."""
    name = f"synthetic/candidate_{i}.txt"
    return (f"diff --git a/{name} b/{name}\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/{name}\n@@ -0,0 +1 @@\n+candidate {i}\n")  # fmt: skip


def build(folder: Path, n: int, repeat: bool = False) -> Path:
    """N candidates from the sample's patches. Each patch gets a one-line file of its own, so
    every candidate is a distinct request, as in a real run (`repeat`: the patches exactly as
    they are, so repeats of a patch and criterion order are asked once)."""
    with gzip.open(SAMPLE_CANDIDATES, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    path = folder / "candidates.jsonl"
    with path.open("w") as out:
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["candidate_id"] = f"{row['instance_id']}@synthetic-{i}"
            patch = row["model_patch"]
            if patch.strip() and not repeat:
                row["model_patch"] = patch + ("" if patch.endswith("\n") else "\n") + _own_file(i)
            out.write(json.dumps(row) + "\n")
    return path


def _added_line(request: dict) -> str:
    """A line the candidate added, as shown to the judge: a quote that will verify."""
    prompt = request["body"]["messages"][-1]["content"]
    return next((x for x in prompt.splitlines() if x.startswith("+") and x[1:].strip()), "")


def answer(folder: Path) -> Path:
    """A result line per exported request, shaped like a real reply: every other criterion
    answered "yes" with a quote from the diff (so evidence checking runs), the rest "no"."""
    results = folder / "results.jsonl"
    parts = sorted(folder.glob("requests*.jsonl"))  # requests.jsonl, requests.part2.jsonl, …
    with results.open("w") as out:
        for line in (line for part in parts for line in part.open()):
            request = json.loads(line)
            schema = request["body"]["response_format"]["json_schema"]["schema"]
            quote = _added_line(request)
            reply = {cid: {"reason": "r", "evidence": quote if i % 2 == 0 else "",
                           "answer": "yes" if i % 2 == 0 else "no"}
                     for i, cid in enumerate(schema["properties"])}  # fmt: skip
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


PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss_mb(root: int) -> float:
    """Resident memory of a process and all its descendants (prompt workers included), from
    /proc; pages the workers share with their fork server count twice, so this errs high."""
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        with contextlib.suppress(OSError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
            for children in Path(f"/proc/{pid}/task").glob("*/children"):
                stack += [int(child) for child in children.read_text().split()]
    return total / 2**20


def measured(command: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds, and peak memory in MB: the larger of /usr/bin/time's peak RSS and the
    peak sum over the process tree sampled every 200 ms (a run with prompt workers is several
    processes)."""
    timed = ["/usr/bin/time", "-f", "%e %M", *command]
    process = subprocess.Popen(
        timed, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, tree_rss_mb(process.pid))
        time.sleep(0.2)
    stderr = process.stderr.read()
    if process.returncode:
        raise SystemExit(f"{command[:3]} failed: {stderr[-2000:]}")
    seconds, kilobytes = stderr.strip().splitlines()[-1].split()
    return float(seconds), max(int(kilobytes) / 1024, peak)


METRICS = (
    "import sys; from validation.frame import frame_from_file;"
    "from validation.metrics import all_checks;"
    "all_checks(frame_from_file(sys.argv[1]), n_boot=200)"
)


def run_size(n: int, root: Path, repeat: bool = False, workers: int | None = None) -> dict:
    folder = root / str(n)
    folder.mkdir()
    candidates = build(folder, n, repeat)
    env = {**os.environ, "OPENAI_API_KEY": "sk-scale-benchmark-not-a-key"}
    config = folder / "c.yaml"
    judge = "" if workers is None else f"judge:\n  prompt_workers: {workers}\n"
    config.write_text(f"llm:\n  cache_path: {folder / 'cache.sqlite'}\n{judge}")
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
    parser.add_argument(
        "--repeat-patches",
        action="store_true",
        help="keep repeated patches identical (fewer distinct requests)",
    )
    parser.add_argument(
        "--prompt-workers",
        type=int,
        default=None,
        help="judge.prompt_workers (default: the command line's own choice; 0: none)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rubric-judge-scale-") as folder:
        rows = [
            run_size(n, Path(folder), args.repeat_patches, args.prompt_workers) for n in args.sizes
        ]
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
