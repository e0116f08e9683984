#!/usr/bin/env python3
"""Compares one figure of two mxgemm-sim runs of a microbenchmark with its
published value. The runs differ only in the iteration count, so the
difference of their cycles is the cost of the extra iterations, without
launch, prologue or epilogue:

  per   = (cycles_b - cycles_a) / delta_units      (cycles per unit)
  value = per, or numerator / per with --invert NUMERATOR

Prints one line of the calibration record and exits 1 when the value is
more than --tolerance (relative) away from --expect.
"""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("a")
ap.add_argument("b")
ap.add_argument("--name", required=True)
ap.add_argument("--delta-units", type=float, required=True)
ap.add_argument("--invert", type=float)
ap.add_argument("--expect", type=float, required=True)
ap.add_argument("--tolerance", type=float, default=0.10)
ap.add_argument("--unit", default="cycles")
ap.add_argument("--source", default="")
args = ap.parse_args()

a = json.load(open(args.a))
b = json.load(open(args.b))
for d in (a, b):
    if "target_hash" not in d or "prediction" not in d:
        sys.exit("not an mxgemm-sim prediction")
per = (b["cycles"] - a["cycles"]) / args.delta_units
value = args.invert / per if args.invert else per
error = value / args.expect - 1.0
ok = abs(error) <= args.tolerance
print(f"{'PASS' if ok else 'FAIL'} {args.name}: simulated {value:.2f} {args.unit}, "
      f"published {args.expect:g} {args.unit}, error {100 * error:+.1f}% "
      f"(tolerance {100 * args.tolerance:.0f}%) [{args.source}]")
sys.exit(0 if ok else 1)
