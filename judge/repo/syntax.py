"""Does a file parse? Python with `ast`; Java, JavaScript and TypeScript with tree-sitter
grammars (maintained wheels, imported only when such a file is checked)."""

from __future__ import annotations

import ast
from functools import cache

GRAMMARS = {
    ".js": ("tree_sitter_javascript", "language"),
    ".jsx": ("tree_sitter_javascript", "language"),
    ".mjs": ("tree_sitter_javascript", "language"),
    ".cjs": ("tree_sitter_javascript", "language"),
    ".ts": ("tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx"),
    ".java": ("tree_sitter_java", "language"),
}


def suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[name.rfind(".") :].lower() if "." in name else ""


def checkable(path: str) -> bool:
    return suffix(path) == ".py" or suffix(path) in GRAMMARS


@cache
def parser(ext: str):
    """The tree-sitter parser for a file suffix (the grammar wheel is imported on first use)."""
    import importlib

    from tree_sitter import Language, Parser

    module, function = GRAMMARS[ext]
    return Parser(Language(getattr(importlib.import_module(module), function)()))


def _first_error(node) -> int | None:
    if node.is_error or node.is_missing:
        return node.start_point[0] + 1
    for child in node.children:
        if child.has_error:
            return _first_error(child)
    return None


def syntax_error(path: str, source: str) -> tuple[int | None, str] | None:
    """(line, message) of the first syntax error, or None when the file parses."""
    ext = suffix(path)
    if ext == ".py":
        try:
            ast.parse(source)
        except SyntaxError as exc:
            return exc.lineno, exc.msg
        except ValueError as exc:  # e.g. NUL bytes
            return None, str(exc)
        return None
    if ext not in GRAMMARS:
        return None
    tree = parser(ext).parse(source.encode("utf-8", errors="replace"))
    if not tree.root_node.has_error:
        return None
    return _first_error(tree.root_node), "the parser reports a syntax error"
