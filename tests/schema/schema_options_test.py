#!/usr/bin/python3
"""The schema's option entries come from the option table (tools/make-schema.py).

1. The committed schema is what the generator makes of it: nothing missing, options first in
   x-columns, in table order.
2. An option added to the table (planted here) appears as a row column (property, required,
   x-columns right after the table's last option) and as a simulate report key, typed by its
   kind; the entries already written are kept.

Usage: schema_options_test.py PIPESIM SCHEMA MAKE_SCHEMA
"""
import copy
import importlib.util
import json
import subprocess
import sys

pipesim, schema_path, generator = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("make_schema", generator)
make_schema = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_schema)

with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
options = json.loads(subprocess.run([pipesim, "list", "options", "--format", "json"],
                                    check=True, capture_output=True, text=True).stdout)
failures = []

_, changes = make_schema.with_options(copy.deepcopy(schema), options)
failures += [f"committed schema: {c} (run tools/make-schema.py)" for c in changes]

planted = {"name": "planted_ratio", "kind": "choice", "default": "low",
           "choices": ["low", "high"], "help": "a planted option", "group": "Real-cost mode"}
grown, changes = make_schema.with_options(copy.deepcopy(schema), options + [planted])
row, report = grown["$defs"]["row"], grown["$defs"]["simulate"]
if row["x-columns"][len(options)] != "planted_ratio":
    failures.append(f"planted option not after the table's options in x-columns: {row['x-columns']}")
if row["properties"].get("planted_ratio", {}).get("enum") != ["low", "high", None]:
    failures.append(f"row property: {row['properties'].get('planted_ratio')}")
if "planted_ratio" not in row["required"]:
    failures.append("row: planted option not required")
if report["properties"].get("planted_ratio") != {"type": "string", "description": "a planted option",
                                                 "enum": ["low", "high"]}:
    failures.append(f"simulate property: {report['properties'].get('planted_ratio')}")
for name in ("expert_parallel", "overlap_p2p"):  # written by hand: kept
    if grown["$defs"]["simulate"]["properties"][name] != schema["$defs"]["simulate"]["properties"][name]:
        failures.append(f"{name}: the hand-written entry was replaced")
switch = {"name": "planted_switch", "kind": "switch", "default": "off", "help": "s", "group": "g"}
if make_schema.value_schema(switch, nullable=False)["type"] != "boolean":
    failures.append("a switch is not a boolean in the report")
if make_schema.value_schema(switch, nullable=True)["enum"] != ["on", "off", None]:
    failures.append("a switch is not on/off in the row")
integer = {"name": "planted_count", "kind": "integer", "default": "1", "lo": 1, "hi": 8,
           "lo_inclusive": True, "help": "n", "group": "g"}
if make_schema.value_schema(integer, nullable=True)["type"] != ["integer", "null"]:
    failures.append("an integer option is not an integer or null in the row")

for f in failures:
    print(f)
print(f"{len(failures)} problem(s)")
sys.exit(1 if failures else 0)
