"""Task-mode retrieval: names the task uses rank their code first, and hyphenated option or
message names find the file that declares them as strings."""

from __future__ import annotations

import pytest

from rubric_gen.retrieval import Chunk, hyphenated_names, quoting_files, rank

FILES = {
    "lint/checker.py": 'MSGS = {"W0611": ("Unused %s", "unused-import")}\n\ndef visit(node):\n'
    "    return node\n",
    "lint/options.py": "OPTIONS = (('ignore-paths', {}),)\n\ndef parse(value):\n    return value\n",
    "lint/report.py": "def unused_import_report(stats):\n    return stats\n",
}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("unused-import false positive", {"unused-import"}),
        ("run with `--ignore-paths=.a` and --recursive=y", {"ignore-paths"}),
        ("a re-do of W0611 in x-y", set()),  # too short to be a name
        ("no hyphens at all", set()),
    ],
)
def test_hyphenated_names(text, names):
    assert hyphenated_names(text) == names


def test_quoting_files_find_the_declaring_file_only():
    assert quoting_files(FILES, {"unused-import"}) == {"lint/checker.py"}
    assert quoting_files(FILES, {"ignore-paths", "unused-import"}) == {
        "lint/checker.py",
        "lint/options.py",
    }
    assert quoting_files(FILES, set()) == set()


def test_a_quoting_file_outranks_a_lexical_match():
    chunks = [
        Chunk("lint/report.py", "unused_import_report", 1, 2, FILES["lint/report.py"]),
        Chunk("lint/checker.py", "visit", 3, 4, "def visit(node):\n    return node"),
        Chunk("lint/options.py", "parse", 3, 4, "def parse(value):\n    return value"),
        Chunk("lint/io.py", "write", 1, 2, "def write(path):\n    return path"),
    ]
    text = "unused-import is emitted for a module used in a type comment"
    plain = rank(chunks, text)
    assert plain[0].path == "lint/report.py"  # its words match
    boosted = rank(chunks, text, quoting_files(FILES, hyphenated_names(text)))
    assert [c.path for c in boosted[:2]] == ["lint/checker.py", "lint/report.py"]
    assert rank([], text) == []
