#!/usr/bin/python3
"""mxgemm-bench: the predicted performance of the passes, naive vs
optimised, for every case of the case table.

For each family it compiles the naive kernel (direct loads, default config)
and the tuned kernel of the tuning database and runs the timing simulator
mxgemm-sim on each (mxgemm.perf.simulate, docs/Simulator.md). Predicted, not
measured: see docs/Performance.md. The logic is mxgemm.bench (python/mxgemm).
One simulation takes up to about a minute of CPU: this is a benchmark, not a
test.

Usage: mxgemm-bench [--build BUILD] [--cases TSV] [--db tuning/gfx950.json]
                    [--ms 16384,10732,9199] [--families a,b]
                    [--variants naive,tuned] [--json OUT] [--markdown]
                    [--sim-args "..."]

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
    ap.add_argument("--families", default="",
                    help="only these families (comma-separated)")
    ap.add_argument("--variants", default="naive,tuned")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table of docs/Performance.md on stdout "
                    "(the per-case lines go to stderr)")
    ap.add_argument("--sim-args", default="",
                    help="extra mxgemm-sim options, e.g. --xcd0-only")
    args = ap.parse_args()
    try:
        from mxgemm import CompileError, bench
        from mxgemm.perf import SimulatorError
    except ImportError as e:
        print("mxgemm-bench: error: the mxgemm package cannot be imported "
              "(%s): run build/bin/mxgemm-bench, or Debian's /usr/bin/python3 "
              "with PYTHONPATH=%s" % (e, os.path.join(REPO, "python")),
              file=sys.stderr)
        return 2
    try:
        ms = [int(x) for x in args.ms.split(",")]
        bench.run_bench(os.path.abspath(args.build), args.cases, args.db, ms,
                        args.json,
                        families=[f for f in args.families.split(",") if f],
                        variants=args.variants.split(","),
                        markdown=args.markdown, sim_args=args.sim_args.split())
    except (ValueError, OSError, CompileError, SimulatorError) as e:
        print("mxgemm-bench: error: %s" % e, file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        print("mxgemm-bench: error: %s failed: %s" % (
            " ".join(e.cmd), (e.stderr or "").strip()), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
