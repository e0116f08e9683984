#!/usr/bin/env python3
"""Predicted time against the roofline bound for the case-table families at
one or two M per bucket (issue 17 targets): for every family and M it
compiles the config mxgemm-compile's --config=auto chooses for that M hint
(the tuning database's entry, else the heuristic), simulates it with
mxgemm-sim at the sustained clock and prints a markdown table with the
bound and the ratio. Every time is a PREDICTION of the simulator.

Bounds (issue 17), as mxgemm-sim's JSON gives them (sim::GemmBounds, at
the sustained clock the time is predicted at; issue 17: "bounds at the
same clock"): memory = (W + W scales + X + X scales + Y) bytes at 8 TB/s;
compute = 2 M N K at the MFMA rate; and the latency floor, which no kernel
of the problem beats in the simulator's model (docs/Simulator.md, "Bounds
and the latency floor"). Targets: M <= 64 at least 80% of the memory
bound's speed (bound / predicted >= 0.8); 64 < M <= 8192 within 1.3x of
max(compute, memory). A target is "unreachable" when even a kernel at the
latency floor would miss it (bound / floor below the target).

    /usr/bin/python3 tools/mxgemm-sim/bucket_table.py --build build \
        --out build/bucket-table [--ms 1,16,64,256,1024,4096,8192] \
        [--screen-above 1024]  # (x0): --xcd0-only, pessimistic by 0-5%
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from mxgemm.cases import read_cases  # noqa: E402

def bucket_of(why):
    """The M range mxgemm-compile names for its choice: the entry's range or
    the heuristic's bucket (the compiler owns the bucket list)."""
    found = (re.search(r"M range (\d+)\.\.(\d+)", why)
             or re.search(r"in bucket \[(\d+), (\d+)\]", why))
    return "%s..%s" % found.groups() if found else "?"


def simulate(args, family, n, k, m):
    screened = args.screen_above and m > args.screen_above
    cache = os.path.join(args.out, "%s-%d%s.json" % (family, m, "-x0" if screened else ""))
    hsaco = os.path.join(args.out, "%s-%d.hsaco" % (family, m))
    cmd = [os.path.join(args.build, "bin", "mxgemm-compile"), "--n", str(n),
           "--k", str(k), "--m", str(m), "-o", hsaco]
    if args.tuning_db:
        cmd += ["--tuning-db", args.tuning_db]
    # Compiling is cheap and the database or the compiler may have changed
    # since the cached simulation: it is reused only for the same code
    # object and simulator options.
    compiled = subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(hsaco, "rb") as f:
        key = hashlib.sha256(f.read() + args.sim_args.encode()).hexdigest()
    # The labels come from this compile, never from the cache: entries
    # with one config compile to the same code object under other names.
    with open(hsaco + ".json") as f:
        sidecar = json.load(f)
    labels = {"config_source": sidecar.get("config_source", "?"),
              "bucket": bucket_of(compiled.stdout + compiled.stderr)}
    if os.path.exists(cache) and not args.force:
        with open(cache) as f:
            cached = json.load(f)
        if cached.get("cache_key") == key:
            cached.update(labels)
            return cached
    sim = subprocess.run([os.path.join(args.build, "bin", "mxgemm-sim"), hsaco,
                          "--m", str(m), "--json"] + args.sim_args.split() +
                         (["--xcd0-only"] if screened else []),
                         check=True, capture_output=True, text=True)
    result = json.loads(sim.stdout)
    result.update(labels)
    result["screened"] = bool(screened)
    result["cache_key"] = key
    with open(cache, "w") as f:
        json.dump(result, f, indent=1)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "data", "cases",
                                                    "deepseek_v4_flash_tp2.tsv"))
    ap.add_argument("--out", default="build/bucket-table")
    ap.add_argument("--ms", default="1,16,64,256,1024,4096,8192")
    ap.add_argument("--families", default="", help="comma list (default: all)")
    ap.add_argument("--tuning-db", default="",
                    help="database for auto (default: the embedded one)")
    ap.add_argument("--sim-args", default="", help="extra mxgemm-sim options")
    ap.add_argument("--screen-above", type=int, default=0,
                    help="simulate M above this with --xcd0-only (marked x0)")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ms = [int(m) for m in args.ms.split(",")]
    wanted = set(filter(None, args.families.split(",")))
    print("| family | N x K | M | bucket | config | predicted us | memory bound us "
          "| compute bound us | latency floor us | bound / predicted "
          "| bound / floor | target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    missed = unreachable = 0
    for fam in read_cases(args.cases):
        name, n, k = fam["family"], fam["N"], fam["K"]
        if wanted and name not in wanted:
            continue
        for m in ms:
            r = simulate(args, name, n, k, m)
            memory, compute = r["memory_bound_us"], r["compute_bound_us"]
            floor = r["latency_floor_us"]
            bound = max(memory, compute)
            ratio = bound / r["time_us"]
            best = min(1.0, bound / floor)
            if m <= 64:
                goal, target = 0.8, ">= 0.80 of memory"
            elif m <= 8192:
                goal, target = 1 / 1.3, "within 1.3x"
            else:
                goal, target = None, "none"
            met = None if goal is None else ratio >= goal
            verdict = ("" if goal is None else ": met" if met
                       else ": unreachable" if best < goal else ": MISSED")
            missed += met is False
            unreachable += met is False and best < goal
            print("| %s | %d x %d | %d | %s | %s | %.2f%s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |"
                  % (name, n, k, m, r.get("bucket", "?"), r["config_source"], r["time_us"],
                     " (x0)" if r.get("screened") else "",
                     memory, compute, floor, ratio, best, target + verdict))
            sys.stdout.flush()
    print("\n%d case(s) miss their target, %d of them unreachable (PREDICTIONS of "
          "mxgemm-sim, sustained clock)" % (missed, unreachable))


if __name__ == "__main__":
    main()
