"""The judge's view of the repository: code around the change and static facts, read at the
base commit of a repository the test builds (a later "fix" commit never shows)."""

from __future__ import annotations

import pytest

from judge.records import Task
from judge.repo.facts import Fact
from judge.repo.view import CodeViewer


def _task(base: str, repo: str = "calc/calc") -> Task:
    return Task(task_id="calc-1", description="add() subtracts", repo=repo, base_commit=base)


def _patch(path: str, old_start: int, lines: list[str]) -> str:
    """A hunk of context/removed/added lines (' ', '-', '+' prefixes) at `old_start`."""
    old = sum(1 for x in lines if x[0] in " -")
    new = sum(1 for x in lines if x[0] in " +")
    body = "".join(x + "\n" for x in lines)
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{old_start},{old} +{old_start},{new} @@\n{body}"
    )


CLEAN = _patch("calc/ops.py", 6, ["-    total = a - b", "+    total = a + b", "     return total"])
UNDEFINED = _patch(
    "calc/ops.py", 6, ["-    total = a - b", "+    total = fsum_exact(a, b)", "     return total"]
)
BROKEN = _patch(
    "calc/ops.py", 6, ["-    total = a - b", "+    total = (a + b", "     return total"]
)
ARITY = _patch(
    "calc/report.py", 8, ["-        out = add(out, x)", "+        out = add(out, x, 0)",
                          "     return out"],
)  # fmt: skip
KEYWORD = _patch(
    "calc/ops.py", 6, ["-    total = a - b", "+    total = scale(a + b, 1, clip=True)",
                       "     return total"],
)  # fmt: skip
NOT_APPLYING = _patch(
    "calc/ops.py", 6, ["-    total = a * b", "+    total = a + b", "     return total"]
)
JS_BROKEN = _patch(
    "web/app.js",
    1,
    [" function greet(name) {", "-  return 'hi ' + name;", "+  return 'hi ' + (name;", " }"],
)
UNUSED_IMPORT = _patch("calc/ops.py", 1, ["+import json", " import math"])
RE_COMPILE = _patch(  # an attribute call on another object is never matched to `compile`
    "calc/fmt.py", 8, ["     def render(self):", '+        pattern = re.compile("x", re.I)',
                       '         return self.compile("x")'],
)  # fmt: skip
SELF_METHOD = _patch(
    "calc/fmt.py", 8, ["     def render(self):", '-        return self.compile("x")',
                       '+        return self.compile("x", "y")'],
)  # fmt: skip
NEW_SCRIPT = (  # a reproduction script at the root is not the product
    "diff --git a/reproduce.py b/reproduce.py\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/reproduce.py\n@@ -0,0 +1,2 @@\n+import os\n+print(undefined_thing)\n"
)
BINARY = (  # a binary section cannot be applied without full index lines: it is left out
    "diff --git a/data.fits b/data.fits\nnew file mode 100644\nindex 0000000..1111111\n"
    "GIT binary patch\nliteral 12\nTcmZ?wbhEHbWMp7qVBi1%00031\n\nliteral 0\nHcmV?d00001\n\n" + CLEAN
)


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        (CLEAN, []),
        (UNDEFINED, [("calc/ops.py", "lint", 6, "Undefined name `fsum_exact` (F821, new)")]),
        (BROKEN, [("calc/ops.py", "syntax_error", None, "does not parse after the patch")]),
        (ARITY, [("calc/report.py", "call_mismatch", 8,
                  "call to `add` does not match `def add(a, b):`: 3 positional arguments, "
                  "the definition takes 2")]),
        (KEYWORD, [("calc/ops.py", "call_mismatch", 6,
                    "call to `scale` does not match `def scale(value, factor, *, clamp=False):`:"
                    " unknown keyword argument 'clip'")]),
        (NOT_APPLYING, [("(patch)", "does_not_apply", None, "the patch does not apply")]),
        (JS_BROKEN, [("web/app.js", "syntax_error", 2, "does not parse after the patch")]),
        (UNUSED_IMPORT,
         [("calc/ops.py", "lint_warning", 1, "`json` imported but unused (F401, new)")]),
        (RE_COMPILE, []),
        (SELF_METHOD, [("calc/fmt.py", "call_mismatch", 9,
                        "call to `compile` does not match `def compile(self, fmt):`: "
                        "2 positional arguments, the definition takes 1")]),
        (NEW_SCRIPT, []),
        (BINARY, []),
    ],
)  # fmt: skip
def test_static_facts_are_exact(calc_repo, patch, expected):
    repos_dir, base, _ = calc_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(_task(base), patch)
    assert view.available
    found = [(f.path, f.kind, f.line, f.message) for f in view.facts]
    assert len(found) == len(expected), found
    for (path, kind, line, message), fact in zip(expected, view.facts, strict=True):
        assert (fact.path, fact.kind) == (path, kind)
        assert line is None or fact.line == line
        assert fact.message.startswith(message)


