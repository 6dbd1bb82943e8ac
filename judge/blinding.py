"""Blinding: the judge must not be able to tell which model, harness or route wrote a patch.

Git metadata (format-patch headers, commit messages, trailers, signatures) goes, and every label
value of the candidate is redacted wherever it appears, in any letter case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[redacted]"
MIN_LABEL_CHARS = 4  # shorter values ("gpt", "v1") would shred ordinary code
TRAILER = re.compile(
    r"(co-authored-by:|signed-off-by:|generated with|🤖 generated)[^\n]*", re.IGNORECASE
)
_DIFF_START = re.compile(r"^(diff --git |--- \S)", re.MULTILINE)
_SIGNATURE = re.compile(r"\n-- \n[^\n]*\n?\s*$")


def strip_git_metadata(patch: str) -> str:
    """Drop everything before the first file header and a trailing format-patch signature."""
    match = _DIFF_START.search(patch)
    body = patch[match.start() :] if match else patch
    return _SIGNATURE.sub("\n", body)


def label_strings(labels: Mapping[str, Any]) -> list[str]:
    """Every string label value worth redacting, plus its last path component
    (`org/acme-coder-7b` also hides `acme-coder-7b`), longest first."""
    found: set[str] = set()
    for value in labels.values():
        if not isinstance(value, str):
            continue
        for variant in (value.strip(), value.strip().rstrip("/").rsplit("/", 1)[-1]):
            if len(variant) >= MIN_LABEL_CHARS:
                found.add(variant)
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """Remove every occurrence of every string, case-insensitively, until none is left."""
    pattern = _alternation(secrets)
    if pattern is None:
        return text
    for _ in range(8):  # a replacement can join two halves into a new match; bounded
        text, count = pattern.subn(REDACTED, text)
        if count == 0:
            break
    return text


def _alternation(secrets: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not ordered:
        return None
    return re.compile("|".join(re.escape(s) for s in ordered), re.IGNORECASE)


def blind_patch(patch: str, labels: Mapping[str, Any]) -> str:
    """The diff as the judge may see it."""
    body = TRAILER.sub(REDACTED, strip_git_metadata(patch))
    return redact(body, label_strings(labels))
