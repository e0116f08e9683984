"""Scales in MFMA-native layouts through the runtime (mxgemm_scale_bytes,
mxgemm_pack_scales, mxgemm_quantize_to_layout, the problem's and plan's
x_scale_layout / w_scale_layout): a kernel compiled to read them, served
from a loaded library and loaded on its own, runs bit-exact with scales the
runtime packed or its quantizer wrote; a problem whose scales are in another
layout than its kernel's is NOT_ELIGIBLE with reason SCALE_LAYOUT."""

import os

import numpy as np
import pytest

import mxgemm
from conftest import tuning_entry, write_library

# 16x16x128 MFMAs reading both X and W scales preshuffled (W's need per-row
# granularity). Small: two 128x128 tiles per 128 rows.
N, K = 256, 512
CONFIG = {"tile_m": 128, "tile_n": 128, "tile_k": 128, "waves_m": 2,
          "waves_n": 2, "mfma": "m16n16k128",
          "x_scale_layout": "mfma_16x16x128",
          "w_scale_layout": "mfma_16x16x128"}
LAYOUT = "mfma_16x16x128"


@pytest.fixture(scope="module")
def native_kernel():
    return mxgemm.compile(N, K, config=CONFIG, w_scale="per_row",
                          name="mxgemm_test_native_scales")


@pytest.fixture(scope="module")
def native_ctx(native_kernel, tmp_path_factory):
    """A context on the facade with the native-scale kernel loaded as a
    library entry for its key."""
    from conftest import facade_path
    if not os.path.exists(facade_path()):
        pytest.skip("HIP facade not built")
    c = mxgemm.Context(hip_library=facade_path())
    code, d = native_kernel
    directory = write_library(
        tmp_path_factory.mktemp("native_scales") / "lib",
        [(tuning_entry("test_native_scales", d, (1, 4096)), code, d)], c)
    c.load_library(directory)
    return c


def test_scale_bytes():
    # 33 rows, K = 1024 (32 blocks): row-major 33 x 32; 16x16x128 pads to
    # 3 row groups of 16 x 2 chunks of 256 bytes; 32x32x64 to 2 x 4.
    assert mxgemm.scale_bytes("row_major", 33, 1024) == 1056
    assert mxgemm.scale_bytes("mfma_16x16x128", 33, 1024) == 1536
    assert mxgemm.scale_bytes("mfma_32x32x64", 33, 1024) == 2048
    with pytest.raises(mxgemm.InvalidArgument, match="multiple of 32"):
        mxgemm.scale_bytes("mfma_16x16x128", 16, 48)
    with pytest.raises(mxgemm.InvalidArgument, match="overflows"):
        mxgemm.scale_bytes("mfma_32x32x64", 2**62, 2**40)
    with pytest.raises(mxgemm.InvalidArgument, match="layout"):
        mxgemm.scale_bytes("mfma_8x8", 16, 128)


def test_pack_scales_is_the_preshuffle(ctx):
    _, xs = mxgemm.random_mx(3, 70, 640)
    for layout in ("mfma_16x16x128", "mfma_32x32x64"):
        got = mxgemm.pack_scales(xs, layout, ctx=ctx)
        want = mxgemm.preshuffle_scales(xs, layout)
        assert got.nbytes == mxgemm.scale_bytes(layout, 70, 640)
        assert np.array_equal(got, np.ravel(want))


def test_unshuffle_inverts_the_preshuffle():
    # Partial row groups and chunks (70 rows, K = 640: 20 blocks).
    _, xs = mxgemm.random_mx(4, 70, 640)
    for layout in ("row_major", "mfma_16x16x128", "mfma_32x32x64"):
        packed = mxgemm.preshuffle_scales(xs, layout)
        assert np.array_equal(mxgemm.unshuffle_scales(packed, layout, 70,
                                                      640), xs)
        with pytest.raises(ValueError, match="source holds"):
            mxgemm.unshuffle_scales(packed[:-1], layout, 70, 640)
    with pytest.raises(ValueError, match="unknown scale layout"):
        mxgemm.unshuffle_scales(xs, "tiled", 70, 640)
    # The C function refuses a short destination and writes nothing.
    from mxgemm import _numerics
    packed = mxgemm.preshuffle_scales(xs, "mfma_32x32x64")
    dst = np.full(xs.size - 1, 0xa5, np.uint8)
    with pytest.raises(ValueError, match="destination holds 1399 bytes; "
                       "row-major scales need 1400"):
        _numerics._call("mxgemm_unshuffle_scales", b"mfma_32x32x64",
                        _numerics._ptr(packed), packed.size, 70, 20,
                        _numerics._ptr(dst), dst.size)
    assert (dst == 0xa5).all()


