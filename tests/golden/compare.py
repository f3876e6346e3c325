#!/usr/bin/python3
"""Compares a fresh golden run with tests/golden/expected/.

Every expected file must be produced again, and no new file may appear. How a file is compared
depends on what it holds:
- a CSV of runs (its header names schema columns): every expected column is still there with the
  same value in every row, and the row count is the same. A column the expected file lacks is
  accepted only if the output schema lists it (x-columns), so a new option adds a column without
  rewriting the goldens, while a stray or renamed column still fails.
- JSON: every expected key, at any depth, is still there with the same value; arrays keep their
  length. New keys are accepted (the output_schema test validates them).
- anything else (text reports, SVG, gnuplot data): byte for byte.
Values are compared as the exact text pipesim printed: outputs are deterministic.

Usage: compare.py SCHEMA EXPECTED_DIR ACTUAL_DIR   (exit 0: same, 1: differences listed)
"""
import csv
import difflib
import io
import json
import os
import sys

schema_path, expected_dir, actual_dir = sys.argv[1:4]
with open(schema_path, encoding="utf-8") as f:
    row_schema = json.load(f)["$defs"]["row"]
# The row's columns, and those search -o adds around its winners (x-search-winners: rank
# before, limited_by after).
winners = row_schema["x-search-winners"]
schema_columns = set(row_schema["x-columns"]) | set(winners["before"]) | set(winners["after"])
failures = []


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def csv_of_runs(text):
    """The rows of a CSV whose header is all schema columns (including `schedule`), else None."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "schedule" not in rows[0] or not set(rows[0]) <= schema_columns:
        return None
    return rows


def compare_csv(name, expected, actual):
    if actual is None:
        failures.append(f"{name}: no longer a CSV of schema columns")
        return
    exp_header, act_header = expected[0], actual[0]
    missing = [c for c in exp_header if c not in act_header]
    if missing:
        failures.append(f"{name}: columns gone: {', '.join(missing)}")
        return
    if len(expected) != len(actual):
        failures.append(f"{name}: {len(actual) - 1} rows, expected {len(expected) - 1}")
        return
    where = {c: act_header.index(c) for c in exp_header}
    for r, (exp_row, act_row) in enumerate(zip(expected[1:], actual[1:]), start=2):
        if len(act_row) != len(act_header):
            failures.append(f"{name}: line {r}: {len(act_row)} fields, header has {len(act_header)}")
            continue
        for c, value in zip(exp_header, exp_row):
            if act_row[where[c]] != value:
                failures.append(f"{name}: line {r}, column {c}: {act_row[where[c]]!r}, "
                                f"expected {value!r}")


def compare_json(name, path, expected, actual):
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            failures.append(f"{name}: {path or '/'}: no longer an object")
            return
        for key, value in expected.items():
            if key not in actual:
                failures.append(f"{name}: {path}/{key}: gone")
            else:
                compare_json(name, f"{path}/{key}", value, actual[key])
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            size = len(actual) if isinstance(actual, list) else "not an array"
            failures.append(f"{name}: {path}: {size} entries, expected {len(expected)}")
            return
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare_json(name, f"{path}/{i}", e, a)
    elif expected != actual or type(expected) is not type(actual):
        failures.append(f"{name}: {path}: {actual!r}, expected {expected!r}")


def compare_text(name, expected, actual):
    if expected != actual:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "expected/" + name,
                                    "actual/" + name, lineterm="", n=1)
        failures.append("\n".join(list(diff)[:40]))


expected_files = sorted(os.listdir(expected_dir))
actual_files = sorted(os.listdir(actual_dir))
for name in sorted(set(actual_files) - set(expected_files)):
    failures.append(f"{name}: new output file (regenerate with tools/make-golden.sh)")
for name in expected_files:
    if name not in actual_files:
        failures.append(f"{name}: not produced")
        continue
    expected = read(os.path.join(expected_dir, name))
    actual = read(os.path.join(actual_dir, name))
    if expected == actual:
        continue
    rows = csv_of_runs(expected)
    if rows is not None:
        compare_csv(name, rows, csv_of_runs(actual))
        continue
    try:
        expected_json = json.loads(expected)
    except ValueError:
        compare_text(name, expected, actual)
        continue
    try:
        compare_json(name, "", expected_json, json.loads(actual))
    except ValueError as e:
        failures.append(f"{name}: not JSON any more: {e}")

for failure in failures:
    print(failure)
if failures:
    print(f"{len(failures)} difference(s); after an intended change: tools/make-golden.sh")
sys.exit(1 if failures else 0)
