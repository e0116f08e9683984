#!/usr/bin/env python3
"""JIT compile time (cold) and kernel-cache load time, per process.

The JIT's first query of a key in a process either compiles the kernel
(no cache entry) or loads it from the on-disk cache (an entry a previous
process stored). A query cannot do either twice in one process (the
kernel then stays in memory: BM_QueryJitHit of mxgemm-bench-runtime times
that), so each sample is its own process. Each process first makes a
tuned query (HIP and the embedded modules are loaded then, outside the
timing), then times its first JIT query with time.perf_counter (wall
clock, so the figure includes loading libmxgemm_jit.so in the cold case).

Usage (from the build tree's environment, as scripts/test.sh sets it):
  PYTHONPATH=python MXGEMM_RUNTIME_LIBRARY=build/lib/libmxgemm_runtime.so \\
  MXGEMM_HIP_LIBRARY=build/lib/libmxgemm_hip_emu.so \\
  /usr/bin/python3 bench/Runtime/jit_timing.py [--runs 5]

Prints the median and the range of each over --runs processes (a fresh
cache directory per cold sample; the warm samples share one entry).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import sys, time
import mxgemm
ctx = mxgemm.Context()
assert mxgemm.plan(16384, 16384, 1280, ctx=ctx,
                   w_layout="mfma_panels").status in ("OK", "NOT_ELIGIBLE")
ctx.set_jit(True)
t0 = time.perf_counter()
p = mxgemm.plan(1, 2048, 4096, ctx=ctx)
dt = time.perf_counter() - t0
if not p.eligible and p.reason == "PACKED_WEIGHTS":
    p = mxgemm.plan(1, 2048, 4096, ctx=ctx, w_layout=p.w_layout)
assert p.kind == "jit", p.message
print("%.3f %s" % (dt * 1e3, p.note))
"""


def sample(cache):
    env = dict(os.environ, MXGEMM_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, check=True,
                         capture_output=True, text=True).stdout.split(" ", 1)
    return float(out[0]), out[1].strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    cold, warm = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            ms, note = sample(os.path.join(tmp, "cold%d" % i))
            assert "compiled" in note, note
            cold.append(ms)
        shared = os.path.join(tmp, "warm")
        sample(shared)  # stores the entry
        for _ in range(args.runs):
            ms, note = sample(shared)
            assert "from the cache" in note, note
            warm.append(ms)
    for name, v in (("JIT compile, first query (cold, ms)", cold),
                    ("kernel-cache load, first query (ms)", warm)):
        print("%-40s median %8.2f  min %8.2f  max %8.2f  (%d processes)" % (
            name, statistics.median(v), min(v), max(v), len(v)))


if __name__ == "__main__":
    main()
