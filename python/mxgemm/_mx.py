"""OCP MX v1.0 quantization in NumPy, identical to the C++ quantizer.

Implements the rule of docs/Numerics.md (lib/Numerics/Quantize.cpp) bit for
bit: per 32-element K block (or 32x32 block), shared exponent
E = floor(log2(amax)) - emax (8 for E4M3, 15 for E5M2) clamped to
[-127, 127], scale byte E + 127; elements rounded to nearest even with
saturation to the largest finite value; an all-zero block gets scale 127 and a
block containing NaN or inf gets the NaN scale 255.
"""

import numpy as np

_PARAMS = {
    # bias, mantissa bits, min normal exponent, emax, max finite,
    # max code, NaN code, code for +-inf
    "e4m3": (7, 3, -6, 8, 448.0, 0x7E, 0x7F, 0x7E),
    "e5m2": (15, 2, -14, 15, 57344.0, 0x7B, 0x7E, 0x7C),
}
BLOCK = 32


def _params(fmt):
    try:
        return _PARAMS[fmt]
    except KeyError:
        raise ValueError(f"format must be 'e4m3' or 'e5m2', got {fmt!r}")


def encode_fp8(values, fmt="e4m3"):
    """FP8 codes (uint8) nearest to `values` (float64), ties to even."""
    bias, mbits, min_exp, _, max_finite, max_code, nan_code, inf_code = \
        _params(fmt)
    v = np.asarray(values, dtype=np.float64)
    sign = np.where(np.signbit(v), 0x80, 0).astype(np.uint8)
    a = np.abs(v)
    finite = np.isfinite(a)
    safe = np.where(finite & (a > 0), a, 1.0)
    _, e = np.frexp(safe)
    exp = np.maximum(e - 1, min_exp)
    n = np.rint(np.ldexp(safe, mbits - exp))
    implicit = float(1 << mbits)
    carry = n >= 2 * implicit
    n = np.where(carry, n / 2, n)
    exp = np.where(carry, exp + 1, exp)
    too_big = np.ldexp(n, exp - mbits) > max_finite
    field = np.clip(exp + bias, 0, 255)
    normal = (field << mbits) | np.clip(n - implicit, 0, 255).astype(np.int64)
    code = np.where(n < implicit, n.astype(np.int64), normal)
    code = np.where(too_big, max_code, code)
    code = np.where(n == 0, 0, code)
    code = np.where(a == 0, 0, code)
    code = np.where(np.isinf(a), inf_code, code)
    code = np.where(np.isnan(v), nan_code, code)
    return (code.astype(np.uint8) | sign).astype(np.uint8)


def decode_table(fmt="e4m3"):
    """float64 value of every FP8 code (NaN/inf as IEEE)."""
    bias, mbits, _, _, _, _, _, _ = _params(fmt)
    codes = np.arange(256)
    ebits = 7 - mbits
    field = (codes >> mbits) & ((1 << ebits) - 1)
    mant = codes & ((1 << mbits) - 1)
    sub = np.ldexp(mant.astype(np.float64), 1 - bias - mbits)
    nrm = np.ldexp(1.0 + mant / float(1 << mbits), field - bias)
    val = np.where(field == 0, sub, nrm)
    if fmt == "e4m3":
        val = np.where((codes & 0x7F) == 0x7F, np.nan, val)
    else:
        top = field == (1 << ebits) - 1
        val = np.where(top & (mant == 0), np.inf, val)
        val = np.where(top & (mant != 0), np.nan, val)
    return np.where(codes & 0x80, -val, val)


def decode_e8m0(scales):
    s = np.asarray(scales, dtype=np.uint8).astype(np.int64)
    return np.where(s == 255, np.nan, np.ldexp(1.0, s - 127))


def _block_view(x, rows_per_block):
    """[R, K] -> [R/rb, rb, K/32, 32] after padding R to a multiple of rb."""
    r, k = x.shape
    pad = (-r) % rows_per_block
    if pad:
        x = np.concatenate([x, np.zeros((pad, k), x.dtype)], axis=0)
    return x.reshape(-1, rows_per_block, k // BLOCK, BLOCK), pad


def quantize_mx(array, fmt="e4m3", granularity="per_row"):
    """Quantizes a [rows, K] float array (K % 32 == 0) to MX.

    Returns (codes uint8 [rows, K], scales uint8): scales are [rows, K/32]
    for granularity 'per_row' and [ceil(rows/32), K/32] for 'block32x32'.
    """
    _, _, _, emax, _, _, _, _ = _params(fmt)
    x = np.asarray(array, dtype=np.float32)
    if x.ndim != 2 or x.shape[1] % BLOCK:
        raise ValueError("expected a 2-D array whose last dimension is a "
                         "multiple of 32")
    if granularity in ("per_row", "per-row"):
        rb = 1
    elif granularity == "block32x32":
        rb = BLOCK
    else:
        raise ValueError("granularity must be 'per_row' or 'block32x32'")
    rows, k = x.shape
    blocks, pad = _block_view(x.astype(np.float64), rb)
    finite = np.isfinite(blocks)
    amax = np.where(finite, np.abs(blocks), 0.0).max(axis=(1, 3))
    non_finite = (~finite).any(axis=(1, 3))
    _, e = np.frexp(np.where(amax > 0, amax, 1.0))
    shared = np.where(amax > 0, np.clip(e - 1 - emax, -127, 127), 0)
    scales = np.where(amax > 0, shared + 127, 127)
    scales = np.where(non_finite, 255, scales).astype(np.uint8)
    scaled = np.ldexp(blocks, -shared[:, None, :, None])
    codes = encode_fp8(scaled, fmt).reshape(-1, k)[:rows]
    return np.ascontiguousarray(codes), np.ascontiguousarray(scales)


def dequantize(codes, scales, fmt="e4m3", granularity="per_row"):
    """float32 values 2^(s-127) * decode(code), computed in float64."""
    codes = np.asarray(codes, dtype=np.uint8)
    rows, k = codes.shape
    rb = 1 if granularity in ("per_row", "per-row") else BLOCK
    s = decode_e8m0(scales)
    s = np.repeat(np.repeat(s, rb, axis=0)[:rows], BLOCK, axis=1)
    return (decode_table(fmt)[codes] * s).astype(np.float32)


def bf16_to_float32(bits):
    """BF16 bit patterns (uint16) -> float32 (exact)."""
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return b.view(np.float32)
