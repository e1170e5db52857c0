#!/usr/bin/env python3
"""Parses every drivers/dotnet/*.cs file with the tree-sitter C# grammar and prints each syntax
error (ERROR or MISSING node) as FILE:LINE:COL. Exit status 1 when there is one.

No machine of this project has a .NET SDK, so this is the driver's only compile-free syntax check;
it catches what a C# parser catches (brackets, statements, expressions), not types or names.
Needs the PyPI packages tree-sitter and tree-sitter-c-sharp (README "Checking the sources").
"""
import pathlib
import sys

import tree_sitter
import tree_sitter_c_sharp


def errors(node):
    if node.is_error or node.is_missing:
        yield node
        return
    for child in node.children:
        yield from errors(child)


def main(argv):
    here = pathlib.Path(__file__).resolve().parent.parent
    files = [pathlib.Path(a) for a in argv] or sorted(here.glob("*.cs"))
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_c_sharp.language()))
    bad = 0
    for f in files:
        tree = parser.parse(f.read_bytes())
        for n in errors(tree.root_node):
            bad += 1
            row, col = n.start_point
            kind = "missing " + n.type if n.is_missing else "error"
            text = n.text.decode("utf-8", "replace").splitlines()[0][:60] if n.text else ""
            print(f"{f.name}:{row + 1}:{col + 1}: {kind}: {text}")
    print(f"{len(files)} files, {bad} syntax errors", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
