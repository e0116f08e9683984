"""The static and modelled performance report of mxgemm-bench: naive vs
tuned kernel of every case-table family (docs/Performance.md).

For each family it compiles the naive kernel (the default config) and the
tuned kernel of the tuning database, runs one interior workgroup of each on
the emulator for counts, reads the steady-state K loop from the disassembly
(mxgemm.isa) and applies the model of mxgemm.perf. Modelled, not measured.
"""

import json
import os
import subprocess
import tempfile

from . import _api
from . import _runtime
from . import isa
from . import perf
from .cases import read_cases
from .tuning import compile_entries


def _tools(build):
    return (os.path.join(build, "bin", "mxgemm-compile"),
            os.path.join(build, "bin", "mxgemm-emu"))


def loop_counts(compiler, args, path):
    """Per-wave instruction counts of one K-loop iteration (steady state)
    of the kernel mxgemm-compile `args` describe, from its disassembly."""
    subprocess.run([compiler] + args + ["--emit=isa", "-o", path], check=True,
                   capture_output=True, text=True)
    with open(path) as f:
        return isa.loop_summary(f.read()) or {}


def workgroup_stats(emu, hsaco, m, workgroup):
    stats = hsaco + ".stats.json"
    subprocess.run([emu, "gemm", hsaco, "--sidecar", hsaco + ".json", "--m",
                    str(m), "--workgroups", str(workgroup), "--stats-json",
                    stats], check=True, capture_output=True, text=True)
    return perf.first_workgroup(_runtime.read_json_file(stats))


def _row(fam, label, m, side, loop, stats, hbm, mod):
    res = side["resources"]
    mfma_per_wg = stats["mfma"]
    return {
        "family": fam["family"], "variant": label, "m": m, "n": fam["N"],
        "k": fam["K"], "config": side["config"], "vgpr": res["vgpr_count"],
        "agpr": res["agpr_count"], "sgpr": res["sgpr_count"],
        "spills": res["vgpr_spill_count"] + res["sgpr_spill_count"],
        "lds_bytes": res["lds_bytes"],
        "waves_per_simd": mod["occupancy"]["waves_per_simd"],
        "wg_per_cu": mod["occupancy"]["workgroups_per_cu"],
        "mfma_per_wg": mfma_per_wg,
        "non_mfma_per_wg": stats["instructions"] - mfma_per_wg,
        "loop_mfma": loop.get("mfma", 0),
        "loop_non_mfma": loop.get("non_mfma", 0),
        "loop_vmcnt0_waits": loop.get("vmcnt0_waits", 0),
        "drain_waits_per_wg": stats["full_drain_waits"],
        "vmcnt0_waits_per_wg": stats["vmcnt0_waits"],
        "lds_conflict_cycles": stats["ds_read_b128_conflict_cycles"],
        "hbm_bytes_per_wg": hbm,
        "global_bytes_per_mfma": stats["global_bytes_read"] /
        max(1, mfma_per_wg),
        "model": mod}


def _line(row):
    mod = row["model"]
    return ("%-14s %-5s M=%-5d vgpr %3d lds %6d occ %d mfma/wg %5d "
            "non-mfma/wg %6d loop %2d+%3d vmcnt0 %d drains %4d conflicts "
            "%6d B/mfma %6.0f | bound %.1f us (%s) model %.1f us x%.2f (%s) "
            "%.0f TF/s" % (
                row["family"], row["variant"], row["m"], row["vgpr"],
                row["lds_bytes"], row["wg_per_cu"], row["mfma_per_wg"],
                row["non_mfma_per_wg"], row["loop_mfma"],
                row["loop_non_mfma"], row["loop_vmcnt0_waits"],
                row["drain_waits_per_wg"], row["lds_conflict_cycles"],
                row["global_bytes_per_mfma"],
                mod["lower_bound"]["bound_s"] * 1e6,
                mod["lower_bound"]["binds"], mod["modelled_s"] * 1e6,
                mod["modelled_over_bound"], mod["limiting_term"],
                mod["modelled_tflops"]))


def run_bench(build, cases_path, tuning_db, ms, json_out=None):
    """Prints one line per family, variant and M; returns the rows."""
    compiler, emu = _tools(build)
    os.environ.setdefault("MXGEMM_RUNTIME_LIBRARY", os.path.join(
        build, "lib", "libmxgemm_runtime.so"))
    report = []
    with tempfile.TemporaryDirectory() as tmp:
        tuned = compile_entries(tuning_db, tmp, compiler)
        for fam in read_cases(cases_path):
            n, k = fam["N"], fam["K"]
            naive = os.path.join(tmp, fam["family"] + "_naive.hsaco")
            _api.compile(n, k, compiler=compiler, output=naive)
            variants = [("naive", naive, ["--n", str(n), "--k", str(k)])]
            if (n, k) in tuned:
                name = tuned[(n, k)][0]
                variants.append(("tuned", os.path.join(tmp, name + ".hsaco"),
                                 ["--tuning-db", tuning_db, "--entry", name]))
            for label, path, args in variants:
                side = _runtime.read_json_file(path + ".json")
                loop = loop_counts(compiler, args, path + ".s")
                for m in ms:
                    # An interior workgroup: full tile, steady state.
                    stats = workgroup_stats(emu, path, m, 1)
                    plan = _api.descriptor_plan(side, m)
                    hbm = perf.hbm_bytes_per_workgroup(
                        m, n, k, side,
                        lambda pid: _api.workgroup_tile(plan, pid))
                    mod = perf.model_case(m, n, k, side, stats, hbm)
                    row = _row(fam, label, m, side, loop, stats, hbm, mod)
                    report.append(row)
                    print(_line(row), flush=True)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(report, f, indent=1)
    return report
