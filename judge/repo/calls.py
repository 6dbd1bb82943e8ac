"""Calls in added lines checked against the signature they call: too many positional
arguments, a missing required one, an unknown keyword.

A false alarm on a correct patch costs more than a missed mismatch, so only calls whose target
is certain are checked: a plain name defined once in the patched file itself (the patch may
have changed the signature too), or imported into it by name from the repository (resolved at
the base commit); and `self.method(...)` / `cls.method(...)` to a method of the enclosing
class. Attribute calls on other objects (`re.compile`, `items.pop`) are never guessed at.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from judge.repo.python_defs import Definition, definitions, innermost


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
    required = positional[: len(positional) - defaults] if defaults else positional
    if bound and positional:
        positional, required = positional[1:], required[1:]
    keywords = {a.arg for a in args.args} | {a.arg for a in args.kwonlyargs}
    kw_required = {
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None
    }
    return positional, required, keywords, kw_required


def _countable(call: ast.Call, node: ast.AST) -> bool:
    """A plain function called without *args / **kwargs: its arguments can be counted."""
    unpacked = any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not unpacked


def _problem(call: ast.Call, target: Definition, bound: bool) -> str | None:
    node = target.node
    if not _countable(call, node):
        return None
    positional, required, keywords, kw_required = _parameters(node, bound)
    given = {k.arg for k in call.keywords}
    if node.args.vararg is None and len(call.args) > len(positional):
        return f"{len(call.args)} positional arguments, the definition takes {len(positional)}"
    unknown = sorted(given - keywords) if node.args.kwarg is None else []
    missing = [p for p in required[len(call.args) :] if p not in given]
    missing += sorted(kw_required - given)
    return _first_problem(unknown, missing)


def _first_problem(unknown: list[str], missing: list[str]) -> str | None:
    if unknown:
        return f"unknown keyword argument {unknown[0]!r}"
    return f"missing required argument {missing[0]!r}" if missing else None


def _decorated(target: Definition, name: str) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id == name for d in getattr(target.node, "decorator_list", [])
    )


def _imported_names(tree: ast.Module) -> set[str]:
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname is None
    }


class CallChecker:
    """Resolves the callee of one call in the patched file, or gives up."""

    def __init__(self, source: str, resolve_imported: Callable[[str], Definition | None]):
        self.tree = ast.parse(source)
        self.defs = definitions(source)
        self.imported = _imported_names(self.tree)
        self.resolve_imported = resolve_imported

    def _plain(self, name: str) -> Definition | None:
        local = [d for d in self.defs if d.name == name and not d.in_class]
        if len(local) == 1:
            return local[0]
        if not local and name in self.imported:
            found = self.resolve_imported(name)
            return found if found is not None and not found.in_class else None
        return None

    def _method(self, call: ast.Call) -> Definition | None:
        func = call.func
        receiver = getattr(func.value, "id", None) if isinstance(func, ast.Attribute) else None
        if receiver not in ("self", "cls"):
            return None
        holder = innermost([d for d in self.defs if d.kind == "class"], call.lineno)
        if holder is None:
            return None
        found = [
            d for d in self.defs
            if d.in_class and d.name == func.attr and d.qualname == f"{holder.qualname}.{d.name}"
        ]  # fmt: skip
        return found[0] if len(found) == 1 else None

    def target(self, call: ast.Call) -> tuple[Definition, bool] | None:
        """The definition called and whether `self`/`cls` is bound."""
        if isinstance(call.func, ast.Name):
            found = self._plain(call.func.id)
            return (found, False) if found is not None and found.kind == "def" else None
        found = self._method(call)
        if found is None or found.kind != "def" or _decorated(found, "staticmethod"):
            return None
        return found, True


def mismatches(
    source: str, added: set[int], resolve_imported: Callable[[str], Definition | None]
) -> list[Mismatch]:
    """Calls on added lines whose arguments cannot match the signature they call."""
    try:
        checker = CallChecker(source, resolve_imported)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(checker.tree):
        if not isinstance(node, ast.Call) or node.lineno not in added:
            continue
        resolved = checker.target(node)
        if resolved is None:
            continue
        target, bound = resolved
        problem = _problem(node, target, bound)
        if problem:
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            found.append(Mismatch(node.lineno, name, problem, target.signature))
    return found
