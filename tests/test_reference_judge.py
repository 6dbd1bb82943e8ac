"""The no-LLM reference rubric and the static answerer, on small real-shaped diffs."""

from __future__ import annotations

import pytest

from judge.code_facts import changed_symbols, definition_name, token_changes, tokens_of
from judge.config import ReferenceSettings
from judge.diff import parse_diff
from judge.judges import ReferenceJudge
from judge.records import Candidate, Task
from judge.rubric import Check
from judge.static_answerer import answer_check
from rubric_gen.generator import RubricFailure
from rubric_gen.reference import changed_old_lines, enclosing_definitions, reference_rubric

GOLD = """diff --git a/django/contrib/auth/backends.py b/django/contrib/auth/backends.py
--- a/django/contrib/auth/backends.py
+++ b/django/contrib/auth/backends.py
@@ -39,6 +39,8 @@ class ModelBackend(BaseBackend):
     def authenticate(self, request, username=None, password=None, **kwargs):
         if username is None:
             username = kwargs.get(UserModel.USERNAME_FIELD)
+        if username is None or password is None:
+            return
         try:
             user = UserModel._default_manager.get_by_natural_key(username)
         except UserModel.DoesNotExist:
diff --git a/tests/auth_tests/test_auth_backends.py b/tests/auth_tests/test_auth_backends.py
--- a/tests/auth_tests/test_auth_backends.py
+++ b/tests/auth_tests/test_auth_backends.py
@@ -1,2 +1,3 @@
 import x
+def test_authenticate_secret_name(): pass
"""
TASK = Task(task_id="django__django-11451", description="d", reference_patch=GOLD)
# every kind of criterion on (the defaults, chosen by cross-validation, leave symbols out)
SETTINGS = ReferenceSettings(file_weight=2, symbol_weight=3, max_symbols=6, max_tokens=8)


def test_reference_rubric_checks_files_symbols_and_tokens():
    rubric = reference_rubric(TASK, SETTINGS)
    checks = [c.check for c in rubric.criteria]
    assert checks[0] == Check(kind="touches_file", path="django/contrib/auth/backends.py")
    assert (
        Check(kind="changes_symbol", path="django/contrib/auth/backends.py", symbol="authenticate")
        in checks
    )
    # `username` and `password` are added but already stand in the context: not distinctive
    assert not [c for c in checks if c.kind in ("adds_token", "removes_token")]
    assert all("test" not in (c.path or "") for c in checks)  # test files never make criteria
    assert all(c.question.startswith("Does the patch") for c in rubric.criteria)
    assert rubric.generator == "reference" and len(rubric.prompt_hash) == 16
    weights = {c.check.kind: c.weight for c in rubric.criteria}
    assert weights["changes_symbol"] > weights["touches_file"]


def _candidate(patch: str) -> Candidate:
    return Candidate(task_id=TASK.task_id, candidate_id="c", patch=patch)


async def test_gold_scores_one_and_unrelated_scores_zero():
    rubric = reference_rubric(TASK, SETTINGS)
    judge = ReferenceJudge()
    gold = await judge.judge(TASK, _candidate(GOLD), rubric, 0)
    other = git("README.rst", "@@ -1 +1 @@\n-a\n+b\n")
    unrelated = await judge.judge(TASK, _candidate(other), rubric, 0)
    assert (gold.score, gold.coverage) == (1.0, 1.0)
    assert unrelated.score == 0.0
    assert all(c.answerer == "static" for c in gold.criteria)
    again = await judge.judge(TASK, _candidate(GOLD), rubric, 1)
    assert [c.answer for c in again.criteria] == [c.answer for c in gold.criteria]  # deterministic


def git(path: str, body: str, extra: str = "", old: str | None = None) -> str:
    """A small git diff of one file: header lines, then hunks."""
    old = old or path
    return f"diff --git a/{old} b/{path}\n{extra}--- a/{old}\n+++ b/{path}\n{body}"


RENAME = "diff --git a/pkg/old.py b/pkg/new.py\nsimilarity index 90%\nrename from pkg/old.py\n"
NEW = (
    "diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x\n"
)
GONE = (
    "diff --git a/g.py b/g.py\ndeleted file mode 100644\n--- a/g.py\n+++ /dev/null\n@@ -1 +0,0 @@\n"
)
BINARY = "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"
AREA = "@@ -1,2 +1,2 @@\n def area(r):\n-    return 3 * r\n+    return 3.14159 * r * r\n"


