#!/usr/bin/env python3
"""Per-phase facts of a PyTorch profiler trace, derived independently of pipesim's C++ reader.

    tools/trace-facts.py TRACE.json[.gz] [--source TEXT] > facts.json

Each GPU activity (cat kernel, gpu_memcpy, gpu_memset) is put in the innermost user annotation
around its launch (the cuda_runtime/cuda_driver event with the same correlation id): on the
launching thread, else in the launching process; innermost = the latest-starting range that
contains the launch. The facts: the trace's GPU, event and kernel counts, total kernel time, the
host's pace (the median interval between consecutive kernel-launch calls on one host thread,
over every thread: what the framework spends on the host per launched kernel while it runs
ahead of the GPU), and per phase its occurrences and its kernels aggregated by name (count,
microseconds, streams).
calibrate/examples/make_trace.py rebuilds a synthetic trace from them; the calibrate tests check
pipesim's reader against them.
"""
import argparse
import gzip
import json
import statistics
import sys
from collections import defaultdict

GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def innermost(ranges, pid, tid, time, same_thread):
    best = None
    for r in ranges:
        if r["pid"] != pid or (same_thread and r["tid"] != tid):
            continue
        if r["ts"] <= time <= r["ts"] + r["dur"]:
            if best is None or (r["ts"], -r["dur"]) > (best["ts"], -best["dur"]):
                best = r
    return best


def facts(trace, source):
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    ranges = [e for e in events if e.get("cat") == "user_annotation" and e.get("ph") == "X"]
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and "correlation" in e.get("args", {})}
    kernels = [e for e in events if e.get("cat") in GPU_CATEGORIES and e.get("ph") == "X"]
    occurrences = defaultdict(int)
    first = {}
    for r in ranges:
        occurrences[r["name"]] += 1
        first[r["name"]] = min(first.get(r["name"], r["ts"]), r["ts"])
    phases = defaultdict(lambda: defaultdict(lambda: {"count": 0, "us": 0.0, "streams": set()}))
    for k in kernels:
        launch = launches.get(k.get("args", {}).get("correlation"))
        phase = ""
        if launch is not None:
            r = (innermost(ranges, launch["pid"], launch["tid"], launch["ts"], True)
                 or innermost(ranges, launch["pid"], launch["tid"], launch["ts"], False))
            phase = r["name"] if r else ""
        entry = phases[phase][(k["name"], k["cat"])]
        entry["count"] += 1
        entry["us"] += k["dur"]
        entry["streams"].add(k.get("args", {}).get("stream", -1))
    calls = defaultdict(list)
    for e in events:
        if e.get("cat") == "cuda_runtime" and e.get("name", "").startswith("cudaLaunchKernel"):
            calls[(e["pid"], e["tid"])].append(e["ts"])
    intervals = []
    for times in calls.values():
        times.sort()
        intervals += [b - a for a, b in zip(times, times[1:])]
    devices = trace.get("deviceProperties", []) if isinstance(trace, dict) else []
    out = {
        "source": source,
        "gpu": devices[0]["name"] if devices else "",
        "distributed": trace.get("distributedInfo", {}) if isinstance(trace, dict) else {},
        "events": len(events),
        "kernels": len(kernels),
        "kernel_time_us": sum(k["dur"] for k in kernels),
        "host_launches": sum(len(t) for t in calls.values()),
        "host_launch_interval_us": statistics.median(intervals) if intervals else 0.0,
        "phases": [],
    }
    for name in sorted(phases, key=lambda n: (n == "", first.get(n, 0.0), n)):
        rows = phases[name]
        out["phases"].append({
            "name": name,
            "ranges": occurrences.get(name, 0),
            "kernels": sum(v["count"] for v in rows.values()),
            "us": sum(v["us"] for v in rows.values()),
            "by_name": [{"name": n, "cat": c, "count": v["count"], "us": v["us"],
                         "streams": sorted(v["streams"])}
                        for (n, c), v in sorted(rows.items())],
        })
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--source", default="", help="where the trace comes from (cited)")
    args = parser.parse_args()
    json.dump(facts(load(args.trace), args.source or args.trace), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
