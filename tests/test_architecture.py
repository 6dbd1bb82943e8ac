"""The layering the design fixes: judge never depends on rubric_gen or validation."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def _module_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "judge").rglob("*.py")), ids=lambda p: p.name)
def test_judge_does_not_depend_on_later_layers(path):
    """Only the CLI (the composition root) may reach them, and only inside its commands."""
    imported = _module_level_imports(path) if path.name.startswith("cli") else _imports(path)
    assert not imported & {"rubric_gen", "validation", "tests"}


@pytest.mark.parametrize("path", sorted((ROOT / "rubric_gen").rglob("*.py")), ids=lambda p: p.name)
def test_rubric_gen_does_not_depend_on_validation(path):
    assert not _imports(path) & {"validation", "tests"}


def test_sdks_are_imported_only_by_their_providers():
    for path in (ROOT / "judge").rglob("*.py"):
        sdk = _imports(path) & {"openai", "anthropic"}
        assert not sdk or path.parent.name == "providers", path
