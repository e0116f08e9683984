"""The bindings of libmxgemm_numerics.so against the independent NumPy
oracles of oracle.py: quantizer, FP8 encoding, reference GEMM; the GEMM
check's counts; the random MX operands; errors as exceptions."""

import numpy as np
import pytest

import mxgemm
import oracle


def _specials():
    v = np.array([0.0, -0.0, 1.0, 1.0625, 1.1875, 448.0, 464.0, 480.0, 1e6,
                  -1e6, 2.0**-9, 2.0**-10, 3 * 2.0**-11, 57344.0, 61440.0,
                  np.inf, -np.inf, np.nan], np.float32)
    return np.concatenate([v, -v])


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_encode_fp8_matches_the_oracle(fmt):
    rng = np.random.default_rng(1)
    v = (rng.standard_normal(20000) *
         np.exp2(rng.integers(-24, 24, 20000))).astype(np.float32)
    v = np.concatenate([v, _specials()])
    assert np.array_equal(mxgemm.encode_fp8(v, fmt),
                          oracle.encode_fp8(v.astype(np.float64), fmt))


@pytest.mark.parametrize("gran", ["per_row", "block32x32"])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_quantize_matches_the_oracle(fmt, gran):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((70, 256)) *
         np.exp2(rng.integers(-30, 30, (70, 8))).repeat(32, 1))
    x = x.astype(np.float32)
    x[3, :18] = _specials()[:18]
    x[40:, 64:96] = 0.0
    codes, scales = mxgemm.quantize_mx(x, fmt, gran)
    want_codes, want_scales = oracle.quantize_mx(x, fmt, gran)
    assert np.array_equal(codes, want_codes)
    assert np.array_equal(scales, want_scales)


def _operands(seed, m, n, k, span):
    """Random MX operands with scales over a wide range (the oracle's exact
    rational path runs where float64 sums are not exact)."""
    rng = np.random.default_rng(seed)
    x, xs = mxgemm.random_mx(seed, m, k)
    w, ws = mxgemm.random_mx(seed + 1, n, k, granularity="block32x32")
    xs = rng.integers(127 - span, 127 + span + 1, xs.shape, dtype=np.uint8)
    ws = rng.integers(127 - span, 127 + span + 1, ws.shape, dtype=np.uint8)
    return x, xs, w, ws


@pytest.mark.parametrize("k_step", [64, 128])
def test_reference_gemm_matches_the_exact_oracle(k_step):
    x, xs, w, ws = _operands(3, 40, 64, 512, 20)
    got = mxgemm.reference_gemm(mxgemm.GemmOperands(x, xs, w, ws), k_step)
    stats = {}
    want = oracle.reference_tile(x, xs, w, ws, k_step, stats)
    assert np.array_equal(got, want)
    assert stats.get("fraction_fallbacks", 0) > 0  # the hard cases ran
    # A region of it: the same bits.
    part = mxgemm.reference_gemm(mxgemm.GemmOperands(x, xs, w, ws), k_step,
                                 rows=slice(5, 33), cols=slice(32, 64))
    assert np.array_equal(part, want[5:33, 32:64])


def test_check_gemm_counts():
    x, xs, w, ws = _operands(4, 64, 64, 128, 4)
    ops = mxgemm.GemmOperands(x, xs, w, ws)
    ref = mxgemm.reference_gemm(ops, 64)
    res = mxgemm.check_gemm(ops, ref, 64)
    assert (res["compared"], res["mismatches"], res["unwritten"],
            res["stray"]) == (64 * 64, 0, 0, 0)
    assert res["last_row_written"]
    # One tile written, one element of it wrong, one write outside it.
    y = np.full_like(ref, 0xFFFF)
    y[0:32, 32:64] = ref[0:32, 32:64]
    y[7, 40] ^= 1
    y[50, 3] = ref[50, 3]
    res = mxgemm.check_gemm(ops, y, 64, regions=[(0, 32, 32, 64)])
    assert (res["compared"], res["mismatches"], res["stray"]) == \
        (32 * 32 + 1, 1, 1)
    assert (res["first_row"], res["first_col"]) == (7, 40)
    assert res["unwritten"] == 64 * 64 - res["compared"]
    assert not res["last_row_written"]


