"""The `validate` job: replay labelled SWE-bench candidates through rubrics and a judge, then
measure the judge with the four checks, beside the no-LLM reference baseline.

Everything is resumable: rubrics are frozen and reused, judgements are appended as they finish
and skipped when present, and metrics are recomputed from the judgement files alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from judge.config import AppSettings
from judge.jsonl import read_jsonl
from judge.judgement import Judgement
from judge.judges import REFERENCE, make_judge
from judge.llm.batch_runner import BatchOptions, run_batched
from judge.llm.client import LLMClient
from judge.llm.pricing import Ledger
from judge.llm.types import ConfigError
from judge.loaders import load_tasks
from judge.prompts import load_prompt
from judge.records import Candidate, ErrorRecord, NothingProducedError, Task
from judge.repo.git import find_clone, git, is_safe_commit
from judge.repo.view import CodeViewer
from judge.score_run import (
    JUDGEMENTS,
    Progress,
    ScoreSummary,
    judge_all,
    pending_work,
)
from judge.select import pick_all
from judge.tiebreak import TieBreakInputs
from judge.tiebreak import compare as compare_pairs
from rubric_gen.run import RubricSummary, rubric_source, rubrics_for_tasks
from validation.candidates import gold_candidates, load_labelled
from validation.compare import compare
from validation.frame import judgements_frame
from validation.hostile import hostile_candidates, hostile_effects
from validation.leak_audit import LeakAudit
from validation.metrics import all_checks
from validation.outcome import (
    RUBRICS,
    baseline_skipped,
    main_errors,
    nothing_judged,
    write_failure,
    write_outputs,
)
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS
from validation.selection import selection_metrics
from validation.systems import SystemRules, load_system_rules, parse_group_option
from validation.tiebreak_eval import evaluate, plan

BASELINE = "baseline"


@dataclass(frozen=True)
class ValidateJob:
    out: Path
    data: str | None = None
    candidates: tuple[str, ...] = ()
    generator: str = REFERENCE
    judge: str = REFERENCE
    runs: int = 3
    limit: int | None = None
    repos: tuple[str, ...] = ()
    baseline: bool = True
    systems: Path | None = None
    groups: tuple[str, ...] = ()
    repos_dir: Path | None = None
    hybrid: bool = False
    split: str = "test"
    n_boot: int = 2000
    seed: int = 0
    compare_to: Path | None = None
    hostile: bool = False
    rubric_source: str = "auto"
    context: str = "retrieve"
    """task (what users deploy: no merged fix) | reference (an upper bound) | auto."""
    tiebreak: str | None = None
    """provider:model for blind comparisons of tied candidates (the tie-break stage)."""
    tiebreak_budget: int = 100
    """At most this many tied resolved/unresolved pairs are compared (2 requests each)."""
    tiebreak_epsilon: float = 0.02
    tiebreak_top_k: int = 3


@dataclass
class Inputs:
    tasks: dict[str, Task]
    withheld: dict[str, dict]
    candidates: list[Candidate]
    errors: list[ErrorRecord] = field(default_factory=list)


def _rules(job: ValidateJob) -> SystemRules:
    extra = parse_group_option(list(job.groups)).rules
    return SystemRules(rules=extra + load_system_rules(job.systems).rules)


def _selected_tasks(
    job: ValidateJob, tasks: dict[str, Task], attempted: set[str]
) -> dict[str, Task]:
    """Tasks with candidates, of the chosen repositories, the first `limit` by id."""
    wanted = [
        t for t in sorted(attempted & set(tasks)) if not job.repos or tasks[t].repo in job.repos
    ]
    return {t: tasks[t] for t in wanted[: job.limit or None]}


def load_inputs(job: ValidateJob) -> Inputs:
    """Tasks that have labelled candidates (filtered by --repos, cut by --limit), their
    candidates, and each task's gold patch as one more candidate."""
    loaded = load_tasks(job.data or SAMPLE_TASKS, job.split)
    labelled = load_labelled(list(job.candidates) or [SAMPLE_CANDIDATES], _rules(job))
    errors = [ErrorRecord.from_record_error(e) for e in loaded.errors + labelled.errors]
    tasks = _selected_tasks(job, loaded.tasks, {c.task_id for c in labelled.candidates})
    candidates = [c for c in labelled.candidates if c.task_id in tasks]
    if job.hostile:
        candidates += hostile_candidates(candidates, tasks)
    candidates += gold_candidates(tasks)
    withheld = {t: loaded.withheld.get(t, {}) for t in tasks}
    return Inputs(tasks, withheld, candidates, errors)


