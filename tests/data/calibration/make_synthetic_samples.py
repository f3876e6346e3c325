#!/usr/bin/env python3
"""Writes SYNTHETIC calibration samples for the CPU tests: nothing here was measured.

Every time is computed from KNOWN parameters (TRUTH below) with the same formulas the fits
invert, times a deterministic multiplicative noise of at most +/-NOISE, so a test can check that
the fits recover the truth:
  gemm          t = launch + 2mnk / (peak[dtype] * eff_dtype(2mnk))
  copy, triad   t = launch + bytes / (hbm_bandwidth * eff_hbm(bytes))
  links, host   t = alpha + bytes / beta                      (Hockney)
  collectives   t = alpha + busbw_factor(op, n) * bytes / beta   (nccl-tests busbw)
  launch        t = launch
Efficiency tables are piecewise-linear in log10(size), clamped at the ends (the profile schema).
Shapes and sizes follow calibrate/bench/microbench.cu in --quick mode on 8 GPUs.

Usage: python3 make_synthetic_samples.py   (rewrites synthetic_samples.csv and
synthetic_truth.json beside this script; deterministic, no dependencies)
"""
import json
import math
import os

NOISE = 0.03
PEAKS = {"fp32": 67.0e12, "tf32": 494.0e12, "bf16": 989.0e12, "fp16": 989.0e12,
         "fp8": 1978.9e12}  # base profile
HBM_BANDWIDTH = 4.8e12
GPUS = 8
TRUTH = {
    "kernel_launch": 2.5e-6,
    "gemm_efficiency": {
        "bf16": [[1e6, 0.002], [1e7, 0.015], [1e8, 0.08], [1e9, 0.30], [1e10, 0.60],
                 [1e11, 0.75], [1e12, 0.80], [1e13, 0.80]],
        "fp16": [[1e6, 0.002], [1e7, 0.014], [1e8, 0.07], [1e9, 0.28], [1e10, 0.58],
                 [1e11, 0.74], [1e12, 0.79], [1e13, 0.79]],
        "tf32": [[1e6, 0.003], [1e7, 0.02], [1e8, 0.10], [1e9, 0.35], [1e10, 0.60],
                 [1e11, 0.70], [1e12, 0.72], [1e13, 0.72]],
        "fp32": [[1e6, 0.02], [1e7, 0.10], [1e8, 0.35], [1e9, 0.65], [1e10, 0.82],
                 [1e11, 0.86], [1e12, 0.87], [1e13, 0.87]],
        "fp8": [[1e6, 0.001], [1e7, 0.008], [1e8, 0.04], [1e9, 0.18], [1e10, 0.45],
                [1e11, 0.62], [1e12, 0.70], [1e13, 0.71]],
    },
    "hbm_efficiency": [[1e5, 0.05], [1e6, 0.25], [1e7, 0.60], [1e8, 0.82], [1e9, 0.88],
                       [1e10, 0.90]],
    # Hockney (alpha s, beta bytes/s); collectives: beta is the nccl-tests bus bandwidth.
    "send_recv": [6.0e-6, 370.0e9],
    "peer_copy": [4.0e-6, 390.0e9],
    "all_reduce": [15.0e-6, 360.0e9],
    "all_gather": [10.0e-6, 370.0e9],
    "reduce_scatter": [10.0e-6, 365.0e9],
    "h2d": [8.0e-6, 55.0e9],
    "d2h": [8.0e-6, 53.0e9],
}


class Noise:
    """A 64-bit LCG (Knuth MMIX constants): the same sequence on every machine."""

    def __init__(self, seed):
        self.state = seed

    def factor(self):
        self.state = (6364136223846793005 * self.state + 1442695040888963407) % 2**64
        u = (self.state >> 11) / float(1 << 53)  # [0, 1)
        return 1.0 + NOISE * (2.0 * u - 1.0)


def interp(table, x):
    lx = math.log10(x)
    pts = [(math.log10(s), e) for s, e in table]
    if lx <= pts[0][0]:
        return pts[0][1]
    if lx >= pts[-1][0]:
        return pts[-1][1]
    for (x0, e0), (x1, e1) in zip(pts, pts[1:]):
        if lx <= x1:
            return e0 + (lx - x0) / (x1 - x0) * (e1 - e0)
    raise AssertionError


