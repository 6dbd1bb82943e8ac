"""`report.md` and a self-contained `report.html` from `metrics.json` and the judgement files.

Both are rendered from the same rows; every text that comes from data (system names, repository
names, rubric failures, leak examples) is escaped in the HTML by jinja2's autoescaping.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.pricing import money
from validation import plots
from validation.frame import judgements_frame

TEMPLATES = Path(__file__).parent / "templates"
PUBLISHED = {
    "gold": "0.80 / 0.85",
    "repeat": "±0.02, r ≈ 0.96",
    "auc": "0.75–0.86",
    "rho": "+0.94",
}


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(pair: list) -> str:
    return f"[{fmt(pair[0], 2)}, {fmt(pair[1], 2)}]" if pair and pair[0] is not None else ""


def _gold(stage: dict) -> str:
    gold = stage["checks"]["gold"]
    if not gold.get("n"):
        return "no gold patches"
    text = (
        f"{fmt(gold['mean'], 2)} / {fmt(gold['median'], 2)} (≥0.8: {fmt(gold['share_ge_0_8'], 2)})"
    )
    return (
        text
        if stage["gold_check_informative"]
        else text + " — uninformative: built from the gold patch"
    )


def _repeat(stage: dict) -> str:
    repeat = stage["checks"]["repeat"]
    if repeat.get("runs", 0) < 2:
        return "deterministic (one run)" if stage["judge"] == "reference" else "needs --runs ≥ 2"
    return (
        f"±{fmt(repeat['mean_abs_dev'])}, r = {fmt(repeat['mean_pairwise_pearson'], 2)}, "
        f"ICC = {fmt(repeat['icc_2_1'], 2)}, range ≤ 0.05: {fmt(repeat['share_range_le_0_05'], 2)}"
    )


def _auc(auc: dict) -> str:
    if not auc["tasks"]:
        return "no task with both classes"
    return (
        f"{fmt(auc['mean'])} {_ci(auc['ci95'])}, median {fmt(auc['median'], 2)}, "
        f"pooled {fmt(auc['pooled'], 2)} ({auc['tasks']} tasks, {auc['pairs']} pairs)"
    )


def _rho(check: dict) -> str:
    if check.get("status") != "ok":
        return check.get("reason", "–")
    return (
        f"{fmt(check['spearman_rho'], 2)} {_ci(check['ci95'])}, "
        f"p = {fmt(check['permutation_p'], 3)} ({check['systems']} systems, {check['tasks']} tasks)"
    )


def check_rows(main: dict, baseline: dict | None) -> list[list[str]]:
    """Check | this judge | reference baseline | published."""
    stages = [main, baseline] if baseline else [main]
    rows = [
        ("1. Gold patches: mean / median", _gold, PUBLISHED["gold"]),
        ("2. Same answer twice", _repeat, PUBLISHED["repeat"]),
        (
            "3. Per-task AUC, empty patches excluded",
            lambda s: _auc(s["checks"]["auc_without_empty"]),
            PUBLISHED["auc"],
        ),
        (
            "3. Per-task AUC, empty patches included",
            lambda s: _auc(s["checks"]["auc_with_empty"]),
            PUBLISHED["auc"],
        ),
        (
            "3. Per-task AUC, graded score (P(yes)), empty patches excluded",
            lambda s: (
                _auc(s["checks"]["auc_graded_without_empty"])
                if s["checks"].get("auc_graded_without_empty")
                else "–"
            ),
            PUBLISHED["auc"],
        ),
        (
            "3. Per-task AUC against strong systems' failures (resolve rate ≥ 0.5)",
            lambda s: _hard(s["checks"].get("hard_negatives")),
            "–",
        ),
        (
            "3. Pairs tied / wrongly ordered (all; strong systems' failures)",
            lambda s: _shares(s["checks"].get("hard_negatives")),
            "–",
        ),
        (
            "3. Same, graded score",
            lambda s: _shares(s["checks"].get("hard_negatives_graded")),
            "–",
        ),
        (
            "4. Failure quality ρ, all failing patches",
            lambda s: _rho(s["checks"]["failure_quality"]),
            PUBLISHED["rho"],
        ),
        (
            "4. Failure quality ρ, tasks every system attempted",
            lambda s: _rho(s["checks"]["failure_quality_common_tasks"]),
            PUBLISHED["rho"],
        ),
    ]
    return [[label, *(render(s) for s in stages), published] for label, render, published in rows]


def _hard(check: dict | None) -> str:
    if not check or not check["hard_auc"]["tasks"]:
        return "no strong system with failures"
    auc = check["hard_auc"]
    return f"{fmt(auc['mean'])} ({auc['tasks']} tasks, {auc['pairs']} pairs)"


def _shares(check: dict | None) -> str:
    if not check or not check["all_shares"]["pairs"]:
        return "no pairs"
    every, hard = check["all_shares"], check["hard_shares"]
    text = f"{fmt(every['tied'], 2)} / {fmt(every['wrong'], 2)}"
    if hard["pairs"]:
        text += f"; {fmt(hard['tied'], 2)} / {fmt(hard['wrong'], 2)}"
    return text


def tiebreak_rows(result: dict | None) -> list[list[str]]:
    """What the tie-break stage changed, and what it cost."""
    if not result:
        return []
    cost = money(result["live_cost_usd"])
    return [
        ["comparing model", result["model"]],
        ["tied resolved/unresolved pairs (found / compared / decided / decided right)",
         f"{result['tied_pairs_found']} / {result['tied_pairs_compared']} / "
         f"{result['tied_pairs_decided']} / {result['decided_right']}"],
        ["tasks with tied leaders (best-of-N)", str(result["tasks_with_tied_leaders"])],
        ["per-task AUC before → after",
         f"{fmt(result['auc_before'])} → {fmt(result['auc_after'])}"],
        ["best-of-N resolve rate before → after",
         f"{fmt(result['best_of_n_before'])} → {fmt(result['best_of_n_after'])}"],
        ["requests (two orders per comparison)", str(result["requests"])],
        ["cost of its live calls (batch imports are in the run's bill)", cost],
    ]  # fmt: skip


def failing_system_rows(stage: dict) -> list[list[str]]:
    """Per failing system: its resolve rate and the AUC of resolved patches against its
    failures — a judge that only catches crude failures shows it here at a glance."""
    per_system = (stage["checks"].get("hard_negatives") or {}).get("per_failing_system", {})
    return [
        [system, fmt(row["resolve_rate"], 2), fmt(row["mean"]), str(row["tasks"]),
         str(row["pairs"])]
        for system, row in sorted(per_system.items(), key=lambda kv: -kv[1]["resolve_rate"])
    ]  # fmt: skip


def _selection(stage: dict) -> list[str]:
    sel = stage.get("selection") or {}
    if not sel.get("tasks"):
        return ["–"] * 6
    return [
        f"{fmt(sel['picked'], 3)} {_ci(sel['picked_ci95'])}",
        fmt(sel["random"], 3),
        f"{fmt(sel['best_single'], 3)} ({sel['best_single_system']})",
        fmt(sel["oracle"], 3),
        f"{fmt(sel['gap_closed'], 2)} {_ci(sel['gap_closed_ci95'])}",
        str(sel["tasks"]),
    ]


def selection_rows(main: dict, baseline: dict | None) -> list[list[str]]:
    """Best-of-N: resolve rate of the picks against random, best single system and oracle."""
    stages = [("this judge", main)] + ([("reference baseline", baseline)] if baseline else [])
    rows = [[name, *_selection(stage)] for name, stage in stages]
    rows.append(
        [
            "published (execution-free selectors)",
            "–",
            "–",
            "–",
            "–",
            "≈ 0.59 (best of 16); +3.5 to +11 points over one attempt",
            "–",
        ]
    )
    return rows


SELECTION_COLUMNS = [
    "selector",
    "picked resolve rate",
    "random pick",
    "best single system",
    "oracle",
    "oracle gap closed",
    "tasks",
]


def comparison_rows(comparison: dict | None) -> list[list[str]]:
    if not comparison:
        return []
    return [
        [
            r["figure"],
            fmt(r["then"]),
            fmt(r["now"]),
            "–" if r["difference"] is None else f"{r['difference']:+.3f}",
            _ci(r["ci95_now"] or []),
            r["flag"] or "–",
        ]
        for r in comparison["figures"]
    ]


def hostile_rows(main: dict, baseline: dict | None) -> list[list[str]]:
    """Attack | variants | mean score change (this judge) | rose | (baseline) mean change | rose."""
    effects = main.get("hostile") or {}
    base_effects = (baseline or {}).get("hostile") or {}
    rows = []
    for attack, effect in sorted(effects.items()):
        row = [
            attack,
            str(effect["variants"]),
            f"{effect['mean_change']:+.3f}",
            str(effect["rose"]),
        ]
        if baseline:
            other = base_effects.get(attack, {})
            row += [f"{other['mean_change']:+.3f}" if other else "–", str(other.get("rose", "–"))]
        rows.append(row)
    return rows


def bill_rows(bill: dict | None) -> list[list[str]]:
    """The money this run spent (every stage, batch and live apart) and what hits saved."""
    if not bill:
        return []
    return [
        [
            "spent by this run (all stages)",
            f"{money(bill['spent_usd'])}: batch {money(bill['batch_usd'])} for "
            f"{bill['batch_requests']} requests at the batch price, live "
            f"{money(bill['live_usd'])} for {bill['live_calls']} calls",
        ],
        [
            "saved by cache hits (live prices)",
            f"{money(bill['saved_usd'])} over {bill['cache_hits']} hits "
            "(replies bought by this run's batches not counted)",
        ],
    ]


def run_rows(stage: dict, bill: dict | None = None) -> list[list[str]]:
    run = stage["checks"]["run"]
    return [
        ["judgements", str(run["judgements"])],
        ["judge calls (cache hits)", f"{run['judge_calls']} ({run['cache_hits']})"],
        ["tokens in / out", f"{run['input_tokens']} / {run['output_tokens']}"],
        *bill_rows(bill),
        ["unparsed rate", fmt(run["unparsed_rate"])],
        ["unverified-evidence rate (of yes answers)", fmt(run["unverified_yes_rate"])],
        ["truncated rate", fmt(run["truncated_rate"])],
        ["tasks whose top score is tied", fmt(run["score_ties_rate"], 2)],
    ]


def repo_rows(stage: dict) -> list[list[str]]:
    per_repo = stage["checks"]["auc_without_empty"]["per_repo"]
    return [
        [repo, str(s["tasks"]), fmt(s["mean"]), _ci(s["ci95"])]
        for repo, s in sorted(per_repo.items())
    ]


def system_rows(stage: dict) -> list[list[str]]:
    per_system = stage["checks"]["failure_quality"]["per_system"]
    return [
        [
            system,
            str(row["candidates"]),
            fmt(row["resolve_rate"], 2),
            str(row["failing"]),
            fmt(row["failing_mean_score"]),
        ]
        for system, row in sorted(per_system.items(), key=lambda kv: -(kv[1]["resolve_rate"] or 0))
    ]


def _frame(folder: Path) -> pd.DataFrame:
    return judgements_frame(read_jsonl(folder / "judgements.jsonl", Judgement))


def figures(folder: Path, metrics: dict) -> dict[str, bytes]:
    frame = _frame(folder)
    main = metrics["main"]["checks"]
    drawn = {
        "score_distributions": plots.score_distributions(frame),
        "repo_auc": plots.repo_auc(main["auc_without_empty"]),
        "failure_quality": plots.failure_quality(main["failure_quality"]),
        "run_scatter": plots.run_scatter(frame),
    }
    return {name: plots.to_png(fig) for name, fig in drawn.items() if fig is not None}


def _is_html(name: str | None) -> bool:
    """Escape every `*.html.j2` template (jinja2's `select_autoescape` looks only at the last
    extension, `.j2`, and would escape nothing)."""
    return name is not None and ".html" in name


def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=_is_html,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def context(metrics: dict) -> dict:
    main, baseline = metrics["main"], metrics["baseline"]
    columns = ["check", f"this judge ({main['judge']})"]
    columns += [f"reference baseline ({baseline['judge']})"] if baseline else []
    return {
        "metrics": metrics,
        "main": main,
        "baseline": baseline,
        "check_columns": [*columns, "published"],
        "checks": check_rows(main, baseline),
        "run": run_rows(main, metrics.get("bill")),
        "failing_systems": failing_system_rows(main),
        "tiebreak": tiebreak_rows(main.get("tiebreak")),
        "comparison": metrics.get("comparison"),
        "comparison_rows": comparison_rows(metrics.get("comparison")),
        "hostile": hostile_rows(main, baseline),
        "hostile_columns": ["attack", "variants", "mean score change", "rose"]
        + (["baseline mean change", "baseline rose"] if baseline else []),
        "selection_columns": SELECTION_COLUMNS,
        "selection": selection_rows(main, baseline),
        "repos": repo_rows(main),
        "systems": system_rows(main),
        "leak": metrics["leak_audit"],
        "fmt": fmt,
    }


def write_reports(folder: Path, metrics: dict) -> None:
    images = figures(folder, metrics)
    (folder / "figures").mkdir(exist_ok=True)
    for name, png in images.items():
        (folder / "figures" / f"{name}.png").write_bytes(png)
    env = _environment()
    base = context(metrics)
    markdown = env.get_template("report.md.j2").render(**base, images=sorted(images))
    (folder / "report.md").write_text(markdown, encoding="utf-8")
    uris = {name: plots.data_uri(png) for name, png in images.items()}
    html = env.get_template("report.html.j2").render(**base, images=uris)
    (folder / "report.html").write_text(html, encoding="utf-8")


def load_metrics(folder: Path) -> dict:
    return json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