def test_embedded_kernels_read_row_major_scales(ctx):
    k = mxgemm.kernels()[0]
    assert k["x_scale_layout"] == k["w_scale_layout"] == "row_major"
    m = k["m_range"][0]
    ok = mxgemm.plan(m, k["n"], k["k"], ctx=ctx, w_layout=k["w_layout"])
    assert ok.eligible and ok.x_scale_layout == "row_major"
    p = mxgemm.plan(m, k["n"], k["k"], ctx=ctx, w_layout=k["w_layout"],
                    x_scale_layout="mfma_32x32x64")
    assert not p.eligible and p.reason == "SCALE_LAYOUT"
    assert p.x_scale_layout == "row_major"
    assert "x_scale_layout is mfma_32x32x64" in p.message
    with pytest.raises(mxgemm.InvalidArgument, match="x_scale_layout"):
        mxgemm.plan(m, k["n"], k["k"], ctx=ctx, x_scale_layout="column")


@pytest.mark.parametrize("family", ["wo_b", "engram"])
def test_embedded_scale_layout_variant_serves_its_layout(ctx, family):
    # <family>_native_xs (docs/Tuning.md, "Scale-layout variants") repeats
    # the family's key and M range with X scales in the 32x32x64 layout.
    ks = {k["entry"]: k for k in mxgemm.kernels()}
    base, variant = ks[family], ks[family + "_native_xs"]
    assert (variant["n"], variant["k"], variant["m_range"]) == \
        (base["n"], base["k"], base["m_range"])
    assert base["x_scale_layout"] == "row_major"
    assert variant["x_scale_layout"] == "mfma_32x32x64"
    assert variant["w_scale_layout"] == "row_major"
    # Every other embedded kernel reads row-major scales.
    assert sorted(e for e, k in ks.items() if k["x_scale_layout"] !=
                  "row_major" or k["w_scale_layout"] != "row_major") == \
        ["engram_native_xs", "wo_b_native_xs"]
    n, k = base["n"], base["k"]
    for m in base["m_range"]:
        assert mxgemm.plan(m, n, k, ctx=ctx).entry == family
        p = mxgemm.plan(m, n, k, ctx=ctx, x_scale_layout="mfma_32x32x64")
        assert p.eligible and p.entry == family + "_native_xs", p.message
        assert p.x_scale_layout == "mfma_32x32x64"
    p = mxgemm.plan(9199, n, k, ctx=ctx, x_scale_layout="mfma_16x16x128")
    assert not p.eligible and p.reason == "SCALE_LAYOUT"
    assert "mxgemm_%s_native_xs" % family in p.message
    # Outside the variant's range the key's kernels read row-major scales.
    p = mxgemm.plan(4096, n, k, ctx=ctx, x_scale_layout="mfma_32x32x64")
    assert not p.eligible and p.reason == "SCALE_LAYOUT"


@pytest.mark.parametrize("family, n, k", [("wo_b", 5120, 4096),
                                          ("engram", 12800, 6144)])
def test_embedded_variant_is_bit_exact_at_its_m_edge(ctx, family, n, k):
    # <family>_native_xs at M = 8193: the tile of the last row (one valid
    # row of 256) and the first tile, X scales packed by the runtime.
    m = 8193
    layout = "mfma_32x32x64"
    plan = mxgemm.plan(m, n, k, ctx=ctx, x_scale_layout=layout)
    assert plan.entry == family + "_native_xs", plan.message
    edge = next(g for g in range(plan.grid[0])
                if mxgemm.workgroup_tile(plan, g)[0] + plan.program_tile_m > m)
    x, xs = mxgemm.random_mx(31, m, k)
    w, ws = mxgemm.random_mx(32, n, k, granularity="block32x32")
    y = mxgemm.gemm(x, mxgemm.pack_scales(xs, layout, ctx=ctx), w, ws,
                    ctx=ctx, workgroups=[0, edge], x_scale_layout=layout)
    regions = []
    for g in (0, edge):
        r, c = mxgemm.workgroup_tile(plan, g)
        regions.append((r, min(r + plan.program_tile_m, m), c,
                        c + plan.tile_n))
    assert regions[1][1] - regions[1][0] == 1
    res = mxgemm.check_gemm(mxgemm.GemmOperands(x, xs, w, ws), y,
                            plan.k_step, regions=regions)
    assert res["mismatches"] == 0 and res["stray"] == 0, res
    assert res["compared"] == plan.tile_n * (plan.program_tile_m + 1)


