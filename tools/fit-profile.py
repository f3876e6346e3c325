#!/usr/bin/env python3
"""Fits physically meaningful parameters of a hardware profile on a named subset of the
validation suite, so that pipesim's predictions of the fit runs match their measurements
(minimum mean squared log(predicted / measured); golden-section search per parameter,
alternating between parameters until they settle):
  - the scale k of a dtype's GEMM efficiency curve (the fraction of the peak the measured
    framework's GEMMs reach), applied to --base-curve;
  - with --inter-efficiency, the inter-node link efficiency (the fraction of the link bandwidth
    the measured communication library reaches, e.g. GLOO over TCP vs MPI);
  - with --alpha-runs, the inter-node per-message latency alpha (the communication library's
    cost per message, e.g. a GLOO ring step over TCP), fitted on those runs alone (the runs
    whose syncs are many small calls) with k and the efficiency held at their own fit;
  - with --tp-overlap-sm (instead of k), framework.tp_overlap_sm_fraction: the fraction of the
    SMs the tensor-parallel overlap kernels hold beside the linear layers' GEMMs, with the
    profile's curves as they are (fit k first, on runs without tensor parallelism);
  - with --grouped-gemm (instead of k), gpu.grouped_gemm_efficiency: the fraction of the dense
    GEMM curve a mixture-of-experts layer's grouped GEMMs reach, the rest of the profile as it is.

Prints the values and the error on the fit runs; with --write, rewrites them in the profile.
The runs not fitted are the evidence: `pipesim validate` reports them apart.

  tools/fit-profile.py --pipesim build/release/tools/pipesim \\
      --profile hardware/p100-daint.yaml --dtype fp32 --base-curve "1e8:0.30,1e10:0.75,1e12:0.85" \\
      [--inter-efficiency] [--alpha-runs A.yaml,B.yaml] validation/chi-f13-*.yaml [--write]
  tools/fit-profile.py --pipesim build/release/tools/pipesim --profile hardware/h100-dgx.yaml \
      --tp-overlap-sm validation/dgxc-*-h100-llama3-70b-64gpu-*.yaml [--write]
  tools/fit-profile.py --pipesim build/release/tools/pipesim --profile hardware/h100-dgx.yaml \
      --grouped-gemm RUNS-WITH-GROUPED-GEMMS.yaml [--write]  (none in the suite today: the
      DGX Cloud Grok-1 recipe runs SequentialMLP, moe_grouped_gemm off)

--base-curve is the unfitted assumption the scale applies to (recorded in the profile's
comment), so a rerun reproduces the same fit from the same inputs.

Per-operation measurements (--per-op FILE, e.g. validation/per-op/a100.json: what one stage's
or one layer's forward, input-gradient and weight-gradient pass took per micro-batch) are
priced on the profile instead of runs: every op's configuration is a validation file's run:
section, its hardware replaced by --profile. Without --dtype it is a check: each op predicted
against measured, with the share of its predicted time on the GEMM efficiency curves, on the
HBM curve and the rest (communication, launches), from pricing it again with each scaled by
0.95. With --dtype and --base-curve it fits the curve's k on the ops named by --ops (all by
default), nothing else:

  tools/fit-profile.py --pipesim build/release/tools/pipesim --profile hardware/a100-roce.yaml \
      --per-op validation/per-op/a100.json [--ops backward_weight --dtype fp16 \
      --base-curve 1e9:0.25,1e11:0.65,1e13:0.80 [--write]]
"""

import argparse
import functools
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def golden(f, lo, hi):
    """Golden-section minimum of f on [lo, hi], rounded to 3 decimals (reruns reproduce it)."""
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(30):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = f(x2)
    return round((lo + hi) / 2, 3)


def curve_text(points, k):
    return "[" + ", ".join(f"[{x:.1e}, {min(1.0, y * k):.3f}]" for x, y in points) + "]"


def set_curve(profile_text, dtype, curve):
    # The dtype's line inside gemm_efficiency: "    fp32: [[...], ...]"
    pattern = re.compile(r"^(\s+" + re.escape(dtype) + r":\s*)\[\[.*\]\](.*)$", re.M)
    if not pattern.search(profile_text):
        sys.exit(f"fit-profile: no gemm_efficiency curve for {dtype} in the profile")
    return pattern.sub(lambda m: m.group(1) + curve + m.group(2), profile_text, count=1)


