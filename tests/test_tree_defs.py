"""Java, JavaScript and TypeScript definitions from tree-sitter: names, nesting, lines and
signatures, as the judge's view needs them."""

from __future__ import annotations

import pytest

from judge.repo.python_defs import innermost
from judge.repo.tree_defs import definitions

JAVA = """package a;

public class Foo<T> extends Bar {
    private int x = 1;
    public Foo(int x) { this.x = x; }
    @Override
    public int compute(int a,
                       int b) throws IOException {
        return a + b;
    }
    enum Mode { A, B; void flip() {} }
}
"""

JS = """export function add(a, b) { return a + b; }
const mul = (a, b) => a * b;
class K extends L {
  constructor() { super(); }
  static m(x) { return x; }
}
export default async function* gen() {}
"""


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        ("src/Foo.java", JAVA, [
            ("class", "Foo", 3, 12, False, "public class Foo<T> extends Bar"),
            ("def", "Foo.Foo", 5, 5, True, "public Foo(int x)"),
            ("def", "Foo.compute", 6, 10, True,
             "@Override public int compute(int a, int b) throws IOException"),
            ("class", "Foo.Mode", 11, 11, True, "enum Mode"),
            ("def", "Foo.Mode.flip", 11, 11, True, "void flip()"),
        ]),
        ("web/app.js", JS, [
            ("def", "add", 1, 1, False, "function add(a, b)"),
            ("def", "mul", 2, 2, False, "const mul = (a, b) =>"),
            ("class", "K", 3, 6, False, "class K extends L"),
            ("def", "K.constructor", 4, 4, True, "constructor()"),
            ("def", "K.m", 5, 5, True, "static m(x)"),
            ("def", "gen", 7, 7, False, "async function* gen()"),
        ]),
        ("web/app.tsx", "const f = (x: number): number => x;\n", [
            ("def", "f", 1, 1, False, "const f = (x: number): number =>"),
        ]),
        ("notes.md", "function not_code() {}", []),
    ],
)  # fmt: skip
def test_definitions(path, source, expected):
    found = definitions(path, source)
    assert [(d.kind, d.qualname, d.start, d.end, d.in_class, d.signature) for d in found] == (
        expected
    )
    assert all(d.node is None and d.doc == "" for d in found)


def test_the_innermost_method_holds_a_line_and_a_broken_file_still_yields_what_parses():
    found = definitions("src/Foo.java", JAVA)
    assert innermost(found, 9).qualname == "Foo.compute"
    assert innermost(found, 4).qualname == "Foo"  # a field: only the class holds it
    broken = definitions("src/Foo.java", JAVA.replace("return a + b;", "return (a + b;"))
    assert "Foo.compute" in [d.qualname for d in broken]  # tree-sitter recovers
