"""The blind judge: one LLM call answers every criterion of a rubric for one candidate.

It is shown exactly three things: the task description, the candidate diff (blinded, fenced,
capped) and the rubric's questions in a per-candidate shuffled order. Labels, weights,
rationales, hints, the reference patch and tests never reach it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from judge.blinding import blind_patch_counted, label_strings, redact, redact_counted
from judge.config import JudgeSettings
from judge.diff import parse_diff
from judge.diff_budget import budget_diff
from judge.evidence import normalised_diff, quote_in_diff
from judge.fencing import fence, truncate
from judge.graded import probabilities_from_logprobs, probability_from_verbal
from judge.judgement import CriterionResult, Judgement
from judge.llm.types import LLMResult, Message
from judge.prompts import load_prompt
from judge.records import Candidate, Task
from judge.repo.view import JudgeView
from judge.rubric import PRESERVATION, Rubric
from judge.scoring import graded_score, score_and_coverage

PROMPT_NAME = "judge"


class CriterionAnswer(BaseModel):
    """Reason and evidence come before the verdict, so the verdict follows from them."""

    model_config = ConfigDict(extra="forbid")

    reason: str
    evidence: str
    answer: Literal["yes", "no"]


class RatedAnswer(CriterionAnswer):
    """For providers without log-probabilities: how sure the judge is that the criterion is
    met, 1 (surely not) to 5 (surely)."""

    confidence: Literal[1, 2, 3, 4, 5]


def reply_model(criterion_ids: Iterable[str], rated: bool = False) -> type[BaseModel]:
    """A reply schema with exactly one required entry per criterion id: the SDK's structured
    output then cannot skip, repeat or invent a criterion. One model serves every order of the
    same ids; the request's `response_order` lists them in the order shown."""
    return _reply_model(tuple(sorted(criterion_ids)), rated)


@lru_cache(maxsize=1024)
def _reply_model(criterion_ids: tuple[str, ...], rated: bool) -> type[BaseModel]:
    entry = RatedAnswer if rated else CriterionAnswer
    fields = {f"c{i}": (entry, Field(alias=cid)) for i, cid in enumerate(criterion_ids)}
    return create_model("JudgeReply", __config__=ConfigDict(extra="forbid"), **fields)


@dataclass(frozen=True)
class JudgePrompt:
    messages: list[Message]
    order: tuple[str, ...]
    shown_diff: str
    truncated: bool
    prompt_hash: str
    redactions: int = 0
    view: JudgeView | None = None


def criterion_order(
    rubric: Rubric, candidate_id: str, run_index: int, seed: int
) -> tuple[str, ...]:
    ids = [c.id for c in rubric.criteria]
    random.Random(f"{seed}:{rubric.task_id}:{candidate_id}:{run_index}").shuffle(ids)
    return tuple(ids)


def _shown_criterion(rubric: Rubric, cid: str) -> dict:
    criterion = rubric.criterion(cid)
    return {
        "id": cid,
        "question": criterion.question,
        "preservation": criterion.category == PRESERVATION,
    }


def _view_sections(view: JudgeView | None, secrets: list[str]) -> dict:
    """The repository context and static facts, fenced like the diff and redacted like it."""
    if view is None or not view.available:
        return {"code_context": None, "static_facts": None}
    context = redact(view.context_text, secrets) if view.context_text else None
    return {
        "code_context": fence(context, "repository_context") if context else None,
        "static_facts": fence(redact(view.facts_text(), secrets), "static_facts"),
    }


@lru_cache(maxsize=256)
def _shown_task(description: str, max_tokens: int, secrets: tuple[str, ...]) -> tuple[str, int]:
    """The task text as shown, and its redaction count: the same for every candidate of a
    task from the same source, so computed once for them."""
    shown, _ = truncate(description, max_tokens)
    return redact_counted(shown, secrets)


def build_judge_prompt(
    task: Task,
    candidate: Candidate,
    rubric: Rubric,
    settings: JudgeSettings,
    run_index: int,
    view: JudgeView | None = None,
    confidence: str = "none",
) -> JudgePrompt:
    """The judge's whole view of a candidate; raises `DiffError` for a malformed diff."""
    secrets = label_strings(candidate.labels)
    blinded, redactions = blind_patch_counted(candidate.patch, candidate.labels, secrets)
    parse_diff(blinded)
    shown, truncated = budget_diff(blinded, settings.max_diff_tokens)
    description, in_task = _shown_task(
        task.description, settings.max_description_tokens, tuple(secrets)
    )
    order = criterion_order(rubric, candidate.candidate_id, run_index, settings.shuffle_seed)
    prompt = load_prompt(PROMPT_NAME)
    messages = prompt.render(
        task_description=fence(description, "task_description"),
        diff=fence(shown, "candidate_diff"),
        criteria=[_shown_criterion(rubric, cid) for cid in order],
        verbal_confidence=confidence == "verbal",
        **_view_sections(view, secrets),
    )
    return JudgePrompt(messages, order, shown, truncated, prompt.hash, redactions + in_task, view)


def view_fields(view: JudgeView | None) -> dict:
    """The judgement's record of the repository view: facts (None when unavailable) and what
    code was shown."""
    if view is None:
        return {}
    facts = [f.model_dump() for f in view.facts] if view.available else None
    return {"facts": facts, "view": view.record()}


