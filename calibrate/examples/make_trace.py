#!/usr/bin/env python3
"""Writes a SYNTHETIC PyTorch profiler trace rebuilt from a trace's per-phase facts.

    calibrate/examples/make_trace.py FACTS.json OUT.json.gz

FACTS is what tools/trace-facts.py derives from a real trace (here DeepSeek's published
DualPipe trace: deepseek-v3-trace-facts.json). The trace written has the same phases with the
same number of annotation ranges, and in each phase the same kernels by name, count, stream and
total time, each kernel's time the mean of its name's; it has none of the original's timing
structure (kernels of one range run back to back per stream from the range's start), so its
overlap figures are not the original's. Deterministic: the same facts give the same bytes.
"""
import gzip
import json
import sys


def build(facts):
    events = []
    correlation = 1
    clock = 1000.0
    for phase in facts["phases"]:
        ranges = max(phase["ranges"], 1)
        # Each range's kernels: every name's count shared out round-robin over the ranges.
        per_range = [[] for _ in range(ranges)]
        turn = 0
        for entry in phase["by_name"]:
            each = entry["us"] / entry["count"]
            for _ in range(entry["count"]):
                per_range[turn % ranges].append((entry, each))
                turn += 1
        for kernels in per_range:
            start = clock
            stream_clock = {}
            launch_time = start + 0.5
            for entry, dur in kernels:
                stream = entry["streams"][0]
                begin = max(stream_clock.get(stream, start + 1.0), launch_time + 1.0)
                events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                               "pid": 1, "tid": 1, "ts": launch_time, "dur": 0.1,
                               "args": {"correlation": correlation}})
                events.append({"ph": "X", "cat": entry["cat"], "name": entry["name"], "pid": 0,
                               "tid": stream, "ts": begin, "dur": dur,
                               "args": {"correlation": correlation, "stream": stream,
                                        "device": 0}})
                stream_clock[stream] = begin + dur
                launch_time += 0.2
                correlation += 1
            end = max([launch_time] + list(stream_clock.values())) + 1.0
            if phase["name"]:
                events.append({"ph": "X", "cat": "user_annotation", "name": phase["name"],
                               "pid": 1, "tid": 1, "ts": start, "dur": launch_time - start})
            clock = end + 10.0
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": facts["gpu"]}],
            "distributedInfo": facts.get("distributed", {}),
            "traceName": "SYNTHETIC: rebuilt from per-phase facts of " + facts["source"],
            "traceEvents": events}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        facts = json.load(f)
    text = json.dumps(build(facts), separators=(",", ":")).encode()
    with open(sys.argv[2], "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
            out.write(text)


if __name__ == "__main__":
    main()
