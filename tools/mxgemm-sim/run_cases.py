#!/usr/bin/env python3
"""Runs mxgemm-sim over the case table: the tuned kernel of every family
(build/lib/Runtime/kernels/<family>.hsaco, built by the normal build) and
its naive kernel (mxgemm-compile with the default config), at the given M.
Every figure is a PREDICTION of the simulator, not a measurement.

Writes <out>/<kind>-<family>-<M>.json (mxgemm-sim --json, plus the
simulator's CPU seconds) and prints a markdown table. Runs one simulation
at a time (one core); existing results are reused unless --force.

    python3 tools/mxgemm-sim/run_cases.py --build build --out build/sim-cases
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_cases(path):
    cases = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("family") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            cases.append((fields[0], int(fields[1]), int(fields[2])))
    return cases


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "data", "cases",
                                                    "deepseek_v4_flash_tp2.tsv"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--kinds", default="tuned,naive")
    ap.add_argument("--families", default="")
    ap.add_argument("--ms", default="16384,10732,9199,1,64")
    ap.add_argument("--sim-args", default="", help="extra mxgemm-sim options")
    ap.add_argument("--sim", default=None,
                    help="the mxgemm-sim binary (default: <build>/bin)")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--no-run", action="store_true",
                    help="only print the results already in --out")
    ap.add_argument("--doc-table", action="store_true",
                    help="print the naive-vs-tuned table of "
                    "docs/Performance.md instead of one row per run")
    args = ap.parse_args()
    out = args.out or os.path.join(args.build, "sim-cases")
    os.makedirs(out, exist_ok=True)
    sim = args.sim or os.path.join(args.build, "bin", "mxgemm-sim")
    compile_ = os.path.join(args.build, "bin", "mxgemm-compile")
    families = set(args.families.split(",")) if args.families else None
    rows = []
    for family, n, k in read_cases(args.cases):
        if families and family not in families:
            continue
        for kind in args.kinds.split(","):
            if kind == "tuned":
                hsaco = os.path.join(args.build, "lib", "Runtime", "kernels",
                                     family + ".hsaco")
            else:
                hsaco = os.path.join(out, "naive-" + family + ".hsaco")
                if not os.path.exists(hsaco) and not args.no_run:
                    subprocess.run([compile_, "--n", str(n), "--k", str(k),
                                    "--config=default",
                                    "--name", "naive_" + family, "-o", hsaco],
                                   check=True)
            for m in [int(x) for x in args.ms.split(",")]:
                path = os.path.join(out, f"{kind}-{family}-{m}.json")
                if os.path.exists(path) and not args.force:
                    with open(path) as f:
                        result = json.load(f)
                elif args.no_run:
                    continue
                else:
                    cmd = [sim, hsaco, "--m", str(m), "--json"] + args.sim_args.split()
                    text, wall, cpu = run(cmd)
                    result = json.loads(text)
                    result["simulator_cpu_seconds"] = cpu
                    result["simulator_wall_seconds"] = wall
                    with open(path, "w") as f:
                        json.dump(result, f, indent=1)
                rows.append((kind, family, m, result))
                print(f"{kind:6} {family:15} M={m:6} {result['time_us']:10.2f} us "
                      f"{result['tflops']:8.1f} TF  limiter {result['limiter']}  "
                      f"({result.get('simulator_cpu_seconds', 0):.1f} s CPU)",
                      file=sys.stderr, flush=True)
    if any("sensitivity" in r for *_, r in rows):
        # How far each ASSUMPTION at 0.5x / 1.5x moves the predicted times.
        fields = {}
        for kind, family, m, r in rows:
            for s in r.get("sensitivity", []):
                f = fields.setdefault(s["field"], {"value": s["value"], "low": [], "high": []})
                f["low"].append(s["percent_at_half"])
                f["high"].append(s["percent_at_one_and_a_half"])
        print("| assumption | value | x0.5: mean change | x0.5: largest | "
              "x1.5: mean change | x1.5: largest |")
        print("|---|---|---|---|---|---|")
        for name, f in fields.items():
            lo, hi = f["low"], f["high"]
            print(f"| `{name}` | {f['value']:g} | {sum(lo) / len(lo):+.1f}% | "
                  f"{max(lo, key=abs):+.1f}% | {sum(hi) / len(hi):+.1f}% | "
                  f"{max(hi, key=abs):+.1f}% |")
        print()
    if args.doc_table:
        doc_table(rows)
        return
    print("| kind | family | M | predicted us (sustained) | TFLOPS | % of peak "
          "| MFMA util | limiter | us at 2.4 GHz | sim CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, family, m, r in rows:
        print(f"| {kind} | {family} | {m} | {r['time_us']:.2f} | {r['tflops']:.1f} | "
              f"{r['percent_of_peak']:.1f} | {100 * r['mfma_utilisation']:.1f}% | "
              f"{r['limiter']} | {r['time_us_peak_clock']:.2f} | "
              f"{r.get('simulator_cpu_seconds', 0):.1f} |")


def doc_table(rows):
    """Per (family, M): the tuned kernel's prediction and the naive
    kernel's time; the problem's bounds as mxgemm-sim gives them (not a
    prediction)."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from mxgemm.perf import bounds
    by = {(kind, family, m): r for kind, family, m, r in rows}
    keys = []
    for _, family, m, _ in rows:
        if (family, m) not in keys:
            keys.append((family, m))
    print("| family | M | lower bound us (binds) | naive: predicted us | "
          "tuned: predicted us | tuned TFLOPS | tuned % of peak | "
          "tuned MFMA util | tuned limiter | tuned us at 2.4 GHz | "
          "tuned / naive speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for family, m in keys:
        t, nv = by.get(("tuned", family, m)), by.get(("naive", family, m))
        ref = t or nv
        lb = bounds(ref)
        cells = [family, str(m), "%.1f (%s)" % (lb["bound_s"] * 1e6,
                                                lb["binds"]),
                 "%.1f" % nv["time_us"] if nv else "-"]
        if t:
            cells += ["%.1f" % t["time_us"], "%.0f" % t["tflops"],
                      "%.1f%%" % t["percent_of_peak"],
                      "%.1f%%" % (100 * t["mfma_utilisation"]), t["limiter"],
                      "%.1f" % t["time_us_peak_clock"],
                      "%.2fx" % (nv["time_us"] / t["time_us"]) if nv else "-"]
        else:
            cells += ["-"] * 7
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
