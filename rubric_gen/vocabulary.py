"""Words that belong to the repository, so the lint does not take them for test references.

A rubric for `pytest-dev/pytest` must be able to say "pytest" and `src/_pytest/python.py`; one
for scikit-learn must be able to say "(train, test) splits" when the issue does. What stays a
leak: test files and test function names, and phrases about tests passing — whatever the task
text says.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

PATH = re.compile(r"[\w.-]*(?:/[\w.-]+)+|\b[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|java|go|rs|rb|c|h)\b")
TEST_PATH = re.compile(
    r"(^|/)(tests?|testing|__tests__)/|(^|/)(test_[\w-]*|[\w-]*_tests?|"
    r"conftest|[\w-]*\.(test|spec))\.\w+$"
)
WORD = re.compile(r"[A-Za-z_][\w-]*")
# Bigrams that always speak of a test suite, even when the issue uses them too.
TEST_PHRASES = frozenset(
    {
        ("tests", "pass"),
        ("test", "passes"),
        ("tests", "passing"),
        ("test", "suite"),
        ("the", "tests"),
        ("the", "test"),
        ("new", "test"),
        ("new", "tests"),
        ("unit", "test"),
        ("unit", "tests"),
        ("test", "file"),
        ("test", "case"),
        ("test", "cases"),
        ("existing", "tests"),
        ("a", "test"),
        ("tests", "fail"),
        ("test", "fails"),
        ("regression", "test"),
    }
)


@dataclass(frozen=True)
class Vocabulary:
    """Identifiers the repository owns (its name's parts, words of the task text) and the
    task text's bigrams."""

    words: frozenset[str] = frozenset()
    bigrams: frozenset[tuple[str, str]] = frozenset()

    def excuses(self, before: str, word: str, after: str) -> bool:
        """Is this occurrence of a test-like word the repository's own vocabulary?"""
        word, pairs = word.lower(), {(before.lower(), word.lower()), (word.lower(), after.lower())}
        if word in self.words and word not in {"test", "tests", "testing"}:
            return True
        return bool(pairs & self.bigrams) and not pairs & TEST_PHRASES


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in WORD.findall(text)]


def vocabulary(repo: str | None, texts: list[str | None]) -> Vocabulary:
    words = set(_tokens((repo or "").replace("/", " ").replace("-", " ")))
    words |= set(_tokens(repo or ""))
    bigrams: set[tuple[str, str]] = set()
    for text in filter(None, texts):
        tokens = _tokens(text)
        words |= set(tokens)
        bigrams |= set(itertools.pairwise(tokens))
    return Vocabulary(frozenset(words), frozenset(bigrams))


def without_source_paths(text: str) -> str:
    """Blank out paths of non-test files: `src/_pytest/python.py` is code, not a test."""
    return PATH.sub(lambda m: m.group(0) if TEST_PATH.search(m.group(0)) else " ", text)
