"""Calls in added lines checked against the signature they call, at the base commit: too many
positional arguments, a missing required one, an unknown keyword. Only calls that resolve to
exactly one repository definition are checked, so a false alarm needs a real mismatch."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from judge.repo.python_defs import Definition


@dataclass(frozen=True)
class Mismatch:
    line: int
    name: str
    problem: str
    signature: str


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool):
    args = node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    defaults = len(args.defaults)
    if bound and positional:
        positional = positional[1:]
    required = positional[: len(positional) - defaults] if defaults else positional
    keywords = {a.arg for a in args.args} | {a.arg for a in args.kwonlyargs}
    kw_required = {
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None
    }
    return positional, required, keywords, kw_required


def _problem(call: ast.Call, target: Definition, bound: bool) -> str | None:
    node = target.node
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None  # *args / **kwargs at the call site: cannot count
    positional, required, keywords, kw_required = _parameters(node, bound)
    given = {k.arg for k in call.keywords}
    if node.args.vararg is None and len(call.args) > len(positional):
        return f"{len(call.args)} positional arguments, the definition takes {len(positional)}"
    unknown = sorted(given - keywords)
    if node.args.kwarg is None and unknown:
        return f"unknown keyword argument {unknown[0]!r}"
    missing = [p for p in required[len(call.args) :] if p not in given]
    missing += sorted(kw_required - given)
    return f"missing required argument {missing[0]!r}" if missing else None


def _static(target: Definition) -> bool:
    decorators = getattr(target.node, "decorator_list", [])
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)


def _callee(call: ast.Call) -> tuple[str, bool] | None:
    """The called name, and whether it is bound (a method call on an object)."""
    if isinstance(call.func, ast.Name):
        return call.func.id, False
    if isinstance(call.func, ast.Attribute):
        return call.func.attr, True
    return None


def mismatches(source: str, added: set[int], resolve) -> list[Mismatch]:
    """`resolve(name)` gives the single repository definition of `name`, or None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno not in added:
            continue
        called = _callee(node)
        target = resolve(called[0]) if called else None
        if target is None:
            continue
        method = "." in target.qualname
        if target.kind == "class" or (method and not called[1]):
            continue
        problem = _problem(node, target, method and not _static(target))
        if problem:
            found.append(Mismatch(node.lineno, called[0], problem, target.signature))
    return found
