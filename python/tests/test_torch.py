"""mxgemm.torch: the torch.library operators on Debian's torch (CPU).

The runtime path runs the embedded kernels, and conftest's compiled kernels
that read MFMA panels (a loaded library), on the emulator's HIP facade
(sampled workgroups, MXGEMM_EMU_WORKGROUPS) and is compared bit for bit with
the operators' CPU reference path; the reference path itself is checked
against the independent NumPy oracle of python/tests/oracle.py. Which path
ran is asserted on every call.
"""

import ctypes

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mxgemm  # noqa: E402
import mxgemm.torch as mt  # noqa: E402

import oracle  # noqa: E402


@pytest.fixture
def on_facade(ctx):
    """CPU tensors go through the runtime on the facade."""
    mt.set_context(ctx)
    mt.reset_counters()
    yield ctx
    mt.set_context(None)


@pytest.fixture
def panel_facade(panel_ctx):
    """on_facade with conftest's panel kernels (a key per MFMA shape) loaded
    as a library: mxgemm.torch asks the context which kernel serves a key,
    so it sees them as the runtime does."""
    mt.set_context(panel_ctx)
    mt.reset_counters()
    yield panel_ctx
    mt.set_context(None)


@pytest.fixture
def reference_only():
    mt.set_context(False)
    mt.reset_counters()
    yield
    mt.set_context(None)


def _t(*arrays):
    return [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]


def _random_operands(seed, m, n, k):
    x, xs = mxgemm.random_mx(seed, m, k)
    w, ws = mxgemm.random_mx(seed + 1, n, k, granularity="block32x32")
    return _t(x, xs, w, ws)


def _bits(y):
    return y.view(torch.int16)


def test_ops_are_registered_with_their_schemas():
    for name, schema in mt.OP_SCHEMAS.items():
        op = getattr(torch.ops.mxgemm, name)
        assert str(op.default._schema) == "mxgemm::" + schema
    # docs/Torch.md shows the schemas as torch prints them.
    import os
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                            "Torch.md")).read()
    for schema in mt.OP_SCHEMAS.values():
        assert "mxgemm::" + schema in doc


def test_quantize_matches_the_oracle_for_every_input_dtype(reference_only):
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(40, 96, generator=gen) * torch.exp2(
        torch.randint(-6, 6, (40, 3), generator=gen).float()
    ).repeat_interleave(32, 1)
    x[1] = 0.0  # all-zero blocks get scale 127
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        xd = x.to(dtype)
        for fmt in ("e4m3", "e5m2"):
            codes, scales = mt.quantize_mxfp8(xd, fmt)
            want = oracle.quantize_mx(xd.float().numpy(), fmt)
            assert codes.dtype == scales.dtype == torch.uint8
            assert np.array_equal(codes.numpy(), want[0])
            assert np.array_equal(scales.numpy(), want[1])
    codes, scales = mt.quantize_mxfp8(x, granularity="block32x32")
    want = oracle.quantize_mx(x.numpy(), "e4m3", "block32x32")
    assert scales.shape == (2, 3)
    assert np.array_equal(codes.numpy(), want[0])
    assert np.array_equal(scales.numpy(), want[1])
    assert mt.last_path().path == "reference"
    assert mt.counters()[("quantize_mxfp8", "reference")] == 7


