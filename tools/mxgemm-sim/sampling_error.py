#!/usr/bin/env python3
"""Measures the error of mxgemm-sim's sampling (a head and a tail window of
rounds, the middle extrapolated) against a full simulation (--full: every
round traced on every XCD and timed) of problems small enough to simulate
entirely. Prints a markdown table; every time is a PREDICTION.

    python3 tools/mxgemm-sim/sampling_error.py --build build \
        [--case KIND:FAMILY:M ...]
"""
import argparse
import json
import os
import resource
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CASES = ["tuned:engram:4096", "tuned:wq_b:4096", "tuned:shared_down:8192",
                 "naive:wo_b:4096"]


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return json.loads(out), (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sim", default=None)
    ap.add_argument("--cases-dir", default=None,
                    help="where naive kernels are (run_cases.py --out)")
    ap.add_argument("--case", action="append", default=None)
    args = ap.parse_args()
    sim = args.sim or os.path.join(args.build, "bin", "mxgemm-sim")
    naive_dir = args.cases_dir or os.path.join(args.build, "sim-cases")
    print("| kernel | M | rounds | timed rounds (sampled) | sampled us | full us | "
          "error | sampled CPU s | full CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in args.case or DEFAULT_CASES:
        kind, family, m = case.split(":")
        if kind == "tuned":
            hsaco = os.path.join(args.build, "lib", "Runtime", "kernels", family + ".hsaco")
        else:
            hsaco = os.path.join(naive_dir, "naive-" + family + ".hsaco")
        base = [sim, hsaco, "--m", m, "--json"]
        sampled, cs = run(base)
        full, cf = run(base + ["--full"])
        err = sampled["time_us"] / full["time_us"] - 1
        print(f"| {kind} {family} | {m} | {sampled['sample']['rounds']} | "
              f"{' '.join(map(str, sampled['sample']['timed_rounds']))} | "
              f"{sampled['time_us']:.2f} | {full['time_us']:.2f} | {100 * err:+.2f}% | "
              f"{cs:.1f} | {cf:.1f} |", flush=True)


if __name__ == "__main__":
    main()
