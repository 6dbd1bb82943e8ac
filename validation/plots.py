"""The report's figures, drawn with matplotlib's object API (no global pyplot state), so the
same functions serve the HTML report and the notebook."""

from __future__ import annotations

import base64
import io

import pandas as pd
from matplotlib.figure import Figure

from validation.frame import candidate_scores

RESOLVED, UNRESOLVED = "#2a9d8f", "#e76f51"


def _standard(frame: pd.DataFrame) -> pd.DataFrame:
    scores = candidate_scores(frame[~frame["gold"] & (frame["condition"] == "standard")])
    return scores.dropna(subset=["score"])


def score_distributions(frame: pd.DataFrame, title: str = "") -> Figure:
    """Resolved vs unresolved candidates (mean over runs), empty patches left out."""
    scores = _standard(frame)
    scores = scores[~scores["empty"]]
    figure = Figure(figsize=(6.4, 3.6), layout="constrained")
    axes = figure.subplots()
    bins = [i / 20 for i in range(21)]
    for resolved, colour, label in (
        (True, RESOLVED, "resolved"),
        (False, UNRESOLVED, "unresolved"),
    ):
        values = scores[scores["resolved"] == resolved]["score"]
        axes.hist(values, bins=bins, alpha=0.6, color=colour, label=f"{label} (n={len(values)})")
    axes.set_xlabel("score")
    axes.set_ylabel("candidates")
    axes.set_title(title or "Score distributions")
    axes.legend()
    return figure


def repo_auc(auc: dict, title: str = "") -> Figure:
    """Mean per-task AUC per repository with its 95 % bootstrap CI."""
    rows = sorted(auc.get("per_repo", {}).items())
    figure = Figure(figsize=(6.4, 0.4 * max(len(rows), 3) + 1), layout="constrained")
    axes = figure.subplots()
    for y, (_, stats) in enumerate(rows):
        axes.plot([stats["mean"]], [y], "o", color="#264653")
        low, high = stats["ci95"]
        if low is not None and high is not None:
            axes.plot([low, high], [y, y], "-", color="#264653")
    axes.set_yticks(range(len(rows)), [f"{r} ({s['tasks']})" for r, s in rows])
    axes.axvline(0.5, color="grey", linestyle=":", linewidth=1)
    axes.set_xlim(0, 1.02)
    axes.set_xlabel("mean per-task AUC (95 % CI)")
    axes.set_title(title or "Per-repository AUC, empty patches excluded")
    return figure


def failure_quality(check: dict, title: str = "") -> Figure:
    """Each system's mean score on its failing patches against its resolve rate."""
    figure = Figure(figsize=(6.4, 4.0), layout="constrained")
    axes = figure.subplots()
    for system, row in check.get("per_system", {}).items():
        if row.get("failing_mean_score") is None:
            continue
        axes.plot(row["resolve_rate"], row["failing_mean_score"], "o", color="#264653")
        axes.annotate(
            system,
            (row["resolve_rate"], row["failing_mean_score"]),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    rho = check.get("spearman_rho")
    axes.set_xlabel("resolve rate")
    axes.set_ylabel("mean score of failing patches")
    axes.set_title(
        title or f"Quality inside failures (Spearman ρ = {rho if rho is None else round(rho, 2)})"
    )
    return figure


def run_scatter(frame: pd.DataFrame, title: str = "") -> Figure | None:
    """Run 0 against run 1 per candidate; None with fewer than two runs."""
    runs = frame[~frame["gold"]].pivot_table(
        index="candidate_id", columns="run_index", values="score"
    )
    if runs.shape[1] < 2:
        return None
    runs = runs.dropna(subset=[runs.columns[0], runs.columns[1]])
    figure = Figure(figsize=(4.2, 4.2), layout="constrained")
    axes = figure.subplots()
    axes.plot(runs[runs.columns[0]], runs[runs.columns[1]], "o", alpha=0.4, color="#264653")
    axes.plot([0, 1], [0, 1], ":", color="grey")
    axes.set_xlabel("run 1 score")
    axes.set_ylabel("run 2 score")
    axes.set_title(title or "Same candidate, two runs")
    return figure


def to_png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