def _quantize_input(seed, m, k):
    """[m, k] values whose 32-blocks include the rule's corners: zero, NaN,
    inf, tiny, saturating and lone-element blocks, and wide-range ones."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(m, k, generator=gen) * torch.exp2(
        torch.randint(-10, 10, (m, k // 32), generator=gen).float()
    ).repeat_interleave(32, 1)
    blocks = x.view(-1, 32)
    blocks[0::7] = 0.0
    blocks[1::7, 3] = float("nan")
    blocks[2::7, 5] = float("-inf")
    blocks[3::7] *= 2.0**-30
    blocks[4::7, 7] = 448.0 * 1.999
    blocks[5::7] = 0.0
    blocks[5::7, 1] = -3.0
    return x


def test_quantize_takes_the_device_kernel_on_the_runtime(on_facade):
    """With a HIP library configured, per-row quantization runs the
    runtime's kernel (path 'runtime') and gives the reference's bytes."""
    for m, k in ((1, 32), (7, 992), (333, 64)):
        x = _quantize_input(m + k, m, k)
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            xd = x.to(dtype)
            for fmt in ("e4m3", "e5m2"):
                codes, scales = mt.quantize_mxfp8(xd, fmt)
                rec = mt.last_path()
                assert (rec.op, rec.path, rec.reason) == \
                    ("quantize_mxfp8", "runtime", "NONE")
                assert rec.detail == "mxgemm_quantize_%s_%s" % (
                    {torch.float32: "f32", torch.bfloat16: "bf16",
                     torch.float16: "f16"}[dtype], fmt)
                previous = mt.set_context(False)
                try:
                    want = mt.quantize_mxfp8(xd, fmt)
                    assert mt.last_path().path == "reference"
                finally:
                    mt.set_context(previous)
                assert codes.dtype == scales.dtype == torch.uint8
                assert codes.shape == (m, k) and scales.shape == (m, k // 32)
                assert torch.equal(codes, want[0]) and \
                    torch.equal(scales, want[1])
                oracle_codes, oracle_scales = oracle.quantize_mx(
                    xd.double().numpy(), fmt)
                assert np.array_equal(scales.numpy(), oracle_scales)
    assert mt.counters()[("quantize_mxfp8", "runtime")] == 18
    # Weight scales (32x32 blocks) stay on the host quantizer.
    x = _quantize_input(5, 64, 64)
    codes, scales = mt.quantize_mxfp8(x, granularity="block32x32")
    assert mt.last_path()[1:3] == ("reference", "GRANULARITY")
    assert np.array_equal(scales.numpy(),
                          oracle.quantize_mx(x.numpy(), "e4m3",
                                             "block32x32")[1])


def test_quantize_falls_back_when_the_runtime_declines():
    # A context whose HIP library does not exist: the runtime says
    # NOT_ELIGIBLE and the C++ quantizer runs.
    mt.set_context(mxgemm.Context(hip_library="/nonexistent/libamdhip64.so"))
    try:
        x = _quantize_input(9, 4, 64)
        codes, scales = mt.quantize_mxfp8(x)
        rec = mt.last_path()
        assert rec[1:3] == ("reference", "NOT_ELIGIBLE")
        assert "HIP unavailable" in rec.detail
        assert np.array_equal(scales.numpy(),
                              oracle.quantize_mx(x.numpy(), "e4m3")[1])
    finally:
        mt.set_context(None)


def test_reference_path_matches_the_oracle(reference_only):
    # (80, 320) has no tuned key: at M = 48 the runtime would run a generic
    # kernel of 16x16x128 MFMAs, so the reference steps K by 128 as it
    # does; with an FP32 output no kernel serves and it steps by 64, the K
    # of the 32x32x64 scaled MFMA.
    rng = np.random.default_rng(11)

    def gaussian(rows, granularity):
        v = rng.standard_normal((rows, 320)) * np.exp2(
            rng.integers(-4, 4, (rows, 10))).repeat(32, 1)
        return oracle.quantize_mx(v, "e4m3", granularity)
    x, xs, w, ws = _t(*gaussian(48, "per_row"), *gaussian(80, "block32x32"))
    # Row 0 tells K steps apart: 2^24 + 1 - 2^24 is 0 in steps of 64 (the
    # first step rounds 2^24 + 1 to 2^24 in FP32) and 1 in steps of 128.
    x[0], xs[0] = 0, 127
    x[0, 0], x[0, 32], x[0, 64] = 0x38, 0x38, 0xB8   # 1, 1, -1 (E4M3)
    xs[0, 0], xs[0, 2] = 127 + 24, 127 + 24
    w[:, [0, 32, 64]], ws[:, :3] = 0x38, 127
    generic = mxgemm.plan(48, 80, 320, ctx=mxgemm.Context(dry_run=True))
    assert (generic.kind, generic.k_step) == ("generic", 128)
    for out_dtype, k_step, row0, reason in (
            (torch.bfloat16, 128, 1.0, "DISABLED"),
            (torch.float32, 64, 0.0, "OUTPUT_TYPE")):
        y = mt.scaled_mm(x, xs, w, ws, out_dtype=out_dtype)
        rec = mt.last_path()
        assert (rec.op, rec.path, rec.reason) == ("scaled_mm", "reference",
                                                  reason)
        assert y.dtype == out_dtype and y.shape == (48, 80)
        assert torch.all(y[0] == row0)
        if out_dtype == torch.bfloat16:
            want = oracle.reference_tile(x.numpy(), xs.numpy(), w.numpy(),
                                         ws.numpy(), k_step, {})
            assert np.array_equal(_bits(y).numpy().view(np.uint16), want)


def test_without_hip_library_cpu_tensors_take_the_reference(monkeypatch):
    monkeypatch.delenv("MXGEMM_HIP_LIBRARY", raising=False)
    mt.set_context(None)
    x, xs, w, ws = _random_operands(1, 32, 32, 64)
    mt.scaled_mm(x, xs, w, ws)
    assert mt.last_path()[1:3] == ("reference", "NO_HIP_LIBRARY")


def test_last_path_is_per_thread_and_counters_are_global(reference_only):
    import threading
    x, xs, w, ws = _random_operands(2, 32, 32, 64)
    mt.scaled_mm(x, xs, w, ws)
    seen = []
    worker = threading.Thread(target=lambda: seen.append(
        (mt.last_path(), mt.quantize_mxfp8(x.float()), mt.last_path())))
    worker.start()
    worker.join()
    assert seen[0][0] is None and seen[0][2].op == "quantize_mxfp8"
    assert mt.last_path().op == "scaled_mm"
    assert mt.counters() == {("scaled_mm", "reference"): 1,
                             ("quantize_mxfp8", "reference"): 1}
    with pytest.raises(TypeError, match="set_context takes"):
        mt.set_context("libamdhip64.so")
    assert mt.set_context(None) is False and mt.set_context(False) is None


def _tile(p, wg, m):
    r, c = mxgemm.workgroup_tile(p, wg)
    return slice(r, min(r + p.program_tile_m, m)), slice(c, c + p.tile_n)


def _reference_tile(x, xs, w, ws, rows, cols, whole=False):
    """The operators' own reference path on one output tile: of a smaller
    problem (rows of X, rows of W and their 32x32 scale blocks), or with
    `whole`, of the whole problem (a small one), so that the reference
    steps K as the kernel for that M and key does (a part of the problem is
    another M or key, whose kernel may step K differently)."""
    previous = mt.set_context(False)
    try:
        if whole:
            y = mt.scaled_mm(x, xs, w, ws)[rows, cols]
        else:
            y = mt.scaled_mm(x[rows].contiguous(), xs[rows].contiguous(),
                             w[cols].contiguous(),
                             ws[cols.start // 32:cols.stop // 32]
                             .contiguous())
    finally:
        mt.set_context(previous)
    assert mt.last_path().path == "reference"
    return y


def _panel_key(request, mfma):
    """(context, N, K) of conftest's panel kernel of `mfma`, seen by
    mxgemm.torch (the panel_facade fixture)."""
    facade = request.getfixturevalue("panel_facade")
    row = request.getfixturevalue("panel_library").kernels[mfma]
    return facade, row["n"], row["k"]


@pytest.mark.parametrize("key", ["m32n32k64", "m16n16k128",  # MFMA panels
                                 "index_query",  # row-major W, K step 64
                                 "index_query_m257_1024"])  # step 64 too
def test_runtime_path_is_bit_exact_with_the_reference(request, monkeypatch,
                                                      key):
    if key == "index_query":
        facade = request.getfixturevalue("on_facade")
        m, n, k = 8193, 4096, 1280
    elif key == "index_query_m257_1024":
        # The key's other buckets step K by 128 or 64: the reference must
        # step as the kernel that runs, this M's.
        facade = request.getfixturevalue("on_facade")
        m, n, k = 300, 4096, 1280
    else:
        facade, n, k = _panel_key(request, key)
        m = 300  # the panel kernels serve M 1..4096
    x, xs, w, ws = _random_operands(21, m, n, k)
    if key == "index_query_m257_1024":
        # Row 0 tells K steps apart (as in the oracle test above): 2^24 +
        # 1 - 2^24 is 0 in steps of 64 and 1 in steps of 128.
        x[0], xs[0] = 0, 127
        x[0, 0], x[0, 32], x[0, 64] = 0x38, 0x38, 0xB8   # 1, 1, -1
        xs[0, 0], xs[0, 2] = 127 + 24, 127 + 24
        w[:, [0, 32, 64]], ws[:, :3] = 0x38, 127
    wk, layout = mt.pack_weights(w)
    assert layout == mt.weight_layout(n, k)
    if not key.startswith("index_query"):
        assert layout == "mfma_panels"
    assert (wk is w) == (layout == "row_major")
    p = mxgemm.plan(m, n, k, ctx=facade, w_layout=layout)
    assert p.eligible and p.w_layout == layout
    sampled = [p.grid[0] - 1] if k > 2048 else [0, p.grid[0] - 1]
    monkeypatch.setenv("MXGEMM_EMU_WORKGROUPS",
                       ",".join(map(str, sampled)))
    y = mt.scaled_mm(x, xs, wk, ws, w_layout=layout)
    monkeypatch.delenv("MXGEMM_EMU_WORKGROUPS")
    rec = mt.last_path()
    assert (rec.path, rec.reason, rec.detail) == ("runtime", "NONE",
                                                  p.kernel)
    assert mt.counters()[("scaled_mm", "runtime")] == 1
    tiles = [_tile(p, wg, m) for wg in sampled]
    if key == "index_query_m257_1024":
        assert (p.entry, p.k_step) == ("index_query_m257_1024", 64)
        assert 0 in sampled and torch.all(y[0, :p.tile_n] == 0)
    for rows, cols in tiles:
        ref = _reference_tile(x, xs, w, ws, rows, cols,
                              whole=key != "index_query")
        assert torch.equal(_bits(y[rows, cols]), _bits(ref))
    # Outputs of workgroups that did not run are left NaN, not stale memory.
    r, c = m // 2, n // 2
    assert not any(rows.start <= r < rows.stop and cols.start <= c <
                   cols.stop for rows, cols in tiles)
    assert torch.isnan(y[r, c])


def _padded_view(t, extra_columns, fill):
    """t as a row-major view (t.shape, stride (cols + extra, 1)) of a wider
    tensor whose other columns hold `fill`."""
    rows, cols = t.shape
    wide = torch.full((rows, cols + extra_columns), fill, dtype=t.dtype)
    wide[:, :cols] = t
    view = wide[:, :cols]
    assert not view.is_contiguous() and view.stride() == (cols +
                                                           extra_columns, 1)
    return view


@pytest.mark.parametrize("path", ["runtime", "reference"])
def test_scaled_mm_takes_row_major_views(request, path):
    """Views of x and x_scale (slices of wider buffers, as a fused
    projection's output) give the bits of the dense call, on both paths."""
    if path == "runtime":
        mt.set_context(request.getfixturevalue("ctx"))
    else:
        mt.set_context(False)
    try:
        m, n, k = 7, 96, 256  # no tuned key: a generic kernel, whole grid
        x, xs, w, ws = _random_operands(31, m, n, k)
        dense = mt.scaled_mm(x, xs, w, ws)
        assert mt.last_path().path == path
        y = mt.scaled_mm(_padded_view(x, 64, 0x7F),
                         _padded_view(xs, 3, 0xFF), w, ws)
        assert mt.last_path().path == path
        assert torch.equal(_bits(y), _bits(dense))
    finally:
        mt.set_context(None)


def _pack_launches(ctx, mfma):
    """Launches of the runtime's packing kernel for `mfma` on the facade."""
    count = ctypes.CDLL(ctx.hip_library).mxgemmEmuLaunchCount
    count.argtypes, count.restype = [ctypes.c_char_p], ctypes.c_ulonglong
    return count(b"mxgemm_pack_panels_" +
                 {"m32n32k64": b"32", "m16n16k128": b"16"}[mfma])


@pytest.mark.parametrize("mfma", ["m32n32k64", "m16n16k128"])
def test_packed_weights_on_the_reference_path(request, mfma):
    # A packed W is put back in row-major order by the reference path:
    # a problem the runtime declines (FP32 output) gives the row-major
    # result.
    on_facade, n, k = _panel_key(request, mfma)  # a kernel reading panels
    x, xs, w, ws = _random_operands(31, 64, n, k)
    before = _pack_launches(on_facade, mfma)
    wk, layout = mt.pack_weights(w)
    assert layout == "mfma_panels" and mt.last_path().path == "runtime"
    assert _pack_launches(on_facade, mfma) == before + 1  # the packing kernel
    assert torch.equal(wk, torch.from_numpy(
        mxgemm.pack_weight_panels(w.numpy(), mfma)))
    assert not torch.equal(wk, w)
    mt.set_context(False)
    # Without the context its library is unknown: a generic kernel, which
    # reads row-major W, would serve the key, so nothing is packed.
    unpacked, layout = mt.pack_weights(w)
    assert unpacked is w and layout == "row_major"
    y_row = mt.scaled_mm(x, xs, w, ws, torch.float32)
    mt.set_context(on_facade)
    y_packed = mt.scaled_mm(x, xs, wk, ws, torch.float32,
                             w_layout="mfma_panels")
    assert mt.last_path()[1:3] == ("reference", "OUTPUT_TYPE")
    assert torch.equal(_bits(y_row), _bits(y_packed))


def _ok_operands(m=64, n=96, k=128):
    x = torch.zeros(m, k, dtype=torch.uint8)
    xs = torch.full((m, k // 32), 127, dtype=torch.uint8)
    w = torch.zeros(n, k, dtype=torch.uint8)
    ws = torch.full(((n + 31) // 32, k // 32), 127, dtype=torch.uint8)
    return x, xs, w, ws


@pytest.mark.parametrize("change,message", [
    (lambda a: {"x": a["x"].float()}, "x must hold FP8 codes as"),
    (lambda a: {"xs": torch.zeros(64, 7, dtype=torch.uint8)},
     r"x_scale must be \[M, K/32\] = \[64, 4\].*got \[64, 7\]"),
    (lambda a: {"w": torch.zeros(96, 160, dtype=torch.uint8)},
     "weight has K = 160 .* but x has K = 128"),
    (lambda a: {"ws": torch.zeros(4, 4, dtype=torch.uint8)},
     r"weight_scale must be \[ceil\(N/32\), K/32\] = \[3, 4\]"),
    (lambda a: {"x": torch.zeros(128, 64, dtype=torch.uint8).t()},
     r"x must be row-major with dense rows .* got stride \(1, 64\)"),
    (lambda a: {"ws": a["ws"].to("meta")},
     "weight_scale is on device 'meta'"),
    (lambda a: {"x": a["x"][None]}, "x must be 2-D"),
    (lambda a: {"x": torch.zeros(64, 100, dtype=torch.uint8),
                "xs": torch.zeros(64, 3, dtype=torch.uint8),
                "w": torch.zeros(96, 100, dtype=torch.uint8),
                "ws": torch.zeros(3, 3, dtype=torch.uint8)},
     "K = 100 .* must be a multiple of 32"),
    (lambda a: {"out_dtype": torch.float16}, "out_dtype must be one of"),
    (lambda a: {"w_layout": "column_major"}, "w_layout must be one of"),
    (lambda a: {"w_layout": "mfma_panels"}, "no kernel packs W of N = 96"),
])
def test_bad_arguments_raise_and_say_what_is_wrong(reference_only, change,
                                                   message):
    x, xs, w, ws = _ok_operands()
    args = {"x": x, "xs": xs, "w": w, "ws": ws,
            "out_dtype": torch.bfloat16, "w_layout": "row_major"}
    args.update(change(args))
    with pytest.raises(ValueError, match=message):
        mt.scaled_mm(args["x"], args["xs"], args["w"], args["ws"],
                     args["out_dtype"], args["w_layout"])
    # The operator itself checks as well (torch.ops callers skip the module).
    if message != "weight_scale is on device 'meta'":  # dispatches to Meta
        with pytest.raises(ValueError, match=message):
            torch.ops.mxgemm.scaled_mm(args["x"], args["xs"], args["w"],
                                       args["ws"], args["out_dtype"],
                                       args["w_layout"])
    assert mt.counters() == {}


def test_other_bad_arguments():
    x, xs, w, ws = _ok_operands()
    with pytest.raises(TypeError, match="x_scale must be a torch.Tensor"):
        mt.scaled_mm(x, xs.numpy(), w, ws)
    with pytest.raises(ValueError, match="values to quantize"):
        mt.quantize_mxfp8(x)
    with pytest.raises(ValueError, match="K = 40 .* multiple of 32"):
        mt.quantize_mxfp8(torch.zeros(2, 40))
    with pytest.raises(ValueError, match="fmt must be one of"):
        mt.quantize_mxfp8(torch.zeros(2, 32), "e3m4")
    with pytest.raises(ValueError, match="nothing to pack"):
        torch.ops.mxgemm.pack_weights(w, None)
    assert mt.pack_weights(w) == (w, "row_major")
    # Device tensors are read in place: a view at an odd offset is refused.
    buf = torch.zeros(65, 128, dtype=torch.uint8)
    with pytest.raises(ValueError, match="not 16-byte aligned"):
        mt._aligned(x=buf.view(-1)[1:1 + 64 * 128].view(64, 128))
    mt._aligned(x=buf)


def test_linear_takes_mxgemm_when_eligible_and_the_fallback_otherwise(
        request, monkeypatch):
    calls = []

    def fallback(x, x_scale, weight, weight_scale, out_dtype):
        calls.append((x, weight, out_dtype))
        return torch.zeros(x.shape[0], weight.shape[0], dtype=out_dtype)

    linear = mt.make_mxfp8_linear(fallback)
    # A kernel that reads MFMA panels.
    on_facade, n, k = _panel_key(request, "m32n32k64")
    m = 300
    x, xs, w, ws = _random_operands(41, m, n, k)
    # Eligible: row-major W for a kernel that reads panels is packed once.
    monkeypatch.setenv("MXGEMM_EMU_WORKGROUPS", "0")
    y = linear(x, xs, w, ws, torch.bfloat16)
    y2 = linear(x, xs, w, ws, torch.bfloat16)
    monkeypatch.delenv("MXGEMM_EMU_WORKGROUPS")
    assert mt.last_path().path == "runtime"
    assert mt.counters()[("pack_weights", "runtime")] == 1
    assert dict(linear.counts) == {"mxgemm": 2, "fallback": 0}
    assert calls == []
    p = mxgemm.plan(m, n, k, ctx=on_facade, w_layout="mfma_panels")
    rows, cols = _tile(p, 0, m)
    ref = _reference_tile(x, xs, w, ws, rows, cols, whole=True)
    assert torch.equal(_bits(y[rows, cols]), _bits(ref))
    assert torch.equal(_bits(y2[rows, cols]), _bits(ref))
    # Ineligible: FP32 out, no tuned (N, K) with generic kernels off (the
    # runtime serves every M of 1..65536 for the tuned keys, so M is no
    # longer one of the reasons).
    linear(x, xs, w, ws, torch.float32)
    assert mt.last_path()[:3] == ("linear", "fallback", "OUTPUT_TYPE")
    assert mt.last_path().reason == "OUTPUT_TYPE"
    on_facade.set_generic(False)
    try:
        linear(*_ok_operands(), torch.bfloat16)
    finally:
        on_facade.set_generic(True)
    assert mt.last_path().reason == "NO_TUNED_KERNEL"
    assert dict(linear.counts) == {"mxgemm": 2, "fallback": 2}
    # With generic kernels on (the default) the same off-table key runs on
    # a generic kernel.
    gx, gxs, gw, gws = _random_operands(43, 64, 96, 128)
    assert mxgemm.plan(64, 96, 128, ctx=on_facade).kind == "generic"
    gy = linear(gx, gxs, gw, gws, torch.bfloat16)
    assert mt.last_path().path == "runtime"
    gref = _reference_tile(gx, gxs, gw, gws, slice(0, 64), slice(0, 96))
    assert torch.allclose(gy.float(), gref.float(), rtol=2.0**-7, atol=1e-3)
    assert dict(linear.counts) == {"mxgemm": 3, "fallback": 2}
    assert dict(linear.fallback_reasons) == {
        "OUTPUT_TYPE": 1, "NO_TUNED_KERNEL": 1}
    assert [c[2] for c in calls] == [torch.float32, torch.bfloat16]
    assert calls[0][1] is w  # the fallback gets the caller's row-major W
    # Bad arguments raise on either path rather than reaching the fallback.
    with pytest.raises(ValueError, match="x_scale must be"):
        linear(x, xs[:, :7].contiguous(), w, ws, torch.bfloat16)
    assert linear.counts["fallback"] == 2


def test_linear_on_a_loaded_panel_kernel(panel_ctx, panel_library):
    # A panel kernel only a loaded library has: make_mxfp8_linear packs W
    # for it because mxgemm.torch asks the context which kernel serves the
    # key (it took layouts from the embedded kernels alone until
    # 2026-12-04, and passed row-major W labelled as panels).
    row = panel_library.kernels["m32n32k64"]
    m, n, k = 64, row["n"], row["k"]
    x, xs, w, ws = _random_operands(47, m, n, k)
    linear = mt.make_mxfp8_linear(lambda *a: pytest.fail("fallback ran"))
    mt.set_context(panel_ctx)
    try:
        y = linear(x, xs, w, ws, torch.bfloat16)
        assert mt.last_path()[:3] == ("scaled_mm", "runtime", "NONE")
    finally:
        mt.set_context(None)
    ref = _reference_tile(x, xs, w, ws, slice(0, m), slice(0, n))
    assert torch.equal(_bits(y), _bits(ref))


@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"),
                    reason="torch without float8 dtypes (before 2.1)")
def test_float8_dtypes_are_byte_views(reference_only):
    x, xs, w, ws = _random_operands(51, 32, 64, 128)
    y = mt.scaled_mm(x.view(torch.float8_e4m3fn), xs,
                     w.view(torch.float8_e4m3fn), ws)
    assert torch.equal(_bits(y), _bits(mt.scaled_mm(x, xs, w, ws)))


def test_example_runs_on_the_emulator(ctx):
    import os
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    env = dict(os.environ, MXGEMM_HIP_LIBRARY=ctx.hip_library,
               PYTHONPATH=os.path.join(root, "python"))
    env.setdefault("MXGEMM_RUNTIME_LIBRARY", mxgemm._api._library().path)
    build = os.path.dirname(os.path.dirname(mxgemm._api._library().path))
    proc = subprocess.run(
        [sys.executable, os.path.join(root, "examples",
                                      "torch_mxfp8_linear.py"),
         "--workgroups", "0", "--build", build, "--no-predict"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "path runtime, kernel mxgemm_index_query" in out
    assert "quantize X 8193x1280: path runtime (NONE), " \
        "mxgemm_quantize_bf16_e4m3" in out
    assert "relative error vs BF16 matmul 0.0" in out


# --- MFMA-native X scales (a scale-layout variant) --------------------------

NATIVE_N, NATIVE_K, NATIVE_LAYOUT = 256, 512, "mfma_32x32x64"


@pytest.fixture(scope="module")
def variant_ctx(tmp_path_factory):
    """A context on the facade with a loaded library holding, for one key
    and M range, a kernel reading row-major X scales and its scale-layout
    variant reading them in the 32x32x64 MFMA-native layout."""
    from conftest import facade_path, tuning_entry, write_library
    import os
    if not os.path.exists(facade_path()):
        pytest.skip("HIP facade not built")
    c = mxgemm.Context(hip_library=facade_path())
    kernels = []
    for name, extra in (("torch_row_xs", {}),
                        ("torch_native_xs",
                         {"x_scale_layout": NATIVE_LAYOUT})):
        config = dict({"tile_m": 128, "tile_n": 128, "tile_k": 128}, **extra)
        code, d = mxgemm.compile(NATIVE_N, NATIVE_K, config=config,
                                 name="mxgemm_" + name)
        kernels.append((tuning_entry(name, d, (1, 4096)), code, d))
    c.load_library(write_library(tmp_path_factory.mktemp("variant") / "lib",
                                 kernels, c))
    yield c
    c.close()


def test_native_x_scales_from_quantizer_to_scaled_mm(variant_ctx):
    m = 63
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(m, NATIVE_K, generator=gen).to(torch.bfloat16)
    w, ws = mxgemm.random_mx(12, NATIVE_N, NATIVE_K,
                             granularity="block32x32")
    w, ws = _t(w, ws)
    mt.set_context(variant_ctx)
    try:
        # The runtime's fastest kernel for the call reads native X scales;
        # outside the variant's range only row-major kernels serve.
        assert mt.x_scale_layout(m, NATIVE_N, NATIVE_K) == NATIVE_LAYOUT
        assert mt.x_scale_layout(5000, NATIVE_N, NATIVE_K) == "row_major"
        codes, xs_row = mt.quantize_mxfp8(x)
        assert mt.last_path().path == "runtime"
        codes_n, xs_native = mt.quantize_mxfp8(x, scale_layout=NATIVE_LAYOUT)
        assert mt.last_path().path == "runtime"
        assert torch.equal(codes, codes_n)
        assert xs_native.dim() == 1 and xs_native.numel() == \
            mxgemm.scale_bytes(NATIVE_LAYOUT, m, NATIVE_K)
        assert np.array_equal(xs_native.numpy(), mxgemm.preshuffle_scales(
            xs_row.numpy(), NATIVE_LAYOUT))
        y_row = mt.scaled_mm(codes, xs_row, w, ws)
        assert mt.last_path() == ("scaled_mm", "runtime", "NONE",
                                  "mxgemm_torch_row_xs")
        y_native = mt.scaled_mm(codes, xs_native, w, ws,
                                x_scale_layout=NATIVE_LAYOUT)
        assert mt.last_path() == ("scaled_mm", "runtime", "NONE",
                                  "mxgemm_torch_native_xs")
        assert torch.equal(_bits(y_row), _bits(y_native))
        # Native scales no kernel reads at this M: the reference, same bits.
        y_16 = mt.scaled_mm(codes, mt.quantize_mxfp8(
            x, scale_layout="mfma_16x16x128")[1], w, ws,
            x_scale_layout="mfma_16x16x128")
        assert mt.last_path()[:3] == ("scaled_mm", "reference",
                                      "SCALE_LAYOUT")
        assert torch.equal(_bits(y_16), _bits(y_row))
    finally:
        mt.set_context(None)
    # The reference path unshuffles the scales: the same bits again, and
    # the reference quantizer writes the same native bytes.
    mt.set_context(False)
    try:
        codes_r, xs_r = mt.quantize_mxfp8(x, scale_layout=NATIVE_LAYOUT)
        assert mt.last_path().path == "reference"
        assert torch.equal(codes_r, codes) and torch.equal(xs_r, xs_native)
        y_ref = mt.scaled_mm(codes, xs_native, w, ws,
                             x_scale_layout=NATIVE_LAYOUT)
        assert mt.last_path().path == "reference"
        assert torch.equal(_bits(y_ref), _bits(y_row))
    finally:
        mt.set_context(None)


def test_native_x_scale_arguments_are_checked(reference_only):
    m = 40
    x, xs, w, ws = _random_operands(5, m, NATIVE_N, NATIVE_K)
    native = torch.from_numpy(mxgemm.preshuffle_scales(xs.numpy(),
                                                       NATIVE_LAYOUT))
    with pytest.raises(mt.ArgumentError, match="must hold "
                       r"mxgemm.scale_bytes\('mfma_32x32x64', 40, 512\)"):
        mt.scaled_mm(x, native[:-1], w, ws, x_scale_layout=NATIVE_LAYOUT)
    with pytest.raises(mt.ArgumentError, match="contiguous 1-D"):
        mt.scaled_mm(x, xs, w, ws, x_scale_layout=NATIVE_LAYOUT)
    with pytest.raises(mt.ArgumentError, match="x_scale_layout must be"):
        mt.scaled_mm(x, xs, w, ws, x_scale_layout="tiled")
    with pytest.raises(mt.ArgumentError, match="x_scale must be"):
        mt.scaled_mm(x, native, w, ws)  # native bytes, row-major promised
    with pytest.raises(mt.ArgumentError, match="per-row"):
        mt.quantize_mxfp8(torch.zeros(64, 64), granularity="block32x32",
                          scale_layout=NATIVE_LAYOUT)
    with pytest.raises(mt.ArgumentError, match="scale_layout must be"):
        mt.quantize_mxfp8(torch.zeros(64, 64), scale_layout="tiled")
    assert mt.counters() == {}