@pytest.mark.parametrize("k_step,k_splits", [(64, 4), (128, 2)])
def test_check_gemm_follows_the_segment_rule(k_step, k_splits):
    # Y by the segment rule (the oracle): the split check passes it, the
    # one-segment check does not. W rows: +2^10 on the first block, 2^-20
    # from K = 512 and -2^10 on the last block, so the order of the FP32
    # roundings decides whether the small terms survive: with one segment
    # the accumulator holds 2^15 while they are added (lost but for the
    # last step's, summed exactly with -2^15); split, the last segment's
    # partial rounds them away against -2^15 and the sum is 0.
    k = 1024
    wf = np.zeros((64, k))
    wf[:, :32], wf[:, 512:k - 32], wf[:, k - 32:] = 2.0**10, 2.0**-20, -2.0**10
    w, ws = mxgemm.quantize_mx(wf, "e4m3", "block32x32")
    x, xs = mxgemm.quantize_mx(np.ones((32, k)), "e4m3", "per_row")
    ops = mxgemm.GemmOperands(x, xs, w, ws)
    bounds = [k // k_splits * s for s in range(k_splits + 1)]
    y = oracle.reference_tile_segments(x, xs, w, ws, k_step, bounds, {})
    res = mxgemm.check_gemm(ops, y, k_step, k_splits=k_splits)
    assert (res["compared"], res["mismatches"]) == (32 * 64, 0)
    assert mxgemm.check_gemm(ops, y, k_step)["mismatches"] > 0
    one = oracle.reference_tile(x, xs, w, ws, k_step, {})
    assert mxgemm.check_gemm(ops, one, k_step, k_splits=k_splits)[
        "mismatches"] > 0


@pytest.mark.parametrize("k_splits", [0, 65, 3])
def test_check_gemm_refuses_bad_splits(k_splits):
    # 0 and 65 are outside 1..64; 3 does not cut K = 1024 on whole steps.
    x, xs, w, ws = _operands(5, 8, 32, 1024, 2)
    ops = mxgemm.GemmOperands(x, xs, w, ws)
    with pytest.raises(ValueError, match="k_splits|whole number"):
        mxgemm.check_gemm(ops, np.zeros((8, 32), np.uint16), 64,
                          k_splits=k_splits)


def test_random_mx_is_deterministic_and_finite():
    a, sa = mxgemm.random_mx(7, 33, 64, "e4m3", "block32x32")
    b, sb = mxgemm.random_mx(7, 33, 64, "e4m3", "block32x32")
    assert np.array_equal(a, b) and np.array_equal(sa, sb)
    assert sa.shape == (2, 2) and a.shape == (33, 64)
    assert not np.array_equal(a, mxgemm.random_mx(8, 33, 64)[0])
    assert np.isfinite(mxgemm.decode_table("e4m3")[a]).all()
    e5, _ = mxgemm.random_mx(7, 64, 256, "e5m2")
    assert np.isfinite(mxgemm.decode_table("e5m2")[e5]).all()


@pytest.mark.parametrize("call", [
    lambda: mxgemm.random_mx(1, 4, 33),
    lambda: mxgemm.random_mx(1, 0, 32),
    lambda: mxgemm.random_mx(1, 4, 32, "e3m4"),
    lambda: mxgemm.quantize_mx(np.zeros((2, 32)), granularity="tiles"),
    lambda: mxgemm.dequantize(np.zeros((2, 32), np.uint8),
                              np.zeros((2, 2), np.uint8)),
    lambda: mxgemm.reference_gemm(mxgemm.GemmOperands(
        *_operands(1, 8, 32, 64, 2)), 64, rows=slice(4, 2)),
    lambda: mxgemm.reference_gemm(mxgemm.GemmOperands(
        *_operands(1, 8, 32, 64, 2)), 48),
    lambda: mxgemm.GemmOperands(*_operands(1, 8, 32, 64, 2)[:3],
                                np.zeros((2, 2), np.uint8)),
    lambda: mxgemm.check_gemm(mxgemm.GemmOperands(
        *_operands(1, 8, 32, 64, 2)), np.zeros((8, 31), np.uint16), 64),
])
def test_bad_arguments_are_value_errors(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("layout,rows_per_group,blocks_per_step",
                         [("mfma_16x16x128", 16, 4), ("mfma_32x32x64", 32, 2)])
def test_preshuffle_scales_matches_a_numpy_transpose(layout, rows_per_group,
                                                     blocks_per_step):
    # The MFMA-native layout as an axis permutation: block b = chunk * 4G +
    # s * G + g of row r lands at (row group, chunk, g, r % R, s), padding
    # 1.0 (127). Rows 37 and 36 blocks leave both paddings partial.
    rng = np.random.default_rng(5)
    rows, blocks = 37, 36
    s = rng.integers(0, 255, size=(rows, blocks), dtype=np.uint8)
    R, G = rows_per_group, blocks_per_step
    groups, chunks = -(-rows // R), -(-blocks // (4 * G))
    padded = np.full((groups * R, chunks * 4 * G), 127, np.uint8)
    padded[:rows, :blocks] = s
    want = padded.reshape(groups, R, chunks, 4, G).transpose(0, 2, 4, 1, 3)
    got = mxgemm.preshuffle_scales(s, layout)
    assert got.dtype == np.uint8 and got.size == groups * chunks * 256
    assert np.array_equal(got, want.reshape(-1))
    assert np.array_equal(mxgemm.preshuffle_scales(s, "row_major"),
                          s.reshape(-1))


def test_preshuffle_scales_rejects_a_bad_layout():
    s = np.zeros((4, 8), np.uint8)
    with pytest.raises(ValueError, match="unknown scale layout 'mfma'"):
        mxgemm.preshuffle_scales(s, "mfma")
    with pytest.raises(ValueError, match="2-D"):
        mxgemm.preshuffle_scales(np.zeros(8, np.uint8), "mfma_16x16x128")
