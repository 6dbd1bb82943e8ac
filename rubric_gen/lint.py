"""Deterministic rubric lint: the rules a rubric must pass before it is frozen.

Each rule returns human-readable findings that are also sent back to the generator when it gets
its one chance to fix the rubric, so every finding names the criterion and says what to change.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from judge.config import RubricSettings
from rubric_gen.vocabulary import Vocabulary, without_source_paths


class CriterionLike(Protocol):
    """What lint reads: a frozen `Criterion`, or a generator's draft before it is frozen
    (whose weight may still be out of range)."""

    id: str
    question: str
    weight: int
    category: str
    anchors: list[str]


Criteria = Sequence[CriterionLike]

VAGUE = re.compile(
    r"\b(is|are) (correct|right|good|proper|valid)\b|\bcorrectly\b|\bproperly\b|"
    r"\bworks?( as (expected|intended))?\b|\bgood (code )?quality\b|\bbest practices?\b|"
    r"\b(fix|fixes|resolve|resolves|address|addresses|solve|solves) "
    r"(the|this) (issue|bug|problem)\b",
    re.IGNORECASE,
)
CONCRETE = re.compile(
    r"`[^`]+`"  # anything in backticks
    r"|\b\w+\.\w+\b"  # dotted names and file names
    r"|\b\w+\(\)"  # calls
    r"|\b[a-z0-9]+_[a-z0-9_]+\b"  # snake_case
    r"|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b"  # camelCase, CamelCase
    r"|'[^']+'|\"[^\"]+\""  # quoted literals
)
LEAKS = re.compile(
    r"\b(reference|gold(en)?|ground[- ]truth|merged|upstream|official|original) "
    r"(patch|fix|change|diff|solution|implementation)\b"
    r"|\btests?\b|\btesting\b|\btest_\w+|\bpytest\b|\bunittest\b|FAIL_TO_PASS|PASS_TO_PASS",
    re.IGNORECASE,
)
WORD = re.compile(r"[a-z0-9_]+")
WORD_OR_NOTHING = re.compile(r"[A-Za-z_][\w-]*")
MIN_WORDS = 5
DUPLICATE_JACCARD = 0.85
MAX_SCOPE_WEIGHT = 2


def _is_concrete(text: str) -> bool:
    return CONCRETE.search(text) is not None


def vague_findings(criteria: Criteria) -> list[str]:
    findings = []
    for c in criteria:
        if _is_concrete(c.question) or c.anchors:
            continue
        if VAGUE.search(c.question) or len(WORD.findall(c.question.lower())) < MIN_WORDS:
            findings.append(
                f"{c.id} is vague ({c.question!r}): name the file, function, behaviour or "
                "edge case it checks"
            )
    return findings


def _neighbours(text: str, start: int, end: int) -> tuple[str, str]:
    before = WORD_OR_NOTHING.findall(text[:start])
    after = WORD_OR_NOTHING.findall(text[end:])
    return (before[-1] if before else "", after[0] if after else "")


def _leaks(text: str, vocabulary: Vocabulary) -> bool:
    """A test reference that is not the repository's own word or path."""
    text = without_source_paths(text)
    for match in LEAKS.finditer(text):
        before, after = _neighbours(text, match.start(), match.end())
        if not (match.group(0).isalpha() and vocabulary.excuses(before, match.group(0), after)):
            return True
    return False


def leak_findings(criteria: Criteria, vocabulary: Vocabulary | None = None) -> list[str]:
    vocabulary = vocabulary or Vocabulary()
    findings = []
    for c in criteria:
        texts = [c.question, *c.anchors]
        if any(_leaks(t, vocabulary) for t in texts):
            findings.append(
                f"{c.id} mentions the reference change or tests ({c.question!r}): criteria "
                "must be answerable from a candidate diff alone"
            )
    return findings


CONDITIONAL = re.compile(
    r"^\W*(if|when|whenever|in case|assuming|unless|should)\b|,\s*(if|when|unless)\b",
    re.IGNORECASE,
)
MAX_PRESERVATION_WEIGHT = 3


def conditional_findings(criteria: Criteria) -> list[str]:
    """ "If the patch catches X, does it …?" splits judges when the condition does not hold."""
    return [
        f"{c.id} is conditional ({c.question!r}): ask one question with one outcome"
        for c in criteria
        if CONDITIONAL.search(c.question)
    ]


def preservation_findings(criteria: Criteria) -> list[str]:
    """A preservation criterion is checked mechanically through its anchors."""
    findings = []
    for c in criteria:
        if c.category != "preservation":
            continue
        if not c.anchors:
            findings.append(f"{c.id} is a preservation criterion without anchors: name what "
                            "must keep working")  # fmt: skip
        if c.weight > MAX_PRESERVATION_WEIGHT:
            findings.append(f"{c.id} is a preservation criterion with weight {c.weight}: "
                            f"at most {MAX_PRESERVATION_WEIGHT}")  # fmt: skip
    return findings


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def _similar(a_text: str, b_text: str) -> bool:
    a, b = _words(a_text), _words(b_text)
    return bool(a and b) and len(a & b) / len(a | b) >= DUPLICATE_JACCARD


def duplicate_findings(criteria: Criteria) -> list[str]:
    findings = [
        f"{second.id} repeats {first.id}: merge them or ask something else"
        for first, second in itertools.combinations(criteria, 2)
        if _similar(first.question, second.question)
    ]
    duplicate_ids = {c.id for c in criteria if [x.id for x in criteria].count(c.id) > 1}
    findings += [f"criterion id {cid} is used more than once" for cid in sorted(duplicate_ids)]
    return findings


def weight_findings(criteria: Criteria) -> list[str]:
    findings = [
        f"{c.id} has weight {c.weight}: use 1 to 5" for c in criteria if not 1 <= c.weight <= 5
    ]
    findings += [
        f"{c.id} is a {c.category} criterion with weight {c.weight}: scope and code quality "
        f"weigh at most {MAX_SCOPE_WEIGHT}"
        for c in criteria
        if c.category in ("scope", "code_quality") and c.weight > MAX_SCOPE_WEIGHT
    ]
    return findings


REQUIRED_CHECK_FIELDS = {
    "touches_file": ("path",),
    "changes_symbol": ("path", "symbol"),
    "adds_token": ("token",),
    "removes_token": ("token",),
}


def check_findings(criteria: Criteria) -> list[str]:
    """A check must carry the fields its kind needs, or the static answer would be noise."""
    findings = []
    for c in criteria:
        check = getattr(c, "check", None)
        if not check:
            continue
        check = check if isinstance(check, dict) else check.model_dump()
        missing = [f for f in REQUIRED_CHECK_FIELDS[check["kind"]] if not check.get(f)]
        if missing:
            findings.append(f"{c.id} has a {check['kind']} check without {', '.join(missing)}")
    return findings


def lint_rubric(
    criteria: Criteria, settings: RubricSettings, vocabulary: Vocabulary | None = None
) -> list[str]:
    """Every finding; an empty list means the rubric may be frozen. `vocabulary` holds the
    repository's own words, which are not test references."""
    findings = []
    if not settings.min_criteria <= len(criteria) <= settings.max_criteria:
        findings.append(
            f"the rubric has {len(criteria)} criteria: write "
            f"{settings.min_criteria} to {settings.max_criteria}"
        )
    findings += leak_findings(criteria, vocabulary)
    rules: list[Callable[[Criteria], list[str]]] = [
        vague_findings,
        conditional_findings,
        preservation_findings,
        duplicate_findings,
        weight_findings,
        check_findings,
    ]
    for rule in rules:
        findings += rule(criteria)
    return findings
