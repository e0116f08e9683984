"""Weights packed in MFMA panels (stage_w = packed_registers kernels).

NumPy's pack_weight_panels against the formula of WeightPanels.h and hand
computed bytes of docs/Design.md section 9's B operand; the shim's
mxgemm_pack_weights against it byte for byte (its packing kernel out of
place, also under workgroup selection; the host path in place); GEMMs of
panel kernels on the facade; layout mismatches refused without a launch.
The panel kernels are conftest's PANEL_KERNELS (one per MFMA shape),
compiled and served through a loaded library (panel_ctx): the production
database need not have a kernel that reads panels.
"""

import ctypes
import os
import warnings

import numpy as np
import pytest

import mxgemm
from mxgemm import _runtime as rt

SHAPES = {"m32n32k64": (32, 64), "m16n16k128": (16, 128)}  # nonK, kStep


def _source_of_each_byte(n, k, mfma):
    """Row-major index of W that every packed byte came from, recovered by
    packing arrays that hold their own row and column (bytes each)."""
    rows, cols = np.indices((n, k))
    assert n <= 256 and k <= 65536
    row, lo, hi = [mxgemm.pack_weight_panels(a.astype(np.uint8), mfma)
                   .astype(np.int64) for a in (rows, cols & 0xFF, cols >> 8)]
    return (row * k + lo + 256 * hi).reshape(-1)


