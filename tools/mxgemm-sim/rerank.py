#!/usr/bin/env python3
"""Re-ranks tuning candidates of the case-table families with mxgemm-sim.

Candidates (docs/TuningHistory.md, "What earlier rounds found"), all with the 32x32x64 MFMA:
  A     128x128x128, 2x2 waves, direct operand loads (the naive kernel)
  B     A with X and W lds_async into padded LDS, 1 stage, interleave
  C     B with 2 stages
  D     B with 8M x 4N groups and XCD remap
  E128  128x256x128, 1x4 waves, X lds_async, W pre-packed panels, 2 stages,
        padded LDS, interleave, groups + XCD remap (the wq_b entry)
  E256  E128 with tile_k = 256 (the engram entry)
  F     256x256x128, 2x4 waves (8 waves, two per SIMD), X and W lds_async
        into XOR-swizzled LDS, 2 stages, interleave, groups + XCD remap
  P3    256x256x64, 2x4 waves in ping-pong (two groups of four take turns
        between LDS reads and MFMAs), X and W lds_async into XOR-swizzled
        LDS, 3 stages, groups + XCD remap
  P4    P3 with 4 stages
  Q3    P3 with 4x2 waves (each 64x128: half the X-scale loads of 2x4)
  R1    256x128x128, 4x2 waves (each 64x64) in ping-pong, 3 stages: every
        copied row is a whole 128-byte line (tile_k = 64 copies half lines)
  R2    128x256x128, 2x4 waves (each 64x64), otherwise R1
Each is compiled with mxgemm-compile and simulated at one M; every time is a
PREDICTION.

    python3 tools/mxgemm-sim/rerank.py --build build --out build/rerank --m 9199
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from mxgemm import perf  # noqa: E402
from mxgemm.cases import read_cases  # noqa: E402

GROUPED = "group_m = 8, group_n = 4, xcd_remap = true"
SQUARE = ("tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2, "
          "mfma = m32n32k64")
STAGED = (SQUARE + ", stage_x = lds_async, stage_w = lds_async, "
          "lds_layout = padded, schedule = interleave")
PACKED = ("tile_m = 128, tile_n = 256, waves_m = 1, waves_n = 4, "
          "mfma = m32n32k64, stage_x = lds_async, stage_w = packed_registers, "
          "stages = 2, lds_layout = padded, schedule = interleave, " + GROUPED)
PINGPONG = ("tile_m = 256, tile_n = 256, tile_k = 64, waves_m = 2, "
            "waves_n = 4, mfma = m32n32k64, stage_x = lds_async, "
            "stage_w = lds_async, lds_layout = xor, schedule = pingpong, " +
            GROUPED)
CANDIDATES = {
    "A": SQUARE,
    "B": STAGED + ", stages = 1",
    "C": STAGED + ", stages = 2",
    "D": STAGED + ", stages = 1, " + GROUPED,
    "E128": PACKED + ", tile_k = 128",
    "E256": PACKED + ", tile_k = 256",
    "F": "tile_m = 256, tile_n = 256, tile_k = 128, waves_m = 2, waves_n = 4, "
         "mfma = m32n32k64, stage_x = lds_async, stage_w = lds_async, "
         "stages = 2, lds_layout = xor, schedule = interleave, " + GROUPED,
    "P3": PINGPONG + ", stages = 3",
    "P4": PINGPONG + ", stages = 4",
    "Q3": PINGPONG.replace("waves_m = 2, waves_n = 4",
                           "waves_m = 4, waves_n = 2") + ", stages = 3",
    "R1": PINGPONG.replace("tile_n = 256, tile_k = 64, waves_m = 2, "
                           "waves_n = 4", "tile_n = 128, tile_k = 128, "
                           "waves_m = 4, waves_n = 2") + ", stages = 3",
    "R2": PINGPONG.replace("tile_m = 256, tile_n = 256, tile_k = 64",
                           "tile_m = 128, tile_n = 256, tile_k = 128") +
          ", stages = 3",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "data", "cases",
                                                    "deepseek_v4_flash_tp2.tsv"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--m", type=int, default=9199)
    ap.add_argument("--candidates", default=",".join(CANDIDATES))
    ap.add_argument("--families", default="")
    args = ap.parse_args()
    out = args.out or os.path.join(args.build, "rerank")
    os.makedirs(out, exist_ok=True)
    compiler = os.path.join(args.build, "bin", "mxgemm-compile")
    sim = perf.find_simulator(args.build)
    names = args.candidates.split(",")
    rows = []
    for fam in read_cases(args.cases):
        if args.families and fam["family"] not in args.families.split(","):
            continue
        times = {}
        for name in names:
            hsaco = os.path.join(out, "%s-%s.hsaco" % (fam["family"], name))
            path = os.path.join(out, "%s-%s-%d.json" % (fam["family"], name,
                                                        args.m))
            if os.path.exists(path):
                with open(path) as f:
                    times[name] = json.load(f)
                continue
            proc = subprocess.run([compiler, "--n", str(fam["N"]), "--k",
                                   str(fam["K"]), "--config", CANDIDATES[name],
                                   "-o", hsaco], capture_output=True, text=True)
            if proc.returncode:
                times[name] = {"error": proc.stderr.strip()[-200:]}
            else:
                times[name] = perf.simulate(hsaco, args.m, simulator=sim)
            with open(path, "w") as f:
                json.dump(times[name], f, indent=1)
            r = times[name]
            print("%-15s %-5s %s" % (fam["family"], name,
                                     "%.1f us, %s" % (r["time_us"], r["limiter"])
                                     if "time_us" in r else r["error"]),
                  file=sys.stderr, flush=True)
        rows.append((fam["family"], times))
    print("| family | " + " | ".join("%s us (limiter)" % n for n in names) +
          " | best |")
    print("|---|" + "---|" * (len(names) + 1))
    for family, times in rows:
        ok = {n: t["time_us"] for n, t in times.items() if "time_us" in t}
        best = min(ok, key=ok.get) if ok else "-"
        print("| %s | %s | %s |" % (family, " | ".join(
            "%.1f (%s)" % (times[n]["time_us"], times[n]["limiter"])
            if "time_us" in times[n] else "fails: " + times[n]["error"][:60]
            for n in names), best))


if __name__ == "__main__":
    main()
