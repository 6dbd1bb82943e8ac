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


PYTEST_TASK = (
    "pytest-dev/pytest",
    "`pytest --collect-only` crashes on a package whose __init__.py imports a missing module. "
    "With scikit-learn style (train, test) splits the fixture ids are wrong.",
)


@pytest.mark.parametrize(
    ("question", "needs_vocabulary"),
    [
        # a path of non-test code is never a test reference
        ("Does the patch change `TestCaseFunction.runtest` in `src/_pytest/unittest.py`?", False),
        ("Does pytest report the import error of `__init__.py` instead of crashing?", True),
        ("Does `pytest --collect-only` list the package's modules after the change?", True),
        ("Do (train, test) splits keep their fixture ids in `src/_pytest/fixtures.py`?", True),
    ],
)
def test_the_repositorys_own_words_are_not_test_references(question, needs_vocabulary):
    vocabulary = task_vocabulary_of(*PYTEST_TASK)
    rows = [(question, 3, "behavior"), *GOOD[1:]]
    assert lint_rubric(_items(rows), SETTINGS, vocabulary) == []
    refused = any(
        "mentions the reference change or tests" in f for f in lint_rubric(_items(rows), SETTINGS)
    )
    assert refused == needs_vocabulary


@pytest.mark.parametrize(
    "question",
    [
        "Does the patch add `test_collect_broken_init` to `testing/test_collection.py`?",
        "Do the tests pass after the change to `src/_pytest/python.py`?",
        "Does the new test in `testing/python/collect.py` cover the crash?",
        "Does the patch make `test_package_collection` in `src/_pytest/python.py` pass?",
        "Does the change match the reference patch in `src/_pytest/python.py`?",
    ],
)
def test_real_test_references_are_still_refused(question):
    vocabulary = task_vocabulary_of(*PYTEST_TASK)
    findings = lint_rubric(_items([(question, 3, "behavior"), *GOOD[1:]]), SETTINGS, vocabulary)
    assert findings and "c1 mentions the reference change or tests" in findings[0]


def task_vocabulary_of(repo, text):
    from rubric_gen.vocabulary import vocabulary

    return vocabulary(repo, [text])


@pytest.mark.parametrize(
    "question",
    [
        "If the patch catches `KeyError`, does it log the missing key in `load()`?",
        "When `strict` is set, does `parse()` in `cfg.py` raise `ValueError`?",
        "Does `parse()` in `cfg.py` raise `ValueError`, if the input is empty?",
    ],
)
def test_conditional_criteria_are_refused(question):
    findings = lint_rubric(_items([(question, 3, "behavior"), *GOOD[1:]]), SETTINGS)
    assert findings == [f"c1 is conditional ({question!r}): ask one question with one outcome"]


def test_preservation_criteria_need_anchors_and_a_small_weight():
    rows = [*GOOD[:4], ("Does `separability_matrix` keep its return type?", 4, "preservation")]
    findings = lint_rubric(_items(rows), SETTINGS)
    assert "c5 is a preservation criterion without anchors: name what must keep working" in findings
    assert "c5 is a preservation criterion with weight 4: at most 3" in findings
    items = _items([*GOOD[:4], ("Does `separability_matrix` keep its return type?", 2,
                                "preservation")])  # fmt: skip
    items[-1] = NumberedDraft(
        id="c5",
        question=items[-1].question,
        weight=2,
        category="preservation",
        anchors=["separability_matrix"],
    )
    assert lint_rubric(items, SETTINGS) == []
