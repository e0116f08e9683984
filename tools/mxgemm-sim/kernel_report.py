#!/usr/bin/env python3
"""The kernel report of the case table (issue 15's per-case report): for
every family and M of the case table, the tuning database's entry that
serves that M, its predicted figures (the database's own full simulation:
time, TFLOPS, MFMA utilisation, grid efficiency, limiter), its resources
from the kernel descriptor (VGPRs, AGPRs, spills, LDS) and a summary of its
K loop from the code object (`mxgemm-emu loops`: MFMAs against other
instructions, waits and barriers per iteration, static counts). Every time
is a PREDICTION of mxgemm-sim, not a measurement.

    python3 tools/mxgemm-sim/kernel_report.py --build build

Compiles each entry once into --out (default <build>/kernel-report); needs
no simulation, so it takes about a minute.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASE_KEY = {"x_format": "e4m3", "w_format": "e4m3", "w_scale": "block32x32",
            "out_type": "bf16"}


def read_cases(path):
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("family") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            yield fields[0], int(fields[1]), int(fields[2])


def serving_entry(db, n, k, m):
    """The entry whose key is the case's and whose M range holds m."""
    found = [e for e in db["entries"]
             if e["key"]["n"] == n and e["key"]["k"] == k
             and all(e["key"].get(f) == v for f, v in CASE_KEY.items())
             and e["m_range"][0] <= m <= e["m_range"][1]]
    if len(found) != 1:
        sys.exit(f"kernel_report: {len(found)} entries serve N={n} K={k} M={m}")
    return found[0]


def k_loop(loops):
    """The loop with the most MFMAs (the K loop); None without MFMA loops."""
    loops = [l for l in loops if l["mfma"] > 0]
    return max(loops, key=lambda l: (l["mfma"], l["instructions"])) if loops else None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--db", default=os.path.join(ROOT, "tuning", "gfx950.json"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "data", "cases",
                                                    "deepseek_v4_flash_tp2.tsv"))
    ap.add_argument("--ms", default="16384,10732,9199")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = args.out or os.path.join(args.build, "kernel-report")
    os.makedirs(out, exist_ok=True)
    bin_ = os.path.join(args.build, "bin")
    with open(args.db) as f:
        db = json.load(f)
    compiled = {}

    def compile_entry(name):
        if name not in compiled:
            hsaco = os.path.join(out, name + ".hsaco")
            subprocess.run([os.path.join(bin_, "mxgemm-compile"), "--tuning-db",
                            args.db, "--entry", name, "-o", hsaco], check=True)
            with open(hsaco + ".json") as f:
                resources = json.load(f)["resources"]
            loops = json.loads(subprocess.run(
                [os.path.join(bin_, "mxgemm-emu"), "loops", hsaco, "--json"],
                check=True, capture_output=True, text=True).stdout)["loops"]
            compiled[name] = (resources, k_loop(loops))
        return compiled[name]

    print("| family | M | entry | predicted us | TFLOPS | MFMA util | grid eff. | "
          "limiter | VGPRs + AGPRs | spills | LDS bytes | K loop: MFMA : other | "
          "s_waitcnt (vmcnt(0)) | s_barrier |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for family, n, k in read_cases(args.cases):
        for m in [int(x) for x in args.ms.split(",")]:
            entry = serving_entry(db, n, k, m)
            p = next((p for p in entry.get("predicted", []) if p["m"] == m), None)
            res, loop = compile_entry(entry["name"])
            figures = (f"{p['time_us']:.2f} | {p['tflops']:.0f} | "
                       f"{100 * p['mfma_utilisation']:.1f}% | "
                       f"{100 * p['grid_efficiency']:.1f}% | {p['limiter']}"
                       if p else "- | - | - | - | -")
            spills = res["vgpr_spill_count"] + res["sgpr_spill_count"]
            loop_text = (f"{loop['mfma']} : {loop['other']} | "
                         f"{loop['waits']} ({loop['vmcnt0_waits']}) | {loop['barriers']}"
                         if loop else "- | - | -")
            print(f"| {family} | {m} | `{entry['name']}` | {figures} | "
                  f"{res['vgpr_count']} + {res['agpr_count']} | {spills} | "
                  f"{res['lds_bytes']} | {loop_text} |")


if __name__ == "__main__":
    main()
