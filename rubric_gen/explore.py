"""Agentic rubric generation (`--context explore`): the generator explores the repository with
read-only tools, through its provider's own tool calling, then writes the rubric.

The tools read the clone at the task's base commit only (`judge.repo.tools`). The loop is
bounded by `rubrics.explore_max_steps` turns and `rubrics.explore_max_tool_chars` of tool
output; after that the tools are withdrawn and the generator must answer. Every turn goes
through the same client (retries, cache — the key covers the transcript so far, so a killed run
resumes from the cache — ledger, leak audit); the transcript is saved beside the rubric.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from judge.config import RubricSettings
from judge.llm.client import ModelClient
from judge.llm.types import Message, ToolSpec
from judge.records import Task
from judge.repo.git import find_clone
from judge.repo.tools import SPECS, RepoTools
from judge.rubric import Rubric
from rubric_gen.generator import (
    RubricDraft,
    RubricFailure,
    freeze,
    generator_messages,
    numbered,
    task_vocabulary,
)
from rubric_gen.lint import lint_rubric

TOOLS = tuple(
    ToolSpec(s["name"], s["description"], json.dumps(s["parameters"], sort_keys=True))
    for s in SPECS
)
GUIDE = (
    "Before you write the rubric, explore the repository with the tools (it is read at the "
    "commit the task starts from): find where the behaviour the task describes lives, the "
    "functions involved and their other callers. Then reply with the rubric."
)
ANSWER_NOW = "No more tools: write the rubric now, from what you have read."


@dataclass
class Transcript:
    steps: list[dict] = field(default_factory=list)
    tool_chars: int = 0

    def add(self, turn: int, call, output: str) -> None:
        self.tool_chars += len(output)
        self.steps.append({"turn": turn, "tool": call.name, "arguments": call.arguments,
                           "chars": len(output), "output": output})  # fmt: skip


def _first_messages(task: Task, settings: RubricSettings) -> list[Message]:
    system, user = generator_messages(task, settings, [], [])
    return [system, Message(role="user", content=f"{GUIDE}\n\n{user.content}")]


async def _turn(model: ModelClient, messages: list[Message], offer: bool):
    return await model.complete(messages, RubricDraft, tools=TOOLS if offer else ())


def _run_tools(result, tools: RepoTools, transcript: Transcript, turn: int) -> list[Message]:
    replies = [Message(role="assistant", content=result.text, tool_calls=result.tool_calls)]
    for call in result.tool_calls:
        output = tools.run(call.name, call.arguments)
        transcript.add(turn, call, output)
        replies.append(Message(role="tool", content=output, tool_call_id=call.id))
    return replies


def _drafted(result, task: Task, settings: RubricSettings) -> tuple[list, list[str]]:
    """The numbered draft of a final reply and its lint findings."""
    if result.status != "ok" or result.parsed is None:
        raise RubricFailure(f"{task.task_id}: unparsed generator reply: {result.reason}")
    items = numbered(result.parsed)
    return items, lint_rubric(items, settings, task_vocabulary(task))


def _repair(result, findings: list[str]) -> list[Message]:
    fix = "Fix these problems and reply with the rubric again:\n"
    fix += "\n".join(f"- {finding}" for finding in findings)
    return [Message(role="assistant", content=result.text), Message(role="user", content=fix)]


@dataclass
class Session:
    """One exploration: the conversation so far, its tools and what they returned."""

    tools: RepoTools
    messages: list[Message]
    transcript: Transcript = field(default_factory=Transcript)
    repairs: int = 0

    def may_explore(self, turn: int, settings: RubricSettings) -> bool:
        within = turn < settings.explore_max_steps
        return within and self.transcript.tool_chars < settings.explore_max_tool_chars


async def explore_rubric(
    model: ModelClient, task: Task, repos_dir: Path, settings: RubricSettings
) -> Rubric:
    """Explore, then write and lint the rubric; one lint repair, as for every rubric."""
    clone = find_clone(repos_dir, task.repo or "")
    if clone is None:
        raise RubricFailure(f"{task.task_id}: no clone of {task.repo!r} under {repos_dir}")
    session = Session(RepoTools(clone, task.base_commit or ""), _first_messages(task, settings))
    for turn in range(settings.explore_max_steps + 2):
        offer = session.may_explore(turn, settings)
        if not offer and session.messages[-1].role == "tool":
            session.messages.append(Message(role="user", content=ANSWER_NOW))
        result = await _turn(model, session.messages, offer)
        if result.tool_calls and offer:
            session.messages += _run_tools(result, session.tools, session.transcript, turn)
            continue
        items, findings = _drafted(result, task, settings)
        if not findings:
            rubric = freeze(task, items, model.spec)
            return rubric.model_copy(update={"exploration": session.transcript.steps})
        if session.repairs:
            break
        session.repairs += 1
        session.messages += _repair(result, findings)
    raise RubricFailure(f"{task.task_id}: explored rubric failed lint twice or ran out of turns")
