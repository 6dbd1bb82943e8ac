"""How much the LLM layer costs on top of the raw openai SDK, measured side by side.

The same N structured requests go to one loopback server (its own process, keep-alive, a fixed
simulated latency) first through a plain loop over the raw `openai` async SDK, then through our
provider layer and runner (cache off). Wall time and this process's CPU time are measured for
each. Run: `make bench` (or `python benchmarks/llm_overhead.py --help`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import openai  # noqa: E402
from openai.lib._parsing import type_to_response_format_param  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from judge.llm.client import LLMClient  # noqa: E402
from judge.llm.settings import LLMSettings, ProviderSettings  # noqa: E402
from judge.llm.types import Message  # noqa: E402
from tests.protocol_server import ProtocolServer  # noqa: E402

MODEL = "gpt-4.1-mini"
REPLY = json.dumps({"answer": "yes", "reason": "the diff changes the parser"})


class Verdict(BaseModel):
    answer: Literal["yes", "no"]
    reason: str


def _serve(latency_s: float, conn) -> None:
    server = ProtocolServer(responder=lambda body: REPLY, latency_s=latency_s).start()
    conn.send(server.openai_base_url)
    while True:
        time.sleep(3600)


def _messages(i: int) -> list[Message]:
    return [
        Message(role="system", content="You judge patches against a rubric."),
        Message(role="user", content=f"Request {i}: does the patch fix the parser?"),
    ]


async def raw_sdk(base_url: str, n: int, concurrency: int) -> None:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    response_format = type_to_response_format_param(Verdict)
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> Verdict:
        async with gate:
            response = await client.chat.completions.create(
                model=MODEL,
                messages=[m.model_dump() for m in _messages(i)],
                response_format=response_format,
                temperature=0.0,
                max_completion_tokens=4096,
            )
        return Verdict.model_validate_json(response.choices[0].message.content)

    await asyncio.gather(*(one(i) for i in range(n)))
    await client.close()


async def our_layer(base_url: str, n: int, concurrency: int) -> None:
    settings = LLMSettings(
        providers={"openai": ProviderSettings(base_url=base_url)},
        concurrency=concurrency,
        cache_enabled=False,
    )
    async with LLMClient(settings) as client:
        model = client.model(f"openai:{MODEL}")
        outcomes = await client.map(range(n), lambda i: model.complete(_messages(i), Verdict))
    failed = [o for o in outcomes if not o.ok or o.value.status != "ok"]
    if failed:
        raise SystemExit(f"{len(failed)} requests failed: {failed[0]}")


def measure(fn, *args) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    asyncio.run(fn(*args))
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.5, help="simulated seconds per reply")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "bench-not-a-key")

    parent, child = mp.Pipe()
    server = mp.Process(target=_serve, args=(args.latency, child), daemon=True)
    server.start()
    base_url = parent.recv()
    try:
        warm = min(args.concurrency, args.requests)
        measure(raw_sdk, base_url, warm, args.concurrency)
        measure(our_layer, base_url, warm, args.concurrency)
        raw_wall, raw_cpu = measure(raw_sdk, base_url, args.requests, args.concurrency)
        our_wall, our_cpu = measure(our_layer, base_url, args.requests, args.concurrency)
    finally:
        server.terminate()
    ideal = args.requests * args.latency / args.concurrency
    report = {
        "requests": args.requests,
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "raw_sdk_wall_s": round(raw_wall, 3),
        "our_layer_wall_s": round(our_wall, 3),
        "ratio_ours_over_raw": round(our_wall / raw_wall, 4),
        "ideal_wall_s": round(ideal, 3),
        "ratio_ours_over_ideal": round(our_wall / ideal, 4),
        "raw_sdk_cpu_ms_per_request": round(raw_cpu / args.requests * 1000, 3),
        "our_layer_cpu_ms_per_request": round(our_cpu / args.requests * 1000, 3),
        "layer_extra_cpu_ms_per_request": round((our_cpu - raw_cpu) / args.requests * 1000, 3),
    }
    width = max(len(k) for k in report)
    for key, value in report.items():
        print(f"{key:<{width}}  {value}")
    verdict = "PASS" if report["ratio_ours_over_raw"] <= 1.05 else "FAIL"
    print(f"target ratio_ours_over_raw <= 1.05: {verdict}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
