#!/usr/bin/python3
"""Plants differences into copies of tests/golden/expected/ and checks that compare.py accepts
exactly the ones it should: a new schema column and a new JSON key pass; a changed value, a
renamed column, a lost row, a changed text line, a missing or new file fail.

Usage: compare_test.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
compare = os.path.join(root, "tests/golden/compare.py")
schema = os.path.join(root, "docs/schema/pipesim-output.schema.json")
golden = os.path.join(root, "tests/golden/expected")
failures = []


def edit(folder, name, change):
    path = os.path.join(folder, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    changed = change(text)
    assert changed != text, f"planting into {name} changed nothing"
    with open(path, "w", encoding="utf-8") as f:
        f.write(changed)


def drop_column(text, column):
    lines = [line.split(",") for line in text.splitlines()]
    i = lines[0].index(column)
    return "\n".join(",".join(row[:i] + row[i + 1:]) for row in lines) + "\n"


def case(label, should_pass, plant):
    with tempfile.TemporaryDirectory() as tmp:
        expected, actual = os.path.join(tmp, "expected"), os.path.join(tmp, "actual")
        shutil.copytree(golden, expected)
        shutil.copytree(golden, actual)
        plant(expected, actual)
        p = subprocess.run([sys.executable, compare, schema, expected, actual],
                           capture_output=True, text=True)
        if (p.returncode == 0) != should_pass:
            failures.append(f"{label}: exit {p.returncode}, expected {'0' if should_pass else '1'}"
                            f"\n{p.stdout}")


case("unchanged", True, lambda e, a: None)
case("a new schema column", True,
     lambda e, a: edit(e, "sweep.out", lambda t: drop_column(t, "attention")))
case("a new JSON key", True,
     lambda e, a: edit(a, "real-json.out", lambda t: t.replace("{", '{"added": 1,', 1)))
case("a changed value", False,
     lambda e, a: edit(a, "sweep.out", lambda t: t.replace(",1,off,", ",2,off,", 1)))
case("a column not in the schema", False,
     lambda e, a: edit(a, "sweep.out", lambda t: t.replace("attention", "attn", 1)))
case("a lost row", False,
     lambda e, a: edit(a, "sweep.out", lambda t: t[:t.rindex("\n", 0, len(t) - 1) + 1]))
case("a changed JSON number", False,
     lambda e, a: edit(a, "real-json.out",
                       lambda t: t.replace('"iteration_time": ', '"iteration_time": 9', 1)))
case("a changed text line", False,
     lambda e, a: edit(a, "simulate-1f1b.out", lambda t: t.replace("1f1b", "gpipe", 1)))
case("a file not produced", False, lambda e, a: os.remove(os.path.join(a, "zbv.svg")))
case("a new file", False, lambda e, a: open(os.path.join(a, "new.out"), "w").close())

for failure in failures:
    print(failure)
print(f"{10 - len(failures)}/10 planted cases judged right")
sys.exit(1 if failures else 0)
