"""Blinding: the judge must not be able to tell which model, harness or route wrote a patch.

Git metadata (format-patch headers, commit messages, trailers, signatures) goes, and every label
that can identify the source (system, model, run, route names and their distinctive parts) is
redacted wherever it stands as a word of its own, in any letter case. Generic values are never
redacted — booleans, numbers, the conditions the product assigns, short words and common words —
and matches respect identifier boundaries, so `StandardErrorCode` or "standard output" reach the
judge intact: rewriting code the judge must read would fail correct patches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

REDACTED = "[redacted]"
MIN_LABEL_CHARS = 4  # shorter values ("gpt", "v1") would shred ordinary code
# Labels the product sets itself: they say nothing about who wrote the patch.
PRODUCT_LABELS = frozenset(
    {"condition", "resolved", "empty", "gold", "run_index", "task_id", "instance_id"}
)
# Words that name no source but stand in code and prose everywhere (and in system names:
# "mini-swe-agent", "Qwen2.5-Coder-32B-Instruct"); a distinctive name is never among them.
GENERIC_WORDS = frozenset(
    {
        "standard",
        "default",
        "base",
        "main",
        "test",
        "tests",
        "true",
        "false",
        "none",
        "null",
        "gold",
        "agent",
        "agents",
        "mini",
        "model",
        "models",
        "code",
        "coder",
        "chat",
        "instruct",
        "preview",
        "latest",
        "large",
        "small",
        "medium",
        "turbo",
        "flash",
        "lite",
        "plus",
        "high",
        "low",
        "final",
        "run",
        "runs",
        "release",
        "stable",
        "beta",
        "alpha",
        "experimental",
        "issue",
        "removed",
        "removal",
        "output",
        "input",
        "error",
        "errors",
        "value",
        "values",
        "data",
        "type",
        "types",
        "name",
        "names",
        "text",
        "list",
        "dict",
        "class",
        "function",
        "method",
        "result",
        "results",
        "patch",
        "patches",
        "diff",
        "change",
        "changes",
        "fix",
        "",
    }
)
_NUMBERISH = re.compile(r"[v\d][\d.\-_]*[a-z]?|\d+[bkm]", re.IGNORECASE)
_PARTS = re.compile(r"[/_\-.:\s@]+")
_PROSE = re.compile(r"\s")
TRAILER = re.compile(
    r"(co-authored-by:|signed-off-by:|generated with|🤖 generated)[^\n]*", re.IGNORECASE
)
TRAILER_MARKERS = ("co-authored-by:", "signed-off-by:", "generated with", "🤖 generated")
_DIFF_START = re.compile(r"^(diff --git |--- \S)", re.MULTILINE)
_SIGNATURE = re.compile(r"\n-- \n[^\n]*\n?\s*$")


def strip_git_metadata(patch: str) -> str:
    """Drop everything before the first file header and a trailing format-patch signature."""
    match = _DIFF_START.search(patch)
    body = patch[match.start() :] if match else patch
    return _SIGNATURE.sub("\n", body)


def _is_generic(value: str) -> bool:
    """Too short, a number or version, or a word that ordinary code and prose use."""
    word = value.strip().lower()
    return (
        len(word) < MIN_LABEL_CHARS
        or _NUMBERISH.fullmatch(word) is not None
        or word in GENERIC_WORDS
    )


@lru_cache(maxsize=4096)  # a run has few distinct systems and routes, and many candidates
def _variants(value: str) -> frozenset[str]:
    """The value, its last path component (`org/acme-coder-7b` also hides `acme-coder-7b`), and
    its distinctive parts (`claude-3-7-sonnet-20250219` also hides `claude` and `sonnet`).

    A value with spaces in it is prose (a note on how the patch was made), not a name: its
    words are ordinary words ("from", "lines", "context") that stand in code everywhere, so only
    the whole phrase is hidden. Names of the source come from labels of their own."""
    value = value.strip()
    if _PROSE.search(value):
        return frozenset({value})
    variants = {value, value.rstrip("/").rsplit("/", 1)[-1]}
    variants |= set(_PARTS.split(value))
    return frozenset(v for v in variants if v and not _is_generic(v))


def label_strings(labels: Mapping[str, Any]) -> list[str]:
    """The strings that could tell the judge who wrote a patch, longest first: string values of
    every label but the ones the product assigns itself, booleans and numbers never."""
    found: set[str] = set()
    for key, value in labels.items():
        if key in PRODUCT_LABELS or not isinstance(value, str):
            continue
        found |= _variants(value)
    return sorted(found, key=lambda s: (-len(s), s))


def redact_counted(text: str, secrets: Iterable[str]) -> tuple[str, int]:
    """Remove every whole-word occurrence of every string, case-insensitively, until none is
    left; returns the text and how many replacements were made."""
    return _redact(text, text.lower(), secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    return redact_counted(text, secrets)[0]


def _redact(text: str, lowered: str, secrets: Iterable[str]) -> tuple[str, int]:
    """`redact_counted` with the lowered text given. Patches run to megabytes and a secret is
    rarely in them, so the regex runs only when a secret is present, and then only on the
    lines that hold one (a secret with a line break in it needs the whole text)."""
    present = [s for s in {s.lower() for s in secrets if s} if s in lowered]
    pattern = _alternation(present)
    if pattern is None:
        return text, 0
    if any("\n" in s for s in present):
        return _until_stable(pattern, text)
    return _redact_lines(text, lowered, pattern, present)


def _redact_lines(
    text: str, lowered: str, pattern: re.Pattern[str], present: list[str]
) -> tuple[str, int]:
    lines, total = text.split("\n"), 0
    for index, line in enumerate(lowered.split("\n")):
        if any(s in line for s in present):
            lines[index], count = _until_stable(pattern, lines[index])
            total += count
    return "\n".join(lines), total


def _until_stable(pattern: re.Pattern[str], text: str) -> tuple[str, int]:
    total = 0
    for _ in range(8):  # a replacement can join two halves into a new match; bounded
        text, count = pattern.subn(REDACTED, text)
        total += count
        if count == 0:
            break
    return text, total


def _alternation(secrets: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not ordered:
        return None
    words = "|".join(re.escape(s) for s in ordered)
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{words})(?![A-Za-z0-9_])", re.IGNORECASE)


def blind_patch_counted(
    patch: str, labels: Mapping[str, Any], secrets: list[str] | None = None
) -> tuple[str, int]:
    """The diff as the judge may see it, and how many label strings were redacted from it
    (`secrets`: the labels' strings, when the caller already has them)."""
    body, trailers = strip_git_metadata(patch), 0
    lowered = body.lower()
    if any(marker in lowered for marker in TRAILER_MARKERS):  # the regex only when needed
        body, trailers = TRAILER.subn(REDACTED, body)
        lowered = body.lower()
    body, count = _redact(body, lowered, label_strings(labels) if secrets is None else secrets)
    return body, trailers + count


def blind_patch(patch: str, labels: Mapping[str, Any]) -> str:
    return blind_patch_counted(patch, labels)[0]
