#!/usr/bin/env python3
"""Two rules the architecture depends on, checked over the source tree:

1. Nothing outside schedules/ compares a schedule's name: what a scheme is (its options, traits,
   shape, search variants) lives in its registry entry, so code elsewhere asks the registry
   instead of testing a name for equality or a prefix. (A scheme's own tests, tests/schedules/,
   name the scheme they test.)
2. No library source spells an option as a command-line flag (`--stages`): library errors name
   options neutrally and each front end (tools/cli, python/) spells them its own way.

usage: check_sources.py PIPESIM_BINARY SOURCE_DIR   (the binary lists the registered schedules)
"""

import pathlib
import re
import subprocess
import sys

LIBRARY = ["core", "sim", "schedules", "models", "hardware", "cost", "scenario", "report",
           "sweep", "search", "validation/src", "validation/include", "calibrate/src",
           "calibrate/include", "pipesim"]
SKIP = {"build", ".git", "results"}


def code_lines(path):
    """(number, line) with // comments and the text of /* */ comments blanked."""
    in_block = False
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if in_block:
            end = line.find("*/")
            if end < 0:
                continue
            line, in_block = line[end + 2:], False
        line = re.sub(r"/\*.*?\*/", "", line)
        if "/*" in line:
            line, in_block = line[:line.index("/*")], True
        code = re.sub(r'"(\\.|[^"\\])*"', lambda m: m.group(0), line)
        comment = re.search(r'//(?=(?:[^"]*"[^"]*")*[^"]*$)', code)
        yield number, code[:comment.start()] if comment else code


def sources(root, folders=None, suffixes=(".cpp", ".hpp", ".h", ".cu", ".cuh")):
    tops = [root / f for f in folders] if folders else [root]
    for top in tops:
        for path in sorted(top.rglob("*")):
            if path.suffix in suffixes and not SKIP & set(path.relative_to(root).parts):
                yield path


def main():
    binary, root = sys.argv[1], pathlib.Path(sys.argv[2])
    listing = subprocess.run([binary, "list", "schedules"], capture_output=True, text=True,
                             check=True).stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    assert names, "no schedule registered"
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    quoted = rf'"(?:{alternatives})"'
    prefixes = sorted({n[:i] for n in names for i in range(2, len(n) + 1)}, key=len, reverse=True)
    compare = re.compile(
        rf'(?:[=!]=\s*{quoted})|(?:{quoted}\s*[=!]=)'
        rf'|(?:\.(?:count|at|contains)\(\s*{quoted}\s*\))'
        rf'|(?:(?:starts_with|ends_with)\(\s*"(?:{"|".join(re.escape(p) for p in prefixes)})")')
    problems = []
    for path in sources(root, suffixes=(".cpp", ".hpp", ".h", ".py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "schedules" or rel.parts[:2] == ("tests", "schedules"):
            continue
        if rel.parts[:2] == ("tests", "lint"):
            continue
        lines = (enumerate(path.read_text().splitlines(), 1) if path.suffix == ".py"
                 else code_lines(path))
        for number, line in lines:
            if path.suffix == ".py":
                line = line.split("#")[0]
            if compare.search(line):
                problems.append(f"{rel}:{number}: compares a schedule name: {line.strip()}")
    flag = re.compile(r'"(?:[^"\\]|\\.)*?--[a-z][a-z0-9-]*')
    for path in sources(root, LIBRARY):
        rel = path.relative_to(root)
        for number, line in code_lines(path):
            if flag.search(line):
                problems.append(f"{rel}:{number}: spells a command-line flag: {line.strip()}")
    for p in problems:
        print(p)
    print(f"check_sources: {len(names)} schedules; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
