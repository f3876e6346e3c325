#!/usr/bin/env python3
"""Writes calibrate/examples/layer_times.csv: a SYNTHETIC layer-times file, nothing measured.

It lets `pipesim calibrate layer-check` be tried without a GPU. The rows have the shape
pipesim-layer-bench writes (calibrate/bench/layer_bench.cu, --quick grid: b in {1, 4},
s in {1024, 2048}, h in {1024, 2048, 4096}, heads = h/128, bf16, forward and backward "total"
rows), but every time is computed from KNOWN values of an imaginary GPU:

  forward   t = (24*b*s*h^2 + 4*b*s^2*h) / ACHIEVED + 13 * LAUNCH      (Narayanan et al. SC'21)
  backward  t = 2 * (24*b*s*h^2 + 4*b*s^2*h) / ACHIEVED + 19 * LAUNCH

(13 and 19 kernels: the forward and backward of calibrate/include/pipesim/calibrate/
layer_kernels.hpp). Memory-bound time is not modelled, so a real profile's prediction differs
from these rows; that difference is what the layer check is for.

Usage: python3 calibrate/examples/make_layer_times.py   (rewrites layer_times.csv beside this
script; deterministic, no dependencies)
"""
import os

ACHIEVED = 600.0e12  # FLOP/s a layer's GEMMs reach on the imaginary GPU (bf16)
LAUNCH = 5.0e-6      # seconds per kernel
FORWARD_KERNELS, BACKWARD_KERNELS = 13, 19


def forward_flops(b, s, h):
    return 24.0 * b * s * h * h + 4.0 * b * s * s * h


def main():
    lines = [
        "# SYNTHETIC example for `pipesim calibrate layer-check`, NOT measured: written by",
        "# calibrate/examples/make_layer_times.py from known values (achieved %.0f TFLOP/s,"
        % (ACHIEVED / 1e12),
        "# %.1f us per kernel launch). Real files come from pipesim-layer-bench (tools/gpu-calibrate.sh)."
        % (LAUNCH * 1e6),
        "# tool: make_layer_times.py",
        "# gpu: synthetic (not measured)",
        "b,s,h,heads,dtype,direction,kernel,seconds,note",
    ]
    for b in (1, 4):
        for s in (1024, 2048):
            for h in (1024, 2048, 4096):
                f = forward_flops(b, s, h)
                rows = (("forward", f / ACHIEVED + FORWARD_KERNELS * LAUNCH),
                        ("backward", 2 * f / ACHIEVED + BACKWARD_KERNELS * LAUNCH))
                for direction, seconds in rows:
                    lines.append("%d,%d,%d,%d,bf16,%s,total,%.6e,synthetic"
                                 % (b, s, h, h // 128, direction, seconds))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layer_times.csv")
    with open(path + ".tmp", "w", encoding="ascii", newline="\n") as out:
        out.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
