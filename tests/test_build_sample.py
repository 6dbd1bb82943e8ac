"""The sample builder: eligible instances, stratified by repository, byte-identical reruns."""

from __future__ import annotations

import gzip
import json

from validation.build_sample import _allocate, build
from validation.sample import SAMPLE_TASKS


def _rows(path):
    return [json.loads(line) for line in gzip.open(path, "rt")]


def test_build_is_deterministic_and_keeps_only_mixed_tasks(tmp_path):
    instances = _rows(SAMPLE_TASKS)[:4]
    shared = tmp_path / "shared"
    (shared / "predictions").mkdir(parents=True)
    (shared / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in instances))
    ids = [r["instance_id"] for r in instances]
    runs = {
        "sys-a": [(ids[0], True), (ids[1], True), (ids[2], False), (ids[3], True)],
        "sys-b": [(ids[0], False), (ids[1], True), (ids[2], False), (ids[3], False)],
    }
    for system, rows in runs.items():
        lines = [
            json.dumps({"instance_id": i, "system": system, "model_patch": "diff", "resolved": r})
            for i, r in rows
        ]
        (shared / "predictions" / f"{system}.jsonl").write_text("\n".join(lines) + "\n")
    first = build(shared, tmp_path / "out1", size=10)
    second = build(shared, tmp_path / "out2", size=10)
    assert first == second == {"instances": 2, "candidates": 4}  # ids[0] and ids[3] are mixed
    for name in ("instances.jsonl.gz", "candidates.jsonl.gz"):
        assert (tmp_path / "out1" / name).read_bytes() == (tmp_path / "out2" / name).read_bytes()
    kept = {r["instance_id"] for r in _rows(tmp_path / "out1" / "instances.jsonl.gz")}
    assert kept == {ids[0], ids[3]}


def test_allocation_is_proportional_with_one_seat_each():
    seats = _allocate({"big": list(range(30)), "mid": list(range(9)), "small": [1]}, size=10)
    assert seats == {"big": 7, "mid": 2, "small": 1}
    assert sum(seats.values()) == 10
