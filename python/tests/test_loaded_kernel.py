"""Kernels compiled elsewhere, from Python, through the runtime's C API only
(mxgemm_kernel_load / _query / _launch / _unload, mxgemm_descriptor_query):
the package holds no HIP launcher and no copy of the grid rule."""

import hashlib
import json

import numpy as np
import pytest

import mxgemm


def _embedded(entry="index_query"):
    """(code object, descriptor) of an embedded kernel: stands in for
    mxgemm-compile's output, as the C tests do."""
    return mxgemm.kernel_code_object(entry), mxgemm.kernel_descriptor(entry)


def test_descriptor_plan_is_the_runtimes_plan(ctx):
    code, d = _embedded()
    # One launch at this M (at 9199 the embedded entry splits rows, a
    # loaded kernel never does).
    m = 10732
    want = mxgemm.plan(m, d["problem"]["n"], d["problem"]["k"], ctx=ctx,
                       w_layout=d["w_layout"])
    got = mxgemm.descriptor_plan(d, m)
    assert want.eligible and got.eligible
    assert got.grid == want.grid and got.block == want.block
    assert (got.program_tile_m, got.num_tiles_n, got.group_m, got.group_n,
            got.xcd_remap, got.k_step) == \
        (want.program_tile_m, want.num_tiles_n, want.group_m, want.group_n,
         want.xcd_remap, want.k_step)
    assert got.kernel == d["kernel"]
    # The JSON text works too, and M = 1 is one tile row.
    assert mxgemm.descriptor_plan(json.dumps(d), 1).grid[0] == got.num_tiles_n


def test_descriptor_plan_refuses_what_the_runtime_refuses():
    _, d = _embedded()
    edited = json.loads(json.dumps(d))
    edited["grid"]["num_tiles_n"] += 1
    with pytest.raises(mxgemm.InvalidArgument, match="grid disagrees"):
        mxgemm.descriptor_plan(edited, 128)
    with pytest.raises(mxgemm.NotEligible, match="i32 kernel argument"):
        mxgemm.descriptor_plan(d, 2**31)
    with pytest.raises(ValueError):
        mxgemm.descriptor_plan("{", 128)
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.descriptor_plan({"kernel": "k"}, 128)


# index_query's embedded kernel reads W row-major; conftest's compiled panel
# kernels (one per MFMA shape) read packed MFMA panels.
@pytest.mark.parametrize("entry,layout", [("index_query", "row_major"),
                                          ("m32n32k64", "mfma_panels"),
                                          ("m16n16k128", "mfma_panels")])
def test_loaded_kernel_runs_bit_exact_on_the_facade(ctx, request, entry,
                                                    layout):
    if layout == "mfma_panels":
        row = request.getfixturevalue("panel_library").kernels[entry]
        code, d = row["code"], row["descriptor"]
    else:
        code, d = _embedded(entry)
    k = mxgemm.LoadedKernel(code, d, ctx=ctx)
    m, n, kk = 300, d["problem"]["n"], d["problem"]["k"]
    plan = k.plan(m)
    assert plan.eligible and plan.grid == mxgemm.descriptor_plan(d, m).grid
    x, xs = mxgemm.random_mx(1, m, kk)
    w, ws = mxgemm.random_mx(2, n, kk, granularity="block32x32")
    assert d["w_layout"] == layout
    packed = mxgemm.pack_weight_panels(w, d) if layout == "mfma_panels" else w
    ptrs = [ctx.to_device(a) for a in (x, xs, packed, ws)]
    y = np.full((m, n), 0xFFFF, np.uint16)
    ptrs.append(ctx.to_device(y))
    try:
        last = plan.grid[0] - 1
        k.launch(*ptrs, m=m, workgroups=[0, last])
        ctx.synchronize()
        ctx.to_host(ptrs[4], y)
    finally:
        for p in ptrs:
            ctx.free(p)
    regions = []
    for g in (0, last):
        r, c = mxgemm.workgroup_tile(plan, g)
        regions.append((r, min(r + plan.program_tile_m, m), c,
                        c + plan.tile_n))
    res = mxgemm.check_gemm(mxgemm.GemmOperands(x, xs, w, ws), y,
                            plan.k_step, regions=regions)
    assert res["mismatches"] == 0 and res["stray"] == 0
    assert res["compared"] == sum((r1 - r0) * (c1 - c0)
                                  for r0, r1, c0, c1 in regions)
    k.unload()
    with pytest.raises(mxgemm.InvalidArgument, match="unloaded"):
        k.plan(m)
    with pytest.raises(mxgemm.InvalidArgument, match="unloaded"):
        k.unload()