def _header_formula(n, k, mfma):
    """weightPanelSource of WeightPanels.h for every packed index."""
    non_k, k_step = SHAPES[mfma]
    i = np.arange(n * k)
    panel, lane, e = i // 2048, (i % 2048) // 32, i % 32
    nb, ks = panel // (k // k_step), panel % (k // k_step)
    row = nb * non_k + lane % non_k
    col = ks * k_step + (k_step // 2) * (e >> 4) + 16 * (lane // non_k) + \
        (e & 15)
    return row * k + col


@pytest.mark.parametrize("mfma,n,k", [("m32n32k64", 64, 192),
                                      ("m16n16k128", 48, 384),
                                      ("m32n32k64", 96, 1280)])
def test_pack_weight_panels_is_the_documented_permutation(mfma, n, k):
    src = _source_of_each_byte(n, k, mfma)
    assert np.array_equal(np.sort(src), np.arange(n * k))
    assert np.array_equal(src, _header_formula(n, k, mfma))


def test_pack_weight_panels_hand_computed_bytes():
    # Section 9, B operand: lane l byte e = W[r][k], r = l % nonK,
    # g = l / nonK, k = (kStep/2)*(e>>4) + 16*g + (e&15); panels
    # [N/nonK][K/kStep] of 2048 bytes, lane l's bytes at 32*l.
    cases = {
        ("m32n32k64", 64, 128): [
            (0, 0, 0),                        # panel 0, lane 0, byte 0
            (32 * 33 + 17, 1, 49),            # lane 33: r 1, g 1; 32+16+1
            (2048 + 32 * 63 + 31, 31, 127),   # panel (0, ks 1), r 31, g 1
            (2 * 2048 + 32 * 5 + 20, 37, 36),  # panel (nb 1, 0): row 32+5
        ],
        ("m16n16k128", 32, 256): [
            (32 * 50 + 19, 2, 115),           # lane 50: r 2, g 3; 64+48+3
            (3 * 2048 + 32 * 17 + 2, 17, 146),  # panel (1, 1): r 1, g 1
        ],
    }
    rng = np.random.default_rng(9)
    for (mfma, n, k), bytes_ in cases.items():
        w = rng.integers(0, 256, (n, k), dtype=np.uint8)
        packed = mxgemm.pack_weight_panels(w, mfma)
        assert packed.shape == (n, k) and packed.dtype == np.uint8
        flat = packed.reshape(-1)
        src = _source_of_each_byte(n, k, mfma)
        for index, row, col in bytes_:
            assert flat[index] == w[row, col], (mfma, index)
            assert src[index] == row * k + col, (mfma, index)


def test_pack_weight_panels_keeps_dtype_and_rejects_bad_shapes():
    w = np.arange(32 * 64, dtype=np.uint8).view(np.int8).reshape(32, 64)
    assert mxgemm.pack_weight_panels(w).dtype == np.int8
    for bad, mfma in [(np.zeros((48, 64), np.uint8), "m32n32k64"),  # N % 32
                      (np.zeros((32, 96), np.uint8), "m32n32k64"),  # K % 64
                      (np.zeros((16, 64), np.uint8), "m16n16k128"),  # K % 128
                      (np.zeros((32, 64), np.uint16), "m32n32k64"),
                      (np.zeros(2048, np.uint8), "m32n32k64"),
                      (np.zeros((32, 64), np.uint8), "m8n8k256"),  # 8 rows
                      (np.zeros((32, 64), np.uint8), "32x32x64")]:
        with pytest.raises(ValueError):
            mxgemm.pack_weight_panels(bad, mfma)


# --------------------------------------------------------------------------
# Through the runtime shim
# --------------------------------------------------------------------------

def _row_major_kernel():
    """The embedded kernel reading row-major W that is cheapest to run on
    the emulator (smallest K, then N). Tuned entries only: the generic
    kernels (N = K = 0) serve any key."""
    ks = [k for k in mxgemm.kernels() if k["w_layout"] == "row_major" and
          k["n"]]
    assert ks, "no embedded tuned kernel reads row-major W"
    return min(ks, key=lambda e: (e["k"], e["n"]))


PANEL_MFMAS = ["m32n32k64", "m16n16k128"]


def _mfma(plan):
    return "m16n16k128" if plan.k_step == 128 else "m32n32k64"


def _pack_kernel(plan):
    """The runtime's packing kernel for the plan's MFMA shape."""
    return "mxgemm_pack_panels_" + ("16" if plan.k_step == 128 else "32")


def _launches(ctx, kernel):
    """Completed launches of `kernel` on the facade (its test entry point
    mxgemmEmuLaunchCount): tells the packing kernel from the host path."""
    count = ctypes.CDLL(ctx.hip_library).mxgemmEmuLaunchCount
    count.argtypes, count.restype = [ctypes.c_char_p], ctypes.c_ulonglong
    return count(kernel.encode())


def test_kernels_report_their_weight_layout():
    for k in mxgemm.kernels():
        panels = "stage_w = packed_registers" in k["config"]
        assert k["w_layout"] == ("mfma_panels" if panels else "row_major"), \
            k["entry"]


def test_layout_mismatch_is_decided_before_hip():
    # No HIP: the layout rule is a shape-level rule, reported anyway.
    c = mxgemm.Context(hip_library="/nonexistent/libamdhip64.so")
    k = _row_major_kernel()
    p = mxgemm.plan(k["m_range"][0], k["n"], k["k"], ctx=c,
                    w_layout="mfma_panels")
    assert p.status == "NOT_ELIGIBLE" and p.reason == "PACKED_WEIGHTS"
    assert "row-major" in p.message
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.plan(k["m_range"][0], k["n"], k["k"], ctx=c, w_layout="tiled")


def test_pack_weights_of_a_row_major_kernel_is_not_supported(ctx):
    k = _row_major_kernel()
    w = np.zeros((k["n"], k["k"]), np.uint8)
    with pytest.raises(mxgemm.NotSupported) as e:
        mxgemm.pack_weights(w, ctx=ctx)
    assert e.value.status == "NOT_SUPPORTED"
    assert e.value.reason == "PACKED_WEIGHTS"
    with pytest.raises(mxgemm.NotEligible) as e:
        mxgemm.pack_weights(np.zeros((64, 128), np.uint8), ctx=ctx)
    assert e.value.reason == "NO_TUNED_KERNEL"


def _raw_gemm_untouched(ctx, entry, w_layout):
    """mxgemm_gemm of `entry`'s key with W in `w_layout`, on real buffers
    whose Y is filled with 0xa5: (status, reason, Y untouched)."""
    m, n, k = entry["m_range"][0], entry["n"], entry["k"]
    lib = ctx._lib
    p = rt.Problem()
    lib.mxgemm_problem_init(ctypes.byref(p), m, n, k)
    p.w_layout = rt.WEIGHT_LAYOUTS[w_layout]
    sizes = [m * k, m * (k // 32), n * k, -(-n // 32) * (k // 32), 2 * m * n]
    ptrs = [ctx.alloc(s) for s in sizes]
    try:
        for q, s in zip(ptrs, sizes):
            ctx.memset(q, 0xA5, s)
        ps = rt.PlanStruct()
        # If it launches, workgroup 0 alone runs (and writes Y).
        os.environ["MXGEMM_EMU_WORKGROUPS"] = "0"
        try:
            status = lib.mxgemm_gemm(ctx._handle, ctypes.byref(p),
                                     ctypes.byref(rt.Tensors(*ptrs)), None,
                                     ctypes.byref(ps))
            ctx.synchronize()
        finally:
            os.environ.pop("MXGEMM_EMU_WORKGROUPS", None)
        y = np.empty(sizes[4], np.uint8)
        ctx.to_host(ptrs[4], y)
        return (rt.STATUS[status], rt.REASONS[ps.reason],
                bool((y == 0xA5).all()))
    finally:
        for q in ptrs:
            ctx.free(q)


def test_panel_weights_on_a_row_major_kernel_are_refused(ctx):
    entry = _row_major_kernel()
    # Control: with the kernel's own layout it launches and Y changes.
    assert _raw_gemm_untouched(ctx, entry, "row_major") == \
        ("OK", "NONE", False)
    assert _raw_gemm_untouched(ctx, entry, "mfma_panels") == \
        ("NOT_ELIGIBLE", "PACKED_WEIGHTS", True)
    x = np.zeros((entry["m_range"][0], entry["k"]), np.uint8)
    w = np.zeros((entry["n"], entry["k"]), np.uint8)
    with pytest.raises(mxgemm.NotEligible) as e:
        mxgemm.gemm(x, np.zeros((x.shape[0], entry["k"] // 32), np.uint8), w,
                    np.zeros((-(-entry["n"] // 32), entry["k"] // 32),
                             np.uint8), ctx=ctx, w_layout="mfma_panels")
    assert e.value.reason == "PACKED_WEIGHTS"


@pytest.mark.parametrize("mfma", PANEL_MFMAS)
def test_row_major_weights_on_a_panel_kernel_are_refused(panel_ctx,
                                                         panel_library,
                                                         mfma):
    entry = panel_library.kernels[mfma]
    # Control: with the kernel's own layout it launches and Y changes.
    assert _raw_gemm_untouched(panel_ctx, entry, "mfma_panels") == \
        ("OK", "NONE", False)
    assert _raw_gemm_untouched(panel_ctx, entry, "row_major") == \
        ("NOT_ELIGIBLE", "PACKED_WEIGHTS", True)
    p = mxgemm.plan(entry["m_range"][0], entry["n"], entry["k"],
                    ctx=panel_ctx)
    assert p.reason == "PACKED_WEIGHTS" and "mxgemm_pack_weights" in p.message
    p = mxgemm.plan(entry["m_range"][0], entry["n"], entry["k"],
                    ctx=panel_ctx, w_layout="mfma_panels")
    assert p.eligible and p.w_layout == "mfma_panels"
    assert p.kernel == entry["kernel"] and p.kind == "library"
    assert _mfma(p) == mfma


def _fp64_reference(x, xs, w, ws, rows, cols):
    xv = mxgemm.dequantize(x[rows], xs[rows]).astype(np.float64)
    wv = mxgemm.dequantize(w, ws, granularity="block32x32")[cols]
    return xv @ wv.astype(np.float64).T


@pytest.fixture(scope="module", params=PANEL_MFMAS)
def panel_problem(panel_ctx, panel_library, request):
    """A panel kernel of each MFMA shape at an M of two tile rows, the
    second partial, and quantized random operands with a different scale
    per block (section 9: one uniform scale cannot tell operand layouts
    apart)."""
    entry = panel_library.kernels[request.param]
    n, k = entry["n"], entry["k"]
    tile_m = entry["descriptor"]["grid"]["program_tile_m"]
    m = tile_m + 2
    rng = np.random.default_rng(11)
    xf = rng.standard_normal((m, k)).astype(np.float32)
    wf = rng.standard_normal((n, k)).astype(np.float32)
    xf *= np.exp2(rng.integers(-4, 4, (m, k // 32))).repeat(32, 1)
    wf *= np.exp2(rng.integers(-4, 4, (n, k // 32))).repeat(32, 1)
    x, xs = mxgemm.quantize_mx(xf)
    w, ws = mxgemm.quantize_mx(wf, granularity="block32x32")
    p = mxgemm.plan(m, n, k, ctx=panel_ctx, w_layout="mfma_panels")
    assert p.eligible, p.message
    assert p.kernel == entry["kernel"] and _mfma(p) == request.param
    return entry, p, (x, xs, w, ws)


def test_pack_weights_matches_numpy_byte_for_byte(panel_ctx, panel_problem):
    ctx = panel_ctx
    entry, p, (x, xs, w, ws) = panel_problem
    before = _launches(ctx, _pack_kernel(p))
    packed = mxgemm.pack_weights(w, m=p.m_range[0], ctx=ctx)
    assert _launches(ctx, _pack_kernel(p)) == before + 1  # on the device
    assert packed.shape == w.shape and packed.dtype == np.uint8
    assert np.array_equal(packed, mxgemm.pack_weight_panels(w, _mfma(p)))
    assert not np.array_equal(packed, w)
    # m=None picks an M of the key: the same bytes.
    assert np.array_equal(mxgemm.pack_weights(w, ctx=ctx), packed)


def test_pack_weights_packs_all_of_w_under_workgroup_selection(
        panel_ctx, panel_problem, monkeypatch):
    ctx = panel_ctx
    # A GEMM test runs only some workgroups of each launch; the packing
    # kernel is exempt (HipFacade.h), so the whole W is packed anyway.
    entry, p, (x, xs, w, ws) = panel_problem
    monkeypatch.setenv("MXGEMM_EMU_WORKGROUPS", "0")
    before = _launches(ctx, _pack_kernel(p))
    packed = mxgemm.pack_weights(w, ctx=ctx)
    assert _launches(ctx, _pack_kernel(p)) == before + 1
    assert np.array_equal(packed, mxgemm.pack_weight_panels(w, _mfma(p)))


def test_gemm_with_packed_weights_matches_reference(panel_ctx,
                                                    panel_problem):
    ctx = panel_ctx
    entry, p, (x, xs, w, ws) = panel_problem
    m, n = x.shape[0], w.shape[0]
    last = p.grid[0] - 1
    packed = mxgemm.pack_weight_panels(w, _mfma(p))
    y = mxgemm.gemm(x, xs, packed, ws, ctx=ctx, workgroups=[0, last],
                    w_layout="mfma_panels")
    tiles = []
    for wg in (0, last):
        r, c = mxgemm.workgroup_tile(p, wg)
        rows = slice(r, min(r + p.program_tile_m, m))
        cols = slice(c, min(c + p.tile_n, n))
        tiles.append((rows, cols))
        got = mxgemm.bf16_to_float32(y[rows, cols]).astype(np.float64)
        ref = _fp64_reference(x, xs, w, ws, rows, cols)
        assert np.all(np.abs(got - ref) <= 2.0**-7 * np.abs(ref) + 1e-3), wg
    # The check can fail: row-major bytes passed as panels are wrong.
    bad = mxgemm.gemm(x, xs, w, ws, ctx=ctx, workgroups=[0],
                      w_layout="mfma_panels")
    rows, cols = tiles[0]
    assert not np.array_equal(bad[rows, cols], y[rows, cols])
    # Row-major W for a panel kernel: packed for this call (the fallback),
    # the same bytes as the caller-packed run.
    with pytest.warns(RuntimeWarning, match="pack_weights"):
        again = mxgemm.gemm(x, xs, w, ws, ctx=ctx, workgroups=[0, last])
    for rows, cols in tiles:
        assert np.array_equal(again[rows, cols], y[rows, cols])


# --------------------------------------------------------------------------
# Against the compiler, without the embedded library
# --------------------------------------------------------------------------

def _launch(ctx, code, meta, m, ptrs):
    """One launch of a code object through the facade's HIP module API (the
    library the runtime dlopened, so the runtime's device pointers are
    valid), with the section-4 arguments at the sidecar's offsets."""
    hip = ctypes.CDLL(ctx.hip_library)
    V, P, U = ctypes.c_void_p, ctypes.POINTER, ctypes.c_uint
    hip.hipModuleLoadData.argtypes = [P(V), V]
    hip.hipModuleGetFunction.argtypes = [P(V), V, ctypes.c_char_p]
    hip.hipModuleLaunchKernel.argtypes = [V, U, U, U, U, U, U, U, V, P(V),
                                          P(V)]
    hip.hipModuleUnload.argtypes = [V]
    image = ctypes.create_string_buffer(code, len(code))
    mod, fn = V(), V()
    assert hip.hipModuleLoadData(ctypes.byref(mod), image) == 0
    try:
        assert hip.hipModuleGetFunction(ctypes.byref(fn), mod,
                                        meta["kernel"].encode()) == 0
        args = bytearray(meta["resources"]["kernarg_segment_bytes"])
        offs = {a["name"]: a["offset"] for a in meta["arguments"]}
        for name, val in zip(("X", "Xs", "W", "Ws", "Y"), ptrs):
            args[offs[name]:offs[name] + 8] = int(val).to_bytes(8, "little")
        args[offs["M"]:offs["M"] + 4] = m.to_bytes(4, "little")
        buf = ctypes.create_string_buffer(bytes(args), len(args))
        size = ctypes.c_size_t(len(args))
        extra = (V * 5)(0x01, ctypes.addressof(buf), 0x02,
                        ctypes.addressof(size), 0x03)
        g = meta["grid"]
        grid = -(-m // g["program_tile_m"]) * g["num_tiles_n"]
        assert hip.hipModuleLaunchKernel(fn, grid, 1, 1, g["workgroup_size"],
                                         1, 1, 0, None, None, extra) == 0
        ctx.synchronize()
    finally:
        hip.hipModuleUnload(mod)


@pytest.mark.parametrize("mfma,m,n,k,tiles", [
    ("m32n32k64", 200, 256, 512, "tile_m = 128, tile_n = 128, waves_m = 2, "
     "waves_n = 2"),
    ("m16n16k128", 257, 128, 256, "tile_m = 64, tile_n = 64, waves_m = 1, "
     "waves_n = 2")])
def test_numpy_panels_feed_a_compiled_packed_kernel(ctx, mfma, m, n, k,
                                                    tiles):
    # pack_weight_panels is what mxgemm-compile's packed_registers kernels
    # read: byte-identical Y to the same kernel with W staged through LDS.
    try:
        mxgemm.find_compiler()
    except mxgemm.CompileError as e:
        pytest.skip(str(e))
    rng = np.random.default_rng(3)
    x, xs = mxgemm.quantize_mx(rng.standard_normal((m, k)).astype(np.float32))
    wf = rng.standard_normal((n, k)).astype(np.float32)
    wf *= np.exp2(rng.integers(-4, 4, (n, k // 32))).repeat(32, 1)
    w, ws = mxgemm.quantize_mx(wf, granularity="block32x32")
    ys = {}
    for stage_w, wbytes in (("lds_async", w),
                            ("packed_registers",
                             mxgemm.pack_weight_panels(w, mfma))):
        code, meta = mxgemm.compile(n, k, config=(
            f"{tiles}, tile_k = 128, mfma = {mfma}, stage_x = lds_async, "
            f"stage_w = {stage_w}, stages = 2, lds_layout = padded"))
        y = np.full((m, n), 0xFFFF, np.uint16)
        ptrs = [ctx.to_device(a) for a in (x, xs, wbytes, ws, y)]
        try:
            _launch(ctx, code, meta, m, ptrs)
            ctx.to_host(ptrs[4], y)
        finally:
            for q in ptrs:
                ctx.free(q)
        ys[stage_w] = y
    assert np.array_equal(ys["packed_registers"], ys["lds_async"])
    got = mxgemm.bf16_to_float32(ys["lds_async"]).astype(np.float64)
    ref = _fp64_reference(x, xs, w, ws, slice(0, m), slice(0, n))
    assert np.all(np.abs(got - ref) <= 2.0**-7 * np.abs(ref) + 1e-3)


class _DevBuf:
    """Device memory as gemm/pack_weights take it (data_ptr() and shape)."""

    def __init__(self, ptr, shape):
        self.ptr, self.shape = ptr, shape

    def data_ptr(self):
        return self.ptr


def test_device_pack_and_gemm(panel_ctx, panel_problem):
    ctx = panel_ctx
    entry, p, (x, xs, w, ws) = panel_problem
    (m, k), n = x.shape, w.shape[0]
    r, c = mxgemm.workgroup_tile(p, 0)
    rows, cols = slice(r, min(r + p.program_tile_m, m)), slice(c, c + p.tile_n)
    ref = _fp64_reference(x, xs, w, ws, rows, cols)
    ptrs = [ctx.to_device(a) for a in (x, xs, w, ws)]
    ptrs += [ctx.alloc(n * k), ctx.alloc(2 * m * n)]
    dx, dxs, dw, dws, dpw, dy = ptrs
    D = lambda ptr, a: _DevBuf(ptr, a.shape)
    try:
        before = _launches(ctx, _pack_kernel(p))
        out = mxgemm.pack_weights(D(dw, w), out=_DevBuf(dpw, w.shape),
                                  ctx=ctx)
        assert out.data_ptr() == dpw
        assert _launches(ctx, _pack_kernel(p)) == before + 1
        packed = np.empty_like(w)
        ctx.to_host(dpw, packed)
        assert np.array_equal(packed, mxgemm.pack_weight_panels(w, _mfma(p)))
        results = []
        for wbuf, layout in ((dpw, "mfma_panels"), (dw, "row_major")):
            ctx.memset(dy, 0xFF, 2 * m * n)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                mxgemm.gemm(D(dx, x), D(dxs, xs), _DevBuf(wbuf, w.shape),
                            D(dws, ws), out=_DevBuf(dy, (m, n)), ctx=ctx,
                            workgroups=[0], w_layout=layout)
            # Only the per-call packing fallback warns.
            assert [c.category for c in caught] == \
                ([] if layout == "mfma_panels" else [RuntimeWarning])
            ctx.synchronize()
            y = np.empty((m, n), np.uint16)
            ctx.to_host(dy, y)
            results.append(y[rows, cols])
        got = mxgemm.bf16_to_float32(results[0]).astype(np.float64)
        assert np.all(np.abs(got - ref) <= 2.0**-7 * np.abs(ref) + 1e-3)
        assert np.array_equal(results[0], results[1])
        # The caller's row-major W is not modified by the fallback.
        back = np.empty_like(w)
        ctx.to_host(dw, back)
        assert np.array_equal(back, w)
        # In place: the host path (no launch), the same bytes.
        before = _launches(ctx, _pack_kernel(p))
        mxgemm.pack_weights(D(dw, w), out=D(dw, w), ctx=ctx)
        assert _launches(ctx, _pack_kernel(p)) == before
        ctx.to_host(dw, back)
        assert np.array_equal(back, packed)
    finally:
        for q in ptrs:
            ctx.free(q)
