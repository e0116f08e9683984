#!/usr/bin/python3
"""mxgemm-bench: the static and modelled performance report of the passes,
naive vs optimised, for every case of the case table.

For each family it compiles the naive kernel (direct loads, default config)
and the tuned kernel of the tuning database, runs one interior workgroup of
each on the emulator for counts, and applies the model of mxgemm.perf.
Modelled, not measured: see docs/Performance.md. The logic is mxgemm.bench
(python/mxgemm).

Usage: mxgemm-bench [--build BUILD] [--cases TSV] [--db tuning/gfx950.json]
                    [--ms 16384,10732,9199] [--json OUT]

Runs with the mxgemm package importable: build/bin/mxgemm-bench (which sets
PYTHONPATH to this checkout's python/), or an installed package.
"""
import argparse
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(prog="mxgemm-bench",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--cases", default=os.environ.get(
        "MXGEMM_CASES", os.path.join(REPO, "data", "cases",
                                     "deepseek_v4_flash_tp2.tsv")))
    ap.add_argument("--db", default=os.path.join(REPO, "tuning", "gfx950.json"))
    ap.add_argument("--ms", default="16384,10732,9199")
    ap.add_argument("--json", help="write every figure here")
    args = ap.parse_args()
    try:
        from mxgemm import CompileError, bench
    except ImportError as e:
        print("mxgemm-bench: error: the mxgemm package cannot be imported "
              "(%s): run build/bin/mxgemm-bench, or Debian's /usr/bin/python3 "
              "with PYTHONPATH=%s" % (e, os.path.join(REPO, "python")),
              file=sys.stderr)
        return 2
    try:
        ms = [int(x) for x in args.ms.split(",")]
        bench.run_bench(os.path.abspath(args.build), args.cases, args.db, ms,
                        args.json)
    except (ValueError, OSError, CompileError) as e:
        print("mxgemm-bench: error: %s" % e, file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print("mxgemm-bench: error: %s failed: %s" % (
            " ".join(e.cmd), (e.stderr or "").strip()), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