def test_loaded_kernel_refuses_bytes_that_are_not_its_code(ctx):
    code, d = _embedded()
    bad = bytearray(code)
    bad[len(bad) // 2] ^= 1
    with pytest.raises(mxgemm.InvalidArgument, match="SHA-256"):
        mxgemm.LoadedKernel(bytes(bad), d, ctx=ctx)
    # The descriptor's hash matches, but the bytes are no code object.
    junk = b"not an ELF image " * 16
    d2 = dict(d, code_object_sha256=hashlib.sha256(junk).hexdigest())
    with pytest.raises(mxgemm.InvalidArgument, match="code object"):
        mxgemm.LoadedKernel(junk, d2, ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.LoadedKernel(b"", d, ctx=ctx)


def test_loaded_kernel_launch_checks_its_arguments(ctx):
    code, d = _embedded()
    k = mxgemm.LoadedKernel(code, d, ctx=ctx)
    with pytest.raises(ValueError):
        k.launch(-1, 0, 0, 0, 0, m=128)
    with pytest.raises(mxgemm.InvalidArgument, match="NULL"):
        k.launch(0, 0, 0, 0, 0, m=128)
    with pytest.raises(ValueError):
        k.launch(16, 16, 16, 16, 16, m=128, workgroups=[10**9])


def test_tail_split_kernel_runs_both_launches(ctx):
    """A tail split (docs/Design.md "Tail split") through the runtime: the
    first launch runs 256 whole tiles and two segments per tail tile, the
    second adds the tail's partials. Sampled workgroups run with every
    segment and reduction of their tile; FP32 output under the segment rule
    in the tail tiles only (the unsplit sum disagrees in the last bits)."""
    n = kk = 512
    code, d = mxgemm.compile(
        n, kk, out_type="f32",
        config="tile_m = 64, tile_n = 128, tile_k = 128, waves_m = 1, "
               "waves_n = 4, stage_x = lds_async, stage_w = lds_async, "
               "stages = 2, lds_layout = xor, k_splits = 2, "
               "tail_split = true")
    k = mxgemm.LoadedKernel(code, d, ctx=ctx)
    m = 4480  # 280 tiles: 256 whole, 24 in two segments
    plan = k.plan(m)
    assert plan.grid == (256 + 24 * 2, 1, 1)
    assert (plan.k_splits, plan.tail_tiles, plan.reduction_grid_x) == \
        (2, 24, 48)
    x, xs = mxgemm.random_mx(1, m, kk)
    w, ws = mxgemm.random_mx(2, n, kk, granularity="block32x32")
    ptrs = [ctx.to_device(a) for a in (x, xs, w, ws)]
    y = np.full((m, n), 0xFFFFFFFF, np.uint32)
    ptrs.append(ctx.to_device(y))
    chosen = [0, 3, 256, plan.grid[0] - 1]  # whole tiles, two tail units
    try:
        k.launch(*ptrs, m=m, workgroups=chosen)
        ctx.synchronize()
        ctx.to_host(ptrs[4], y)
    finally:
        for p in ptrs:
            ctx.free(p)
    tiles = {mxgemm.workgroup_tile(plan, g) for g in chosen}
    regions = [(r, min(r + plan.program_tile_m, m), c, c + plan.tile_n)
               for r, c in sorted(tiles)]
    tail = [reg for reg in regions if reg[0] >= 4096]
    assert len(tail) == 2
    ops = mxgemm.GemmOperands(x, xs, w, ws)
    whole = [reg for reg in regions if reg[0] < 4096]

    def check(part, splits):
        # The part's outputs alone (the facade ran more whole tiles: the
        # reductions' ids of the first launch).
        only = np.full_like(y, 0xFFFFFFFF)
        for r0, r1, c0, c1 in part:
            only[r0:r1, c0:c1] = y[r0:r1, c0:c1]
        res = mxgemm.check_gemm(ops, only.view(np.float32), plan.k_step,
                                regions=part, k_splits=splits, out_type="f32")
        assert res["compared"] == sum((r1 - r0) * (c1 - c0)
                                      for r0, r1, c0, c1 in part)
        return res

    for part, splits in ((whole, 1), (tail, 2)):
        res = check(part, splits)
        assert res["mismatches"] == 0 and res["stray"] == 0, (part, res)
    # The tail tiles are sums of two segments: one sum over K disagrees.
    assert check(tail, 1)["mismatches"] > 0
