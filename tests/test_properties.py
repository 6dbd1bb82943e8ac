"""Property-based tests: the diff parser never throws anything but DiffError, and redaction
removes every label string wherever and however it appears."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.blinding import MIN_LABEL_CHARS, blind_patch, label_strings, redact
from judge.diff import DiffError, ParsedDiff, parse_diff
from judge.evidence import normalised_diff, quote_in_diff

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


@settings()
@given(
    labels=st.lists(LABEL, min_size=1, max_size=3),
    filler=st.text(max_size=60),
    cases=st.lists(st.booleans(), min_size=1, max_size=8),
    position=st.integers(0, 60),
)
def test_redaction_removes_every_label_in_any_case_and_place(labels, filler, cases, position):
    where = min(position, len(filler))
    text = filler[:where] + "".join(_case(label, cases) for label in labels) + filler[where:]
    patch = f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+{text}\n"
    blinded = blind_patch(patch, {f"k{i}": label for i, label in enumerate(labels)})
    for secret in label_strings({f"k{i}": label for i, label in enumerate(labels)}):
        assert secret.lower() not in blinded.lower()
    for label in labels:
        assert label.strip().lower() not in redact(text, [label.strip()]).lower()


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