def _check(plan, m, x, xs, w, ws, y, workgroups):
    regions = []
    for g in workgroups:
        r, c = mxgemm.workgroup_tile(plan, g)
        regions.append((r, min(r + plan.program_tile_m, m), c,
                        c + plan.tile_n))
    res = mxgemm.check_gemm(mxgemm.GemmOperands(x, xs, w, ws, "e4m3",
                                                "e4m3", "per_row"),
                            y, plan.k_step, regions=regions)
    assert res["mismatches"] == 0 and res["stray"] == 0, res
    assert res["compared"] == sum((r1 - r0) * (c1 - c0)
                                  for r0, r1, c0, c1 in regions)


@pytest.mark.parametrize("m", [1, 63, 257])
def test_library_kernel_reads_packed_scales(native_ctx, m):
    c = native_ctx
    p = mxgemm.plan(m, N, K, w_scale="per_row", ctx=c)
    assert not p.eligible and p.reason == "SCALE_LAYOUT"
    assert p.x_scale_layout == p.w_scale_layout == LAYOUT
    assert "mxgemm_pack_scales" in p.message
    plan = mxgemm.plan(m, N, K, w_scale="per_row", ctx=c,
                       x_scale_layout=LAYOUT, w_scale_layout=LAYOUT)
    assert plan.eligible and plan.kind == "library", plan.message
    x, xs = mxgemm.random_mx(10 + m, m, K)
    w, ws = mxgemm.random_mx(11, N, K, granularity="per_row")
    xs_packed = mxgemm.pack_scales(xs, LAYOUT, ctx=c)
    ws_packed = mxgemm.pack_scales(ws, LAYOUT, ctx=c)
    last = plan.grid[0] - 1
    y = mxgemm.gemm(x, xs_packed, w, ws_packed, w_scale="per_row", ctx=c,
                    workgroups=[0, last], x_scale_layout=LAYOUT,
                    w_scale_layout=LAYOUT)
    _check(plan, m, x, xs, w, ws, y, [0, last])
    # Row-major scales for this kernel are its caller's path, and native
    # ones of the wrong size an invalid argument.
    with pytest.raises(mxgemm.NotEligible) as e:
        mxgemm.gemm(x, xs, w, ws, w_scale="per_row", ctx=c)
    assert e.value.reason == "SCALE_LAYOUT"
    with pytest.raises(mxgemm.InvalidArgument, match="scale_bytes"):
        mxgemm.gemm(x, xs_packed[:-1], w, ws_packed, w_scale="per_row",
                    ctx=c, x_scale_layout=LAYOUT, w_scale_layout=LAYOUT)


def test_loaded_kernel_takes_its_layouts_from_the_descriptor(ctx,
                                                             native_kernel):
    code, d = native_kernel
    assert d["x_scale_layout"] == d["w_scale_layout"] == LAYOUT
    k = mxgemm.LoadedKernel(code, d, ctx=ctx)
    m = 100
    plan = k.plan(m)
    assert plan.eligible and plan.x_scale_layout == LAYOUT
    assert plan.w_scale_layout == LAYOUT
    x, xs = mxgemm.random_mx(5, m, K)
    w, ws = mxgemm.random_mx(6, N, K, granularity="per_row")
    packed = [mxgemm.pack_scales(s, LAYOUT, ctx=ctx) for s in (xs, ws)]
    ptrs = [ctx.to_device(a) for a in (x, packed[0], w, packed[1])]
    y = np.full((m, N), 0xFFFF, np.uint16)
    ptrs.append(ctx.to_device(y))
    try:
        k.launch(*ptrs, m=m, workgroups=[0, 1])
        ctx.synchronize()
        ctx.to_host(ptrs[4], y)
    finally:
        for p in ptrs:
            ctx.free(p)
        k.unload()
    _check(plan, m, x, xs, w, ws, y, [0, 1])