def set_inter_efficiency(profile_text, eff):
    pattern = re.compile(r"^(\s+inter_node:\s*\{alpha:\s*[^,]+,\s*beta:\s*[^,}]+)(,\s*efficiency:\s*[^}]+)?\}",
                         re.M)
    if not pattern.search(profile_text):
        sys.exit("fit-profile: no links.inter_node {alpha, beta} in the profile")
    return pattern.sub(lambda m: m.group(1) + f", efficiency: {eff:.3f}}}", profile_text, count=1)


def set_inter_alpha(profile_text, alpha):
    pattern = re.compile(r"^(\s+inter_node:\s*\{alpha:\s*)[^,]+(,)", re.M)
    if not pattern.search(profile_text):
        sys.exit("fit-profile: no links.inter_node {alpha, ...} in the profile")
    return pattern.sub(lambda m: m.group(1) + f"{alpha:.3g}" + m.group(2), profile_text, count=1)


def set_scalar(profile_text, section, key, value):
    """`key: value` under the top-level `section:` of a profile, replaced or added."""
    line = f"  {key}: {value:.3f}"
    pattern = re.compile(r"^\s+" + re.escape(key) + r":.*$", re.M)
    if pattern.search(profile_text):
        return pattern.sub(line, profile_text, count=1)
    header = re.compile(r"^" + re.escape(section) + r":\s*\n", re.M)
    if header.search(profile_text):
        return header.sub(lambda m: m.group(0) + line + "\n", profile_text, count=1)
    return profile_text.rstrip("\n") + f"\n{section}:\n" + line + "\n"


# The scalar parameters fitted alone, with the profile's curves as they are: option →
# (section, key, search interval).
SCALARS = {
    "tp_overlap_sm": ("framework", "tp_overlap_sm_fraction", 0.0, 0.5),
    "grouped_gemm": ("gpu", "grouped_gemm_efficiency", 0.3, 1.0),
}


def fit_scalar(a, base_text, name, which):
    section, key, lo, hi = SCALARS[which]
    with tempfile.TemporaryDirectory() as work:
        @functools.lru_cache(maxsize=None)
        def cost(x):
            pts = predict(a.pipesim, set_scalar(base_text, section, key, x), name, a.runs, work)
            return sum(math.log(p["predicted"] / p["measured"]) ** 2 for p in pts) / len(pts), pts

        x = golden(lambda v: cost(v)[0], lo, hi)
        err, pts = cost(x)
    print(f"{key} = {x}  (mean squared log error on the fit runs {err:.4f})")
    for p in pts:
        print(f"  {p['id']}: measured {p['measured']:.4g}, predicted {p['predicted']:.4g} "
              f"({100 * p['error']:+.1f}%, + = optimistic)")
    if a.write:
        tmp = a.profile + ".tmp"
        with open(tmp, "w") as f:
            f.write(set_scalar(base_text, section, key, x))
        os.replace(tmp, a.profile)
        print(f"wrote {a.profile}")


def predict(pipesim, profile_text, profile_name, runs, workdir):
    profile_path = os.path.join(workdir, "profile.yaml")
    with open(profile_path, "w") as f:
        f.write(profile_text)
    files = []
    for run in runs:
        with open(run) as f:
            text = f.read()
        text = re.sub(r"^(\s+hardware:\s*)" + re.escape(profile_name) + r"\s*$",
                      lambda m: m.group(1) + profile_path, text, flags=re.M)
        path = os.path.join(workdir, os.path.basename(run))
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
    out = subprocess.run([pipesim, "validate", "--format", "json", *files], check=True,
                         capture_output=True, text=True).stdout
    return [p for p in json.loads(out)["points"] if "predicted" in p]


# ---- per-operation measurements (--per-op) ----

PER_OP_KEYS = {"forward": ("t_forward",), "backward_input": ("t_backward_input",),
               "backward_weight": ("t_backward_weight",),
               "backward": ("t_backward_input", "t_backward_weight", "t_recompute")}