def test_the_whole_pre_change_body_is_shown_at_the_base_commit_only(calc_repo):
    repos_dir, base, _ = calc_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(_task(base), CLEAN)
    text = view.context_text
    assert '"""Add two numbers."""' in text and "total = a - b" in text  # whole body, before
    assert "secret_fixed_sum" not in text  # the fix commit is HEAD: never read
    assert {"path": "calc/ops.py", "name": "add", "kind": "changed_body", "lines": [4, 7]} in (
        view.context
    )
    # the caller of the changed definition is shown by signature and call line
    assert any(c["kind"] == "caller" and c["name"] == "summary" for c in view.context)
    assert "out = add(out, x)" in text


def test_callee_signatures_are_shown(calc_repo):
    repos_dir, base, _ = calc_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(_task(base), KEYWORD)
    assert "def scale(value, factor, *, clamp=False):" in view.context_text
    assert '"""Multiply value by factor."""' in view.context_text


def test_budget_caps_and_ranks_the_context(calc_repo):
    repos_dir, base, _ = calc_repo
    small = CodeViewer(repos_dir, max_tokens=60).view(_task(base), CLEAN)
    assert [c["kind"] for c in small.context] == ["changed_body"]
    assert len(small.context_text) <= 60 * 4 + 200
    assert small.left_out  # the caller did not fit


@pytest.mark.parametrize(
    ("task", "note"),
    [
        (_task("f" * 40, repo="calc/elsewhere"), "no clone of 'calc/elsewhere'"),
        (_task("HEAD"), "no usable base commit"),
        (_task("--output=/tmp/x"), "no usable base commit"),
    ],
)
def test_without_a_clone_or_commit_the_view_says_so(calc_repo, task, note):
    repos_dir, _, _ = calc_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(task, CLEAN)
    assert not view.available and view.note.startswith(note)
    assert view.facts == [] and view.context_text == ""


def test_views_are_cached_per_base_commit_and_patch(calc_repo, tmp_path):
    repos_dir, base, _ = calc_repo
    viewer = CodeViewer(repos_dir, max_tokens=2000, cache_dir=tmp_path / "views")
    first = viewer.view(_task(base), UNDEFINED)
    assert len(list((tmp_path / "views").glob("*.json"))) == 1
    assert not list((tmp_path / "views").glob("*.tmp"))  # written beside, then renamed
    (repos_dir / "calc" / "calc" / ".git").rename(tmp_path / "moved")  # the clone is gone
    assert viewer.view(_task(base), UNDEFINED) == first  # answered from the cache
    assert isinstance(first.facts[0], Fact)


JAVA_BODY = _patch(
    "shop/Cart.java", 7, ["-        total = total - price;", "+        total = total + price;",
                          "         return total;"],
)  # fmt: skip
JAVA_FIELD = _patch(
    "shop/Cart.java", 4, ["-    private int total = 0;", "+    private int total = 1;"]
)
TS_BODY = _patch("web/cart.ts", 2, ["-  return price * 0.9;", "+  return price * 0.8;", " };"])


@pytest.mark.parametrize(
    ("patch", "body", "lines", "caller", "shown"),
    [
        (JAVA_BODY, "Cart.add", [6, 9], "Cart.checkout", ["public int add(int price) {",
                                                          "return add(0) * 2;"]),
        (TS_BODY, "discount", [1, 3], "pay", ["export const discount = (price: number)",
                                              "return discount(price) + 1;"]),
    ],
)  # fmt: skip
def test_java_and_typescript_show_the_changed_function_and_its_callers(
    poly_repo, patch, body, lines, caller, shown
):
    repos_dir, base = poly_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(_task(base, "shop/shop"), patch)
    assert {"path": patch.split(" b/")[1].split("\n")[0], "name": body,
            "kind": "changed_body", "lines": lines} in view.context  # fmt: skip
    assert [c["name"] for c in view.context if c["kind"] == "caller"] == [caller]
    assert all(text in view.context_text for text in shown)
    assert not any(c["kind"] == "window" for c in view.context)


def test_a_java_change_outside_any_method_gets_the_lines_around_it(poly_repo):
    repos_dir, base = poly_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(_task(base, "shop/shop"), JAVA_FIELD)
    assert [c["kind"] for c in view.context] == ["window"]  # not the whole class
    assert "private int total = 0;" in view.context_text
    assert view.context[0]["lines"] == [1, 14]


TS_CALLS = _patch(
    "web/cart.ts", 6, ["-  return discount(price) + 1;", "+  return discount(price) + tax(price);",
                       " }"],
)  # fmt: skip


def test_typescript_callees_are_found_in_the_file_and_across_the_repository(poly_repo):
    repos_dir, base = poly_repo
    view = CodeViewer(repos_dir, max_tokens=2000).view(_task(base, "shop/shop"), TS_CALLS)
    callees = [(c["path"], c["name"]) for c in view.context if c["kind"] == "callee"]
    assert callees == [("web/cart.ts", "discount"), ("web/tax.ts", "tax")]
    assert "1 function tax(amount: number): number" in view.context_text
    assert {"path": "web/cart.ts", "name": "pay", "kind": "changed_body", "lines": [5, 7]} in (
        view.context
    )
