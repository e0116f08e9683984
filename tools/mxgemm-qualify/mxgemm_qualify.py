#!/usr/bin/python3
"""mxgemm-qualify: the evidence table of the case-table families.

For every case of the case table (family x M) and every seed it asks the
real runtime shim for the dispatch decision, runs sampled workgroups through
the shim on the emulator's HIP facade and checks every sampled output tile
bit for bit against the CPU reference, byte for byte against the naive
kernel of the same MFMA shape, with inputs unchanged, no stray writes and
zero checker findings; it adds static and modelled performance figures and
runs the ineligible probes. The logic is mxgemm.qualify (python/mxgemm);
docs/Qualification.md says what it proves.

Writes qualification.md and qualification.json (to --out, default the
current directory). Exit status: 0 all pass, 1 a case failed, 2 a setup
error (bad arguments, missing tools, --device hip without a GPU).

Runs with the mxgemm package importable: build/bin/mxgemm-qualify (which
sets PYTHONPATH to this checkout's python/), or an installed package
(docs/Runtime.md, "Python package").
"""

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEFAULT_SEEDS = "0,1,2"
DEFAULT_SAMPLE = 6
DEFAULT_MS = "16384,10732,9199"


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="mxgemm-qualify",
        description="Qualify the tuned mxgemm kernels of the case table.")
    ap.add_argument("--build", default=os.environ.get(
        "MXGEMM_BUILD_DIR", os.path.join(REPO, "build")),
        help="build directory (bin/, lib/)")
    ap.add_argument("--cases", default=os.environ.get(
        "MXGEMM_CASES", os.path.join(REPO, "data", "cases",
                                     "deepseek_v4_flash_tp2.tsv")),
        help="case table TSV (default: data/cases of this checkout)")
    ap.add_argument("--device", choices=("emulator", "hip"), default="emulator")
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--sample", type=int, default=DEFAULT_SAMPLE,
                    help="workgroups per case and seed (first, last and M-edge "
                    "always included; default %d)" % DEFAULT_SAMPLE)
    ap.add_argument("--family", action="append",
                    help="only these families (repeatable)")
    ap.add_argument("--m", dest="ms", default=DEFAULT_MS,
                    help="M values (default %s)" % DEFAULT_MS)
    ap.add_argument("--dump", metavar="DIR",
                    help="write x xs w ws y mask .npy of every case to "
                    "DIR/<family>_M<m>_seed<s>/")
    ap.add_argument("--out", default=".", help="where qualification.md/.json go")
    ap.add_argument("--no-perf", action="store_true",
                    help="skip the static figures and the simulator's predictions")
    ap.add_argument("--no-ineligible", action="store_true")
    ap.add_argument("--threads", type=int, default=0,
                    help="emulator worker threads (default: all cores)")
    return ap.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        from mxgemm import qualify
    except ImportError as e:
        print("mxgemm-qualify: error: the mxgemm package cannot be imported "
              "(%s): run build/bin/mxgemm-qualify, or Debian's /usr/bin/python3 "
              "with PYTHONPATH=%s" % (e, os.path.join(REPO, "python")),
              file=sys.stderr)
        return 2
    return qualify.run_qualification(args, [sys.argv[0]] + argv, REPO)


if __name__ == "__main__":
    sys.exit(main())
