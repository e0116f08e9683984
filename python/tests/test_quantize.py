"""quantize_mx / dequantize: the MX rule of docs/Numerics.md."""

import numpy as np
import pytest

import mxgemm


def test_decode_tables_match_the_formats():
    e4m3 = mxgemm.decode_table("e4m3")
    assert e4m3[0x7E] == 448.0 and np.isnan(e4m3[0x7F]) and e4m3[0x01] == 2.0**-9
    assert e4m3[0x38] == 1.0 and e4m3[0xB8] == -1.0
    e5m2 = mxgemm.decode_table("e5m2")
    assert e5m2[0x7B] == 57344.0 and np.isinf(e5m2[0x7C]) and np.isnan(e5m2[0x7D])
    assert e5m2[0x01] == 2.0**-16


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_encode_round_trips_every_finite_code(fmt):
    table = mxgemm.decode_table(fmt)
    codes = np.array([c for c in range(256) if np.isfinite(table[c])])
    got = mxgemm.encode_fp8(table[codes], fmt)
    # -0 and +0 both encode with their sign; every finite code maps back.
    assert np.array_equal(got, codes.astype(np.uint8))


def test_encode_rounds_ties_to_even_and_saturates():
    # 1 + 1/16 lies halfway between 1 (0x38) and 1.125 (0x39): even wins.
    assert mxgemm.encode_fp8([1.0625], "e4m3")[0] == 0x38
    assert mxgemm.encode_fp8([1.1875], "e4m3")[0] == 0x3A
    assert mxgemm.encode_fp8([1e6, -1e6], "e4m3").tolist() == [0x7E, 0xFE]
    assert mxgemm.encode_fp8([np.inf], "e5m2")[0] == 0x7C
    assert mxgemm.encode_fp8([np.inf], "e4m3")[0] == 0x7E
    assert mxgemm.encode_fp8([-np.nan], "e4m3")[0] == 0xFF


def test_quantize_block_rules():
    x = np.zeros((2, 64), np.float32)
    x[0, :32] = 1.0           # amax 1 -> E = 0 - 8, scale 119, code 256 = 0x78
    x[1, 32] = np.nan         # NaN block -> scale 255
    codes, scales = mxgemm.quantize_mx(x)
    assert scales.tolist() == [[119, 127], [127, 255]]
    assert codes[0, 0] == 0x78 and codes[0, 40] == 0
    back = mxgemm.dequantize(codes, scales)
    assert back[0, 0] == 1.0 and np.isnan(back[1, 40])


@pytest.mark.parametrize("gran", ["per_row", "block32x32"])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_quantize_dequantize_error_is_bounded(fmt, gran):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((70, 128)) *
         np.exp2(rng.integers(-6, 6, (70, 1)))).astype(np.float32)
    codes, scales = mxgemm.quantize_mx(x, fmt, gran)
    rows = 70 if gran == "per_row" else 3
    assert codes.shape == (70, 128) and scales.shape == (rows, 4)
    back = mxgemm.dequantize(codes, scales, fmt, gran)
    # Relative to the block's largest magnitude: half an ulp of the format.
    mbits = 3 if fmt == "e4m3" else 2
    rb = 1 if gran == "per_row" else 32
    pad = np.concatenate([np.abs(x), np.zeros((-70 % rb, 128), np.float32)])
    amax = pad.reshape(-1, rb, 4, 32).max(axis=(1, 3))
    amax = np.repeat(np.repeat(amax, rb, 0)[:70], 32, 1)
    assert np.all(np.abs(back - x) <= amax * 2.0**-mbits + 1e-30)


def test_quantize_rejects_bad_shapes():
    with pytest.raises(ValueError):
        mxgemm.quantize_mx(np.zeros((2, 33), np.float32))
    with pytest.raises(ValueError):
        mxgemm.quantize_mx(np.zeros((2, 32), np.float32), "e3m4")


def test_bf16_to_float32():
    assert mxgemm.bf16_to_float32(np.array([0x3F80, 0xC000], np.uint16)).tolist() \
        == [1.0, -2.0]


def _corner_blocks(rng, m, k):
    """[m, k] float32 values whose 32-blocks cycle through the rule's
    corners: all zero, one NaN, one inf, tiny values (FP16/BF16 subnormals
    after the cast), an amax just below a power of two (rounds up and
    saturates), a lone nonzero element, and values over many binades."""
    x = (rng.standard_normal((m, k)) *
         np.exp2(rng.integers(-12, 12, (m, k // 32))).repeat(32, 1))
    blocks = x.reshape(-1, 32)
    for b in range(blocks.shape[0]):
        kind, j = b % 7, b % 32
        if kind == 0:
            blocks[b] = 0.0
        elif kind == 1:
            blocks[b, j] = np.nan
        elif kind == 2:
            blocks[b, j] = -np.inf
        elif kind == 3:
            blocks[b] *= 2.0**-30
        elif kind == 4:
            blocks[b] = np.clip(blocks[b], -1.5, 1.5)
            blocks[b, j] = 1.99999
        elif kind == 5:
            blocks[b] = 0.0
            blocks[b, j] = 3.0
    return x.astype(np.float32)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("m,k", [(1, 32), (7, 992), (333, 64)])
def test_quantize_device_is_the_cpp_quantizer(ctx, fmt, m, k):
    """The runtime's device kernel (mxgemm_quantize, on the emulator's HIP
    facade) gives the C++ quantizer's bytes for FP32, FP16 and BF16 input."""
    x = _corner_blocks(np.random.default_rng(m * k), m, k)
    bf16_bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncated
    for host, in_type, exact in (
            (x, None, x),
            (x.astype(np.float16), None, x.astype(np.float16)),
            (bf16_bits, "bf16", mxgemm.bf16_to_float32(bf16_bits))):
        codes, scales = mxgemm.quantize_device(host, fmt, in_type, ctx=ctx)
        want = mxgemm.quantize_mx(np.asarray(exact, np.float32), fmt)
        assert codes.shape == (m, k) and scales.shape == (m, k // 32)
        assert np.array_equal(codes, want[0]), in_type
        assert np.array_equal(scales, want[1]), in_type
        # The independent NumPy oracle agrees.
        import oracle
        assert np.array_equal(scales, oracle.quantize_mx(
            np.asarray(exact, np.float64), fmt)[1])


def test_quantize_device_bad_arguments(ctx):
    x = np.zeros((2, 64), np.float32)
    with pytest.raises(mxgemm.InvalidArgument, match="multiple of 32"):
        mxgemm.quantize_device(np.zeros((2, 48), np.float32), ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument, match="fmt"):
        mxgemm.quantize_device(x, "e2m1", ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument, match="fmt"):
        mxgemm.quantize_device(x, "bf16", ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument, match="in_type='bf16'"):
        mxgemm.quantize_device(x.astype(np.float64), ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument, match="in_type='bf16'"):
        mxgemm.quantize_device(x, "e4m3", "bf16", ctx=ctx)
    with pytest.raises(mxgemm.InvalidArgument, match="2-D"):
        mxgemm.quantize_device(np.zeros(64, np.float32), ctx=ctx)


def test_quantize_device_without_hip_is_not_eligible():
    ctx = mxgemm.Context(hip_library="/nonexistent/libamdhip64.so")
    with pytest.raises(mxgemm.NotEligible, match="HIP unavailable"):
        mxgemm.quantize_device(np.zeros((2, 64), np.float32), ctx=ctx)
