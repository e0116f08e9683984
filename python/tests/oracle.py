"""Independent NumPy formulas of the MX numerics, used only as test oracles
for the C++ library (libmxgemm_numerics.so) that the package binds: the OCP
MX quantizer (docs/Numerics.md) and the bit-exact reference GEMM. The
package itself never computes these; if an oracle and the library disagree,
one of the two misreads docs/Numerics.md.
"""

from fractions import Fraction

import numpy as np

_PARAMS = {
    # bias, mantissa bits, min normal exponent, emax, max finite,
    # max code, NaN code, code for +-inf
    "e4m3": (7, 3, -6, 8, 448.0, 0x7E, 0x7F, 0x7E),
    "e5m2": (15, 2, -14, 15, 57344.0, 0x7B, 0x7E, 0x7C),
}
BLOCK = 32


def encode_fp8(values, fmt="e4m3"):
    """FP8 codes (uint8) nearest to `values` (float64), ties to even."""
    bias, mbits, min_exp, _, max_finite, max_code, nan_code, inf_code = \
        _PARAMS[fmt]
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


def _block_view(x, rows_per_block):
    """[R, K] -> [R/rb, rb, K/32, 32] after padding R to a multiple of rb."""
    r, k = x.shape
    pad = (-r) % rows_per_block
    if pad:
        x = np.concatenate([x, np.zeros((pad, k), x.dtype)], axis=0)
    return x.reshape(-1, rows_per_block, k // BLOCK, BLOCK), pad


def quantize_mx(array, fmt="e4m3", granularity="per_row"):
    """(codes, scales) of a [rows, K] float array: per-row or 32x32 blocks,
    shared exponent floor(log2(amax)) - emax clamped to [-127, 127], elements
    rounded to nearest even with saturation, scale 127 for an all-zero block
    and 255 for one holding NaN or inf."""
    emax = _PARAMS[fmt][3]
    x = np.asarray(array, dtype=np.float32)
    rb = BLOCK if granularity == "block32x32" else 1
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


def _e4m3_units():
    """E4M3 value * 2^9 (an integer) per code, as float64; NaN codes -> nan."""
    codes = np.arange(256)
    field = (codes >> 3) & 0xF
    mant = codes & 7
    mag = np.where(field == 0, mant, (8 + mant) << np.maximum(field - 1, 0))
    val = np.where(codes & 0x80, -mag, mag).astype(np.float64)
    val[(codes & 0x7F) == 0x7F] = np.nan
    return val


E4M3_UNITS = _e4m3_units()          # units of 2^-9; a product is in 2^-18
FLT_MAX = float(np.finfo(np.float32).max)


def _round_to_f32(q):
    """Round a Fraction to FP32 (RNE, subnormals kept, overflow -> inf)."""
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    u = max(e - 23, -149)
    scaled = a / (Fraction(2) ** u)
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1):
        n += 1
    v = float(n) * 2.0 ** u
    return sign * (float("inf") if v > FLT_MAX else v)


def reference_tile(x, xs, w, ws, k_step, stats):
    """BF16 bits of x[r] . w[c]^T for the given operand rows: per K-step one
    exact sum (accumulator plus the step's block products) and one FP32
    rounding, then BF16 RNE."""
    return _to_bf16(_accumulate(x, xs, w, ws, k_step, stats))


def reference_tile_segments(x, xs, w, ws, k_step, bounds, stats):
    """The segment rule of split-K (docs/Design.md, "Split K"): each K
    segment [bounds[i], bounds[i+1]) accumulated from +0 by the step rule,
    the FP32 partials added in ascending order with FP32 RNE, then BF16."""
    total = None
    for k0, k1 in zip(bounds, bounds[1:]):
        b0, b1 = k0 // BLOCK, k1 // BLOCK
        ws_seg = ws[:, b0:b1]
        part = _accumulate(x[:, k0:k1], xs[:, b0:b1], w[:, k0:k1], ws_seg,
                           k_step, stats).astype(np.float32)
        total = part if total is None else total + part
    return _to_bf16(total.astype(np.float64))


def _accumulate(x, xs, w, ws, k_step, stats):
    """The FP32 accumulator (as float64 values) of the step rule. float64
    holds every block dot product exactly (integers below 2^41 in units of
    2^-18); each step's sum is checked exact with TwoSum and the rare
    inexact elements are redone with Fractions."""
    rows, k = x.shape
    cols = w.shape[0]
    a = E4M3_UNITS[x]
    b = E4M3_UNITS[w]
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("reference_tile: NaN codes are not generated")
    sa = xs.astype(np.int64)
    sb = np.repeat(ws.astype(np.int64), 32, axis=0)[:cols] \
        if ws.shape[0] != cols else ws.astype(np.int64)
    acc = np.zeros((rows, cols), dtype=np.float64)
    for k0 in range(0, k, k_step):
        blocks = range(k0 // 32, min(k0 + k_step, k) // 32)
        terms = []
        s = acc.copy()
        inexact = np.zeros((rows, cols), dtype=bool)
        for blk in blocks:
            p = a[:, blk * 32:(blk + 1) * 32] @ b[:, blk * 32:(blk + 1) * 32].T
            e = sa[:, blk][:, None] + sb[:, blk][None, :] - 254 - 18
            t = np.ldexp(p, e)
            terms.append((p, e))
            s2 = s + t
            bb = s2 - s
            err = (s - (s2 - bb)) + (t - bb)
            inexact |= err != 0
            s = s2
        if inexact.any():
            idx = np.argwhere(inexact)
            stats["fraction_fallbacks"] = stats.get("fraction_fallbacks", 0) \
                + len(idx)
            for i, j in idx:
                total = Fraction(float(acc[i, j]))
                allzero = True
                for p, e in terms:
                    pij = int(p[i, j])
                    if pij:
                        allzero = False
                        total += Fraction(pij) * Fraction(2) ** int(e[i, j])
                s[i, j] = acc[i, j] if allzero else _round_to_f32(total)
        acc = s.astype(np.float32).astype(np.float64)
    return acc


def _to_bf16(acc):
    """BF16 bits (RNE, NaN kept quiet) of FP32 values held in float64."""
    bits = acc.astype(np.float32).view(np.uint32)
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    lsb = (bits >> 16) & 1
    out = ((bits + np.uint32(0x7FFF) + lsb) >> 16).astype(np.uint16)
    out = np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), out)
    return out


