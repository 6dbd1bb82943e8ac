"""Graded answers: the judge's confidence that each criterion is met, P(yes).

Binary criteria saturate on strong candidates: a correct patch and a plausible wrong one both
satisfy every criterion and tie at 1.0. The probability behind each answer breaks most of those
ties. Where the provider returns token log-probabilities (OpenAI Chat Completions, vLLM and most
OpenAI-compatible servers) P(yes) is read at the token that starts each "answer" value; elsewhere
(Anthropic) the judge states its confidence on a five-point scale, mapped to a probability.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Sequence

from judge.llm.types import TokenLogprobs

VERBAL_SCALE = {1: 0.05, 2: 0.25, 3: 0.5, 4: 0.75, 5: 0.95}
_ANSWER = re.compile(r'"answer"\s*:\s*"')


def _side(token: str) -> str | None:
    word = token.strip().strip('"').strip().lower()
    if word.startswith("y"):
        return "yes"
    if word.startswith("n"):
        return "no"
    return None


def p_yes_at(position: tuple[str, float, dict[str, float]]) -> float | None:
    """P(yes) from one token's alternatives (the chosen token included)."""
    token, logprob, alternatives = position
    mass = {"yes": 0.0, "no": 0.0}
    seen = {**alternatives, token: logprob}
    for text, value in seen.items():
        side = _side(text)
        if side is not None:
            mass[side] += math.exp(value)
    if not mass["yes"] and not mass["no"]:
        return None
    if mass["yes"] and mass["no"]:
        return mass["yes"] / (mass["yes"] + mass["no"])
    return min(mass["yes"], 1.0) if mass["yes"] else max(1.0 - mass["no"], 0.0)


def _owner(ids: Sequence[str], text: str) -> list[tuple[int, str]]:
    """Where each criterion's entry starts in the reply, in order."""
    starts = []
    for cid in ids:
        match = re.search(rf'"{re.escape(cid)}"\s*:\s*\{{', text)
        if match:
            starts.append((match.start(), cid))
    return sorted(starts)


def probabilities_from_logprobs(
    logprobs: TokenLogprobs | None, ids: Sequence[str]
) -> dict[str, float]:
    """P(yes) per criterion id, read at the first token of each "answer" value."""
    if not logprobs:
        return {}
    tokens = [item[0] for item in logprobs]
    offsets, total = [], 0
    for token in tokens:
        offsets.append(total)
        total += len(token)
    text = "".join(tokens)
    owners = _owner(ids, text)
    found: dict[str, float] = {}
    for match in _ANSWER.finditer(text):
        before = [cid for start, cid in owners if start < match.start()]
        index = bisect_right(offsets, match.end()) - 1
        if not before or index < 0:
            continue
        p = p_yes_at(logprobs[index])
        if p is not None:
            found.setdefault(before[-1], p)
    return found


def probability_from_verbal(confidence: int | None) -> float | None:
    return VERBAL_SCALE.get(confidence) if confidence is not None else None
