"""The runtime shim through ctypes: plans, errors, and GEMMs on the facade."""

import numpy as np
import pytest

import mxgemm


def test_version_and_kernels():
    assert mxgemm.version() == "0.3.1"
    everything = mxgemm.kernels()
    # The generic kernels (N, K 0: any) follow the tuned entries.
    ks = [k for k in everything if k["n"]]
    generic = everything[len(ks):]
    assert all(k["n"] == 0 and k["k"] == 0 for k in generic)
    assert sorted(k["m_range"] for k in generic) == sorted(
        2 * [(1, 16), (17, 64), (65, 2**31 - 1)])
    families = ["wq_b", "engram", "wo_b", "shared_gate_up", "fused_qkv",
                "shared_down", "index_query"]
    # Two scale-layout variants (test_scale_layouts.py); every other kernel
    # reads row-major scales.
    variants = ["engram_native_xs", "wo_b_native_xs"]
    assert sorted(k["entry"] for k in ks if k["x_scale_layout"] != "row_major"
                  or k["w_scale_layout"] != "row_major") == variants
    ks = [k for k in ks if k["entry"] not in variants]
    # The qualified entry of each family serves the bucket 8193..16384, or
    # part of it with <family>_m<lo>_<hi> entries for the rest (two for
    # shared_gate_up: tail splits at both ends), and one entry per other M
    # bucket (nine buckets) or per range of one where a tail split pays (38
    # more, docs/Tuning.md "Tail splits per M range").
    tuned = [k for k in ks if k["entry"] in families]
    assert sorted(k["entry"] for k in tuned) == sorted(families)
    split = {t["entry"]: sorted(
        k["m_range"] for k in ks if k["entry"] == t["entry"] or (
            k["entry"].startswith(t["entry"] + "_m") and
            8193 <= k["m_range"][0] and k["m_range"][1] <= 16384))
        for t in tuned}
    assert all(r[0][0] == 8193 and r[-1][1] == 16384 for r in split.values())
    assert {e: len(r) for e, r in split.items() if len(r) > 1} == \
        {"shared_gate_up": 3}
    assert len(ks) == 9 * len(families) + 2 + 38
    for t in tuned:
        ranges = sorted(k["m_range"] for k in ks
                        if (k["n"], k["k"]) == (t["n"], t["k"]))
        assert ranges[0][0] == 1 and ranges[-1][1] == 65536
        assert all(a[1] + 1 == b[0] for a, b in zip(ranges, ranges[1:]))
    assert all(k["code_object_bytes"] > 0 for k in ks)


def _w_layout(n, k):
    """The W layout the embedded kernel of (N, K) reads."""
    return next(i["w_layout"] for i in mxgemm.kernels()
                if (i["n"], i["k"]) == (n, k))


def test_plan_without_hip_explains_shape_rules():
    c = mxgemm.Context(hip_library="/nonexistent/libamdhip64.so")
    # The tuned path's reasons: a generic kernel (on by default) would take
    # M = 70000 and then need HIP.
    c.set_generic(False)
    lay = _w_layout(16384, 1280)
    p = mxgemm.plan(70000, 16384, 1280, ctx=c, w_layout=lay)
    assert not p.eligible and p.reason == "M_OUT_OF_RANGE"
    assert "1..65536" in p.message
    p = mxgemm.plan(16384, 16384, 1280, ctx=c, w_layout=lay)
    assert p.status == "NOT_ELIGIBLE" and p.reason == "HIP_UNAVAILABLE"
    assert mxgemm.plan(16384, 16384, 1280, out_type="f32", ctx=c,
                       w_layout=lay).reason == "OUTPUT_TYPE"
    assert mxgemm.plan(16384, 16384, 1280, x_format="bf16", ctx=c,
                       w_layout=lay).reason == "NOT_PREQUANTIZED"
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.plan(0, 16384, 1280, ctx=c)
    strict = mxgemm.Context(hip_library="/nonexistent/x.so", strict=True)
    with pytest.raises(mxgemm.HipError):
        mxgemm.plan(16384, 16384, 1280, ctx=strict, w_layout=lay)


