"""Checking that a judge's evidence quote really is in the diff it was shown.

Models reflow whitespace and drop or keep the diff's `+`/`-` markers at will, so both sides are
compared with the markers removed and whitespace collapsed. Each quoted line, and each part of
a line around a `...` elision, must occur in the diff: a model quoting the new version of a hunk
skips its removed lines, and that is still a faithful quote.
"""

from __future__ import annotations

import re

_ELISION = re.compile(r"\.\.\.|…")


def _collapse(text: str) -> str:
    return " ".join(text.split())  # str.split() and `\s` share one definition of whitespace


def _body(line: str) -> str:
    return line[1:] if line[:1] in ("+", "-", " ") else line


def normalised_diff(diff: str) -> str:
    """The diff as one searchable line: markers off, whitespace folded."""
    return _collapse(" ".join(_body(line) for line in diff.splitlines()))


def _quoted_body(line: str) -> str:
    """A quoted line without its diff marker, unless the marker is all there is (`-`)."""
    body = _body(line)
    return body if body.strip() else line


def quote_in_diff(quote: str, searchable_diff: str) -> bool:
    """True when every non-trivial fragment of the quote occurs in the normalised diff."""
    parts = [
        _collapse(part)
        for line in quote.strip().splitlines()
        for part in _ELISION.split(_quoted_body(line.strip()))
    ]
    fragments = [f for f in parts if f]
    return bool(fragments) and all(f in searchable_diff for f in fragments)
