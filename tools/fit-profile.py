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
    ap.add_argument("--write", action="store_true", help="rewrite the fitted values in the profile")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
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
