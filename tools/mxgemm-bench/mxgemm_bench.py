#!/usr/bin/env python3
"""mxgemm-bench: the static and modelled performance report of the passes,
naive vs optimised, for every case of the case table.

For each family it compiles the naive kernel (direct loads, default config)
and the tuned kernel of the tuning database, runs one interior workgroup of
each on the emulator for counts, and applies the model of mxgemm_perf.py.
Modelled, not measured: see docs/Performance.md.

Usage: mxgemm_bench.py --build BUILD [--cases TSV] [--db tuning/gfx950.json]
                       [--json OUT]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tuning"))
import mxgemm_isa  # noqa: E402
import mxgemm_perf  # noqa: E402
from mxgemm_tuning import read_cases, render_config  # noqa: E402


def tile_mapper(build, side, config):
    """The runtime's program -> tile swizzle for a kernel built from the
    database config dict `config` (empty: the defaults, row-major)."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("MXGEMM_RUNTIME_LIBRARY",
                          os.path.join(build, "lib", "libmxgemm_runtime.so"))
    import types
    import mxgemm

    def make(m):
        grid = side["grid"]
        plan = types.SimpleNamespace(
            eligible=True,
            grid=(math.ceil(m / grid["program_tile_m"]) * grid["num_tiles_n"],
                  1, 1),
            program_tile_m=grid["program_tile_m"], tile_n=grid["tile_n"],
            num_tiles_n=grid["num_tiles_n"],
            group_m=config.get("group_m", 1), group_n=config.get("group_n", 0),
            xcd_remap=int(config.get("xcd_remap", False)))
        return lambda pid: mxgemm.workgroup_tile(plan, pid)
    return make


def compile_kernel(build, n, k, config, path):
    cmd = [os.path.join(build, "bin", "mxgemm-compile"), "--n", str(n),
           "--k", str(k), "-o", path]
    if config:
        cmd += ["--config", config]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.load(open(path + ".json"))


def loop_counts(build, n, k, config, path):
    """Per-wave instruction counts of one K-loop iteration (steady state),
    from the kernel's disassembly (mxgemm_isa.loop_summary)."""
    cmd = [os.path.join(build, "bin", "mxgemm-compile"), "--n", str(n),
           "--k", str(k), "--emit=isa", "-o", path]
    if config:
        cmd += ["--config", config]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return mxgemm_isa.loop_summary(open(path).read()) or {}


def workgroup_stats(build, hsaco, m, workgroup):
    stats = hsaco + ".stats.json"
    subprocess.run([os.path.join(build, "bin", "mxgemm-emu"), "gemm", hsaco,
                    "--sidecar", hsaco + ".json", "--m", str(m),
                    "--workgroups", str(workgroup), "--stats-json", stats],
                   check=True, capture_output=True, text=True)
    return mxgemm_perf.first_workgroup(json.load(open(stats)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", default=os.path.join(
        ROOT, "..", "shared", "cases", "deepseek_v4_flash_tp2.tsv"))
    ap.add_argument("--db", default=os.path.join(ROOT, "tuning", "gfx950.json"))
    ap.add_argument("--ms", default="16384,10732,9199")
    ap.add_argument("--json", help="write every figure here")
    args = ap.parse_args()
    ms = [int(x) for x in args.ms.split(",")]
    db = {(e["key"]["n"], e["key"]["k"]): e
          for e in json.load(open(args.db))["entries"]}
    rows, report = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for case in read_cases(args.cases):
            fam, n, k = case["family"], int(case["N"]), int(case["K"])
            entry = db.get((n, k))
            variants = [("naive", {})]
            if entry:
                variants.append(("tuned", entry["config"]))
            for label, cfg in variants:
                path = os.path.join(tmp, "%s_%s.hsaco" % (fam, label))
                side = compile_kernel(args.build, n, k, render_config(cfg),
                                      path)
                mapper = tile_mapper(args.build, side, cfg)
                loop = loop_counts(args.build, n, k, render_config(cfg),
                                   path + ".s")
                for m in ms:
                    # An interior workgroup: full tile, steady state.
                    stats = workgroup_stats(args.build, path, m, 1)
                    hbm = mxgemm_perf.hbm_bytes_per_workgroup(
                        m, n, k, side, mapper(m))
                    mod = mxgemm_perf.model_case(m, n, k, side, stats, hbm)
                    res = side["resources"]
                    mfma_per_wg = stats["mfma"]
                    nonmfma = stats["instructions"] - mfma_per_wg
                    row = {
                        "family": fam, "variant": label, "m": m, "n": n,
                        "k": k, "config": render_config(side["config"]),
                        "vgpr": res["vgpr_count"], "agpr": res["agpr_count"],
                        "sgpr": res["sgpr_count"],
                        "spills": res["vgpr_spill_count"] +
                        res["sgpr_spill_count"],
                        "lds_bytes": res["lds_bytes"],
                        "waves_per_simd": mod["occupancy"]["waves_per_simd"],
                        "wg_per_cu": mod["occupancy"]["workgroups_per_cu"],
                        "mfma_per_wg": mfma_per_wg,
                        "non_mfma_per_wg": nonmfma,
                        "loop_mfma": loop.get("mfma", 0),
                        "loop_non_mfma": loop.get("non_mfma", 0),
                        "loop_vmcnt0_waits": loop.get("vmcnt0_waits", 0),
                        "drain_waits_per_wg": stats["full_drain_waits"],
                        "vmcnt0_waits_per_wg": stats["vmcnt0_waits"],
                        "lds_conflict_cycles": stats[
                            "ds_read_b128_conflict_cycles"],
                        "hbm_bytes_per_wg": hbm,
                        "global_bytes_per_mfma":
                        stats["global_bytes_read"] / max(1, mfma_per_wg),
                        "model": mod}
                    report.append(row)
                    rows.append(row)
                    print("%-14s %-5s M=%-5d vgpr %3d lds %6d occ %d "
                          "mfma/wg %5d non-mfma/wg %6d loop %2d+%3d vmcnt0 %d "
                          "drains %4d conflicts "
                          "%6d B/mfma %6.0f | bound %.1f us (%s) model %.1f us"
                          " x%.2f (%s) %.0f TF/s" % (
                              fam, label, m, row["vgpr"], row["lds_bytes"],
                              row["wg_per_cu"], mfma_per_wg, nonmfma,
                              row["loop_mfma"], row["loop_non_mfma"],
                              row["loop_vmcnt0_waits"],
                              row["drain_waits_per_wg"],
                              row["lds_conflict_cycles"],
                              row["global_bytes_per_mfma"],
                              mod["lower_bound"]["bound_s"] * 1e6,
                              mod["lower_bound"]["binds"],
                              mod["modelled_s"] * 1e6,
                              mod["modelled_over_bound"],
                              mod["limiting_term"], mod["modelled_tflops"]),
                          flush=True)
    if args.json:
        json.dump(report, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
