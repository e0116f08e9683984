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
