"""The performance model's arithmetic (mxgemm.perf) against hand-computed
figures, so a changed constant or formula shows."""
from mxgemm import perf


def sidecar(vgpr=144, agpr=0, lds=73728, wg=256, config="m32n32k64"):
    return {"resources": {"vgpr_count": vgpr, "agpr_count": agpr,
                          "lds_bytes": lds},
            "mfma": {"k_step": 64 if config == "m32n32k64" else 128},
            "config": {"mfma": config},
            "grid": {"workgroup_size": wg, "program_tile_m": 128,
                     "tile_n": 128, "num_tiles_n": 40}}


def test_lower_bound_is_compute_bound_for_wq_b():
    lb = perf.lower_bound(16384, 16384, 1280)
    assert lb["flops"] == 2 * 16384 * 16384 * 1280
    assert abs(lb["compute_s"] - lb["flops"] / 5.03e15) < 1e-15
    # X + W + scales + bf16 Y.
    assert lb["bytes"] == (16384 * 1280 + 16384 * 1280 + 16384 * 40 +
                           512 * 40 + 2 * 16384 * 16384)
    assert lb["binds"] == "compute"


def test_occupancy_limits():
    # 144 VGPRs -> 3 waves per SIMD -> 12 waves per CU -> 3 workgroups of 4
    # waves by registers; 73728 B of LDS -> 2 per CU: LDS limits.
    occ = perf.occupancy(sidecar())
    assert occ["waves_per_simd"] == 3
    assert occ["workgroups_per_cu"] == 2
    assert occ["limit"] == "lds"
    # No LDS: registers limit (130 -> rounded to 136 -> 3 per SIMD).
    occ = perf.occupancy(sidecar(vgpr=130, lds=0))
    assert occ["workgroups_per_cu"] == 3
    assert occ["limit"] == "registers"


def test_hbm_bytes_row_major_round():
    # 4 x 40 tiles, one round per XCD covers all of its 20 programs: every
    # XCD sees 4 row panels... (row-major order, p % 8 round robin).
    side = sidecar(lds=0, vgpr=130)
    tiles = lambda pid: (pid // 40 * 128, pid % 40 * 128)
    got = perf.hbm_bytes_per_workgroup(512, 5120, 1024, side, tiles)
    panel = 1024 + 1024 // 32
    # XCD x gets programs x, x+8, ...: 4 rows and 5 distinct columns.
    expected = (4 * 128 + 5 * 128) * panel * 8 / 160 + 2 * 128 * 128
    assert abs(got - expected) < 1e-6


def test_exposed_latency_replays_the_waits():
    order = ["mfma", "valu", "salu", "smem", "vmem", "lds", "control"]

    def c(mfma=0, valu=0, salu=0):
        return [mfma, valu, salu, 0, 0, 0, 0]
    stats = {"class_order": order, "vm_waits": [
        # Wave 0: a load at 40 cycles waited at 80 (760 stall); a load
        # issued at 60, before that wait, waited at 120: ready at 860, and
        # the clock is already at 120 + 760, so no second stall; a load
        # issued at 120 and waited 16 MFMAs later (1024 cycles): hidden.
        [[c(valu=10), c(valu=20)], [c(valu=15), c(valu=30)],
         [c(valu=30), c(mfma=16, valu=30)]],
        # Wave 1: a load at 0 waited at 100 (700), then one issued after
        # that stall, at 101, waited at 201: 700 again.
        [[c(), c(salu=100)], [c(salu=101), c(salu=201)]]]}
    assert perf.GLOBAL_LATENCY_CYCLES == 800
    assert perf.exposed_latency(stats, "m32n32k64") == 1400  # the worst wave
    # 16x16x128 MFMAs take 32 cycles: 16 of them leave 288 exposed.
    stats["vm_waits"] = [[[c(), c(mfma=16)]]]
    assert perf.exposed_latency(stats, "m16n16k128") == 288
    assert perf.exposed_latency({"class_order": order}, "m32n32k64") == 0