@pytest.mark.parametrize(
    ("check", "patch", "expected"),
    [
        # renamed, new and deleted files all touch their path
        (Check(kind="touches_file", path="pkg/old.py"), RENAME + "rename to pkg/new.py\n", True),
        (Check(kind="touches_file", path="n.py"), NEW, True),
        (Check(kind="touches_file", path="g.py"), GONE, True),
        # a test-only change never counts
        (
            Check(kind="adds_token", token="frobnicate"),
            git("tests/test_m.py", "@@ -1 +1,2 @@\n x\n+frobnicate()\n"),
            False,
        ),
        # non-Python files are code too
        (
            Check(kind="adds_token", token="max_width"),
            git("web/app.js", "@@ -1 +1,2 @@\n x\n+let max_width = 3;\n"),
            True,
        ),
        # binary patches change nothing a check can read
        (Check(kind="touches_file", path="logo.png"), BINARY, False),
        # CRLF line endings
        (
            Check(kind="adds_token", token="USERNAME_FIELD"),
            git("m.py", "@@ -1 +1,2 @@\n x\n+y = USERNAME_FIELD\n").replace("\n", "\r\n"),
            True,
        ),
        # a hunk without function context: the definition comes from the hunk's own lines
        (Check(kind="changes_symbol", path="m.py", symbol="area"), git("m.py", AREA), True),
        (Check(kind="changes_symbol", path="m.py", symbol="volume"), git("m.py", AREA), False),
        # removing a token means fewer occurrences afterwards
        (
            Check(kind="removes_token", token="legacy_mode"),
            git("m.py", "@@ -1,2 +1,1 @@\n x = 1\n-legacy_mode = True\n"),
            True,
        ),
        (
            Check(kind="removes_token", token="legacy_mode"),
            git("m.py", "@@ -1 +1 @@\n-legacy_mode = True\n+legacy_mode = False\n"),
            False,
        ),
    ],
)
def test_static_answers(check, patch, expected):
    yes, evidence = answer_check(check, parse_diff(patch))
    assert yes is expected
    assert bool(evidence) is expected


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("def authenticate(self, request):", "authenticate"),
        ("    async def run(x):", "run"),
        ("class ModelBackend(BaseBackend):", "ModelBackend"),
        ("static int parse_port(char *s) {", "parse_port"),
        ("if (x) {", None),
        ("", None),
    ],
)
def test_definition_name(line, name):
    assert definition_name(line) == name


def test_token_extraction_ignores_comments_and_stopwords():
    assert tokens_of("    return self.cache_size  # was max_size") == ["cache_size"]
    assert tokens_of('msg = "invalid port"') == ['"invalid port"']
    hunk = parse_diff(GOLD).files[0].hunks[0]
    assert changed_symbols(hunk) == {"authenticate"}
    adds = {c.token for c in token_changes(parse_diff(GOLD).files[0]) if c.kind == "adds"}
    assert "password" not in adds  # already in the context lines: not distinctive


def test_ast_finds_the_exact_enclosing_definition():
    source = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    assert enclosing_definitions(source, {3}) == {"f"}
    assert enclosing_definitions(source, {6, 3}) == {"f", "g"}
    assert enclosing_definitions("def broken(:\n", {1}) == set()
    diff = parse_diff(diff_text("m.py"))
    assert changed_old_lines(diff.files[0]) == {6}
    task = Task(task_id="t", description="d", reference_patch=diff_text("m.py"))
    rubric = reference_rubric(task, SETTINGS, sources={"m.py": source})
    assert {c.check.symbol for c in rubric.criteria if c.check.kind == "changes_symbol"} == {"g"}


def diff_text(path: str) -> str:
    hunk = "@@ -5,2 +5,2 @@\n     def g(self):\n-        return 2\n+        return 3\n"
    return f"--- a/{path}\n+++ b/{path}\n{hunk}"


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (None, "no reference patch"),
        ("not a diff", "not a diff"),
        (git("tests/test_x.py", "@@ -1 +1 @@\n-a\n+b\n"), "changes no non-test code file"),
    ],
)
def test_reference_rubric_failures(patch, message):
    with pytest.raises(RubricFailure, match=message):
        reference_rubric(Task(task_id="t", description="d", reference_patch=patch), SETTINGS)


async def test_empty_and_uncheckable():
    rubric = reference_rubric(TASK, SETTINGS)
    empty = await ReferenceJudge().judge(TASK, _candidate(""), rubric, 0)
    assert (empty.status, empty.score, empty.judge_model) == ("empty", 0.0, "reference")
    bare = rubric.model_copy(
        update={"criteria": [c.model_copy(update={"check": None}) for c in rubric.criteria]}
    )
    unchecked = await ReferenceJudge().judge(TASK, _candidate(GOLD), bare, 0)
    assert (unchecked.score, unchecked.coverage) == (None, 0.0)
    assert "no_checkable_criteria" in unchecked.flags


def test_tokens_common_in_the_file_are_left_out_when_the_source_is_known():
    patch = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n def f(x):\n"
        "+    validate_port(x)\n+    normalise_host(x)\n     return x\n"
    )
    task = Task(task_id="t", description="d", reference_patch=patch)
    plain = reference_rubric(task, SETTINGS)
    assert {c.check.token for c in plain.criteria if c.check.kind == "adds_token"} == {
        "validate_port",
        "normalise_host",
    }
    source = "def f(x):\n    return x\n" + "normalise_host(1)\n" * 6
    informed = reference_rubric(task, SETTINGS, sources={"m.py": source})
    assert {c.check.token for c in informed.criteria if c.check.kind == "adds_token"} == {
        "validate_port"
    }