def read_run(path):
    """The run: section of a validation file: flat `key: value` lines (quotes and comments off)."""
    run, inside = {}, False
    with open(path) as f:
        for line in f:
            if re.match(r"^run:\s*$", line):
                inside = True
                continue
            if inside:
                if line.strip() == "" or line.lstrip().startswith("#"):
                    continue
                if not line.startswith((" ", "\t")):
                    break
                m = re.match(r"^\s+(\w+):\s*(.*?)\s*(#.*)?$", line)
                if m:
                    run[m.group(1)] = m.group(2).strip().strip('"').strip("'")
    if not run:
        sys.exit(f"fit-profile: no run: section in {path}")
    return run


def model_with_layers(root, name, layers, workdir):
    """The run's model file with `layers` replaced (a one-layer difference isolates a layer)."""
    src = name if os.path.isfile(name) else os.path.join(root, "models", name + ".yaml")
    with open(src) as f:
        text = f.read()
    if not re.search(r"^layers:\s*\d+", text, re.M):
        sys.exit(f"fit-profile: no layers: in {src}")
    path = os.path.join(workdir, f"{os.path.basename(src)[:-5]}-{layers}-layers.yaml")
    with open(path, "w") as f:
        f.write(re.sub(r"^layers:\s*\d+", f"layers: {layers}", text, count=1, flags=re.M))
    return path