@pytest.mark.parametrize("layout", ["mfma_16x16x128", "mfma_32x32x64"])
def test_quantizer_writes_native_scales(ctx, layout):
    """mxgemm_quantize_to_layout: the codes of quantize_mx and its scales
    preshuffled, padding included (M = 45, K = 416: partial row groups and
    chunks)."""
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((45, 416)) *
         np.exp2(rng.integers(-20, 20, (45, 1)))).astype(np.float32)
    codes, scales = mxgemm.quantize_device(x, "e4m3", ctx=ctx,
                                           scale_layout=layout)
    want_codes, want_scales = mxgemm.quantize_mx(x, "e4m3")
    assert np.array_equal(codes, want_codes)
    assert scales.nbytes == mxgemm.scale_bytes(layout, 45, 416)
    assert np.array_equal(scales, np.ravel(
        mxgemm.preshuffle_scales(want_scales, layout)))
    with pytest.raises(mxgemm.InvalidArgument, match="scale_layout"):
        mxgemm.quantize_device(x, "e4m3", ctx=ctx, scale_layout="tiled")


def test_quantized_activations_feed_the_native_kernel(native_ctx):
    """End to end as an engine would run it: activations quantized straight
    into the kernel's X-scale layout, weight scales packed once."""
    c, m = native_ctx, 77
    rng = np.random.default_rng(9)
    x = rng.standard_normal((m, K)).astype(np.float32)
    xq, xs_native = mxgemm.quantize_device(x, "e4m3", ctx=c,
                                           scale_layout=LAYOUT)
    _, xs = mxgemm.quantize_mx(x, "e4m3")
    w, ws = mxgemm.random_mx(12, N, K, granularity="per_row")
    plan = mxgemm.plan(m, N, K, w_scale="per_row", ctx=c,
                       x_scale_layout=LAYOUT, w_scale_layout=LAYOUT)
    y = mxgemm.gemm(xq, xs_native, w, mxgemm.pack_scales(ws, LAYOUT, ctx=c),
                    w_scale="per_row", ctx=c, workgroups=[0, 1],
                    x_scale_layout=LAYOUT, w_scale_layout=LAYOUT)
    _check(plan, m, xq, xs, w, ws, y, [0, 1])


def test_library_with_both_layouts_serves_each_caller(native_kernel,
                                                      tmp_path):
    """A loaded library holding a row-major kernel and its scale-layout
    variant for one key and M range: each caller gets the kernel of its
    scale layouts, and both run bit-exact."""
    from conftest import facade_path
    if not os.path.exists(facade_path()):
        pytest.skip("HIP facade not built")
    row_config = {f: v for f, v in CONFIG.items() if "scale_layout" not in f}
    row_code, row_d = mxgemm.compile(N, K, config=row_config,
                                     w_scale="per_row",
                                     name="mxgemm_test_row_scales")
    code, d = native_kernel
    c = mxgemm.Context(hip_library=facade_path())
    try:
        # The variant first in the file: the runtime orders them itself.
        c.load_library(write_library(tmp_path / "lib", [
            (tuning_entry("test_native_scales", d, (1, 4096)), code, d),
            (tuning_entry("test_row_scales", row_d, (1, 4096)), row_code,
             row_d)], c))
        m = 63
        x, xs = mxgemm.random_mx(20, m, K)
        w, ws = mxgemm.random_mx(21, N, K, granularity="per_row")
        row = mxgemm.plan(m, N, K, w_scale="per_row", ctx=c)
        assert row.eligible and row.entry == "test_row_scales", row.message
        y = mxgemm.gemm(x, xs, w, ws, w_scale="per_row", ctx=c,
                        workgroups=[0, 1])
        _check(row, m, x, xs, w, ws, y, [0, 1])
        native = mxgemm.plan(m, N, K, w_scale="per_row", ctx=c,
                             x_scale_layout=LAYOUT, w_scale_layout=LAYOUT)
        assert native.eligible and native.entry == "test_native_scales"
        y = mxgemm.gemm(x, mxgemm.pack_scales(xs, LAYOUT, ctx=c), w,
                        mxgemm.pack_scales(ws, LAYOUT, ctx=c),
                        w_scale="per_row", ctx=c, workgroups=[0, 1],
                        x_scale_layout=LAYOUT, w_scale_layout=LAYOUT)
        _check(native, m, x, xs, w, ws, y, [0, 1])
        # Only X native: no kernel of the range reads that pair.
        p = mxgemm.plan(m, N, K, w_scale="per_row", ctx=c,
                        x_scale_layout=LAYOUT)
        assert not p.eligible and p.reason == "SCALE_LAYOUT"
        assert "mxgemm_test_native_scales" in p.message
    finally:
        c.close()
