#!/usr/bin/env python3
"""check-link-graph.py - docs/Architecture.md's link graph against CMake's.

CMake writes every Tile library's and tool's direct links, as the
CMakeLists files declare them, to <build>/link-graph.txt (one line a target:
`folder target: link link ...`, see cmake/TileAddLibrary.cmake). This
script compares them with the table between the `link-graph` markers of
docs/Architecture.md, whose first column names a library or tool and whose
second lists its direct Tile links; a row whose third column starts with
"(only with `" (a target an option builds) may be missing from CMake's.
With --print it prints that table's
first two columns as CMake has them, to paste into the document.

Usage: check-link-graph.py LINK_GRAPH_TXT ARCHITECTURE_MD [--print]
Exits 1 and names every difference when they disagree.
"""
import re
import sys


def display(name):
    """TileIR -> libTileIR; tools keep their name."""
    return "lib" + name if name.startswith("Tile") else name


def read_cmake(path):
    graph = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        head, _, links = line.partition(":")
        folder, name = head.split()
        # Only the project's libraries and tools; test-only ones stay out.
        if not (folder.startswith("lib") or folder.startswith("tools")):
            continue
        graph[display(name)] = sorted(display(l) for l in links.split())
    return graph


def read_doc(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- link-graph begin -->(.*?)<!-- link-graph end -->",
                  text, re.S)
    if not m:
        sys.exit(f"{path}: no '<!-- link-graph begin -->' ... "
                 "'<!-- link-graph end -->' section")
    graph, optional = {}, set()
    for row in m.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith(("`lib", "`tile")):
            continue
        name = cells[0].strip("`")
        links = [l.strip().strip("`") for l in cells[1].split(",")]
        graph[name] = sorted(l for l in links if l and l != "-")
        # Built only with an option (the fuzz targets): may be absent.
        if len(cells) > 2 and cells[2].startswith("(only with `"):
            optional.add(name)
    return graph, optional


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    cmake = read_cmake(args[0])
    if "--print" in sys.argv:
        for name in sorted(cmake):
            links = ", ".join(f"`{l}`" for l in cmake[name]) or "-"
            print(f"| `{name}` | {links} |")
        return 0
    doc, optional = read_doc(args[1])
    errors = []
    for name in sorted(set(cmake) | set(doc)):
        if name not in doc:
            errors.append(f"{name}: built by CMake, missing from the document")
        elif name not in cmake:
            if name not in optional:
                errors.append(f"{name}: in the document, not built by CMake")
        elif cmake[name] != doc[name]:
            errors.append(f"{name}: CMake links {', '.join(cmake[name]) or '-'}; "
                          f"the document says {', '.join(doc[name]) or '-'}")
    for e in errors:
        print(f"{args[1]}: link graph: {e}")
    if errors:
        return 1
    print(f"{args[1]}: link graph of {len(cmake)} libraries and tools "
          "matches CMake")
    return 0


if __name__ == "__main__":
    sys.exit(main())
