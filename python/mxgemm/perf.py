"""The mxgemm performance model: lower bounds and a modelled time for one
code object on MI355X, from emulator counts (docs/PerformanceModel.md).
Every figure here is modelled, never measured on hardware; every constant is
named and documented in docs/Performance.md so the numbers can be improved
without touching the passes.
"""
import bisect
import math

# Machine figures (docs/Design.md section 2, docs/PerformanceModel.md).
CLOCK_HZ = 2.4e9
CUS = 256
SIMDS_PER_CU = 4
MAX_WAVES_PER_SIMD = 8
VGPRS_PER_LANE = 512          # arch VGPRs + AGPRs
VGPR_GRANULE = 8
LDS_PER_CU = 163840
LDS_GRANULE = 1280
PEAK_FLOPS = 5.03e15
HBM_BYTES_PER_S = 8e12
LDS_BYTES_PER_CLK = 256       # per CU, reads
XCDS = 8
# L2 -> CU bandwidth per CU (assumption, pessimistic: 64 B/clk; the
# emulator's global bytes all go through L2).
L2_BYTES_PER_CLK = 64
MFMA_CYCLES = {"m32n32k64": 64, "m16n16k128": 32}
# Pessimistic issue costs (cycles a wave occupies its SIMD's issue port):
# wave64 VALU/VMEM/LDS instructions take 4 passes of 16 lanes on CDNA.
ISSUE_CYCLES = {"valu": 4, "vmem": 4, "lds": 4, "salu": 1, "smem": 1,
                "control": 1}
# Global-memory latency from issue to data (an assumption: about the
# unloaded latency; HBM under load is worse). A wave that waits for a load
# issued fewer cycles ago than this stalls for the difference, which only
# other resident workgroups' waves can fill.
GLOBAL_LATENCY_CYCLES = 800