def bus_factor(op, n):
    return {"all_reduce": 2.0 * (n - 1) / n, "all_gather": (n - 1) / n,
            "reduce_scatter": (n - 1) / n}.get(op, 1.0)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    noise = Noise(20261130)
    launch = TRUTH["kernel_launch"]
    rows = []

    def row(bench, dtype, m, n, k, nbytes, gpus, seconds, note):
        rows.append(f"{bench},{dtype},{m},{n},{k},{nbytes:.17g},{gpus},{seconds:.6g},"
                    f"{NOISE * 2:.3g},5,{note}")

    for _ in range(5):
        row("launch", "", 0, 0, 0, 0, 1, launch * noise.factor(), "synthetic")
    array = 256 << 10
    while array <= 1 << 30:
        for bench, nbytes in (("copy", 2 * array), ("triad", 3 * array)):
            t = launch + nbytes / (HBM_BANDWIDTH * interp(TRUTH["hbm_efficiency"], nbytes))
            row(bench, "fp32", 0, 0, 0, nbytes, 1, t * noise.factor(), f"array_bytes={array} synthetic")
        array *= 4
    shapes = [(c, c, c) for c in (128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192)]
    for h in (1024, 4096, 8192):
        for m in (512, 4096):
            shapes += [(m, 3 * h, h), (m, h, h), (m, 4 * h, h), (m, h, 4 * h)]
            if h <= 4096:
                shapes.append((m, 50304, h))
    for dtype, elem in (("bf16", 2), ("fp16", 2), ("tf32", 4), ("fp32", 4)):
        for m, n, k in shapes:
            flops = 2.0 * m * n * k
            if elem == 4 and flops > 2e12:
                continue
            t = launch + flops / (PEAKS[dtype] * interp(TRUTH["gemm_efficiency"][dtype], flops))
            row("gemm", dtype, m, n, k, (m * k + k * n + m * n) * elem, 1, t * noise.factor(), "TN synthetic")
    # FP8 (cublasLt, E4M3 operands, bf16 output): every shape, as the benchmark runs them.
    for m, n, k in shapes:
        flops = 2.0 * m * n * k
        t = launch + flops / (PEAKS["fp8"] * interp(TRUTH["gemm_efficiency"]["fp8"], flops))
        row("gemm", "fp8", m, n, k, m * k + k * n + 2 * m * n, 1, t * noise.factor(), "TN synthetic")
    size = 4096
    while size <= 256 << 20:
        for op in ("h2d", "d2h"):
            a, b = TRUTH[op]
            row(op, "", 0, 0, 0, size, 1, (a + size / b) * noise.factor(), "pinned synthetic")
        a, b = TRUTH["peer_copy"]
        row("peer_copy", "", 0, 0, 0, size, 2, (a + size / b) * noise.factor(), "0->1 p2p synthetic")
        size *= 4
    for op in ("all_reduce", "all_gather", "reduce_scatter", "send_recv"):
        a, b = TRUTH[op]
        size = 1024 * GPUS
        while size <= 256 << 20:
            t = a + bus_factor(op, GPUS) * size / b
            row(op, "fp32", 0, 0, 0, size, GPUS, t * noise.factor(), "synthetic")
            size *= 4

    header = [
        "# SYNTHETIC samples for tests, NOT measured: generated by make_synthetic_samples.py from",
        "# known parameters (synthetic_truth.json) with deterministic +/-3% noise.",
        "# tool: make_synthetic_samples.py",
        "# mode: quick",
        "# gpu: synthetic (not measured)",
        f"# gpus: {GPUS}",
        "# driver: n/a (synthetic)",
        "# cuda_runtime: n/a (synthetic)",
        "# date: 2026-11-30",
        "benchmark,dtype,m,n,k,bytes,gpus,seconds,spread,reps,note",
    ]
    with open(os.path.join(here, "synthetic_samples.csv"), "w") as f:
        f.write("\n".join(header + rows) + "\n")
    truth = dict(TRUTH, noise=NOISE, gpus=GPUS, peak_flops=PEAKS, hbm_bandwidth=HBM_BANDWIDTH,
                 note="SYNTHETIC: the parameters synthetic_samples.csv was generated from")
    with open(os.path.join(here, "synthetic_truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
