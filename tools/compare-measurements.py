#!/usr/bin/env python3
"""Sets the fits of calibrate/measurements/*.csv beside the shipped profiles' curves.

Usage: tools/compare-measurements.py FITTED_DIR   (FITTED_DIR holds <name>.json, the
`pipesim calibrate --from-samples --format json` report tools/fit-measurements.sh writes; each
CSV's base profile is the shipped one its file name's prefix names, BASE below). Prints, per file, (1) the fitted curve's knots with the shipped curve at the same FLOPs,
(2) attention / grouped-GEMM scalars, and (3) per measured row: the reached fraction of the peak
(raw FLOPs / (peak * t)), and the shipped and fitted profiles' predicted kernel time over the
measured one, priced as cost::kernel_time prices one kernel (max of compute and HBM streaming
for GEMMs, + kernel_launch; attention at attention_efficiency, else the GEMM curve; grouped GEMMs
at grouped_gemm_efficiency x the dense curve). Markdown on stdout.
"""
import csv, glob, json, math, os, re, sys
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = {"h800": "h800-dgx", "h100": "h100-dgx", "b200": "b200-dgx", "gb200": "gb200-nvl72",
        "b300": "b300-dgx", "gb300": "gb300-nvl72"}


def at(curve, x):
    pts = sorted((float(a), float(b)) for a, b in curve)
    if x <= pts[0][0]:
        return pts[0][1]
    if x >= pts[-1][0]:
        return pts[-1][1]
    lx = math.log10(x)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            f = (lx - math.log10(x0)) / (math.log10(x1) - math.log10(x0))
            return y0 + f * (y1 - y0)


def gpu(profile):
    return yaml.safe_load(open(profile))["gpu"]


def fitted_gpu(shipped, report_path):
    """The calibrated profile's gpu section: the base's with the report's fitted values."""
    if not os.path.exists(report_path):
        return None
    fit = json.load(open(report_path))
    g = dict(shipped)
    g["gemm_efficiency"] = dict(shipped["gemm_efficiency"])
    for dtype, t in (fit.get("gemm_efficiency") or {}).items():
        g["gemm_efficiency"][dtype] = t["table"]
    for key in ("attention_efficiency", "grouped_gemm_efficiency", "kernel_launch"):
        if fit.get(key) is not None:
            g[key] = fit[key]
    return g


def predict(g, row):
    dtype, flops, nbytes = row["dtype"], float(row["flops"]), float(row["bytes"])
    peak = float(g["peak_flops"][dtype])
    curve = g["gemm_efficiency"][dtype]
    att = float(g.get("attention_efficiency", 0) or 0)
    if row["benchmark"] == "attention":
        frac = att if att > 0 else at(curve, flops)
        stream = 0.0
    else:
        frac = at(curve, flops)
        if row["benchmark"] == "grouped_gemm":
            frac *= float(g.get("grouped_gemm_efficiency", 1.0))
        stream = nbytes / (float(g["hbm_bandwidth"]) * at(g["hbm_efficiency"], nbytes)) if nbytes else 0.0
    return max(flops / (peak * frac), stream) + float(g["kernel_launch"])


def what(r):
    """A short label of a row from its source cell: pass and mask (attention), groups."""
    src = r["source"]
    if r["benchmark"] == "attention":
        mode = "fwd+bwd" if "fwd_bwd" in src else ("bwd" if " bwd" in src else "fwd")
        causal = "causal" if ("causal=True" in src or " causal " in src) else "non-causal"
        return f"{mode} {causal} d={r['k']} s={r['m']}"
    m = re.search(r"groups=(\d+)", src)
    layout = " masked" if "masked" in src else (" contiguous" if "contiguous" in src else "")
    return (f"{m.group(1)} groups{layout} " if m else "") + f"{r['m']}x{r['n']}x{r['k']}"


def fmt_e(x):
    return f"{x:.3g}"


def main(fitted_dir):
    for path in sorted(glob.glob(os.path.join(ROOT, "calibrate/measurements/*.csv"))):
        name = os.path.splitext(os.path.basename(path))[0]
        base = BASE[name.split("-")[0]]
        shipped = gpu(os.path.join(ROOT, "hardware", base + ".yaml"))
        fitted = fitted_gpu(shipped, os.path.join(fitted_dir, name + ".json"))
        rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))
                if r["seconds"] != "NA"]
        print(f"\n### {name} (base {base})\n")
        for dtype in sorted({r["dtype"] for r in rows if r["benchmark"] == "gemm"}):
            if fitted is None:
                continue
            fc, sc = fitted["gemm_efficiency"][dtype], shipped["gemm_efficiency"][dtype]
            same = fc == sc
            print(f"gemm {dtype}: fitted curve {'(kept from base: not fitted)' if same else ''}\n")
            print("| FLOPs | shipped | fitted (measured) |\n|---|---|---|")
            for x, y in fc:
                print(f"| {fmt_e(float(x))} | {at(sc, float(x)):.3f} | {float(y):.3f} |")
            print()
        if fitted is not None:
            for key in ("attention_efficiency", "grouped_gemm_efficiency"):
                if any(r["benchmark"] == key.split("_eff")[0] for r in rows):
                    print(f"{key}: shipped {shipped.get(key, '(unset)')}, fitted {fitted.get(key)}\n")
        print("| kind | dtype | shape | FLOPs | measured s | raw frac of peak | shipped pred/meas |"
              + (" fitted pred/meas |" if fitted else "") + "\n|---|---|---|---|---|---|---|"
              + ("---|" if fitted else ""))
        for r in rows:
            t = float(r["seconds"])
            raw = float(r["flops"]) / (float(shipped["peak_flops"][r["dtype"]]) * t)
            shape = what(r)
            line = (f"| {r['benchmark']} | {r['dtype']} | {shape} | {fmt_e(float(r['flops']))} | "
                    f"{fmt_e(t)} | {raw:.3f} | {predict(shipped, r) / t:.2f} |")
            if fitted:
                line += f" {predict(fitted, r) / t:.2f} |"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "results/calibration/measured"))
