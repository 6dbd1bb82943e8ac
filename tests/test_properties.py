"""Property-based tests: the diff parser never throws anything but DiffError, redaction
removes every label string wherever and however it appears, and each fast path (line-wise
redaction, whitespace folding, line starts by `str.find`) agrees with the plain regex."""

from __future__ import annotations

import re
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.blinding import (
    MIN_LABEL_CHARS,
    _alternation,
    _until_stable,
    blind_patch,
    label_strings,
    redact_counted,
)
from judge.diff import DiffError, ParsedDiff, parse_diff
from judge.diff_budget import line_starts
from judge.evidence import _collapse, normalised_diff, quote_in_diff

DIFF_LINES = st.sampled_from(
    [
        "diff --git a/x.py b/x.py",
        "--- a/x.py",
        "+++ b/x.py",
        "--- /dev/null",
        "+++ /dev/null",
        "@@ -1,2 +1,3 @@",
        "@@ -1 +1 @@ def f():",
        "@@ broken @@",
        "+added",
        "-removed",
        " context",
        "",
        "\\ No newline at end of file",
        "new file mode 100644",
        "deleted file mode 100644",
        "rename from a",
        "rename to b",
        "Binary files a/x and b/x differ",
        "GIT binary patch",
        "From 1234 Mon Sep 17 00:00:00 2001",
        "-- ",
        "\r",
        "\x00",
        "\udcff",
    ]
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DIFF_LINES, max_size=40).map("\n".join) | st.text(max_size=400))
def test_parser_returns_a_diff_or_a_clear_error(text):
    try:
        parsed = parse_diff(text)
    except DiffError as exc:
        assert str(exc)
        return
    assert isinstance(parsed, ParsedDiff)
    for file in parsed.files:
        assert isinstance(file.path, str)
        for hunk in file.hunks:
            assert all(line[:1] in "+- " for line in hunk.lines)


LABEL = st.text(
    alphabet=string.ascii_letters + string.digits + "-_./ ", min_size=MIN_LABEL_CHARS, max_size=20
).filter(lambda s: len(s.strip()) >= MIN_LABEL_CHARS)


LINE_CHARS = "".join(c for c in string.printable if c not in "\r\n\x0b\x0c")  # no line breaks


def _case(text: str, pattern: list[bool]) -> str:
    return "".join(
        c.upper() if up else c.lower() for c, up in zip(text, pattern * len(text), strict=False)
    )


def _whole_word(secret: str, text: str) -> bool:
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(secret)}(?![A-Za-z0-9_])"
    return re.search(pattern, text, re.IGNORECASE) is not None


@settings()
@given(
    labels=st.lists(LABEL, min_size=1, max_size=3),
    filler=st.text(max_size=60),
    cases=st.lists(st.booleans(), min_size=1, max_size=8),
    position=st.integers(0, 60),
)
def test_redaction_removes_every_label_in_any_case_and_place(labels, filler, cases, position):
    """Every identifying label string standing as a word of its own is gone, in any case and
    place; text that holds none of them as a word is left exactly as it was."""
    where = min(position, len(filler))
    planted = " ".join(_case(label, cases) for label in labels)
    text = f"{filler[:where]} {planted} {filler[where:]}"
    named = {f"k{i}": label for i, label in enumerate(labels)}
    patch = f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+{text}\n"
    blinded = blind_patch(patch, named)
    secrets = label_strings(named)
    for secret in secrets:
        assert not _whole_word(secret, blinded.split("\n", 5)[-1])
    untouched = f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+{filler}\n"
    if not any(_whole_word(s, filler) for s in secrets):
        assert blind_patch(untouched, named) == untouched


@settings()
@given(
    st.lists(st.text(alphabet=LINE_CHARS, max_size=30), min_size=1, max_size=10),
    st.integers(0, 9),
)
def test_a_line_copied_from_the_diff_always_verifies(lines, index):
    diff = "\n".join("+" + line for line in lines)
    chosen = lines[index % len(lines)]
    if chosen.strip():
        assert quote_in_diff(chosen, normalised_diff(diff))


REDACTION_TEXT = st.text(alphabet="abAB-_ .\nİ", max_size=200)
SECRETS = st.lists(st.text(alphabet="abAB-_ \nİ", min_size=1, max_size=6), max_size=4)


@given(REDACTION_TEXT, SECRETS)
def test_line_wise_redaction_equals_redacting_the_whole_text(text, secrets):
    """The regex runs only on lines holding a secret; that must change nothing."""
    pattern = _alternation({s.lower() for s in secrets})
    whole = _until_stable(pattern, text) if pattern else (text, 0)
    assert redact_counted(text, secrets) == whole


@given(st.text(max_size=300))
def test_whitespace_folds_as_the_regex_did(text):
    assert _collapse(text) == re.sub(r"\s+", " ", text).strip()


@given(st.text(alphabet="@ d-+\n", max_size=120), st.sampled_from(["@@ ", "diff --git ", "-"]))
def test_line_starts_are_where_a_multiline_regex_matches(text, prefix):
    expected = [m.start() for m in re.finditer("^" + re.escape(prefix), text, re.MULTILINE)]
    assert line_starts(text, prefix) == expected
