#!/usr/bin/env python3
"""Ranks the config families of mxgemm-compile's --config=auto heuristic
(docs/Compiler.md) per M bucket on mxgemm-sim: for each case-table family
and one M in each of the first five buckets (below the database's entries,
so auto is the heuristic keeping the key's W layout), its pick, the naive
config, and the
family of the key's W layout (packed panels, or staged and ping-pong for
row-major W) at every tile_m x tile_n the rules could take. Every time is a
PREDICTION of the simulator (sustained clock, --xcd0-only sampling).

    python3 tools/mxgemm-sim/rank_auto.py --build build --out build/rank-auto
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from mxgemm.cases import read_cases  # noqa: E402

MS = [4, 32, 128, 512, 2048]


def lds_layout(tile_m, tile_n, tile_k, w_staged):
    """The rule's choice: padded rows where every lds_async stage stays whole
    1024-byte copies, else XOR."""
    padded = tile_k + 16
    ok = tile_m * padded % 1024 == 0 and (not w_staged or tile_n * padded % 1024 == 0)
    return "padded" if ok else "xor"


def candidates(n, k, packed):
    tile_k = 128 if k % 128 == 0 else 64
    out = {"naive": "default"}
    for tm in (32, 64, 128):
        for tn in (128, 256):
            if n % tn:
                continue
            grouped = ", group_m = 8, group_n = 4, xcd_remap = true" if tm == 128 else ""
            if packed:
                out["packed_%dx%d" % (tm, tn)] = (
                    "tile_m = %d, tile_n = %d, tile_k = %d, waves_m = 1, "
                    "waves_n = 4, stage_x = lds_async, "
                    "stage_w = packed_registers, stages = 2, "
                    "lds_layout = %s, schedule = interleave%s"
                    % (tm, tn, tile_k, lds_layout(tm, tn, tile_k, False), grouped))
                continue
            out["staged_%dx%d" % (tm, tn)] = (
                "tile_m = %d, tile_n = %d, tile_k = %d, waves_m = 1, waves_n = 4, "
                "stage_x = lds_async, stage_w = lds_async, stages = 2, "
                "lds_layout = %s" % (tm, tn, tile_k, lds_layout(tm, tn, tile_k, True)))
    if not packed and n % 256 == 0 and k % 64 == 0:
        out["pingpong"] = (
            "tile_m = 256, tile_n = 256, tile_k = 64, waves_m = 4, waves_n = 2, "
            "group_m = 8, group_n = 4, xcd_remap = true, stage_x = lds_async, "
            "stage_w = lds_async, stages = 3, lds_layout = xor, schedule = pingpong")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="build/rank-auto")
    ap.add_argument("--cases", default=os.path.join(
        ROOT, "data", "cases", "deepseek_v4_flash_tp2.tsv"))
    args = ap.parse_args()
    compiler = os.path.join(args.build, "bin", "mxgemm-compile")
    sim = os.path.join(args.build, "bin", "mxgemm-sim")
    os.makedirs(args.out, exist_ok=True)
    results = []
    for fam in read_cases(args.cases):
        name, n, k = fam["family"], fam["N"], fam["K"]
        # The key's W layout (the heuristic keeps it): its database entry's.
        probe = os.path.join(args.out, "%s_db.hsaco" % name)
        subprocess.run([compiler, "--n", str(n), "--k", str(k), "--emit=mlir",
                        "-o", probe], capture_output=True, text=True, check=True)
        with open(probe) as f:
            packed = "packed_registers" in f.read()
        cands = candidates(n, k, packed)
        for m in MS:
            auto = os.path.join(args.out, "%s_auto_%d.hsaco" % (name, m))
            subprocess.run([compiler, "--n", str(n), "--k", str(k), "--m", str(m),
                            "-o", auto], capture_output=True, text=True, check=True)
            with open(auto + ".json") as f:
                rule = json.load(f)["config_source"]
            row = {"family": name, "n": n, "k": k, "m": m, "auto": rule, "times": {}}
            kernels = {"auto": auto}
            for label, cfg in cands.items():
                path = os.path.join(args.out, "%s_%s.hsaco" % (name, label))
                if not os.path.exists(path):
                    subprocess.run([compiler, "--n", str(n), "--k", str(k),
                                    "--config=" + cfg, "-o", path],
                                   capture_output=True, text=True, check=True)
                kernels[label] = path
            for label, path in kernels.items():
                p = subprocess.run([sim, path, "--m", str(m), "--json",
                                    "--xcd0-only"],
                                   capture_output=True, text=True, check=True)
                row["times"][label] = json.loads(p.stdout)["time_us"]
            best = min(row["times"], key=row["times"].get)
            row["best"] = best
            results.append(row)
            print("%-15s M=%-5d auto=%-18s %8.2f us  best=%-14s %8.2f us  naive %8.2f us"
                  % (name, m, rule, row["times"]["auto"], best,
                     row["times"][best], row["times"]["naive"]), flush=True)
    with open(os.path.join(args.out, "rank.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