def stage_costs(pipesim, run):
    args = [pipesim, "simulate", "--format", "json"]
    for k, v in run.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode not in (0, 4):  # 4: predicted, but above the GPUs' memory
        sys.exit(f"fit-profile: {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)["stage_costs"]


def op_seconds(costs, op):
    return sum(costs[k] for k in PER_OP_KEYS[op])


def per_op_predict(pipesim, root, profile_path, ops, workdir):
    """Rows (id, source, op, measured s, predicted s) of every measured op, on the profile."""
    rows = []
    for entry in ops:
        run = read_run(os.path.join(root, entry["run"]))
        run.update(entry.get("override", {}))
        run["hardware"] = profile_path
        if entry["stage"] == "middle":
            costs = stage_costs(pipesim, run)
            mid = [c for c in costs if not c["embedding"] and not c["head"]]
            if not mid:
                sys.exit(f"fit-profile: {entry['id']}: every stage holds the embedding or the head")
            pred = {op: op_seconds(mid[0], op) for op in entry["measured_ms"]}
        elif entry["stage"] == "layer":
            run.update(stages=1, micro_batches=1, data_parallel=1)
            per_layers = []
            for layers in (1, 2):
                run["model"] = model_with_layers(root, read_run(os.path.join(root, entry["run"]))["model"],
                                                 layers, workdir)
                per_layers.append(stage_costs(pipesim, run)[0])
            pred = {op: op_seconds(per_layers[1], op) - op_seconds(per_layers[0], op)
                    for op in entry["measured_ms"]}
        else:
            sys.exit(f"fit-profile: {entry['id']}: stage must be middle or layer")
        for op, ms in entry["measured_ms"].items():
            rows.append({"id": entry["id"], "source": entry["source"], "op": op,
                         "measured": ms / 1e3, "predicted": pred[op]})
    return rows


def scale_curves(profile_text, gemm, hbm):
    """Every GEMM efficiency curve scaled by `gemm`, the HBM efficiency curve by `hbm`."""
    def scaled(m, k):
        pts = re.findall(r"\[\s*([^,\[\]]+),\s*([^,\[\]]+)\]", m.group(2))
        return m.group(1) + "[" + ", ".join(f"[{x}, {float(y) * k:.6g}]" for x, y in pts) + "]"
    text = re.sub(r"^(\s+(?:fp32|tf32|bf16|fp16|fp8|mxfp8|nvfp4):\s*)(\[\[.*\]\])",
                  lambda m: scaled(m, gemm), profile_text, flags=re.M)
    return re.sub(r"^(\s+hbm_efficiency:\s*)(\[\[.*\]\])", lambda m: scaled(m, hbm), text,
                  flags=re.M)


def per_op_rows(a, root, profile_text, entries, work, tag):
    path = os.path.join(work, f"profile-{tag}.yaml")
    with open(path, "w") as f:
        f.write(profile_text)
    return per_op_predict(a.pipesim, root, path, entries, work)


def print_per_op(rows, shares=None):
    print("per-op: measured ms, predicted ms, error (+ = pipesim faster, 1 - predicted/measured)"
          + (", predicted ms on the GEMM curves / the HBM curve / the rest" if shares else ""))
    for i, r in enumerate(rows):
        line = (f"  {r['id']:<24} {r['op']:<16} {1e3 * r['measured']:8.3f} "
                f"{1e3 * r['predicted']:8.3f} {100 * (1 - r['predicted'] / r['measured']):+6.1f}%")
        if shares:
            g, m = shares[i]
            line += f"   {1e3 * g:7.3f} {1e3 * m:7.3f} {1e3 * (r['predicted'] - g - m):7.3f}"
        print(line)
    for src in sorted({r["source"] for r in rows}):
        for op in sorted({r["op"] for r in rows if r["source"] == src}):
            e = [1 - r["predicted"] / r["measured"] for r in rows
                 if r["source"] == src and r["op"] == op]
            print(f"  {src} {op}: mean error {100 * sum(e) / len(e):+.1f}% "
                  f"(min {100 * min(e):+.1f}%, max {100 * max(e):+.1f}%, {len(e)} ops)")


def per_op(a, base_text):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(a.per_op) as f:
        entries = json.load(f)["ops"]
    names = [o for o in a.ops.split(",") if o]
    for o in names:
        if o not in PER_OP_KEYS:
            sys.exit(f"fit-profile: --ops: {o} is not one of {', '.join(PER_OP_KEYS)}")
    with tempfile.TemporaryDirectory() as work:
        if not a.dtype:
            rows = per_op_rows(a, root, base_text, entries, work, "base")
            # Derivatives in 1/efficiency: a time t = G/e_gemm + M/e_hbm + C moves by G·(1/0.95 − 1)
            # when every GEMM curve is scaled by 0.95.
            step = 1 / 0.95 - 1
            slow_gemm = per_op_rows(a, root, scale_curves(base_text, 0.95, 1.0), entries, work, "g")
            slow_hbm = per_op_rows(a, root, scale_curves(base_text, 1.0, 0.95), entries, work, "m")
            shares = [((g["predicted"] - r["predicted"]) / step, (m["predicted"] - r["predicted"]) / step)
                      for r, g, m in zip(rows, slow_gemm, slow_hbm)]
            print_per_op(rows, shares)
            return
        if not a.base_curve:
            sys.exit("fit-profile: --per-op with --dtype needs --base-curve")
        points = [tuple(float(v) for v in p.split(":")) for p in a.base_curve.split(",")]

        @functools.lru_cache(maxsize=None)
        def cost(k):
            rows = per_op_rows(a, root, set_curve(base_text, a.dtype, curve_text(points, k)),
                               entries, work, "fit")
            fit = [r for r in rows if not names or r["op"] in names]
            if not fit:
                sys.exit("fit-profile: --ops names no measured op")
            return sum(math.log(r["predicted"] / r["measured"]) ** 2 for r in fit) / len(fit), rows

        k = golden(lambda x: cost(x)[0], 0.2, 1.2)
        err, rows = cost(k)
    curve = curve_text(points, k)
    print(f"k = {k}  ({a.dtype} GEMM efficiency scale; mean squared log error on the fitted ops "
          f"({', '.join(names) or 'all'}) {err:.4f})")
    print(f"curve: {curve}")
    print_per_op(rows)
    if a.write:
        tmp = a.profile + ".tmp"
        with open(tmp, "w") as f:
            f.write(set_curve(base_text, a.dtype, curve))
        os.replace(tmp, a.profile)
        print(f"wrote {a.profile}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pipesim", required=True)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--dtype")
    ap.add_argument("--base-curve", help="x:y,x:y,... the unfitted curve")
    ap.add_argument("--tp-overlap-sm", action="store_true",
                    help="fit framework.tp_overlap_sm_fraction instead of a GEMM curve")
    ap.add_argument("--grouped-gemm", action="store_true",
                    help="fit gpu.grouped_gemm_efficiency instead of a GEMM curve")
    ap.add_argument("--inter-efficiency", action="store_true",
                    help="also fit links.inter_node.efficiency")
    ap.add_argument("--alpha-runs", default="",
                    help="comma-separated runs to fit links.inter_node.alpha on")
    ap.add_argument("--per-op", help="per-operation measurements (JSON) instead of runs: a check "
                    "without --dtype, else fit the curve's k on them")
    ap.add_argument("--ops", default="",
                    help="with --per-op: comma-separated ops fitted (forward, backward_input, "
                    "backward_weight, backward); default all")
    ap.add_argument("--write", action="store_true", help="rewrite the fitted values in the profile")
    ap.add_argument("runs", nargs="*")
    a = ap.parse_args()
    if a.per_op:
        if a.runs or a.tp_overlap_sm or a.grouped_gemm or a.inter_efficiency or a.alpha_runs:
            ap.error("--per-op takes no runs and fits only a GEMM curve")
        with open(a.profile) as f:
            per_op(a, f.read())
        return
    if not a.runs:
        ap.error("runs are required unless --per-op")
    for which in SCALARS:
        if getattr(a, which):
            with open(a.profile) as f:
                text = f.read()
            fit_scalar(a, text, re.search(r"^name:\s*(\S+)", text, re.M).group(1), which)
            return
    if not a.dtype or not a.base_curve:
        ap.error("--dtype and --base-curve are required unless --tp-overlap-sm or --grouped-gemm")
    points = [tuple(float(v) for v in p.split(":")) for p in a.base_curve.split(",")]
    with open(a.profile) as f:
        base_text = f.read()
    name = re.search(r"^name:\s*(\S+)", base_text, re.M).group(1)

    alpha_runs = [r for r in a.alpha_runs.split(",") if r]

    def profile(k, eff, alpha=None):
        text = set_curve(base_text, a.dtype, curve_text(points, k))
        if alpha is not None:
            text = set_inter_alpha(text, alpha)
        return set_inter_efficiency(text, eff) if eff is not None else text

    with tempfile.TemporaryDirectory() as work:
        # Predictions are deterministic: a point the searches or the final report ask for
        # again (the last round repeats the one before; the report repeats the last search)
        # is not predicted twice.
        @functools.lru_cache(maxsize=None)
        def cost_of(k, eff, alpha, runs):
            pts = predict(a.pipesim, profile(k, eff, alpha), name, list(runs), work)
            return sum(math.log(p["predicted"] / p["measured"]) ** 2 for p in pts) / len(pts), pts

        def cost(k, eff, alpha, runs):
            return cost_of(k, eff, alpha, tuple(runs))

        # Fixed starting point (not the profile's values), and rounds until the rounded values
        # repeat, so that a rerun on the fitted profile reproduces the same fit.
        k, eff = 1.0, (1.0 if a.inter_efficiency else None)
        alpha = 1e-5 if alpha_runs else None
        rounds = 16 if a.inter_efficiency or alpha_runs else 1
        for _ in range(rounds):
            before = (k, eff, alpha)
            k = golden(lambda x: cost(x, eff, alpha, a.runs)[0], 0.2, 1.2)
            if a.inter_efficiency:
                eff = golden(lambda x: cost(k, x, alpha, a.runs)[0], 0.02, 1.0)
            if alpha_runs:
                # log10 of seconds, 1 µs .. 1 ms: a per-message latency spans decades
                alpha = float(f"{10 ** golden(lambda x: cost(k, eff, 10 ** x, alpha_runs)[0], -6, -3):.3g}")
            if (k, eff, alpha) == before:
                break
        err, pts = cost(k, eff, alpha, a.runs)
        fitted_ids = {p["id"] for p in pts}
        alpha_pts = [p for p in (cost(k, eff, alpha, alpha_runs)[1] if alpha_runs else [])
                     if p["id"] not in fitted_ids]

    curve = curve_text(points, k)
    print(f"k = {k}  ({a.dtype} GEMM efficiency scale; mean squared log error on the fit runs "
          f"{err:.4f})")
    print(f"curve: {curve}")
    if eff is not None:
        print(f"inter_node efficiency = {eff}")
    if alpha is not None:
        print(f"inter_node alpha = {alpha:.3g} s (fitted on {len(alpha_runs)} runs)")
    for p in pts + alpha_pts:
        print(f"  {p['id']}: measured {p['measured']:.4g}, predicted {p['predicted']:.4g} "
              f"({100 * p['error']:+.1f}%, + = optimistic)")
    if a.write:
        tmp = a.profile + ".tmp"
        with open(tmp, "w") as f:
            f.write(profile(k, eff, alpha))
        os.replace(tmp, a.profile)
        print(f"wrote {a.profile}")


if __name__ == "__main__":
    main()
