"""The reports of mxgemm-qualify: the console tables, qualification.md and
qualification.json, the path-engagement summary and the tool versions."""

import json
import os
import platform
import subprocess
import sys

import numpy as np

from . import _api


def _run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def plain(obj):
    """`obj` with every value JSON can not hold as a string."""
    return json.loads(json.dumps(obj, default=str))


def versions(compiler, source_dir):
    v = {"python": sys.version.split()[0], "numpy": np.__version__,
         "platform": platform.platform(), "machine": platform.machine(),
         "cpus": os.cpu_count()}
    try:
        v["mxgemm_runtime"] = _api.version()
    except Exception as e:
        v["mxgemm_runtime"] = "?: %s" % e
    p = _run([compiler, "--version"])
    v["mxgemm_compile"] = " ".join((p.stdout + p.stderr).split())
    for cfg in ("llvm-config-22", "/usr/lib/llvm-22/bin/llvm-config"):
        try:
            p = _run([cfg, "--version"])
            if p.returncode == 0:
                v["llvm"] = p.stdout.strip()
                break
        except OSError:
            continue
    try:
        git = ["git", "-C", source_dir]
        v["git_commit"] = _run(git + ["rev-parse", "HEAD"]).stdout.strip()
        v["git_dirty"] = bool(_run(git + ["status", "--porcelain"])
                              .stdout.strip())
    except OSError:
        pass
    return v


def fmt(v, spec="%.3g"):
    if v is None:
        return "n/a"
    return spec % v


def row_split_text(p):
    """' (row split: first + tail = total us)' of a case the runtime runs
    as two launches, else ''."""
    rs = p.get("row_split")
    if not rs:
        return ""
    return " (row split: %d rows %.1f + %s %.1f = **%.1f**)" % (
        rs["first_rows"], rs["first_us"], rs["tail_kernel"], rs["tail_us"],
        rs["time_us"])


def launch_text(seed, field):
    """The plan's `field` ("kernel" or grid x), with the row split's second
    launch after a '+'."""
    plan = seed.get("plan", {})
    first = plan.get("kernel", "-") if field == "kernel" else \
        str(plan.get("grid", [0])[0])
    rs = seed.get("row_split")
    if not rs:
        return first
    return "%s + %s" % (first, rs["kernel"] if field == "kernel" else
                        "rows %d.." % rs["first_rows"])


def table_lines(results, perf):
    head = ("%-15s %6s %5s %5s  %-21s %-6s %6s %4s %5s %5s %6s  %-6s %-6s %s" % (
        "family", "M", "N", "K", "kernel", "W", "grid", "wgs", "vgpr", "lds",
        "ref", "naive", "inputs", "result"))
    lines = [head]
    for r in results:
        p = perf.get((r["family"], r["m"]), {})
        st = p.get("static", {})
        seeds = r["seeds"]
        ok = all(not s["failures"] for s in seeds)
        ref = sum(s["checks"].get("reference_mismatches", 0) or 0 for s in seeds)
        nav = sum(s["checks"].get("naive_mismatches", 0) or 0 for s in seeds)
        inp = all(s["checks"].get("inputs_unchanged") for s in seeds)
        plan = seeds[0].get("plan", {})
        wl = {"mfma_panels": "panels", "row_major": "rowmaj"}.get(
            seeds[0].get("w_layout"), "-")
        lines.append("%-15s %6d %5d %5d  %-21s %-6s %6s %4s %5s %5s %6s  %-6s %-6s %s" % (
            r["family"], r["m"], r["n"], r["k"], plan.get("kernel", "-"), wl,
            plan.get("grid", [0])[0], sum(len(s.get("workgroups", []))
                                          for s in seeds),
            st.get("vgpr", "?"), st.get("lds_bytes", "?"),
            "0 mism" if not ref else "%d!" % ref,
            "same" if not nav else "%d!" % nav, "same" if inp else "CHANGED",
            "PASS" if ok else "FAIL: " + "; ".join(
                f for s in seeds for f in s["failures"])[:200]))
    return lines


