#!/usr/bin/env python3
"""The module dependency graph, checked over the source tree's #include lines.

docs/architecture.md §1 gives each module's row: the modules it may use (`core [fmt]` etc.;
third-party libraries in brackets are not checked here, `all of the above` allows every one).
The doc is the one source: this script reads the graph out of it, so a row changed there is a
rule changed here. Every C++ source under a module's folder (src/, include/, and whatever else
the folder holds, e.g. sweep/mpi/) may include `pipesim/<m>/...` only for <m> the module
itself or one of its row. Folders without a row (tools/, pipesim/, python/, tests/, bench/)
are not checked.

usage: check_includes.py ARCHITECTURE_MD SOURCE_DIR
Prints `path:line: <module> includes <m> (allowed: ...)` per violation and exits 1 if any.
"""

import pathlib
import re
import sys

SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".cu", ".cuh")
ROW = re.compile(r"^([a-z][a-z_/]*)\s{2,}(\S.*)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]pipesim/([a-z_]+)/')


def fenced_blocks(text):
    """Each ``` block's lines, in order."""
    block = None
    for line in text.splitlines():
        if line.startswith("```"):
            if block is None:
                block = []
            else:
                yield block
                block = None
        elif block is not None:
            block.append(line)


def dependency_graph(doc):
    """{module: set of modules it may include, or None for all}: the first fenced block whose
    every line is a row `name  dep, dep  [third-party]`."""
    for block in fenced_blocks(doc.read_text()):
        rows = [line for line in block if line.strip()]
        if not rows or not all(ROW.match(line) for line in rows):
            continue
        graph = {}
        for line in rows:
            name, rest = ROW.match(line).groups()
            deps = rest.split("[")[0].strip()
            if deps == "all of the above":
                graph[name] = None
            else:
                graph[name] = {d.strip() for d in deps.split(",") if d.strip()}
        return graph
    sys.exit(f"{doc}: no dependency block (rows `module  dep, dep`) found")


def main():
    doc, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    graph = dependency_graph(doc)
    known = set(graph)
    for name, deps in graph.items():
        unknown = (deps or set()) - known
        if unknown:
            sys.exit(f"{doc}: {name} depends on {', '.join(sorted(unknown))}, which has no row")
    problems = []
    checked = 0
    for module, deps in sorted(graph.items()):
        folder = root / module
        if deps is None or not folder.is_dir():
            continue
        allowed = sorted(deps)
        for path in sorted(folder.rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            checked += 1
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if match and match.group(1) != module and match.group(1) not in deps:
                    problems.append(f"{path.relative_to(root)}:{number}: {module} includes "
                                    f"{match.group(1)} (allowed: {', '.join(allowed) or 'none'})")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s): a module includes a header its row in {doc.name} "
              "does not allow")
        return 1
    print(f"{checked} files of {sum(d is not None for d in graph.values())} modules checked: every include follows the "
          "graph")
    return 0


if __name__ == "__main__":
    sys.exit(main())
