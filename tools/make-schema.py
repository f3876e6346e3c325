#!/usr/bin/python3
"""Writes the option entries of docs/schema/pipesim-output.schema.json from the option table.

Every option (`pipesim list options --format json`, in CSV column order) is a column of the
sweep CSV row ($defs/row: a property, required, and x-columns listing the options first, in
table order) and a key of simulate's JSON report ($defs/simulate: a property). An entry the
schema already has is kept as written (its description may say more than the option's help);
a missing one is made from the option: its kind as the JSON type (integer, number, or string
with the choices or on/off as enum; a boolean for a switch in the report), its help as
description; the row's may be null (an empty field). The rest of the schema is written by hand.

Usage: make-schema.py PIPESIM SCHEMA [--check]
  --check: change nothing; list what is missing or out of order and exit 1 if anything is.
"""
import json
import os
import subprocess
import sys

KIND_TYPES = {"integer": "integer", "real": "number", "switch": "string", "choice": "string",
              "text": "string"}


def value_schema(option, nullable):
    """The JSON schema of an option's value: in the CSV row (nullable: an empty field; a switch
    is on/off there) or in simulate's report (a switch is a boolean there)."""
    kind = option["kind"]
    if kind == "switch" and not nullable:
        return {"type": "boolean", "description": option["help"]}
    out = {"type": [KIND_TYPES[kind], "null"] if nullable else KIND_TYPES[kind],
           "description": option["help"]}
    choices = {"switch": ["on", "off"], "choice": option.get("choices", [])}.get(kind)
    if choices:
        out["enum"] = choices + ([None] if nullable else [])
    return out


def with_options(schema, options):
    """The schema with every option in the row and in simulate's report; and what changed."""
    changes = []
    row = schema["$defs"]["row"]
    report = schema["$defs"]["simulate"]
    names = [o["name"] for o in options]
    rest = [c for c in row["x-columns"] if c not in names]
    if row["x-columns"] != names + rest:
        changes.append("row x-columns: the options first, in table order")
        row["x-columns"] = names + rest
    for option in options:
        name = option["name"]
        if name not in row["properties"]:
            changes.append(f"row property {name}")
            row["properties"][name] = value_schema(option, nullable=True)
        if name not in row["required"]:
            changes.append(f"row required {name}")
            row["required"].append(name)
        if name not in report["properties"]:
            changes.append(f"simulate property {name}")
            report["properties"][name] = value_schema(option, nullable=False)
    return schema, changes


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    pipesim, path = argv[1], argv[2]
    options = json.loads(subprocess.run([pipesim, "list", "options", "--format", "json"],
                                        check=True, capture_output=True, text=True).stdout)
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    schema, changes = with_options(schema, options)
    if len(argv) == 4:
        for c in changes:
            print(f"{path}: missing or out of order: {c} (run tools/make-schema.py)")
        return 1 if changes else 0
    text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    for c in changes:
        print(f"added: {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