def perf_lines(perf):
    lines = ["%-15s %6s %8s %9s %6s %8s %9s %10s %7s %6s %-10s" % (
        "family", "M", "mfma/wg", "conflict", "drains", "binds", "bound_us",
        "predict_us", "TFLOPS", "mfma%", "limiter")]
    for (fam, m), p in perf.items():
        c = p.get("counts") or {}
        pr = p.get("prediction") or {}
        lb = p.get("lower_bound") or {}
        confl = None
        if c:
            confl = (c.get("ds_read_b128_conflict_cycles") or 0) + \
                (c.get("ds_write_b128_conflict_cycles") or 0)
        bound_s = lb.get("bound_s")
        lines.append("%-15s %6d %8s %9s %6s %8s %9s %10s %7s %6s %-10s" % (
            fam, m, c.get("mfma", "?"), fmt(confl, "%d"),
            fmt(c.get("full_drain_waits"), "%d"), lb.get("binds", "n/a"),
            fmt(bound_s and bound_s * 1e6, "%.1f"),
            fmt(pr.get("time_us"), "%.1f") + row_split_text(p),
            fmt(pr.get("tflops"), "%.0f"),
            fmt(pr.get("mfma_utilisation") and
                100 * pr["mfma_utilisation"], "%.1f"),
            pr.get("limiter", p.get("prediction_error", "n/a"))[:60]))
    return lines


