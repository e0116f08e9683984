#!/usr/bin/env python3
"""The kernel report of the case table (issue 15's per-case report): for
every family and M of the case table, the tuning database's entry that
serves that M (the one `mxgemm-compile --config=auto --m M` chooses), its
predicted figures (the database's own full simulation: time, TFLOPS, MFMA utilisation, grid efficiency, limiter), its resources
from the kernel descriptor (VGPRs, AGPRs, spills, LDS) and a summary of its
K loop from the code object (`mxgemm-emu loops`: MFMAs against other
instructions, waits and barriers per iteration, static counts). Every time
is a PREDICTION of mxgemm-sim, not a measurement.

    python3 tools/mxgemm-sim/kernel_report.py --build build

Compiles each case into --out (default <build>/kernel-report); needs no
simulation, so it takes seconds.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from mxgemm.cases import read_cases  # noqa: E402


def k_loop(loops):
    """The innermost loop with the most MFMAs (the K loop), the first in
    the code of equals: a tail split has two K loops, its whole tiles'
    first, then its segments', and its branches make outer cycles around
    both. None without MFMA loops."""
    inner = [l for l in loops if l["mfma"] > 0 and l.get("innermost")]
    loops = inner or [l for l in loops if l["mfma"] > 0]
    return max(loops, key=lambda l: (l["mfma"], -l["begin"])) if loops else None


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
    entries = {e["name"]: e for e in db["entries"]}

    def compile_case(family, n, k, m):
        """The compiler's own choice for M: entry, resources, K loop."""
        hsaco = os.path.join(out, f"{family}-{m}.hsaco")
        subprocess.run([os.path.join(bin_, "mxgemm-compile"), "--tuning-db",
                        args.db, "--n", str(n), "--k", str(k), "--m", str(m),
                        "-o", hsaco], check=True, capture_output=True)
        with open(hsaco + ".json") as f:
            sidecar = json.load(f)
        source = sidecar["config_source"]
        if not source.startswith("database:"):
            sys.exit(f"kernel_report: no database entry serves {family} at "
                     f"M = {m} ({source})")
        loops = json.loads(subprocess.run(
            [os.path.join(bin_, "mxgemm-emu"), "loops", hsaco, "--json"],
            check=True, capture_output=True, text=True).stdout)["loops"]
        return (entries[source[len("database:"):]], sidecar["resources"],
                k_loop(loops))

    print("| family | M | entry | predicted us | TFLOPS | MFMA util | grid eff. | "
          "limiter | VGPRs + AGPRs | spills | LDS bytes | K loop: MFMA : other | "
          "s_waitcnt (vmcnt(0)) | s_barrier |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case in read_cases(args.cases):
        family, n, k = case["family"], case["N"], case["K"]
        for m in [int(x) for x in args.ms.split(",")]:
            entry, res, loop = compile_case(family, n, k, m)
            p = next((p for p in entry.get("predicted", []) if p["m"] == m), None)
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
