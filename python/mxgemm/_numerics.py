"""The MX numerics of mxgemm from Python: ctypes over mxgemm_numerics.h
(libmxgemm_numerics.so), with NumPy arrays in and out.

Every rule here exists once, in C++ (lib/Numerics, docs/Numerics.md): the
OCP MX quantizer (round to nearest even, saturation, scale 127 for all-zero
and 255 for non-finite blocks), the bit-exact reference GEMM, the GEMM check
that qualification and mxgemm-emu/mxgemm-run share, the deterministic random
MX operands and the MFMA weight panels. This module converts arguments and
results; it computes nothing itself. Independent NumPy formulas of the same
rules live under python/tests, as test oracles.
"""

import ctypes
import re

import numpy as np

from . import _runtime

FORMATS = {"e4m3": 0, "e5m2": 1}
GRANULARITIES = {"block32x32": 0, "per_row": 1, "per-row": 1}
OUT_TYPES = {"bf16": (2, np.uint16), "f32": (4, np.uint32)}
_U8P = ctypes.POINTER(ctypes.c_uint8)


class Operands(ctypes.Structure):
    _fields_ = [(f, ctypes.c_int64) for f in ("m", "n", "k")] + \
        [(f, _U8P) for f in ("x", "xs", "w", "ws")] + \
        [(f, ctypes.c_int) for f in ("x_format", "w_format", "w_granularity")]


class CheckResult(ctypes.Structure):
    _fields_ = [(f, ctypes.c_uint64) for f in ("compared", "mismatches",
                                               "unwritten", "stray")] + \
        [("last_row_written", ctypes.c_int), ("first_row", ctypes.c_int64),
         ("first_col", ctypes.c_int64), ("first_got", ctypes.c_uint32),
         ("first_expected", ctypes.c_uint32)]


def _signatures():
    P, I, I64, V = ctypes.POINTER, ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    FP = P(ctypes.c_float)
    return {
        "mxgemm_numerics_last_error": (ctypes.c_char_p, []),
        "mxgemm_scale_rows": (I64, [I64, I]),
        "mxgemm_random_mx": (I, [ctypes.c_uint64, I64, I64, I, I, _U8P,
                                 _U8P]),
        "mxgemm_quantize_mx": (I, [FP, I64, I64, I, I, _U8P, _U8P]),
        "mxgemm_dequantize_mx": (I, [_U8P, _U8P, I64, I64, I, I, FP]),
        "mxgemm_reference_gemm": (I, [P(Operands), I64, I64, I64, I64, I, I,
                                      V, I64]),
        "mxgemm_check_gemm_split": (I, [P(Operands), V, I, I, I,
                                        ctypes.c_uint8, P(I64),
                                        ctypes.c_size_t, P(CheckResult)]),
        "mxgemm_pack_weight_panels": (I, [_U8P, _U8P, I64, I64, I64]),
        "mxgemm_preshuffle_scales": (I, [ctypes.c_char_p, _U8P, I64, I64,
                                         I64, _U8P, ctypes.c_size_t,
                                         P(ctypes.c_size_t)]),
        "mxgemm_unshuffle_scales": (I, [ctypes.c_char_p, _U8P,
                                        ctypes.c_size_t, I64, I64, _U8P,
                                        ctypes.c_size_t]),
    }


library = _runtime.loader("libmxgemm_numerics.so", "MXGEMM_NUMERICS_LIBRARY",
                          _signatures)


def _call(name, *args):
    lib = library()
    if getattr(lib, name)(*args) != 0:
        raise ValueError(f"{name}: "
                         f"{lib.mxgemm_numerics_last_error().decode()}")


def _enum(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"{what} must be one of {sorted(table)}, got "
                         f"{value!r}") from None


def _ptr(a, ctype=ctypes.c_uint8):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


