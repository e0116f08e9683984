#!/usr/bin/python3
"""Compiles the tuned gfx950 kernel of every family of the case table (its
tuning-database entry; the naive kernel for a family without one) with
mxgemm-compile, cold process, median of 3, and prints each kernel's
resources (read back from the code object by the compiler) and its compile
time. Needs the mxgemm package (PYTHONPATH=python, as scripts/main.sh sets).

Usage: compile_case_table.py BUILD_DIR CASES_TSV OUT_DIR [TUNING_DB]
"""
import os
import statistics
import sys
import time

from mxgemm import CompileError, compile as compile_kernel
from mxgemm.cases import read_cases
from mxgemm.tuning import compile_entries


def main():
    build, tsv, out = sys.argv[1:4]
    db = sys.argv[4] if len(sys.argv) > 4 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "tuning", "gfx950.json")
    compiler = os.path.join(build, "bin", "mxgemm-compile")
    tuned = compile_entries(db, out, compiler)
    print("%-15s %6s %5s  %-10s %5s %5s %5s %7s %8s %9s" %
          ("family", "N", "K", "mfma", "vgpr", "agpr", "sgpr", "lds", "scratch",
           "compile"))
    total, failures = 0.0, 0
    for fam in read_cases(tsv):
        name, n, k = fam["family"], fam["N"], fam["K"]
        entry = tuned.get((n, k))
        kwargs = dict(tuning_db=db, entry=entry[0]) if entry else \
            dict(n=n, k=k, config="default", name="mxgemm_" + name)
        times = [entry[2]] if entry else []
        try:
            while len(times) < 3:
                start = time.perf_counter()
                _, side = compile_kernel(compiler=compiler, output=os.path.join(
                    out, name + ".hsaco"), **kwargs)
                times.append(time.perf_counter() - start)
        except CompileError as e:
            failures += 1
            print("%-15s FAILED: %s" % (name, e))
            continue
        res = side["resources"]
        print("%-15s %6d %5d  %-10s %5d %5d %5d %7d %8d %8.2fs" %
              (name, n, k, side["config"]["mfma"], res["vgpr_count"],
               res["agpr_count"], res["sgpr_count"], res["lds_bytes"],
               res["scratch_bytes"], statistics.median(times)))
        total += statistics.median(times)
        if res["scratch_bytes"] or res["vgpr_spill_count"] or \
                res["sgpr_spill_count"]:
            failures += 1
            print("%-15s ERROR: the kernel spills or uses scratch" % name)
    print("library: %.2fs of compilation for %d kernels (sum of medians)"
          % (total, len(tuned)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
