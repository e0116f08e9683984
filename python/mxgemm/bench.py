"""The performance report of mxgemm-bench: naive vs tuned kernel of every
case-table family (docs/Performance.md).

For each family it compiles the naive kernel (the default config) and the
tuned kernel of the tuning database, reads the steady-state K loop from the
disassembly (mxgemm.isa), and runs the timing simulator mxgemm-sim on each
code object at each M (mxgemm.perf.simulate). Every time and TFLOPS figure
is a PREDICTION of the simulator, not a measurement.
"""

import json
import os
import subprocess
import sys
import tempfile

from . import _api
from . import _runtime
from . import isa
from . import perf
from .cases import read_cases
from .tuning import compile_entries


def loop_counts(compiler, args, path):
    """Per-wave instruction counts of one K-loop iteration (steady state)
    of the kernel mxgemm-compile `args` describe, from its disassembly."""
    subprocess.run([compiler] + args + ["--emit=isa", "-o", path], check=True,
                   capture_output=True, text=True)
    with open(path) as f:
        return isa.loop_summary(f.read()) or {}


def _row(fam, label, m, side, loop, prediction):
    res = side["resources"]
    return {
        "family": fam["family"], "variant": label, "m": m, "n": fam["N"],
        "k": fam["K"], "config": side["config"], "vgpr": res["vgpr_count"],
        "agpr": res["agpr_count"], "sgpr": res["sgpr_count"],
        "spills": res["vgpr_spill_count"] + res["sgpr_spill_count"],
        "lds_bytes": res["lds_bytes"],
        "loop_mfma": loop.get("mfma", 0),
        "loop_non_mfma": loop.get("non_mfma", 0),
        "loop_vmcnt0_waits": loop.get("vmcnt0_waits", 0),
        "lower_bound": perf.bounds(prediction),
        "prediction": prediction}


def _line(row):
    p = row["prediction"]
    return ("%-14s %-5s M=%-5d vgpr %3d lds %6d wg/CU %s loop %2d+%3d | "
            "bound %.1f us | PREDICTED %.1f us %.0f TF/s %.1f%% of peak, "
            "MFMA %.1f%%, %s (%.1f us at 2.4 GHz; sim %.1f s CPU)" % (
                row["family"], row["variant"], row["m"], row["vgpr"],
                row["lds_bytes"],
                (p.get("occupancy") or {}).get("workgroups_per_cu", "?"),
                row["loop_mfma"], row["loop_non_mfma"],
                row["lower_bound"]["bound_s"] * 1e6, p["time_us"],
                p["tflops"], p["percent_of_peak"],
                100 * p["mfma_utilisation"], p["limiter"],
                p["time_us_peak_clock"], p["simulator_cpu_seconds"]))


def markdown_table(report):
    """The naive-vs-tuned table of docs/Performance.md."""
    by = {(r["family"], r["m"], r["variant"]): r for r in report}
    keys = []
    for r in report:
        if (r["family"], r["m"]) not in keys:
            keys.append((r["family"], r["m"]))
    lines = [
        "| family | M | bound us (binds) | naive: predicted us | tuned: "
        "predicted us | tuned TFLOPS | tuned % of peak | tuned MFMA util | "
        "tuned limiter | tuned us at 2.4 GHz | tuned VGPR | LDS B | WG/CU |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for fam, m in keys:
        nv, tu = by.get((fam, m, "naive")), by.get((fam, m, "tuned"))
        ref = tu or nv
        lb = ref["lower_bound"]
        cells = ["%s" % fam, "%d" % m,
                 "%.1f (%s)" % (lb["bound_s"] * 1e6, lb["binds"]),
                 "%.1f" % nv["prediction"]["time_us"] if nv else "-"]
        if tu:
            p = tu["prediction"]
            cells += ["%.1f" % p["time_us"], "%.0f" % p["tflops"],
                      "%.1f" % p["percent_of_peak"],
                      "%.1f%%" % (100 * p["mfma_utilisation"]), p["limiter"],
                      "%.1f" % p["time_us_peak_clock"], "%d" % tu["vgpr"],
                      "%d" % tu["lds_bytes"],
                      "%s" % (p.get("occupancy") or {}).get(
                          "workgroups_per_cu", "?")]
        else:
            cells += ["-"] * 9
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def run_bench(build, cases_path, tuning_db, ms, json_out=None,
              families=None, variants=("naive", "tuned"), markdown=False,
              sim_args=()):
    """Prints one line per family, variant and M; returns the rows."""
    compiler = os.path.join(build, "bin", "mxgemm-compile")
    simulator = perf.find_simulator(build)
    os.environ.setdefault("MXGEMM_RUNTIME_LIBRARY", os.path.join(
        build, "lib", "libmxgemm_runtime.so"))
    report = []
    with tempfile.TemporaryDirectory() as tmp:
        tuned = compile_entries(tuning_db, tmp, compiler) \
            if "tuned" in variants else {}
        for fam in read_cases(cases_path):
            if families and fam["family"] not in families:
                continue
            n, k = fam["N"], fam["K"]
            todo = []
            if "naive" in variants:
                naive = os.path.join(tmp, fam["family"] + "_naive.hsaco")
                _api.compile(n, k, config="default", compiler=compiler,
                             output=naive)
                todo.append(("naive", naive, ["--n", str(n), "--k", str(k),
                                              "--config=default"]))
            if (n, k) in tuned:
                name = tuned[(n, k)][0]
                todo.append(("tuned", os.path.join(tmp, name + ".hsaco"),
                             ["--tuning-db", tuning_db, "--entry", name]))
            for label, path, args in todo:
                side = _runtime.read_json_file(path + ".json")
                loop = loop_counts(compiler, args, path + ".s")
                for m in ms:
                    prediction = perf.simulate(path, m, simulator=simulator,
                                               extra_args=sim_args)
                    row = _row(fam, label, m, side, loop, prediction)
                    report.append(row)
                    print(_line(row), flush=True,
                          file=sys.stderr if markdown else sys.stdout)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(report, f, indent=1)
    if markdown:
        print("\n".join(markdown_table(report)))
    return report