def _bytes2d(a, name):
    """A C-contiguous 2-D array of 1-byte elements (any 1-byte dtype)."""
    a = np.ascontiguousarray(a)
    if a.ndim != 2 or a.dtype.itemsize != 1:
        raise ValueError(f"{name} must be 2-D FP8/E8M0 bytes (itemsize 1), "
                         f"got shape {a.shape} dtype {a.dtype}")
    return a


def scale_rows(rows, granularity="per_row"):
    """Rows of the E8M0 scale tensor of a [rows, K] operand."""
    r = library().mxgemm_scale_rows(
        rows, _enum(GRANULARITIES, granularity, "granularity"))
    if r < 0:
        raise ValueError(f"no scale tensor for {rows} rows")
    return r


def random_mx(seed, rows, cols, fmt="e4m3", granularity="per_row"):
    """Random finite FP8 codes [rows, cols] and E8M0 scales (a different
    random scale per block), the same bytes for a seed on every platform
    (numerics::randomMXMatrix)."""
    f = _enum(FORMATS, fmt, "format")
    g = _enum(GRANULARITIES, granularity, "granularity")
    codes = np.empty((rows, cols), np.uint8)
    scales = np.empty((scale_rows(rows, granularity), cols // 32), np.uint8)
    _call("mxgemm_random_mx", seed, rows, cols, f, g, _ptr(codes),
          _ptr(scales))
    return codes, scales


def quantize_mx(array, fmt="e4m3", granularity="per_row"):
    """Quantizes a [rows, K] float array (K % 32 == 0) to MX (FP32 first).

    Returns (codes uint8 [rows, K], scales uint8): scales are [rows, K/32]
    for granularity 'per_row' and [ceil(rows/32), K/32] for 'block32x32'.
    """
    f = _enum(FORMATS, fmt, "format")
    g = _enum(GRANULARITIES, granularity, "granularity")
    x = np.ascontiguousarray(array, dtype=np.float32)
    if x.ndim != 2 or x.shape[1] % 32:
        raise ValueError("expected a 2-D array whose last dimension is a "
                         "multiple of 32")
    rows, k = x.shape
    codes = np.empty((rows, k), np.uint8)
    scales = np.empty((scale_rows(rows, granularity), k // 32), np.uint8)
    _call("mxgemm_quantize_mx", _ptr(x, ctypes.c_float), rows, k, f, g,
          _ptr(codes), _ptr(scales))
    return codes, scales


def dequantize(codes, scales, fmt="e4m3", granularity="per_row"):
    """float32 values code * 2^(scale - 127)."""
    f = _enum(FORMATS, fmt, "format")
    g = _enum(GRANULARITIES, granularity, "granularity")
    codes = _bytes2d(codes, "codes")
    rows, k = codes.shape
    s = _bytes2d(scales, "scales")
    if k % 32 or s.shape != (scale_rows(rows, granularity), k // 32):
        raise ValueError(f"scales of shape {s.shape} do not fit codes of "
                         f"shape {codes.shape} ({granularity})")
    out = np.empty((rows, k), np.float32)
    _call("mxgemm_dequantize_mx", _ptr(codes), _ptr(s), rows, k, f, g,
          _ptr(out, ctypes.c_float))
    return out


def decode_table(fmt="e4m3"):
    """float64 value of every FP8 code (NaN/inf as IEEE)."""
    codes = np.arange(256, dtype=np.uint8).reshape(1, 256)
    return dequantize(codes, np.full((1, 8), 127, np.uint8), fmt)[0] \
        .astype(np.float64)


def encode_fp8(values, fmt="e4m3"):
    """FP8 codes (uint8) nearest to `values` (rounded to FP32 first), ties
    to even, saturating: the quantizer's own element encoding, reached
    through mxgemm_quantize_mx with a block exponent of 0 (every value
    shares its block with 2^emax; finite values are clamped below
    2^(emax+1), where they saturate anyway)."""
    v = np.asarray(values, dtype=np.float32)
    flat = v.reshape(-1)
    if not flat.size:
        return np.zeros(v.shape, np.uint8)
    # The scale of a block whose largest magnitude is 1 is 127 - emax.
    _, s = quantize_mx(np.ones((1, 32), np.float32), fmt)
    top = np.float32(2.0 ** (128 - int(s[0, 0])))
    below = np.nextafter(top, np.float32(0))
    block = np.zeros((flat.size, 32), np.float32)
    block[:, 0] = np.where(np.isfinite(flat), np.clip(flat, -below, below),
                           flat)
    block[:, 1] = top / 2
    return quantize_mx(block, fmt)[0][:, 0].reshape(v.shape)


def decode_e8m0(scales):
    """2^(s - 127) per E8M0 byte (NaN for 255), as float64."""
    s = np.asarray(scales, dtype=np.uint8)
    one = np.full((s.size, 32), encode_fp8(1.0), np.uint8)
    v = dequantize(one, s.reshape(-1, 1))[:, 0]
    return v.astype(np.float64).reshape(s.shape)


def bf16_to_float32(bits):
    """BF16 bit patterns (uint16) -> float32 (exact: the upper half)."""
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return b.view(np.float32)


def _non_k(mfma):
    """Rows per MFMA panel: an int, a kernel descriptor or its 'mfma'
    object (non_k), or an MFMA name 'm<M>n<N>k<K>' (N rows)."""
    if isinstance(mfma, dict):
        return (mfma.get("mfma") or mfma)["non_k"]
    if isinstance(mfma, str):
        shape = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", mfma)
        if not shape:
            raise ValueError(f"mfma must be an MFMA shape name like "
                             f"'m32n32k64', got {mfma!r}")
        return int(shape.group(2))
    return mfma


def pack_weight_panels(w, mfma="m32n32k64"):
    """W [N, K] (FP8 bytes) in the MFMA-panel layout that kernels with
    stage_w = packed_registers read (include/mxgemm/Contract/WeightPanels.h),
    packed on the host by the numerics library. `mfma`: the kernel's MFMA
    shape name, its descriptor (or the descriptor's 'mfma' object), or the
    panel rows (non_k). Returns a new contiguous array of W's dtype and
    shape (the same N * K bytes, no longer row-major). mxgemm.pack_weights
    does the same through the runtime on the device."""
    a = _bytes2d(w, "w")
    n, k = a.shape
    out = np.empty_like(a)
    _call("mxgemm_pack_weight_panels", _ptr(a.view(np.uint8)),
          _ptr(out.view(np.uint8)), n, k, _non_k(mfma))
    return out


def preshuffle_scales(scales, layout):
    """Row-major E8M0 scales [rows, K/32] (uint8 bytes) laid out in
    `layout` ('row_major', 'mfma_16x16x128' or 'mfma_32x32x64': the
    MFMA-native layouts that kernels with x_scale_layout / w_scale_layout
    read, include/mxgemm/Contract/ScaleLayout.h), by the numerics library.
    Returns a new 1-D uint8 array of the laid-out (padded) tensor."""
    a = _bytes2d(scales, "scales")
    rows, blocks = a.shape
    name = str(layout).encode()
    size = ctypes.c_size_t(0)
    _call("mxgemm_preshuffle_scales", name, None, rows, blocks, 0, None, 0,
          ctypes.byref(size))
    out = np.empty(size.value, dtype=np.uint8)
    _call("mxgemm_preshuffle_scales", name, _ptr(a.view(np.uint8)), rows,
          blocks, 0, _ptr(out), out.size, ctypes.byref(size))
    return out


def unshuffle_scales(packed, layout, rows, k):
    """The inverse of preshuffle_scales: E8M0 scales of a [rows, k] operand
    laid out in `layout` (1-D uint8, at least the layout's size) back to
    row-major [rows, k/32], by the numerics library."""
    a = np.ascontiguousarray(packed, dtype=np.uint8).reshape(-1)
    if k % 32:
        raise ValueError("K = %d is not a multiple of 32" % k)
    out = np.empty((rows, k // 32), dtype=np.uint8)
    _call("mxgemm_unshuffle_scales", str(layout).encode(), _ptr(a), a.size,
          rows, k // 32, _ptr(out), out.size)
    return out


class GemmOperands:
    """The operands of one GEMM Y = X . W^T for the reference and the check
    (the arrays are kept alive as long as this object)."""

    def __init__(self, x, xs, w, ws, x_format="e4m3", w_format="e4m3",
                 w_scale="block32x32"):
        self.arrays = [_bytes2d(a, name) for a, name in
                       ((x, "x"), (xs, "xs"), (w, "w"), (ws, "ws"))]
        x, xs, w, ws = self.arrays
        if w.shape[1] != x.shape[1]:
            raise ValueError(f"x has K = {x.shape[1]} but w has K = "
                             f"{w.shape[1]}")
        self.c = Operands(x.shape[0], w.shape[0], x.shape[1],
                          *[_ptr(a) for a in self.arrays],
                          _enum(FORMATS, x_format, "x_format"),
                          _enum(FORMATS, w_format, "w_format"),
                          _enum(GRANULARITIES, w_scale, "w_scale"))
        want = {"xs": (x.shape[0], x.shape[1] // 32),
                "ws": (scale_rows(w.shape[0], w_scale), x.shape[1] // 32)}
        for name, a in (("xs", xs), ("ws", ws)):
            if a.shape != want[name]:
                raise ValueError(f"{name} has shape {a.shape}, expected "
                                 f"{want[name]}")


def reference_gemm(ops, k_step, rows=None, cols=None, out_type="bf16"):
    """The bit-exact reference of Y[rows, cols] (slices, default all) with
    the kernel's accumulation step `k_step` (its MFMA K): BF16 bits
    (uint16) or FP32 bits (uint32)."""
    code, dtype = _enum(OUT_TYPES, out_type, "out_type")
    r0, r1, _ = (rows or slice(None)).indices(ops.c.m)
    c0, c1, _ = (cols or slice(None)).indices(ops.c.n)
    out = np.empty((max(r1 - r0, 0), max(c1 - c0, 0)), dtype)
    _call("mxgemm_reference_gemm", ctypes.byref(ops.c), r0, r1, c0, c1,
          k_step, code, out.ctypes.data, out.shape[1])
    return out


def check_gemm(ops, y, k_step, regions=(), sentinel=0xFF, out_type="bf16",
               k_splits=1):
    """The GEMM check: `y` [M, N] (filled with `sentinel` bytes before the
    launch) against the reference on every written output. `regions` are
    (r0, r1, c0, c1) rectangles the kernel was expected to write; written
    outputs outside them count as stray. `k_splits`: the kernel's split-K
    segments (the reference then follows the segment rule). Returns a dict
    with compared, mismatches, unwritten, stray, last_row_written and the
    first mismatch."""
    code, dtype = _enum(OUT_TYPES, out_type, "out_type")
    y = np.ascontiguousarray(y)
    if y.shape != (ops.c.m, ops.c.n) or y.dtype.itemsize != \
            np.dtype(dtype).itemsize:
        raise ValueError(f"y must be [{ops.c.m}, {ops.c.n}] of {out_type}, "
                         f"got {y.shape} {y.dtype}")
    reg = np.ascontiguousarray(np.array(regions, np.int64).reshape(-1, 4))
    res = CheckResult()
    _call("mxgemm_check_gemm_split", ctypes.byref(ops.c), y.ctypes.data,
          code, k_step, k_splits, sentinel, _ptr(reg, ctypes.c_int64),
          len(reg), ctypes.byref(res))
    out = {f: getattr(res, f) for f, _ in CheckResult._fields_}
    out["last_row_written"] = bool(out["last_row_written"])
    return out
