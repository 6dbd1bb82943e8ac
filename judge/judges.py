"""Judges by name: the blind LLM judge (`provider:model`, optionally hybrid) and the static
`reference` judge. Every judge turns (task, candidate, rubric, run) into a `Judgement`."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Protocol

from judge.blind_judge import (
    JudgePrompt,
    build_judge_prompt,
    empty_judgement,
    identity,
    judgement_from_result,
    reply_model,
)
from judge.blinding import strip_git_metadata
from judge.config import JudgeSettings
from judge.diff import ParsedDiff, parse_diff
from judge.judgement import Judgement
from judge.llm.client import LLMClient, ModelClient
from judge.prompt_pool import Built, PromptJob, asked_rubric
from judge.records import Candidate, Task
from judge.repo.view import CodeViewer, JudgeView
from judge.rubric import Rubric
from judge.scoring import score_and_coverage
from judge.static_answerer import STATIC_VERSION, static_result

REFERENCE = "reference"


# OpenAI models that reject `logprobs` (reasoning models): graded answers come in words
REASONING_MODEL = re.compile(r"^(openai|local):(o\d|gpt-5)", re.IGNORECASE)


class CandidateJudge(Protocol):
    spec: str

    async def judge(
        self, task: Task, candidate: Candidate, rubric: Rubric, run: int
    ) -> Judgement: ...


class ReferenceJudge:
    """Deterministic: answers every criterion that has a check, from the diff alone."""

    spec = REFERENCE

    async def judge(self, task: Task, candidate: Candidate, rubric: Rubric, run: int) -> Judgement:
        if not candidate.patch.strip():
            return empty_judgement(candidate, rubric, self.spec, run, prompt_hash=STATIC_VERSION)
        diff = parse_diff(strip_git_metadata(candidate.patch))
        return static_judgement(candidate, rubric, diff, self.spec, run)


class LLMJudge:
    """The blind judge; with `hybrid`, criteria that carry a check are answered statically and
    only the rest go to the model (fewer tokens, no variance on the structural ones)."""

    def __init__(
        self,
        model: ModelClient,
        settings: JudgeSettings,
        hybrid: bool = False,
        viewer: CodeViewer | None = None,
    ) -> None:
        self.model = model
        self.spec = model.spec
        self.settings = settings
        self.hybrid = hybrid
        self.viewer = viewer

    def _confidence(self) -> str:
        """How this judge grades its answers: the setting, or the provider's own way — except
        that OpenAI's reasoning models refuse `logprobs`, so `auto` asks them in words."""
        mode = self.settings.confidence
        if mode != "auto":
            return mode
        if self.model.confidence == "logprobs" and REASONING_MODEL.match(self.spec):
            return "verbal"
        return self.model.confidence

    async def _view(self, task: Task, candidate: Candidate) -> JudgeView | None:
        """Git and ruff run in a worker thread so the event loop keeps other calls moving."""
        if self.viewer is None:
            return None
        return await asyncio.to_thread(self.viewer.view, task, candidate.patch)

    def prompt_job(self, tasks: dict[str, Task], rubrics: dict[str, Rubric]) -> PromptJob:
        """What prompt workers need to build this judge's prompts."""
        return PromptJob(tasks, rubrics, self.settings, self.hybrid, self._confidence())

    async def judge(self, task: Task, candidate: Candidate, rubric: Rubric, run: int) -> Judgement:
        if not candidate.patch.strip():
            return empty_judgement(candidate, rubric, self.spec, run)
        view = await self._view(task, candidate)
        asked = asked_rubric(rubric, self.hybrid)
        shown = build_judge_prompt(
            task, candidate, asked, self.settings, run, view, self._confidence()
        )
        return await self.ask(candidate, rubric, run, shown)

    async def judge_built(
        self, candidate: Candidate, rubric: Rubric, run: int, built: Built
    ) -> Judgement:
        """`judge` with the prompt a worker built (see `judge.prompt_pool`)."""
        if built is None:
            return empty_judgement(candidate, rubric, self.spec, run)
        if isinstance(built, Exception):
            raise built
        return await self.ask(candidate, rubric, run, built)

    async def ask(
        self, candidate: Candidate, rubric: Rubric, run: int, shown: JudgePrompt
    ) -> Judgement:
        """The model's answers to the prompt, as a judgement (static ones merged in)."""
        static = [c for c in rubric.criteria if self.hybrid and c.check is not None]
        asked = asked_rubric(rubric, self.hybrid)
        mode = self._confidence()
        if not asked.criteria:
            return static_judgement(candidate, rubric, parse_diff(shown.shown_diff), self.spec, run)
        result = await self.model.complete(
            shown.messages,
            reply_model(shown.order, rated=mode == "verbal"),
            options=self.model.options(logprobs=True) if mode == "logprobs" else None,
            sample_index=run,
            response_order=shown.order,
        )
        judgement = judgement_from_result(
            candidate, asked, shown, result, self.spec, run, self.settings.strict_evidence
        )
        return _merge_static(judgement, rubric, static, shown.shown_diff) if static else judgement


def _static_results(criteria, shown_diff: str):
    diff = parse_diff(shown_diff)
    return [static_result(c, diff) for c in criteria]


def _merge_static(judgement: Judgement, rubric: Rubric, static, shown_diff: str) -> Judgement:
    by_id = {r.criterion_id: r for r in [*judgement.criteria, *_static_results(static, shown_diff)]}
    results = [by_id[c.id] for c in rubric.criteria]
    score, coverage = score_and_coverage(results)
    if judgement.status == "unparsed":
        score = None
    return judgement.model_copy(
        update={
            "criteria": results,
            "score": score,
            "coverage": coverage,
            "rubric_hash": rubric.rubric_hash,
        }
    )


def static_judgement(
    candidate: Candidate, rubric: Rubric, diff: ParsedDiff, spec: str, run: int
) -> Judgement:
    """Every checked criterion answered from the diff; the others left unanswered."""
    results = [static_result(c, diff) for c in rubric.criteria]
    score, coverage = score_and_coverage(results)
    return Judgement(
        **identity(candidate, rubric, spec, run),
        prompt_hash=STATIC_VERSION,
        status="scored",
        score=score,
        coverage=coverage,
        criteria=results,
        order=[c.id for c in rubric.criteria],
        flags=[] if coverage else ["no_checkable_criteria"],
    )


def make_judge(
    spec: str,
    client: LLMClient,
    settings: JudgeSettings,
    hybrid: bool = False,
    repos_dir: Path | None = None,
) -> CandidateJudge:
    """The judge for `spec`; with `repos_dir`, the LLM judge also sees the code around each
    change and the static facts, read at the task's base commit."""
    if spec == REFERENCE:
        return ReferenceJudge()
    viewer = None
    if repos_dir is not None:
        cache_dir = Path(settings.view_cache_dir) if settings.view_cache_dir else None
        viewer = CodeViewer(repos_dir, settings.max_context_tokens, cache_dir)
    return LLMJudge(client.model(spec), settings, hybrid, viewer)
