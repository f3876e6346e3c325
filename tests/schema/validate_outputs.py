#!/usr/bin/python3
"""Validates every command's data output against docs/schema/pipesim-output.schema.json.

simulate (unit and real cost, --ops, --memory-timeline, --critical-path, an out-of-memory run),
calibrate's fit report and its trace report are JSON and are validated as they are. CSV outputs (simulate --format csv, sweep,
compare --csv, search -o) must have exactly the schema's column list (x-columns) as header; each
row is read into an object, typed by the schema (empty field = null), and validated too.

Usage: validate_outputs.py PIPESIM SCHEMA CALIBRATION_DATA_DIR
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (tools/install-deps.sh): skipped")
    sys.exit(77)

pipesim, schema_path, calib_dir = sys.argv[1:4]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
failures = []


def validator(definition):
    sub = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(sub)


def run(args, ok_codes=(0,)):
    p = subprocess.run([pipesim] + args, capture_output=True, text=True)
    if p.returncode not in ok_codes:
        failures.append(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    return p.stdout


def check(label, definition, instance):
    errors = sorted(validator(definition).iter_errors(instance), key=lambda e: list(e.path))
    for e in errors[:5]:
        failures.append(f"{label}: {'/'.join(map(str, e.path))}: {e.message}")
    return not errors


def typed(field, prop):
    """A CSV field as the schema types it; an empty field is null."""
    if field == "":
        return None
    types = prop.get("type", "string")
    types = types if isinstance(types, list) else [types]
    if "integer" in types:
        return int(field)
    if "number" in types:
        return float(field)
    if "boolean" in types:
        return {"true": True, "false": False}[field]
    return field


def check_csv(label, text, min_rows=1, winners=False):
    row_schema = schema["$defs"]["row"]
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    extra = row_schema["x-search-winners"]
    if winners:  # rank before the row, limited_by after it
        expected = extra["before"] + row_schema["x-columns"] + extra["after"]
        if header != expected:
            failures.append(f"{label}: header {header} is not the schema's winner columns")
            return
        for i, fields in enumerate(reader):
            if int(fields[0]) != i + 1 or not fields[-1]:
                failures.append(f"{label}: row {i + 1}: rank {fields[0]}, limited_by {fields[-1]!r}")
            obj = {c: typed(v, row_schema["properties"][c])
                   for c, v in zip(row_schema["x-columns"], fields[1:-1])}
            check(f"{label} row {i + 1}", "row", obj)
        return
    if header != row_schema["x-columns"]:
        failures.append(f"{label}: header {header} is not the schema's columns")
        return
    rows = list(reader)
    if len(rows) < min_rows:
        failures.append(f"{label}: {len(rows)} rows, expected at least {min_rows}")
    for i, fields in enumerate(rows):
        try:
            obj = {c: typed(v, row_schema["properties"][c]) for c, v in zip(header, fields)}
        except (ValueError, KeyError) as e:
            failures.append(f"{label}: row {i + 1}: field not of its schema type: {e}")
            continue
        check(f"{label} row {i + 1}", "row", obj)


real = ["--model", "gpt2-32l", "--hardware", "p100-daint"]
with tempfile.TemporaryDirectory() as tmp:
    cases = {
        "simulate unit": ["simulate", "--schedule", "zb-h1", "-D", "4", "-N", "8", "--t-weight", "1",
                          "--ops"],
        "simulate chimera": ["simulate", "--schedule", "chimera", "-D", "4", "-N", "8", "--ops"],
        "simulate interleaved": ["simulate", "--schedule", "interleaved", "-D", "4", "-N", "8"],
        "simulate pipedream": ["simulate", "--schedule", "pipedream", "-D", "4", "-N", "8",
                               "--critical-path"],
        "simulate real": ["simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", *real, "--ops",
                          "--memory-timeline"],
        "simulate real chimera": ["simulate", "--schedule", "chimera", "-D", "4", "-N", "8", *real,
                                  "-W", "2", "--recompute", "selective", "--critical-path"],
        "simulate real blocking": ["simulate", "--schedule", "gpipe", "-D", "4", "-N", "8", *real,
                                   "--overlap-p2p", "off", "--critical-path"],
        # megatron_args: used, ignored and unknown (--frobnicate: a warning on stderr).
        "simulate megatron": ["simulate", "--hardware", "h100-dgx", "--gpus", "8",
                              "--megatron-args=--num-layers 4 --hidden-size 256 "
                              "--num-attention-heads 8 --vocab-size 1000 --seq-length 256 --bf16 "
                              "--pipeline-model-parallel-size 2 --global-batch-size 16 --lr 1e-4 "
                              "--frobnicate 1"],
        # torchtitan_args: a config with a pipeline, in the source tree beside the schema.
        "simulate torchtitan": ["simulate", "--hardware", "h100-dgx", "--gpus", "16", "--torchtitan",
                                os.path.join(os.path.dirname(os.path.abspath(schema_path)), "..",
                                             "..", "tests", "data", "torchtitan",
                                             "llama3_8b_interleaved.toml")],
    }
    for label, args in cases.items():
        out = run(args + ["--format", "json"])
        if out is not None:
            check(label, "simulate", json.loads(out))
        csv_args = [a for a in args if a not in ("--ops", "--memory-timeline", "--critical-path")]
        out = run(csv_args + ["--format", "csv"])
        if out is not None:
            check_csv(label + " csv", out)
    # Out of memory: still a complete report, exit code 4.
    oom = ["simulate", "--schedule", "gpipe", "-D", "2", "-N", "64", "-B", "8",
           "--model", "gpt2-1.3b", "--hardware", "p100-daint"]
    out = run(oom + ["--format", "json"], ok_codes=(4,))
    if out is not None and check("simulate oom", "simulate", json.loads(out)):
        if json.loads(out)["fits_memory"] is not False:
            failures.append("simulate oom: fits_memory is not false")
    out = run(oom + ["--format", "csv"], ok_codes=(4,))
    if out is not None:
        check_csv("simulate oom csv", out)
    # sweep, compare --csv, search -o / --all: the row schema.
    out = run(["sweep", "--schedule", "gpipe,1f1b,chimera,interleaved", "-D", "3:4", "-N", "4,8",
               "-j", "2"])
    if out is not None:
        check_csv("sweep unit", out, min_rows=16)
    out = run(["sweep", "--schedule", "1f1b,zb-v", *real, "-D", "2,4", "-N", "8", "-W", "1,2",
               "-j", "2"])
    if out is not None:
        check_csv("sweep real", out, min_rows=8)
    compare_csv = os.path.join(tmp, "compare.csv")
    if run(["compare", "--schedule", "gpipe,1f1b", "-D", "4,8", "-N", "8", "-j", "2",
            "--csv", compare_csv]) is not None:
        with open(compare_csv, encoding="utf-8") as f:
            check_csv("compare --csv", f.read(), min_rows=4)
    for extra, label in (([], "search -o"), (["--all"], "search --all -o")):
        path = os.path.join(tmp, "search.csv")
        if run(["search", *real, "--gpus", "4", "--mini-batch", "8", "--schedule", "1f1b,chimera",
                "-j", "2", "-o", path, *extra]) is not None:
            with open(path, encoding="utf-8") as f:
                check_csv(label, f.read(), winners=not extra)
    # calibrate: the fit report.
    out = run(["calibrate", "--from-samples", os.path.join(calib_dir, "synthetic_samples.csv"),
               "--base", os.path.join(calib_dir, "base-h200-sxm.yaml"), "--format", "json",
               "-o", os.path.join(tmp, "cal.yaml")])
    if out is not None:
        check("calibrate fit", "calibrate_fit", json.loads(out))
    # calibrate --from-trace: the trace report, with the fit of its samples.
    example = os.path.join(calib_dir, "..", "..", "..", "calibrate", "examples",
                           "deepseek-v3-synthetic-trace.json.gz")
    out = run(["calibrate", "--from-trace", example, "--model", "deepseek-v3", "--hardware",
               "h800-dgx", "--expert-parallel", "64", "--sequence", "4096", "--precision", "fp8",
               "--format", "json", "-o", os.path.join(tmp, "trace-cal.yaml")])
    if out is not None:
        check("calibrate --from-trace", "calibrate_trace", json.loads(out))

for f in failures:
    print(f)
print(f"{len(failures)} schema failures")
sys.exit(1 if failures else 0)
