#!/usr/bin/env python3
"""Compiles the tuned gfx950 kernel of every family of the DeepSeek-V4 case
table (its tuning-database config) with mxgemm-compile, cold process, median
of 3, and prints each kernel's resources (read back from the code object by
the compiler) and its compile time.

Usage: compile_case_table.py BUILD_DIR CASES_TSV OUT_DIR [TUNING_DB]
"""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tuning"))
from mxgemm_tuning import read_cases, render_config  # noqa: E402


def main():
    build, tsv, out = sys.argv[1:4]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    db_path = sys.argv[4] if len(sys.argv) > 4 else os.path.join(
        root, "tuning", "gfx950.json")
    configs = {}
    for e in json.load(open(db_path))["entries"]:
        configs[(e["key"]["n"], e["key"]["k"])] = render_config(e["config"])
    os.makedirs(out, exist_ok=True)
    compiler = os.path.join(build, "bin", "mxgemm-compile")
    total = 0.0
    print("%-15s %6s %5s  %-9s %5s %5s %5s %7s %8s %9s" %
          ("family", "N", "K", "mfma", "vgpr", "agpr", "sgpr", "lds", "scratch",
           "compile"))
    failures = 0
    for fam in read_cases(tsv):
        name = fam["family"]
        hsaco = os.path.join(out, name + ".hsaco")
        cmd = [compiler, "--n", fam["N"], "--k", fam["K"], "--name",
               "mxgemm_" + name, "-o", hsaco]
        config = configs.get((int(fam["N"]), int(fam["K"])))
        if config:
            cmd += ["--config", config]
        times = []
        for _ in range(3):
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                break
        if proc.returncode != 0:
            failures += 1
            print("%-15s FAILED: %s" % (name, proc.stderr.strip()))
            continue
        side = json.load(open(hsaco + ".json"))
        res = side["resources"]
        mfma = "32x32x64" if side["mfma"]["k_step"] == 64 else "16x16x128"
        print("%-15s %6s %5s  %-9s %5d %5d %5d %7d %8d %8.2fs" %
              (name, fam["N"], fam["K"], mfma, res["vgpr_count"],
               res["agpr_count"], res["sgpr_count"], res["lds_bytes"],
               res["scratch_bytes"], statistics.median(times)))
        total += statistics.median(times)
        if res["scratch_bytes"] or res["vgpr_spill_count"] or res["sgpr_spill_count"]:
            failures += 1
            print("%-15s ERROR: the kernel spills or uses scratch" % name)
    print("library: %.2fs of compilation for %d kernels (sum of medians)"
          % (total, len(configs)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