def _untouched(anchors: list[str], searchable: str) -> bool | None:
    """Is none of the anchors in the diff? None when there is nothing to check."""
    names = [a.strip("`") for a in anchors if a.strip("`")]
    return None if not names else not any(n in searchable for n in names)


def _verify(criterion, answer: CriterionAnswer, searchable: str) -> bool | None:
    """A quote must be found; a preservation "yes" without a quote is checked mechanically:
    the code it names is untouched by the diff."""
    if answer.answer != "yes":
        return None
    if criterion.category == PRESERVATION and not answer.evidence.strip():
        return _untouched(criterion.anchors, searchable)
    return quote_in_diff(answer.evidence, searchable)


def _result(
    rubric: Rubric,
    cid: str,
    answer: CriterionAnswer,
    searchable: str,
    strict: bool,
    p_yes: float | None = None,
):
    criterion = rubric.criterion(cid)
    weight = criterion.weight
    verified = _verify(criterion, answer, searchable)
    return CriterionResult(
        criterion_id=cid,
        weight=weight,
        preservation=criterion.category == PRESERVATION,
        answer=answer.answer,
        reason=answer.reason,
        evidence=answer.evidence,
        verified=verified,
        counted_yes=answer.answer == "yes"
        and (
            not strict
            or verified is True
            or (verified is None and criterion.category == PRESERVATION)
        ),
        p_yes=p_yes,
    )


def _answers(reply: BaseModel) -> dict[str, CriterionAnswer]:
    """Criterion id → its answer (the reply's fields are aliased by criterion id)."""
    fields = type(reply).model_fields
    return {field.alias: getattr(reply, name) for name, field in fields.items()}


def answers_to_results(
    rubric: Rubric,
    reply: BaseModel,
    shown_diff: str,
    strict: bool,
    p_yes: dict[str, float] | None = None,
) -> list[CriterionResult]:
    """One result per criterion, in rubric order, with P(yes) where it is known."""
    answers = _answers(reply)
    searchable = normalised_diff(shown_diff)
    p_yes = p_yes or {}
    return [
        _result(rubric, c.id, answers[c.id], searchable, strict, p_yes.get(c.id))
        for c in rubric.criteria
    ]


def _unanswered(rubric: Rubric, reason: str, answer: Literal["no"] | None) -> list[CriterionResult]:
    return [
        CriterionResult(
            criterion_id=c.id,
            weight=c.weight,
            answer=answer,
            reason=reason,
            answerer="none",
            preservation=c.category == PRESERVATION,
        )
        for c in rubric.criteria
    ]


def identity(candidate: Candidate, rubric: Rubric, judge_model: str, run_index: int) -> dict:
    """The fields every judgement of this candidate, run and rubric shares."""
    return {
        "task_id": candidate.task_id,
        "candidate_id": candidate.candidate_id,
        "run_index": run_index,
        "labels": candidate.labels,
        "rubric_hash": rubric.rubric_hash,
        "judge_model": judge_model,
    }


def empty_judgement(
    candidate: Candidate,
    rubric: Rubric,
    judge_model: str,
    run_index: int,
    prompt_hash: str | None = None,
) -> Judgement:
    """An empty patch changes nothing: 0.0 with full coverage, and no LLM call."""
    return Judgement(
        **identity(candidate, rubric, judge_model, run_index),
        prompt_hash=prompt_hash or load_prompt(PROMPT_NAME).hash,
        status="empty",
        score=0.0,
        coverage=1.0,
        criteria=_unanswered(rubric, "empty patch", "no"),
        flags=["empty_patch"],
    )


def judgement_from_result(
    candidate: Candidate,
    rubric: Rubric,
    shown: JudgePrompt,
    result: LLMResult,
    judge_model: str,
    run_index: int,
    strict: bool,
) -> Judgement:
    flags = ["truncated"] if shown.truncated else []
    common = {
        **identity(candidate, rubric, judge_model, run_index),
        "prompt_hash": shown.prompt_hash,
        "order": list(shown.order),
        "usage": result.usage,
        "redactions": shown.redactions,
        **view_fields(shown.view),
    }
    if result.status != "ok":
        return Judgement(
            **common,
            status="unparsed",
            score=None,
            coverage=0.0,
            criteria=_unanswered(rubric, "no valid reply", None),
            flags=[*flags, "unparsed"],
            reason=result.reason,
            raw_reply=result.text,
        )
    ids = [c.id for c in rubric.criteria]
    results = answers_to_results(
        rubric, result.parsed, shown.shown_diff, strict, confidence(result, ids)
    )
    score, coverage = score_and_coverage(results)
    if any(r.answer == "yes" and r.verified is False for r in results):
        flags.append("unverified_evidence")
    return Judgement(
        **common,
        status="scored",
        score=score,
        graded_score=graded_score(results),
        coverage=coverage,
        criteria=results,
        flags=flags,
    )


def confidence(result: LLMResult, ids: list[str]) -> dict[str, float]:
    """P(yes) per criterion: read from log-probabilities, or from the stated confidence."""
    found = probabilities_from_logprobs(result.logprobs, ids)
    if found or result.parsed is None:
        return found
    return {
        cid: p
        for cid, answer in _answers(result.parsed).items()
        if (p := probability_from_verbal(getattr(answer, "confidence", None))) is not None
    }
