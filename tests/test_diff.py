"""The lenient diff parser on the shapes real patches take."""

from __future__ import annotations

import pytest

from judge.diff import DiffError, is_test_path, parse_diff

MODIFIED = """diff --git a/pkg/mod.py b/pkg/mod.py
index 1111111..2222222 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -10,3 +10,4 @@ def area(r):
     x = 1
-    return 3 * r
+    import math
+    return math.pi * r ** 2
     # end
"""
NEW_FILE = """diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1,2 @@
+def hello():
+    return 1
"""
DELETED = """diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
"""
RENAMED = """diff --git a/a/x.py b/a/y.py
similarity index 100%
rename from a/x.py
rename to a/y.py
"""
BINARY = """diff --git a/img.png b/img.png
index 1..2 100644
Binary files a/img.png and b/img.png differ
"""
PLAIN = """--- a/setup.cfg
+++ b/setup.cfg
@@ -1,2 +1,2 @@
 [metadata]
-name = a
+name = b
"""
NO_CONTEXT = """diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-old
+new
"""
# blank context lines that lost their leading space (OpenHands logs), and a "--- " removed line
LOST_SPACE = "--- a/f.py\n+++ b/f.py\n@@ -1,4 +1,4 @@\n a = 1\n\n--- x\n+++ y\n b = 2\n"


@pytest.mark.parametrize(
    ("text", "path", "status", "added", "removed"),
    [
        (MODIFIED, "pkg/mod.py", "modified", 2, 1),
        (NEW_FILE, "pkg/new.py", "added", 2, 0),
        (DELETED, "old.txt", "deleted", 0, 1),
        (RENAMED, "a/y.py", "renamed", 0, 0),
        (BINARY, "img.png", "modified", 0, 0),
        (PLAIN, "setup.cfg", "modified", 1, 1),
        (NO_CONTEXT, "README.md", "modified", 1, 1),
        (MODIFIED.replace("\n", "\r\n"), "pkg/mod.py", "modified", 2, 1),
        (LOST_SPACE, "f.py", "modified", 1, 1),
    ],
)
def test_parse_shapes(text, path, status, added, removed):
    parsed = parse_diff(text)
    assert parsed.paths == [path]
    assert parsed.files[0].status == status
    assert len(parsed.added_lines()) == added
    assert len(parsed.removed_lines()) == removed


def test_hunk_details_and_multiple_files():
    parsed = parse_diff(MODIFIED + NEW_FILE + BINARY)
    assert parsed.paths == ["pkg/mod.py", "pkg/new.py", "img.png"]
    hunk = parsed.files[0].hunks[0]
    assert (hunk.old_start, hunk.new_start, hunk.section) == (10, 10, "def area(r):")
    assert hunk.added == ["    import math", "    return math.pi * r ** 2"]
    assert parsed.files[2].binary is True
    assert parsed.files[1].old_path is None


def test_empty_text_is_an_empty_diff():
    assert parse_diff("").files == []
    assert parse_diff("  \n").paths == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("I fixed the bug by editing foo.py", "not a unified diff"),
        ("--- a/x\n+++ b/x\n@@ nonsense @@\n+x\n", "line 3: malformed hunk header"),
        ("@@ -1 +1 @@\n-a\n+b\n", "hunk before any file header"),
    ],
)
def test_malformed_diffs_say_where(text, message):
    with pytest.raises(DiffError, match=message):
        parse_diff(text)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_x.py", True),
        ("pkg/tests/helpers.py", True),
        ("pkg/test_io.py", True),
        ("pkg/io_test.py", True),
        ("conftest.py", True),
        ("pkg/testament.py", False),
        ("pkg/contest.py", False),
        ("src/latest/x.py", False),
    ],
)
def test_is_test_path(path, expected):
    assert is_test_path(path) is expected