def test_plan_on_facade(ctx):
    lay = _w_layout(16384, 1280)
    p = mxgemm.plan(16384, 16384, 1280, ctx=ctx, w_layout=lay)
    assert p.eligible and p.kernel == "mxgemm_wq_b" and p.w_layout == lay
    assert p.num_tiles_n == 16384 // p.tile_n
    assert p.grid == (16384 // p.program_tile_m * p.num_tiles_n, 1, 1)
    waves = {f.split("=")[0].strip(): f.split("=")[1].strip()
             for f in p.config.split(",")}
    assert p.block == (64 * int(waves["waves_m"]) * int(waves["waves_n"]), 1, 1)
    assert "case-table plan" in p.note
    name, cc = ctx.device_info()
    assert cc == (9, 5)


def _fp64_reference(x, xs, w, ws, rows, cols):
    xv = mxgemm.dequantize(x[rows], xs[rows]).astype(np.float64)
    wv = mxgemm.dequantize(w, ws, granularity="block32x32")[cols]
    return xv @ wv.astype(np.float64).T


def test_gemm_on_facade_matches_reference(ctx):
    rng = np.random.default_rng(5)
    m, n, k = 8193, 4096, 1280
    xf = rng.standard_normal((m, k)).astype(np.float32)
    wf = rng.standard_normal((n, k)).astype(np.float32)
    xf *= np.exp2(rng.integers(-4, 4, (m, k // 32))).repeat(32, 1)
    x, xs = mxgemm.quantize_mx(xf)
    w, ws = mxgemm.quantize_mx(wf, granularity="block32x32")
    lay = _w_layout(n, k)
    p = mxgemm.plan(m, n, k, ctx=ctx, w_layout=lay)
    last = p.grid[0] - 1
    # W as the kernel reads it: packed once by the shim if it reads panels.
    wk = mxgemm.pack_weights(w, ctx=ctx) if lay == "mfma_panels" else w
    y = mxgemm.gemm(x, xs, wk, ws, ctx=ctx, workgroups=[0, last],
                    w_layout=lay)
    for wg in (0, last):
        r, c = mxgemm.workgroup_tile(p, wg)
        rows = slice(r, min(r + p.program_tile_m, m))
        cols = slice(c, c + p.tile_n)
        got = mxgemm.bf16_to_float32(y[rows, cols]).astype(np.float64)
        ref = _fp64_reference(x, xs, w, ws, rows, cols)
        assert np.all(np.abs(got - ref) <= 2.0**-7 * np.abs(ref) + 1e-3)
    assert y[300, 300] == 0xFFFF  # workgroup not executed: untouched


def test_row_split_plans(ctx):
    """index_query's entry splits rows when its last round would be short:
    256x256 tiles, 16 columns, 256 CUs, so 4096 rows a round; M = 9199
    leaves 1007 rows after two rounds (its rule takes tails up to 1007),
    M = 10732 leaves 2540 (too long), M = 16384 fills four rounds."""
    lay = _w_layout(4096, 1280)
    plan, first, tail = mxgemm.row_split(9199, 4096, 1280, ctx=ctx,
                                         w_layout=lay)
    assert plan.eligible and plan.entry == "index_query"
    assert first == 8192 and plan.grid[0] == 8192 // 256 * 16
    assert tail.eligible and tail.entry == "index_query_m257_1024"
    assert tail.m_range[0] <= 9199 - 8192 <= tail.m_range[1]
    assert "row split: rows 0..8191 by 'index_query'" in plan.message
    assert mxgemm.plan(9199, 4096, 1280, ctx=ctx, w_layout=lay).grid == \
        plan.grid
    for m in (10732, 16384):
        plan, first, tail = mxgemm.row_split(m, 4096, 1280, ctx=ctx,
                                             w_layout=lay)
        assert plan.eligible and first == 0 and tail is None
        assert plan.grid[0] == -(-m // 256) * 16


def test_gemm_row_split_on_facade_is_bit_exact(ctx):
    """Both launches of a row split run (workgroups 0 and 511 of each grid)
    and match the reference of their kernel bit for bit; the rest of Y is
    untouched."""
    m, n, k = 9199, 4096, 1280
    lay = _w_layout(n, k)
    x, xs = mxgemm.random_mx(1, m, k)
    w, ws = mxgemm.random_mx(2, n, k, granularity="block32x32")
    plan, first, tail = mxgemm.row_split(m, n, k, ctx=ctx, w_layout=lay)
    assert first == 8192
    ids = [0, 511]
    y = mxgemm.gemm(x, xs, w, ws, ctx=ctx, workgroups=ids, w_layout=lay)
    written = np.zeros((m, n), bool)
    for p, row0, rows in ((plan, 0, first), (tail, first, m - first)):
        regions = []
        for g in ids:
            r, c = mxgemm.workgroup_tile(p, g)
            regions.append((r, min(r + p.program_tile_m, rows), c,
                            min(c + p.tile_n, n)))
            written[row0 + r:row0 + regions[-1][1], c:regions[-1][3]] = True
        ops = mxgemm.GemmOperands(x[row0:row0 + rows], xs[row0:row0 + rows],
                                  w, ws)
        res = mxgemm.check_gemm(ops, y[row0:row0 + rows], p.k_step,
                                regions=regions)
        assert res["mismatches"] == 0 and res["stray"] == 0
        assert res["compared"] == sum((r1 - r0) * (c1 - c0)
                                      for r0, r1, c0, c1 in regions)
    assert np.all(y[~written] == 0xFFFF)


def test_generic_kernel_serves_off_table_shape(ctx):
    """A key without a tuned kernel runs on a generic kernel (N and K at
    run time), on by default; set_generic(False) makes it NOT_ELIGIBLE.
    Bit-exact checked by mxgemm-run, here the reference within BF16
    rounding."""
    # Its own context: the session's keeps the default.
    from conftest import facade_path
    c = mxgemm.Context(hip_library=facade_path())
    c.set_generic(False)
    rng = np.random.default_rng(7)
    m, n, k = 5, 200, 352  # no tuned key, no tile divides N or K
    x, xs = mxgemm.quantize_mx(rng.standard_normal((m, k)).astype(np.float32))
    w, ws = mxgemm.quantize_mx(rng.standard_normal((n, k)).astype(np.float32),
                               granularity="block32x32")
    off = mxgemm.plan(m, n, k, ctx=c)
    assert not off.eligible and off.reason == "NO_TUNED_KERNEL"
    c.set_generic(True)
    p = mxgemm.plan(m, n, k, ctx=c)
    assert p.eligible and p.kind == "generic"
    assert mxgemm.plan(m, n, k, ctx=ctx).kind == "generic"  # the default
    assert p.entry == "generic_e4m3_e4m3_block32x32_m1_16"
    assert p.num_tiles_n == -(-n // p.tile_n)
    y = mxgemm.gemm(x, xs, w, ws, ctx=c)
    got = mxgemm.bf16_to_float32(y).astype(np.float64)
    ref = _fp64_reference(x, xs, w, ws, slice(0, m), slice(0, n))
    assert np.all(np.abs(got - ref) <= 2.0**-7 * np.abs(ref) + 1e-3)


def test_gemm_not_eligible_and_bad_inputs(ctx):
    x = np.zeros((100, 1280), np.uint8)
    xs = np.zeros((100, 40), np.uint8)
    w = np.zeros((4224, 1280), np.uint8)  # no tuned kernel for N = 4224
    ws = np.zeros((132, 40), np.uint8)
    # E5M2 X: no tuned and no generic kernel.
    with pytest.raises(mxgemm.NotEligible) as e:
        mxgemm.gemm(x, xs, w, ws, x_format="e5m2", ctx=ctx)
    assert e.value.reason == "NO_TUNED_KERNEL"
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.gemm(x, xs[:, :39], w, ws, ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.gemm(x.astype(np.float32), xs, w, ws, ctx=ctx)


def test_ctypes_structs_match_the_header(tmp_path):
    # The ctypes mirrors must have the C layout (field order, enum sizes):
    # compile offsetof/sizeof of every mirrored field against the header.
    import ctypes
    import os
    import shutil
    import subprocess
    from mxgemm import _runtime as rt
    cc = shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to read the header's layout")
    include = os.path.join(os.path.dirname(__file__), "..", "..", "include")
    structs = {"mxgemm_problem": rt.Problem, "mxgemm_tensors": rt.Tensors,
               "mxgemm_plan": rt.PlanStruct,
               "mxgemm_context_options": rt.ContextOptions,
               "mxgemm_kernel_info": rt.KernelInfo}
    lines = ["#include <stdio.h>", "#include <stddef.h>",
             '#include "mxgemm/Runtime/mxgemm_runtime.h"', "int main(void) {"]
    want = []
    for cname, py in structs.items():
        lines.append('printf("%%zu\\n", sizeof(%s));' % cname)
        want.append(ctypes.sizeof(py))
        for field, _ in py._fields_:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));'
                         % (cname, field))
            want.append(getattr(py, field).offset)
    lines += ["return 0;", "}"]
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c99", "-I", include, str(src), "-o", str(exe)],
                   check=True)
    got = [int(v) for v in subprocess.run(
        [str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    assert got == want


class _View:
    """Device memory as a torch view shows it: data_ptr(), shape and
    stride() in elements (rows `ld` apart)."""

    def __init__(self, ptr, shape, ld, column_step=1):
        self.ptr, self.shape, self.ld = ptr, shape, ld
        self.column_step = column_step

    def data_ptr(self):
        return self.ptr

    def stride(self):
        return (self.ld, self.column_step)


def test_plan_sends_views_to_generic_kernels(ctx):
    """Leading dimensions reach the runtime: views of X, its scales or Y
    take a generic kernel even for a key with a tuned one; a view of W is
    not eligible."""
    tuned = mxgemm.kernels()[0]
    m, n, k = tuned["m_range"][0], tuned["n"], tuned["k"]
    assert mxgemm.plan(m, n, k, ctx=ctx,
                       w_layout=tuned["w_layout"]).kind != "generic"
    for ld in (dict(ld_x=k + 64), dict(ld_xs=k // 32 + 4), dict(ld_y=n + 8)):
        p = mxgemm.plan(m, n, k, ctx=ctx, **ld)
        assert p.eligible and p.kind == "generic", (ld, p.message)
    p = mxgemm.plan(m, n, k, ctx=ctx, ld_w=k + 64)
    assert not p.eligible and p.reason == "NOT_CONTIGUOUS"
    with pytest.raises(mxgemm.InvalidArgument, match="leading dimension"):
        mxgemm.plan(m, n, k, ctx=ctx, ld_x=k - 32)


def test_gemm_reads_and_writes_device_views_in_place(ctx):
    """x, xs and out as row-major views of wider device buffers: the
    generic kernel reads the views and writes only the view of Y (the
    padding keeps its bytes), bit-exact with the dense call."""
    rng = np.random.default_rng(11)
    m, n, k = 5, 200, 352
    x, xs = mxgemm.quantize_mx(rng.standard_normal((m, k)).astype(np.float32))
    w, ws = mxgemm.quantize_mx(rng.standard_normal((n, k)).astype(np.float32),
                               granularity="block32x32")
    dense = mxgemm.gemm(x, xs, w, ws, ctx=ctx)
    ld_x, ld_xs, ld_y = k + 96, k // 32 + 5, n + 24
    xp = np.full((m, ld_x), 0x7F, np.uint8)  # NaN codes in the padding
    xp[:, :k] = x
    xsp = np.full((m, ld_xs), 0xFF, np.uint8)  # NaN scales in the padding
    xsp[:, :k // 32] = xs
    yp = np.full((m, ld_y), 0x1234, np.uint16)
    ptrs = [ctx.to_device(a) for a in (xp, xsp, w, ws, yp)]
    dx, dxs, dw, dws, dy = ptrs
    try:
        mxgemm.gemm(_View(dx, (m, k), ld_x), _View(dxs, (m, k // 32), ld_xs),
                    _View(dw, (n, k), k), _View(dws, ws.shape, ws.shape[1]),
                    out=_View(dy, (m, n), ld_y), ctx=ctx)
        ctx.synchronize()
        back = np.empty_like(yp)
        ctx.to_host(dy, back)
        assert np.array_equal(back[:, :n], dense)
        assert np.all(back[:, n:] == 0x1234)
        # A view of W has no kernel; rows that are not dense are refused.
        with pytest.raises(mxgemm.NotEligible) as e:
            mxgemm.gemm(_View(dx, (m, k), ld_x),
                        _View(dxs, (m, k // 32), ld_xs),
                        _View(dw, (n // 2, k), 2 * k),
                        _View(dws, (-(-n // 64), k // 32), k // 32),
                        out=_View(dy, (m, n // 2), ld_y), ctx=ctx)
        assert e.value.reason == "NOT_CONTIGUOUS"
        for bad in (_View(dx, (m, k), ld_x, column_step=2),
                    _View(dx, (m, k), k - 32)):
            with pytest.raises(mxgemm.InvalidArgument, match="stride"):
                mxgemm.gemm(bad, _View(dxs, (m, k // 32), ld_xs),
                            _View(dw, (n, k), k),
                            _View(dws, ws.shape, ws.shape[1]),
                            out=_View(dy, (m, n), ld_y), ctx=ctx)
    finally:
        for q in ptrs:
            ctx.free(q)
