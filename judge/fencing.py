"""Hostile-input handling for text placed inside a prompt: fence it, neutralise it, cap it.

A fence is an XML-like tag whose id is a hash of the fenced text, so the text cannot contain its
own closing tag (it would have to contain its own hash). Tag-like sequences that imitate the
prompt's sections are neutralised as well, so a patch cannot open or close a section either.
"""

from __future__ import annotations

import hashlib
import re

SECTION_NAMES = (
    "candidate_diff",
    "reference_patch",
    "repository_file",
    "task",
    "task_description",
    "rubric",
    "criteria",
    "criterion",
    "instructions",
    "system",
    "user",
    "assistant",
    "hints",
)
_FAKE_TAG = re.compile(r"<(\s*/?\s*)(" + "|".join(SECTION_NAMES) + r")\b", re.IGNORECASE)
CHARS_PER_TOKEN = 4


def neutralise(text: str) -> str:
    """Swap the `<` of a tag-like section name for U+2039: still readable, no longer a tag."""
    return _FAKE_TAG.sub(lambda m: "\u2039" + m.group(1) + m.group(2), text)


def fence(text: str, kind: str) -> str:
    nonce = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f'<{kind} id="{nonce}">\n{neutralise(text)}\n</{kind} id="{nonce}">'


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def truncate(text: str, max_tokens: int) -> tuple[str, bool]:
    """Whole lines up to the budget, then a visible marker saying how much was cut."""
    if estimate_tokens(text) <= max_tokens:
        return text, False
    lines = text.split("\n")
    budget = max_tokens * CHARS_PER_TOKEN
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    if not kept:  # one giant line: cut inside it rather than show nothing
        kept = [lines[0][:budget]]
    marker = (
        f"[... truncated: {len(lines) - len(kept)} of {len(lines)} lines not shown "
        f"(about {estimate_tokens(text) - max_tokens} tokens over the budget) ...]"
    )
    return "\n".join([*kept, marker]), True
