"""Rubric lint: each rule, with the finding the generator is sent back."""

from __future__ import annotations

import pytest

from judge.config import RubricSettings
from rubric_gen.generator import NumberedDraft
from rubric_gen.lint import lint_rubric

SETTINGS = RubricSettings()

GOOD = [
    (
        "Does the patch change `separability_matrix` in `astropy/modeling/separable.py`?",
        3,
        "localization",
    ),
    (
        "Does `_cstack` copy the right operand's matrix instead of filling it with ones?",
        5,
        "root_cause",
    ),
    ("Do nested compound models report the same separability as flat ones?", 4, "behavior"),
    ("Does `_cstack` still handle a plain `ndarray` operand?", 2, "edge_cases"),
    ("Does the patch avoid unrelated changes outside `astropy/modeling`?", 1, "scope"),
]


def _items(rows):
    return [
        NumberedDraft(id=f"c{i}", question=q, weight=w, category=c)
        for i, (q, w, c) in enumerate(rows, start=1)
    ]


def test_a_good_rubric_passes():
    assert lint_rubric(_items(GOOD), SETTINGS) == []


@pytest.mark.parametrize(
    ("replacement", "finding"),
    [
        (("Is the patch correct?", 3, "behavior"), "c4 is vague"),
        (("Does the fix work as expected?", 3, "behavior"), "c4 is vague"),
        (("Is it good quality?", 1, "code_quality"), "c4 is vague"),
        (("Does it address the issue properly?", 3, "behavior"), "c4 is vague"),
        (
            ("Does the patch match the reference patch in `separable.py`?", 3, "behavior"),
            "c4 mentions the reference",
        ),
        (
            ("Does `test_separable` pass?", 3, "behavior"),
            "c4 mentions the reference change or tests",
        ),
        (
            ("Are new tests added for `_cstack`?", 3, "behavior"),
            "mentions the reference change or tests",
        ),
        (
            ("Does the patch follow the merged fix in `_cstack`?", 3, "behavior"),
            "mentions the reference",
        ),
        (
            (
                "Does the patch change `separability_matrix` in `astropy/modeling/separable.py`?",
                3,
                "localization",
            ),
            "c4 repeats c1",
        ),
        (
            ("Does the patch avoid unrelated changes to `setup.cfg`?", 4, "scope"),
            "scope and code quality weigh at most 2",
        ),
        (("Does `_cstack` keep its signature?", 0, "edge_cases"), "c4 has weight 0"),
        (("Does `_cstack` keep its signature?", 9, "edge_cases"), "c4 has weight 9"),
    ],
)
def test_bad_criteria_are_named(replacement, finding):
    rows = [*GOOD[:3], replacement, GOOD[4]]
    findings = lint_rubric(_items(rows), SETTINGS)
    assert any(finding in f for f in findings), findings


@pytest.mark.parametrize(("count", "ok"), [(4, False), (5, True), (12, True), (13, False)])
def test_criterion_count(count, ok):
    rows = [(f"Does `symbol_{i}` change in `pkg/mod_{i}.py`?", 3, "behavior") for i in range(count)]
    findings = lint_rubric(_items(rows), SETTINGS)
    assert (findings == []) is ok
    if not ok:
        assert f"the rubric has {count} criteria: write 5 to 12" in findings


def test_duplicate_ids_are_found():
    items = _items(GOOD)
    items[1] = NumberedDraft(id="c1", question=GOOD[1][0], weight=5, category="root_cause")
    assert "criterion id c1 is used more than once" in lint_rubric(items, SETTINGS)


def test_vague_wording_with_a_concrete_anchor_passes():
    rows = [*GOOD[:3], ("Does it work as expected?", 3, "behavior"), GOOD[4]]
    items = _items(rows)
    items[3] = NumberedDraft(
        id="c4",
        question=rows[3][0],
        weight=3,
        category="behavior",
        anchors=["astropy/modeling/separable.py"],
    )
    assert lint_rubric(items, SETTINGS) == []
