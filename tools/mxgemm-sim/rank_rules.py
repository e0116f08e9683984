#!/usr/bin/env python3
"""Ranks --config=auto's row-major rules (docs/Compiler.md, "The rules
ranked for keys outside the database") on mxgemm-sim: for each key that is
not in the tuning database and each M, the config auto picks (with its rule)
against the candidate structures the rules choose between: the decode tiles
with and without K splits (M <= 64), R2 with and without K splits and the
two-slot kernel (M >= 65, N a multiple of 256, K of 128). Every time is a
PREDICTION of the simulator at the sustained clock (--xcd0-only from M =
1024: pessimistic by a few percent, enough to rank). Candidates that do not
compile or spill are left out.

    /usr/bin/python3 tools/mxgemm-sim/rank_rules.py --build build \\
        --out build/rank-rules [--ms 4,32,256,1024,2048,4096]
"""
import argparse
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

# DeepSeek-V3 and Llama-class projections the database does not hold.
KEYS = [(1536, 7168), (24576, 1536), (7168, 16384), (7168, 2048),
        (4096, 7168), (8192, 8192), (3072, 1536), (2880, 2880)]

R2 = ("tile_m = 128, tile_n = 256, tile_k = 128, waves_m = 2, waves_n = 4, "
      "mfma = m16n16k128, group_m = 8, group_n = 4, xcd_remap = true, "
      "stage_x = lds_async, stage_w = lds_async, stages = 3, "
      "lds_layout = xor, schedule = pingpong")
TWO_SLOT = ("tile_m = 256, tile_n = 256, tile_k = 128, waves_m = 4, "
            "waves_n = 2, mfma = m32n32k64, group_m = 8, group_n = 4, "
            "xcd_remap = true, stage_x = lds_async, stage_w = lds_async, "
            "stages = 2, lds_layout = xor, schedule = pingpong")


def candidates(n, k, m):
    out = {}
    if m <= 64:
        tile_k = 256 if k % 256 == 0 else 128 if k % 128 == 0 else 256
        if m <= 16:
            base = (f"tile_m = 16, tile_n = 32, tile_k = {tile_k}, waves_m = 1, "
                    "waves_n = 2, mfma = m16n16k128, stages = 3, "
                    "schedule = loads_first")
        else:
            base = (f"tile_m = 32, tile_n = 64, tile_k = {tile_k}, waves_m = 1, "
                    "waves_n = 1, mfma = m16n16k128, stages = 2, "
                    "schedule = loads_first")
        out["decode"] = base
        for splits in (2, 4, 8):
            if k % (splits * tile_k) == 0:
                out[f"decode k_splits {splits}"] = f"{base}, k_splits = {splits}"
        return out
    if n % 256 == 0 and k % 128 == 0:
        out["r2"] = R2
        for splits in (2, 4):
            if k % (splits * 128) == 0:
                out[f"r2 k_splits {splits}"] = f"{R2}, k_splits = {splits}"
        if m >= 1025:
            out["two-slot"] = TWO_SLOT
    return out


def simulate(build, out_dir, n, k, m, name, config):
    # Candidate names are unique per key and M; str hashes vary per process.
    slug = name.replace(" ", "_")
    path = os.path.join(out_dir, f"{n}x{k}_m{m}_{slug}.hsaco")
    cmd = [os.path.join(build, "bin", "mxgemm-compile"), "--n", str(n), "--k",
           str(k), "--m", str(m), "-o", path]
    if config:
        cmd += ["--config", config]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, None
    rule = r.stderr.split("'")[1] if not config and "'" in r.stderr else name
    with open(path + ".json") as f:
        if json.load(f)["resources"]["vgpr_spill_count"]:
            return None, None
    sim = [os.path.join(build, "bin", "mxgemm-sim"), path, "--m", str(m), "--json"]
    if m >= 1024:
        sim.append("--xcd0-only")
    r = subprocess.run(sim, capture_output=True, text=True)
    if r.returncode:
        return None, None
    return json.loads(r.stdout)["time_us"], rule


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="build/rank-rules")
    ap.add_argument("--ms", default="4,32,256,1024,2048,4096")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ms = [int(x) for x in args.ms.split(",")]
    jobs = []
    for n, k in KEYS:
        for m in ms:
            jobs.append((n, k, m, "auto", None))
            for name, config in candidates(n, k, m).items():
                jobs.append((n, k, m, name, config))
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: simulate(args.build, args.out, *j), jobs))
    rows = {}
    for job, result in zip(jobs, results):
        rows.setdefault(job[:3], []).append((job[3], result))
    print("| N x K | M | auto (rule) us | best candidate us | candidates us |")
    print("|---|---|---|---|---|")
    for (n, k, m), entries in rows.items():
        auto = entries[0][1]
        others = [(name, r[0]) for name, r in entries[1:] if r[0] is not None]
        best = min(others, key=lambda x: x[1]) if others else None
        auto_text = f"{auto[0]:.2f} ({auto[1]})" if auto[0] is not None else "-"
        best_text = f"{best[0]} {best[1]:.2f}" if best else "-"
        cands = ", ".join(f"{name} {t:.2f}" for name, t in others)
        print(f"| {n} x {k} | {m} | {auto_text} | {best_text} | {cands} |")


if __name__ == "__main__":
    main()
