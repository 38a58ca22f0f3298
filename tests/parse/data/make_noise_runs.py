#!/usr/bin/env python3
"""Writes noise-{base,same,slower}.jsonl: three builds of the same workload for
compare's noise tests (tests/parse/compare_noise_test.cc). Deterministic (a
64-bit LCG), so the files never change: rerun only to change the design.

clone/clone, 6 runs a build: cpu about 1.00 s and resident about 50 MiB with
run-to-run noise; malloc and copied exact (the same in every run).
  same:   a second sample of base's distributions (A/A).
  slower: cpu 20 % higher, malloc 1 byte more in every run, copied equal.
status/status, 1 run a build: too few runs for a verdict."""
import json
import os

MIB = 1024 * 1024
state = 0


def uniform():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return (state >> 11) / float(1 << 53)


def noise():  # the sum of four uniforms, centred: roughly normal, sd ~0.58
    return sum(uniform() for _ in range(4)) - 2


def build(name, seed, cpu, malloc_extra):
    global state
    state = seed
    lines = []
    t = 1_000_000_000_000
    pid = 100
    for op, runs in (("clone", 6), ("status", 1)):
        for run in range(1, runs + 1):
            start = t + run * 10_000_000_000
            c = round(cpu * (1 + 0.03 * noise()), 4)
            rss = int((50 + 0.6 * noise()) * MIB) // 4096 * 4096
            size = int((100 + 0.3 * noise()) * MIB) // 4096 * 4096
            wall = int((c + 0.2 + 0.02 * noise()) * 1e9)
            pid += 1
            lines.append({"schema": 1, "kind": "process", "pid": pid, "ppid": 1,
                          "exe": "/usr/bin/git", "argv": ["git", op], "test": op, "op": op,
                          "start_ns": start + 1000, "end_ns": start + wall - 1000,
                          "cpu_user_s": c, "cpu_sys_s": 0.0,
                          "malloc_bytes": 8 * MIB + malloc_extra, "malloc_calls": 100,
                          "free_calls": 90, "realloc_copied_bytes": 0,
                          "copied_bytes": 4 * MIB, "copied_calls": 50,
                          "heap_peak_bytes": 2 * MIB, "vm_peak_bytes": size,
                          "rss_peak_bytes": rss, "sampled_size_peak_bytes": size,
                          "sampled_rss_peak_bytes": rss, "samples": 10,
                          "sampler_cpu_s": 0.001, "end": "exit", "exit_code": 0,
                          "written_by": "process"})
            lines.append({"schema": 1, "kind": "tree", "test": op, "op": op, "run": run,
                          "command": ["git", op], "start_ns": start, "end_ns": start + wall,
                          "processes": 1, "sampled_size_peak_bytes": size,
                          "sampled_rss_peak_bytes": rss, "samples": 10, "exit_code": 0})
        t += 1_000_000_000_000
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, f"noise-{name}.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")


build("base", 1, 1.00, 0)
build("same", 1001, 1.00, 0)
build("slower", 2001, 1.20, 1)
