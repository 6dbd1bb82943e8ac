"""The `routes` job: tables (Markdown, HTML, CSV) and a cost-versus-score plot from saved
judgements; no model is called."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.llm.types import ConfigError
from validation import plots
from validation.report import _environment, fmt
from validation.routes import paired_comparisons, pareto_front, route_frame, route_table, verdicts


@dataclass(frozen=True)
class RoutesJob:
    run_dir: Path
    by: str
    out: Path
    cost: str | None = None
    alpha: float = 0.05
    n_boot: int = 2000
    seed: int = 0


def cost_plot(table: pd.DataFrame, front: list[str]) -> Figure:
    figure = Figure(figsize=(6.4, 4.2), layout="constrained")
    axes = figure.subplots()
    priced = table.dropna(subset=["mean_cost", "mean_score"])
    axes.plot(priced["mean_cost"], priced["mean_score"], "o", color="#264653")
    for _, row in priced.iterrows():
        axes.annotate(
            str(row["route"]),
            (row["mean_cost"], row["mean_score"]),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    frontier = priced[priced["route"].isin(front)].sort_values("mean_cost")
    axes.plot(
        frontier["mean_cost"], frontier["mean_score"], "-", color="#e76f51", label="Pareto frontier"
    )
    axes.set_xlabel("mean cost per task")
    axes.set_ylabel("mean score")
    axes.set_title("Cost against score")
    axes.legend()
    return figure


def score_plot(table: pd.DataFrame) -> Figure:
    figure = Figure(figsize=(6.4, 0.4 * max(len(table), 3) + 1), layout="constrained")
    axes = figure.subplots()
    for y, (_, row) in enumerate(table.iloc[::-1].iterrows()):
        axes.plot([row["mean_score"]], [y], "o", color="#264653")
        if row["ci_low"] is not None and row["ci_high"] is not None:
            axes.plot([row["ci_low"], row["ci_high"]], [y, y], "-", color="#264653")
    axes.set_yticks(range(len(table)), list(table["route"].iloc[::-1]))
    axes.set_xlabel("mean score (95 % CI over tasks)")
    axes.set_title("Score per route")
    return figure


def _rows(table: pd.DataFrame, columns: list[str]) -> list[list[str]]:
    def cell(value: object) -> str:
        return fmt(value) if isinstance(value, float) else ("–" if value is None else str(value))

    return [[cell(row[c]) for c in columns] for _, row in table.iterrows()]


def build(job: RoutesJob) -> dict:
    judgements = read_jsonl(job.run_dir / "judgements.jsonl", Judgement)
    per_task = route_frame(judgements, job.by, job.cost)
    if per_task.empty:
        raise ConfigError(f"no judgement in {job.run_dir} has the label {job.by!r}")
    table = route_table(per_task, job.n_boot, job.seed)
    pairs = paired_comparisons(per_task, job.n_boot, job.seed)
    return {
        "table": table,
        "pairs": pairs,
        "verdict": verdicts(table, pairs, job.alpha),
        "front": pareto_front(table),
    }


def write(job: RoutesJob, result: dict) -> None:
    job.out.mkdir(parents=True, exist_ok=True)
    table, pairs = result["table"], result["pairs"]
    table.to_csv(job.out / "routes.csv", index=False)
    pairs.to_csv(job.out / "paired.csv", index=False)
    has_cost = table["mean_cost"].notna().any()
    figure = cost_plot(table, result["front"]) if has_cost else score_plot(table)
    png = plots.to_png(figure)
    (job.out / "routes.png").write_bytes(png)
    route_columns = [
        "route",
        "tasks",
        "mean_score",
        "ci_low",
        "ci_high",
        "resolve_rate",
        "mean_cost",
        "score_per_dollar",
    ]
    pair_columns = [
        "route",
        "versus",
        "common_tasks",
        "mean_difference",
        "ci_low",
        "ci_high",
        "wilcoxon_p",
    ]
    context = {
        "by": job.by,
        "cost": job.cost,
        "run_dir": str(job.run_dir),
        "verdict": result["verdict"],
        "front": result["front"],
        "route_columns": route_columns,
        "routes": _rows(table, route_columns),
        "pair_columns": pair_columns,
        "pairs": _rows(pairs[pairs["versus"] == result["verdict"]["best"]], pair_columns),
    }
    env = _environment()
    (job.out / "routes.md").write_text(env.get_template("routes.md.j2").render(**context))
    html = env.get_template("routes.html.j2").render(**context, image=plots.data_uri(png))
    (job.out / "routes.html").write_text(html)
    (job.out / "routes.json").write_text(
        json.dumps(
            {
                "verdict": result["verdict"],
                "pareto_front": result["front"],
                "routes": json.loads(table.to_json(orient="records")),
                "paired": json.loads(pairs.to_json(orient="records")),
            },
            indent=2,
        )
    )


def routes_report(job: RoutesJob) -> dict:
    result = build(job)
    write(job, result)
    return result
