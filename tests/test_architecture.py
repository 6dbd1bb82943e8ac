"""The layering the design fixes, checked on the source: `judge.llm` stands alone, nothing below
the command line imports it, `judge` never depends on later layers, and no module imports
itself through a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("judge", "rubric_gen", "validation")
SOURCES = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _from_import(node: ast.ImportFrom) -> set[str]:
    """`from a.b import c` imports the module `a.b.c` when there is one, else names of `a.b`."""
    submodules = {f"{node.module}.{alias.name}" for alias in node.names}
    found = {name for name in submodules if _is_module(name)}
    return found if len(found) == len(submodules) else found | {node.module}


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Nodes under `if TYPE_CHECKING:`: imports for annotations, never made at run time."""
    guarded = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    ]
    return {id(inner) for node in guarded for inner in ast.walk(node)}


def _imported_modules(path: Path, module_level_only: bool = False) -> set[str]:
    """Full dotted names of the modules a file imports at run time."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    nodes = tree.body if module_level_only else ast.walk(tree)
    names: set[str] = set()
    for node in nodes:
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= _from_import(node)
    return names


def _roots(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


def _ours(names: set[str]) -> set[str]:
    return {name for name in names if name.split(".")[0] in PACKAGES}


MODULES = {_module_name(p): p for p in SOURCES}


@pytest.mark.parametrize("path", sorted((ROOT / "judge" / "llm").rglob("*.py")), ids=str)
def test_model_layer_imports_nothing_else_of_ours(path):
    """`judge.llm` knows nothing of rubrics or patches: only itself and the package version."""
    foreign = {
        name
        for name in _ours(_imported_modules(path))
        if not name.startswith("judge.llm") and name != "judge"
    }
    assert not foreign, f"{path.relative_to(ROOT)} imports {sorted(foreign)}"


@pytest.mark.parametrize(
    "path", [p for p in SOURCES if "cli" not in p.relative_to(ROOT).parts[:2]], ids=str
)
def test_nothing_below_the_command_line_imports_it(path):
    assert not {n for n in _imported_modules(path) if n.startswith("judge.cli")}


@pytest.mark.parametrize("path", sorted((ROOT / "judge").rglob("*.py")), ids=str)
def test_judge_does_not_depend_on_later_layers(path):
    """Only the CLI (the composition root) may reach them, and only inside its commands."""
    in_cli = "cli" in path.relative_to(ROOT).parts
    imported = _roots(_imported_modules(path, module_level_only=in_cli))
    assert not imported & {"rubric_gen", "validation", "tests"}


@pytest.mark.parametrize("path", sorted((ROOT / "rubric_gen").rglob("*.py")), ids=str)
def test_rubric_gen_does_not_depend_on_validation(path):
    assert not _roots(_imported_modules(path)) & {"validation", "tests"}


def test_sdks_are_imported_only_by_their_providers():
    for path in (ROOT / "judge").rglob("*.py"):
        sdk = _roots(_imported_modules(path)) & {"openai", "anthropic"}
        assert not sdk or path.parent.name == "providers", path


def _import_graph() -> tuple[list[str], csr_matrix]:
    """Module → module edges, function-level imports included; package `__init__`s that only
    re-export are nodes like any other."""
    names = sorted(MODULES)
    index = {name: i for i, name in enumerate(names)}
    rows, cols = [], []
    for name, path in MODULES.items():
        for target in _ours(_imported_modules(path)):
            if target in index and target != name:
                rows.append(index[name])
                cols.append(index[target])
    data = np.ones(len(rows))
    return names, csr_matrix((data, (rows, cols)), shape=(len(names), len(names)))


def test_no_import_cycles():
    names, graph = _import_graph()
    count, labels = connected_components(graph, directed=True, connection="strong")
    cycles = [
        sorted(n for n, label in zip(names, labels, strict=True) if label == component)
        for component in range(count)
        if (labels == component).sum() > 1
    ]
    assert graph.nnz > 100  # the graph is real, not empty
    assert cycles == []
