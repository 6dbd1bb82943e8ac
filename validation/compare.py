"""Periodic validation: this run's figures against an earlier `metrics.json`.

A change is flagged when the new 95 % CI excludes the old value: a *regression* when the figure
moved the wrong way, an *improvement* otherwise. Changes of judge, generator, prompt hashes and
data are listed, since they explain most moves.
"""

from __future__ import annotations

from collections.abc import Callable

Getter = Callable[[dict], tuple[float | None, list | None]]


def _at(*path: str, ci: str = "ci95") -> Getter:
    def get(checks: dict) -> tuple[float | None, list | None]:
        node = checks
        for key in path[:-1]:
            node = node.get(key) or {}
        return node.get(path[-1]), node.get(ci)

    return get


FIGURES: list[tuple[str, Getter, str]] = [
    ("gold mean", _at("gold", "mean"), "higher"),
    (
        "repeat runs: mean abs deviation",
        _at("repeat", "mean_abs_dev", ci="mean_abs_dev_ci95"),
        "lower",
    ),
    ("repeat runs: ICC(2,1)", _at("repeat", "icc_2_1", ci="-"), "higher"),
    ("per-task AUC, empty excluded", _at("auc_without_empty", "mean"), "higher"),
    ("per-task AUC, empty included", _at("auc_with_empty", "mean"), "higher"),
    ("failure-quality ρ", _at("failure_quality", "spearman_rho"), "higher"),
    (
        "failure-quality ρ, common tasks",
        _at("failure_quality_common_tasks", "spearman_rho"),
        "higher",
    ),
]


def _flag(old: float | None, ci: list | None, better: str) -> str:
    if old is None or not ci or ci[0] is None or ci[1] is None:
        return ""
    if ci[0] <= old <= ci[1]:
        return ""
    moved_up = old < ci[0]
    return "improvement" if moved_up == (better == "higher") else "regression"


def figure_rows(old: dict, new: dict) -> list[dict]:
    rows = []
    for name, get, better in FIGURES:
        then, _ = get(old["main"]["checks"])
        now, ci = get(new["main"]["checks"])
        diff = None if then is None or now is None else now - then
        rows.append(
            {
                "figure": name,
                "then": then,
                "now": now,
                "difference": diff,
                "ci95_now": ci,
                "better": better,
                "flag": _flag(then, ci, better),
            }
        )
    return rows


def setting_changes(old: dict, new: dict) -> list[dict]:
    pairs = {
        "judge": (old["main"]["judge"], new["main"]["judge"]),
        "generator": (old["main"]["generator"], new["main"]["generator"]),
        "prompt hashes": (old["main"]["prompt_hashes"], new["main"]["prompt_hashes"]),
        "data": (
            {k: old["data"].get(k) for k in ("tasks", "candidates", "n_tasks", "n_candidates")},
            {k: new["data"].get(k) for k in ("tasks", "candidates", "n_tasks", "n_candidates")},
        ),
        "runs": (old["main"].get("runs"), new["main"].get("runs")),
    }
    return [{"what": k, "then": a, "now": b} for k, (a, b) in pairs.items() if a != b]


def compare(old: dict, new: dict, old_path: str) -> dict:
    rows = figure_rows(old, new)
    return {
        "against": old_path,
        "figures": rows,
        "regressions": [r["figure"] for r in rows if r["flag"] == "regression"],
        "improvements": [r["figure"] for r in rows if r["flag"] == "improvement"],
        "changes": setting_changes(old, new),
    }