def _audit(inputs: Inputs, job: ValidateJob) -> LeakAudit:
    audit = LeakAudit()
    task_mode = rubric_source(job.generator, job.rubric_source) == "task"
    if task_mode and job.repos_dir is not None:
        audit.at_base = _exists_at_base(inputs.tasks, job.repos_dir)
    for task in inputs.tasks.values():
        audit.add_task_tests(inputs.withheld[task.task_id])
        audit.add_legitimate([task.description, task.hints, task.reference_patch])
        if task_mode:
            text = f"{task.description}\n{task.hints or ''}"
            audit.add_fix_lines(task.task_id, task.reference_patch, text)
    audit.add_legitimate(c.patch for c in inputs.candidates)
    return audit


def _exists_at_base(tasks: dict[str, Task], repos_dir: Path):
    """Does a line already stand in the repository at the task's base commit?"""

    def exists(task_id: str, line: str) -> bool:
        task = tasks[task_id]
        clone = find_clone(repos_dir, task.repo or "")
        if clone is None or not is_safe_commit(task.base_commit or ""):
            return False
        found = git(clone, "grep", "-q", "-F", "-e", line, task.base_commit, "--")
        return found.returncode == 0

    return exists


@dataclass
class Stage:
    generator: str
    judge: str
    folder: Path
    runs: int
    source: str = "auto"
    rubrics: RubricSummary = field(default_factory=RubricSummary)
    scoring: ScoreSummary = field(default_factory=ScoreSummary)
    judgements: list[Judgement] = field(default_factory=list)
    rubric_of: dict = field(default_factory=dict)
    tiebreak: dict | None = None


async def run_stage(
    client: LLMClient,
    stage: Stage,
    inputs: Inputs,
    job: ValidateJob,
    settings: AppSettings,
    progress: Progress | None,
    audit: LeakAudit | None = None,
) -> Stage:
    tasks = list(inputs.tasks.values())
    rubrics = await rubrics_for_tasks(
        client,
        stage.generator,
        tasks,
        stage.folder / RUBRICS,
        settings,
        stage.rubrics,
        job.repos_dir,
        source=stage.source,
        context=job.context,
    )
    stage.rubric_of = rubrics
    if audit is not None:
        audit.add_model_text(
            text for r in rubrics.values() for c in r.criteria for text in [c.question, *c.anchors]
        )
    path = stage.folder / JUDGEMENTS
    work = pending_work(
        inputs.candidates,
        inputs.tasks,
        rubrics,
        stage.folder / RUBRICS,
        path,
        stage.runs,
        stage.scoring,
    )
    judge = make_judge(stage.judge, client, settings.judge, job.hybrid, job.repos_dir)
    await judge_all(client, judge, inputs.tasks, rubrics, work, path, stage.scoring, progress)
    wanted = {(c.candidate_id, run) for c in inputs.candidates for run in range(stage.runs)}
    stage.judgements = [j for j in read_jsonl(path, Judgement) if j.key in wanted]
    return stage


def _stages(job: ValidateJob) -> list[Stage]:
    stages = [Stage(job.generator, job.judge, job.out, job.runs, job.rubric_source)]
    if job.baseline and (job.judge, job.generator) != (REFERENCE, REFERENCE):
        stages.append(Stage(REFERENCE, REFERENCE, job.out / BASELINE, 1))
    return stages


def _prompt_hashes(stage: Stage) -> dict[str, str | None]:
    llm = stage.judge != REFERENCE
    return {
        "judge": sorted({j.prompt_hash for j in stage.judgements}),
        "generator": load_prompt("rubric").hash if stage.generator != REFERENCE else None,
        "judge_template": load_prompt("judge").hash if llm else None,
    }


