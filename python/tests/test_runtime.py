"""The runtime shim through ctypes: plans, errors, and GEMMs on the facade."""

import numpy as np
import pytest

import mxgemm


def test_version_and_kernels():
    assert mxgemm.version() == "0.1.0"
    ks = mxgemm.kernels()
    assert sorted(k["entry"] for k in ks) == sorted(
        ["wq_b", "engram", "wo_b", "shared_gate_up", "fused_qkv",
         "shared_down", "index_query"])
    assert all(k["m_range"] == (8193, 16384) for k in ks)
    assert all(k["code_object_bytes"] > 0 for k in ks)


def test_plan_without_hip_explains_shape_rules():
    c = mxgemm.Context(hip_library="/nonexistent/libamdhip64.so")
    p = mxgemm.plan(100, 16384, 1280, ctx=c)
    assert not p.eligible and p.reason == "M_OUT_OF_RANGE"
    assert "8193..16384" in p.message
    p = mxgemm.plan(16384, 16384, 1280, ctx=c)
    assert p.status == "NOT_ELIGIBLE" and p.reason == "HIP_UNAVAILABLE"
    assert mxgemm.plan(16384, 16384, 1280, out_type="f32", ctx=c).reason == \
        "OUTPUT_TYPE"
    assert mxgemm.plan(16384, 16384, 1280, x_format="bf16", ctx=c).reason == \
        "NOT_PREQUANTIZED"
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.plan(0, 16384, 1280, ctx=c)
    strict = mxgemm.Context(hip_library="/nonexistent/x.so", strict=True)
    with pytest.raises(mxgemm.HipError):
        mxgemm.plan(16384, 16384, 1280, ctx=strict)


def test_plan_on_facade(ctx):
    p = mxgemm.plan(16384, 16384, 1280, ctx=ctx)
    assert p.eligible and p.kernel == "mxgemm_wq_b"
    assert p.grid == (128 * 128, 1, 1) and p.block == (256, 1, 1)
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
    p = mxgemm.plan(m, n, k, ctx=ctx)
    last = p.grid[0] - 1
    y = mxgemm.gemm(x, xs, w, ws, ctx=ctx, workgroups=[0, last])
    for wg in (0, last):
        r, c = mxgemm.workgroup_tile(p, wg)
        rows, cols = slice(r, min(r + 128, m)), slice(c, c + 128)
        got = mxgemm.bf16_to_float32(y[rows, cols]).astype(np.float64)
        ref = _fp64_reference(x, xs, w, ws, rows, cols)
        assert np.all(np.abs(got - ref) <= 2.0**-7 * np.abs(ref) + 1e-3)
    assert y[200, 200] == 0xFFFF  # workgroup not executed: untouched


def test_gemm_not_eligible_and_bad_inputs(ctx):
    x = np.zeros((100, 1280), np.uint8)
    xs = np.zeros((100, 40), np.uint8)
    w = np.zeros((16384, 1280), np.uint8)
    ws = np.zeros((512, 40), np.uint8)
    with pytest.raises(mxgemm.NotEligible) as e:
        mxgemm.gemm(x, xs, w, ws, ctx=ctx)
    assert e.value.reason == "M_OUT_OF_RANGE"
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.gemm(x, xs[:, :39], w, ws, ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.gemm(x.astype(np.float32), xs, w, ws, ctx=ctx)