def lower_bound(m, n, k, out_bytes=2):
    """Compute and memory lower bounds (seconds) and the binding term."""
    flops = 2.0 * m * n * k
    scale_bytes = m * (k // 32) + ((n + 31) // 32) * (k // 32)
    bytes_moved = m * k + n * k + scale_bytes + out_bytes * m * n
    t_compute = flops / PEAK_FLOPS
    t_memory = bytes_moved / HBM_BYTES_PER_S
    bound = max(t_compute, t_memory)
    return {"flops": flops, "bytes": bytes_moved, "compute_s": t_compute,
            "memory_s": t_memory, "bound_s": bound,
            "binds": "compute" if t_compute >= t_memory else "memory"}


def occupancy(sidecar):
    """Workgroups resident per CU, limited by registers, LDS and waves."""
    res = sidecar["resources"]
    waves = sidecar["grid"]["workgroup_size"] // 64
    regs = res["vgpr_count"] + res["agpr_count"]
    regs = max(VGPR_GRANULE, math.ceil(regs / VGPR_GRANULE) * VGPR_GRANULE)
    waves_per_simd = min(MAX_WAVES_PER_SIMD, VGPRS_PER_LANE // regs)
    by_regs = (waves_per_simd * SIMDS_PER_CU) // waves
    lds = sidecar["resources"]["lds_bytes"]
    lds = math.ceil(lds / LDS_GRANULE) * LDS_GRANULE if lds else 0
    by_lds = LDS_PER_CU // lds if lds else by_regs
    wgs = max(0, min(by_regs, by_lds))
    return {"workgroups_per_cu": wgs, "waves_per_simd": waves_per_simd,
            "limit": "lds" if by_lds < by_regs else "registers"}


def wave_cycles(counts, mfma_kind):
    """Issue cycles of a wave's instruction counts by class (a dict)."""
    return (sum(ISSUE_CYCLES[c] * counts.get(c, 0) for c in ISSUE_CYCLES) +
            counts.get("mfma", 0) * MFMA_CYCLES[mfma_kind])


def first_workgroup(report):
    """The first workgroup record of an `mxgemm-emu --stats-json` report,
    with the report's 'class_order' (the order of its 'vm_waits' counts)."""
    wg = dict(report["workgroups"][0])
    wg["class_order"] = report["class_order"]
    return wg


def exposed_latency(wg_stats, mfma_kind):
    """Cycles the busiest wave stalls on vector memory. The emulator's
    'vm_waits' give, per wave and per wait that made it wait, the wave's
    instruction counts (by class, in 'class_order') when the youngest load
    it waited for issued and at the wait. Replayed on a clock that advances
    by issue cycles and by the stalls themselves: a load is ready
    GLOBAL_LATENCY_CYCLES after it issued, and a wait before that stalls
    until then. A wait right after a copy exposes nearly all of it; a
    prefetch a K tile ahead, none; a second wait behind a first one only
    what the first did not already cover."""
    order = wg_stats["class_order"]
    worst = 0
    for waits in wg_stats.get("vm_waits", []):
        # Issue cycles of each earlier wait, and the stalls up to it.
        wait_at, stalled_by = [], [0]
        for issued, waited in waits:
            t_issue = wave_cycles(dict(zip(order, issued)), mfma_kind)
            t_wait = wave_cycles(dict(zip(order, waited)), mfma_kind)
            # Stalls of earlier waits delayed both by what came before them.
            before_issue = stalled_by[bisect.bisect_left(wait_at, t_issue)]
            ready = t_issue + before_issue + GLOBAL_LATENCY_CYCLES
            stall = max(0, ready - (t_wait + stalled_by[-1]))
            wait_at.append(t_wait)
            stalled_by.append(stalled_by[-1] + stall)
        worst = max(worst, stalled_by[-1])
    return worst


def model_case(m, n, k, sidecar, wg_stats, hbm_bytes_per_wg=None):
    """Modelled time of one launch from the counts of one interior
    workgroup (wg_stats: an entry of mxgemm-emu --stats-json 'workgroups')."""
    grid = sidecar["grid"]
    num_wg = math.ceil(m / grid["program_tile_m"]) * grid["num_tiles_n"]
    occ = occupancy(sidecar)
    w = max(1, occ["workgroups_per_cu"])
    waves = wg_stats["waves"]
    simds = min(SIMDS_PER_CU, waves)
    mfma_kind = "m16n16k128" if sidecar["mfma"]["k_step"] == 128 else \
        "m32n32k64"
    # Per workgroup, cycles of each resource.
    t_mfma = wg_stats["mfma"] / simds * MFMA_CYCLES[mfma_kind]
    lds_bytes = wg_stats["lds_bytes_read"] + wg_stats["lds_bytes_written"]
    conflicts = (wg_stats["ds_read_b128_conflict_cycles"] +
                 wg_stats["ds_write_b128_conflict_cycles"])
    t_lds = lds_bytes / LDS_BYTES_PER_CLK + conflicts
    # The busiest wave's issue cycles; a co-resident workgroup's wave on the
    # same SIMD covers them only while it has MFMAs of its own to run.
    issue = max(sum(ISSUE_CYCLES[c] * wave.get(c, 0) for c in ISSUE_CYCLES)
                for wave in wg_stats["per_wave"])
    t_issue = issue / w
    # Memory: L2 traffic is every global byte the workgroup reads or writes
    # (emulator count); HBM traffic is what misses L2, i.e. the unique
    # operand panels of the tiles resident on one XCD at a time (from the
    # tile order; hbm_bytes_per_wg, computed by the caller), plus the output.
    hbm_share = HBM_BYTES_PER_S / CUS / CLOCK_HZ  # bytes per clock per CU
    t_l2 = (wg_stats["global_bytes_read"] +
            wg_stats["global_bytes_written"]) / L2_BYTES_PER_CLK
    t_hbm = (hbm_bytes_per_wg if hbm_bytes_per_wg is not None else
             wg_stats["global_bytes_read"] +
             wg_stats["global_bytes_written"]) / hbm_share
    t_mem = max(t_l2, t_hbm)
    t_drain = exposed_latency(wg_stats, mfma_kind) / w
    terms = {"mfma": t_mfma, "lds": t_lds, "issue": t_issue, "memory": t_mem}
    limit = max(terms, key=terms.get)
    per_wg = terms[limit] + t_drain
    rounds = math.ceil(num_wg / (CUS * w))
    cycles = rounds * w * per_wg
    seconds = cycles / CLOCK_HZ
    lb = lower_bound(m, n, k)
    return {"num_workgroups": num_wg, "occupancy": occ,
            "cycles_per_workgroup": {**terms, "drain": t_drain, "l2": t_l2,
                                     "hbm": t_hbm},
            "limiting_term": limit, "rounds": rounds,
            "modelled_s": seconds, "lower_bound": lb,
            "modelled_over_bound": seconds / lb["bound_s"],
            "modelled_tflops": lb["flops"] / seconds / 1e12}


def hbm_bytes_per_workgroup(m, n, k, sidecar, tile_of, rounds=4,
                            out_bytes=2):
    """HBM bytes per workgroup under the kernel's tile order: gfx950 sends
    program p to XCD p % 8; each XCD runs 32 CUs x W workgroups at a time;
    a round's distinct X row panels and W column panels are read from HBM
    once (L2 capacity ignored: the panels of a round fit the 4 MB L2 for
    the case-table shapes, or the 256 MB MALL), the output is written once.
    `tile_of(pid) -> (row0, col0)` is the runtime's swizzle."""
    grid = sidecar["grid"]
    tm, tn = grid["program_tile_m"], grid["tile_n"]
    num_wg = math.ceil(m / tm) * grid["num_tiles_n"]
    w = max(1, occupancy(sidecar)["workgroups_per_cu"])
    per_xcd = CUS // XCDS * w
    panel = k + k // 32           # bytes per operand row incl. scales
    total, counted = 0, 0
    for xcd in range(XCDS):
        pids = list(range(xcd, num_wg, XCDS))
        for r in range(min(rounds, math.ceil(len(pids) / per_xcd))):
            chunk = pids[r * per_xcd:(r + 1) * per_xcd]
            rows, cols = set(), set()
            for pid in chunk:
                row0, col0 = tile_of(pid)
                rows.add(row0)
                cols.add(col0)
            total += (len(rows) * min(tm, m) + len(cols) * tn) * panel
            counted += len(chunk)
    return total / max(1, counted) + out_bytes * tm * tn