def selection_of(judgements: list[Judgement], job: ValidateJob) -> dict:
    """Best-of-N over the labelled candidates (gold patches and other conditions left out)."""
    pool = [
        j
        for j in judgements
        if not j.labels.get("gold") and j.labels.get("condition", "standard") == "standard"
    ]
    rows = [
        {
            "task_id": j.task_id,
            "candidate_id": j.candidate_id,
            "system": j.labels.get("system", ""),
            "resolved": bool(j.labels.get("resolved")),
        }
        for j in pool
        if j.run_index == 0
    ]
    table = pd.DataFrame(rows, columns=["task_id", "candidate_id", "system", "resolved"])
    return selection_metrics(pick_all(pool), table, n_boot=job.n_boot // 2, seed=job.seed)


def stage_metrics(stage: Stage, inputs: Inputs, job: ValidateJob) -> dict:
    repos = {t: task.repo or "" for t, task in inputs.tasks.items()}
    frame = judgements_frame(stage.judgements, repos)
    return {
        "judge": stage.judge,
        "generator": stage.generator,
        "runs": stage.runs,
        "rubric_source": rubric_source(stage.generator, stage.source),
        "gold_check_informative": stage.judge != REFERENCE
        and rubric_source(stage.generator, stage.source) == "task",
        "prompt_hashes": _prompt_hashes(stage),
        "checks": all_checks(frame, n_boot=job.n_boot, seed=job.seed),
        "selection": selection_of(stage.judgements, job),
        "hostile": hostile_effects(stage.judgements) if job.hostile else None,
        "tiebreak": stage.tiebreak,
        "rubric_failures": [e.model_dump() for e in stage.rubrics.errors],
    }


async def _run_stages(
    job: ValidateJob,
    settings: AppSettings,
    inputs: Inputs,
    audit: LeakAudit,
    ledger: Ledger,
    use_cache: bool,
    progress: Progress | None,
    batch: BatchOptions | None,
) -> tuple[list[Stage], dict]:
    """Batch rounds first when asked, then the live run of every stage."""
    if batch is not None:

        async def rounds(client: LLMClient) -> None:
            stages = _stages(job)
            for stage in stages:
                await run_stage(client, stage, inputs, job, settings, None, audit)
            await run_tiebreak(client, stages[0], inputs, job, settings)

        await run_batched(rounds, settings.llm, batch, ledger, on_request=audit.scan)
    stages = _stages(job)
    client = LLMClient(settings.llm, use_cache=use_cache, on_request=audit.scan, ledger=ledger)
    async with client:
        for stage in stages:
            await run_stage(client, stage, inputs, job, settings, progress, audit)
        stages[0].tiebreak = await run_tiebreak(client, stages[0], inputs, job, settings)
    return stages, {k: dict(v) for k, v in client.faults.items()}


def _viewer(job: ValidateJob, settings: AppSettings) -> CodeViewer | None:
    if job.repos_dir is None:
        return None
    cache = Path(settings.judge.view_cache_dir) if settings.judge.view_cache_dir else None
    return CodeViewer(job.repos_dir, settings.judge.max_context_tokens, cache)


async def run_tiebreak(
    client: LLMClient, stage: Stage, inputs: Inputs, job: ValidateJob, settings: AppSettings
) -> dict | None:
    """Compare the tied candidates of the main stage; what it changed and what it cost."""
    if job.tiebreak is None or not stage.judgements:
        return None
    found = plan(stage.judgements, job.tiebreak_epsilon, job.tiebreak_budget, job.tiebreak_top_k)
    tie_inputs = TieBreakInputs(
        job.tiebreak,
        inputs.tasks,
        {c.candidate_id: c for c in inputs.candidates},
        stage.rubric_of,
        job.tiebreak_top_k,
        _viewer(job, settings),
    )
    before = client.ledger.total()
    verdicts = await compare_pairs(client, tie_inputs, found.pairs, settings.judge)
    spent = client.ledger.total()
    result = evaluate(stage.judgements, found, verdicts, job.tiebreak_epsilon)
    cost = None if spent.cost_usd is None or before.cost_usd is None else (
        spent.cost_usd - before.cost_usd)  # fmt: skip
    return result | {
        "model": job.tiebreak,
        "epsilon": job.tiebreak_epsilon,
        "budget": job.tiebreak_budget,
        "requests": 2 * len(verdicts),
        "live_cost_usd": cost,
    }


def _data(job: ValidateJob, inputs: Inputs) -> dict:
    return {
        "tasks": job.data or str(SAMPLE_TASKS),
        "candidates": list(job.candidates) or [str(SAMPLE_CANDIDATES)],
        "n_tasks": len(inputs.tasks),
        "n_candidates": len(inputs.candidates),
        "limit": job.limit,
        "repos": list(job.repos),
    }


async def validate(
    job: ValidateJob,
    settings: AppSettings,
    use_cache: bool = True,
    progress: Progress | None = None,
    batch: BatchOptions | None = None,
) -> dict:
    earlier = read_metrics(job.compare_to) if job.compare_to is not None else None
    inputs = load_inputs(job)
    audit = _audit(inputs, job)
    ledger = Ledger()
    stages, faults = await _run_stages(
        job, settings, inputs, audit, ledger, use_cache, progress, batch
    )
    errors = inputs.errors + [e for s in stages for e in s.rubrics.errors + s.scoring.errors]
    if not stages[0].judgements:
        write_failure(job, settings, inputs, errors, ledger)
        raise NothingProducedError(nothing_judged(stages[0], inputs, job))
    baseline = stages[1] if len(stages) > 1 and stages[1].judgements else None
    metrics = {
        "format_version": 1,
        "data": _data(job, inputs),
        "main": stage_metrics(stages[0], inputs, job),
        "baseline": stage_metrics(baseline, inputs, job) if baseline else None,
        "baseline_skipped": baseline_skipped(stages, inputs),
        "leak_audit": audit.summary(),
        "faults": faults,
        "usage": ledger.as_dict(),
        "bill": ledger.bill(),
        "counts": {"judgements": len(stages[0].judgements), "errors": main_errors(stages, inputs)},
    }
    if earlier is not None:
        metrics["comparison"] = compare(earlier, metrics, str(job.compare_to))
    write_outputs(job, settings, metrics, errors, ledger)
    return metrics


def read_metrics(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--compare-to {path}: cannot read earlier metrics ({exc})") from exc