def write_reports(out_dir, doc, results, perf, inel, ok):
    engagement = doc["engagement"]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "qualification.json"), "w") as f:
        json.dump(doc, f, indent=1, default=str)
    md = []
    md.append("# mxgemm qualification\n")
    md.append("Result: **%s**. Generated %s on %s (%s CPUs), device `%s`, "
              "%.1f s wall.\n" % ("PASS" if ok else "FAIL", doc["date"],
                                   doc["versions"]["platform"],
                                   doc["versions"]["cpus"], doc["device"],
                                   doc["wall_seconds"]))
    md.append("Reproduce:\n\n    %s\n" % doc["command"])
    md.append("## Cases (seeds %s, %d sampled workgroups per case and seed)\n"
              % (",".join(map(str, doc["seeds"])), doc["sample"]))
    md.append("Each case: the shim's decision; the tuned kernel run through "
              "`mxgemm_gemm` on sampled workgroups; every sampled output tile "
              "compared bit for bit with the CPU reference semantics "
              "(`mxgemm_check_gemm_split` of libmxgemm_numerics.so, the "
              "segment rule for a launch that splits K) and byte for byte "
              "with the naive kernel of the same MFMA shape and K segments; "
              "inputs unchanged; no write outside the sampled tiles in the "
              "copied rows; zero checker findings (a finding fails the "
              "launch). Column W: `row-major`, or `panels` when the kernel "
              "reads W in MFMA panels: W was packed once by "
              "`mxgemm_pack_weights` into its own buffer (its bytes checked "
              "against the host packing, `mxgemm_pack_weight_panels`), the "
              "tuned kernel read "
              "that buffer and the naive kernel the row-major W; both W "
              "buffers must be unchanged.\n")
    md.append("```")
    md.extend(table_lines(results, perf))
    md.append("```\n")
    md.append("| family | M | seed | kernel | config | W | grid | workgroups (tile row, col) | elements | ref mism. | naive mism. | inputs | s | result |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for s in r["seeds"]:
            p = s.get("plan", {})
            wgs = " ".join("%s%d(%d,%d)%s" % ("tail:" if w.get("launch") else "",
                                              w["id"], w["tile"][0], w["tile"][1],
                                              "" if w["kind"] == "random" else
                                              " " + w["kind"])
                           for w in s.get("workgroups", []))
            md.append("| %s | %d | %d | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %.1f | %s |" % (
                r["family"], r["m"], s["seed"], launch_text(s, "kernel"),
                p.get("config", ""), w_column(s), launch_text(s, "grid"), wgs,
                s.get("elements", 0),
                s["checks"].get("reference_mismatches", "-"),
                s["checks"].get("naive_mismatches", "-"),
                s["checks"].get("inputs_unchanged", "-"), s.get("seconds", 0),
                "PASS" if not s["failures"] else "FAIL: " +
                "; ".join(s["failures"])))
    md.append("\n## Path engagement\n")
    for line in engagement["lines"]:
        md.append("- " + line)
    md.append("\n## Static figures and predicted performance\n")
    md.append("Static figures from the `mxgemm-compile` sidecar of the plan's "
              "config (recompiled; its SHA-256 is compared with the code "
              "object embedded in the runtime); counts from `mxgemm-emu gemm "
              "--stats-json` of one interior workgroup (which also checks it "
              "against the C++ CPU reference on the emulator's own data); the "
              "times are PREDICTIONS of the timing simulator `mxgemm-sim` "
              "(docs/Simulator.md) at the sustained MFMA clock, not "
              "measurements.\n")
    md.append("| family | M | vgpr | agpr | sgpr | LDS B | scratch | occupancy (wg/CU, simulator) | MFMA/wg | MACs/wg | global B read/wg | LDS B r+w/wg | b128 conflict cycles | full drains | barriers | C++ ref | embedded = recompiled | lower bound us (binds) | predicted us | predicted TFLOPS | MFMA util | limiter |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (fam, m), p in perf.items():
        st = p.get("static", {})
        c = p.get("counts") or {}
        pr = p.get("prediction") or {}
        lb = p.get("lower_bound") or {}
        occ = pr.get("workgroups_per_cu")
        md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            fam, m, st.get("vgpr"), st.get("agpr"), st.get("sgpr"),
            st.get("lds_bytes"), st.get("scratch_bytes"), fmt(occ, "%s"),
            c.get("mfma"), c.get("mfma_macs"), c.get("global_bytes_read"),
            (c.get("lds_bytes_read") or 0) + (c.get("lds_bytes_written") or 0),
            (c.get("ds_read_b128_conflict_cycles") or 0) +
            (c.get("ds_write_b128_conflict_cycles") or 0),
            c.get("full_drain_waits"), c.get("barriers"),
            p.get("emu_cpp_reference", "n/a")[:40], p.get("matches_embedded"),
            "%s (%s)" % (fmt(lb.get("bound_s") and lb["bound_s"] * 1e6, "%.1f"),
                         lb.get("binds", lb.get("bound", "n/a"))),
            fmt(pr.get("time_us"), "%.1f") + row_split_text(p),
            fmt(pr.get("tflops"), "%.0f"),
            fmt(pr.get("mfma_utilisation") and
                100 * pr["mfma_utilisation"], "%.1f%%"),
            pr.get("limiter", p.get("prediction_error", "n/a"))))
    md.append("\n## Ineligible cases (must be NOT_ELIGIBLE and launch nothing)\n")
    md.append("| case | M | N | K | W given | status | reason | message | output untouched | result |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in inel:
        md.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["m"], r["n"], r["k"], r.get("w_layout", "-"),
            r.get("status"),
            r.get("reason"), r.get("message", "").replace("|", "/"),
            r.get("output_untouched"), r.get("result")))
    md.append("\n## Code objects (SHA-256)\n")
    md.append("| entry | kernel | bytes | sha256 |")
    md.append("|---|---|---|---|")
    for name, e in sorted(doc["code_objects"].items()):
        md.append("| %s | %s | %s | `%s` |" % (name, e.get("kernel", ""),
                                              e.get("bytes", ""), e["sha256"]))
    md.append("\n## Tool versions\n")
    for key, val in doc["versions"].items():
        md.append("- %s: `%s`" % (key, val))
    md.append("\nSee docs/Qualification.md for what this proves and what it "
              "does not.\n")
    with open(os.path.join(out_dir, "qualification.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def w_column(s):
    """The W cell of a case and seed: how the tuned kernel got W."""
    if s.get("w_layout") != "mfma_panels":
        return "row-major" if s.get("w_layout") else "-"
    ok = s["checks"].get("packed_w_matches_host")
    if ok is None:
        return "panels (not packed)"
    return "panels (packed once)" if ok else "panels (packed bytes WRONG)"


def engagement_summary(results, inel):
    structs, fallbacks = {}, {}
    for r in results:
        plan = r["seeds"][0].get("plan", {})
        if plan.get("status") == "OK":
            key = r["seeds"][0].get("structure", "?")
            structs.setdefault(key, []).append("%s/%d" % (r["family"], r["m"]))
        else:
            fallbacks.setdefault(plan.get("reason", "?"), []).append(
                "%s/%d" % (r["family"], r["m"]))
    lines = ["%d of %d case-table cases take a tuned kernel, %d fall back" % (
        sum(len(v) for v in structs.values()), len(results),
        sum(len(v) for v in fallbacks.values()))]
    for key, cases in sorted(structs.items(), key=lambda kv: -len(kv[1])):
        lines.append("%d cases: %s (%s)" % (len(cases), key, ", ".join(cases)))
    for key, cases in fallbacks.items():
        lines.append("fallback %s: %d cases (%s)" % (key, len(cases),
                                                     ", ".join(cases)))
    packed = ["%s/%d" % (r["family"], r["m"]) for r in results
              if r["seeds"][0].get("w_layout") == "mfma_panels"]
    if packed:
        lines.append("%d cases read W packed in MFMA panels (mxgemm_pack_"
                     "weights once per case and seed): %s" % (
                         len(packed), ", ".join(packed)))
    for r in inel:
        lines.append("ineligible probe '%s': %s %s" % (r["case"],
                                                       r.get("status"),
                                                       r.get("reason")))
    return {"lines": lines, "structures": structs, "fallbacks": fallbacks}
