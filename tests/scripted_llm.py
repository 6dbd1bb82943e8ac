"""Scripted LLM replies for tests only: a rubric writer and a judge that reads the diff.

Nothing here is a measurement: these functions stand in for a model so tests can check the
pipeline's arithmetic, blindness and bookkeeping with hand-computed expectations.
"""

from __future__ import annotations

import re

from judge.llm.providers.scripted import ScriptedCall

# task id -> (question, weight, category); each question's first `span` is the token the
# scripted judge looks for in the diff.
MINI_RUBRICS: dict[str, list[tuple[str, int, str]]] = {
    "calc__calc-1": [
        ("Does the patch edit `def add(a, b):` in calc/ops.py?", 3, "localization"),
        ("Does `return a + b` replace the subtraction in calc/ops.py?", 5, "root_cause"),
        ("Does `isinstance` guard the arguments of add() in calc/ops.py?", 2, "edge_cases"),
        ("Does `raise TypeError` reject non-numbers passed to add()?", 2, "behavior"),
        ("Does the patch update `__all__` of calc/ops.py, or leave it untouched?", 1, "scope"),
    ],
    "text__text-2": [
        ("Does the patch change `def slugify` in text/slug.py?", 3, "localization"),
        ("Does `.lower()` make the slug lowercase in slugify()?", 5, "root_cause"),
        ("Does `replace(' ', '-')` keep replacing spaces with dashes in slugify()?", 2, "behavior"),
        ("Does the patch keep `value.strip()` in slugify()?", 2, "edge_cases"),
        ("Does slugify() gain a `casefold` fallback for non-ASCII text?", 1, "code_quality"),
    ],
    "net__net-3": [
        ("Does the patch change `def parse_port` in net/url.py?", 3, "localization"),
        ("Does `if not text` catch the empty port in parse_port()?", 5, "root_cause"),
        ("Does `return None` come back for an empty port from parse_port()?", 4, "behavior"),
        ("Does `int(text)` still parse non-empty ports in parse_port()?", 2, "edge_cases"),
        ("Does parse_port() raise `ValueError` with a message for garbage ports?", 1, "scope"),
    ],
}

_TASK = re.compile(r"^Task (\S+?)(?: in the repository \S+)?:$", re.MULTILINE)
_CRITERION = re.compile(r"^(c\d+)(?: \[preservation\])?: (.*)$", re.MULTILINE)
_DIFF = re.compile(r'<candidate_diff id="\w+">\n(.*)\n</candidate_diff id="\w+">', re.DOTALL)


def rubric_writer(call: ScriptedCall) -> dict:
    task_id = _TASK.search(call.messages[-1].content).group(1)
    return {
        "criteria": [
            {
                "question": q,
                "weight": w,
                "category": c,
                "anchors": [],
                "rationale": "scripted",
                "check": None,
            }
            for q, w, c in MINI_RUBRICS[task_id]
        ]
    }


def diff_reading_judge(call: ScriptedCall) -> dict:
    """Yes when the question's first `span` occurs in a diff line, quoting that line (the
    first user message holds the prompt, also in a repair conversation)."""
    prompt = next(m.content for m in call.messages if m.role == "user")
    rated = '"confidence"' in call.messages[0].content  # the verbal-confidence schema
    diff_lines = _DIFF.search(prompt).group(1).splitlines()
    answers = {}
    for cid, question in _CRITERION.findall(prompt):
        token = re.search(r"`([^`]+)`", question).group(1)
        line = next((x for x in diff_lines if token in x), None)
        answers[cid] = {
            "reason": "found in the diff" if line else "not in the diff",
            "evidence": line or "",
            "answer": "yes" if line else "no",
        }
        if rated:  # surer of a long quoted line than of a short one
            answers[cid]["confidence"] = (5 if len(line) > 30 else 4) if line else 1
    return answers


def messages_of(body: dict) -> list:
    """A wire request's messages, with Anthropic's separate `system` field put first."""
    from judge.llm.types import Message

    system = body.get("system")
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system)
    first = [Message(role="system", content=system)] if system else []
    return first + [Message(role=m["role"], content=m["content"]) for m in body["messages"]]
