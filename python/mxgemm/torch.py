"""mxgemm from PyTorch: MXFP8 GEMMs, quantization and weight packing as
`torch.library` operators of the `mxgemm` namespace.

    import mxgemm.torch as mt
    codes, scales = mt.quantize_mxfp8(x_bf16)                # E4M3 + E8M0
    w_packed, layout = mt.pack_weights(w_codes)              # once per W
    y = mt.scaled_mm(codes, scales, w_packed, w_scales, w_layout=layout)
    mt.last_path()   # PathRecord(op='scaled_mm', path='runtime', ...)

The operators (torch.ops.mxgemm.*; the functions of this module check
every argument with a message that says what is wrong, then call them):

    scaled_mm(Tensor x, Tensor x_scale, Tensor weight, Tensor weight_scale,
              ScalarType? out_dtype=None, str w_layout="row_major",
              str x_scale_layout="row_major") -> Tensor
    quantize_mxfp8(Tensor x, str fmt="e4m3", str granularity="per_row",
              str scale_layout="row_major") -> (Tensor, Tensor)
    pack_weights(Tensor weight, int? m=None) -> Tensor

Operands, as vLLM's ROCm MXFP8 block-32 linear passes them: x [M, K] FP8
codes, x_scale [M, K/32] E8M0, weight [N, K] FP8 codes, weight_scale
[ceil(N/32), K/32] (32x32 blocks) or [N, K/32] (per row) E8M0, on one
device. scaled_mm's operands may be row-major views (dense rows, any row
stride, as x[:, :K] of a wider buffer): on the GPU their strides go to the
runtime, whose generic kernels read views of x and x_scale in place (views
of weight or weight_scale take the reference: NOT_CONTIGUOUS); CPU tensors
are copied densely anyway. FP8 and E8M0 are uint8 tensors of raw bytes
(uint8 codes are E4M3); on a torch with float8 dtypes (2.1+) those are
accepted too and viewed as bytes. out_dtype: bfloat16 (default) or float32.
x_scale may instead be in an MFMA-native layout (x_scale_layout
'mfma_32x32x64' or 'mfma_16x16x128', docs/Runtime.md "Scale layouts"): a
contiguous 1-D tensor of mxgemm.scale_bytes(layout, M, K) bytes, as
quantize_mxfp8(..., scale_layout=) writes it; x_scale_layout(m, n, k) says
which layout the runtime's fastest kernel for a call reads (a scale-layout
variant of the tuning database, e.g. wo_b's at M 8193..16384).

Which path runs (last_path(), counters()):
- "runtime": the runtime shim (libmxgemm_runtime.so, mxgemm_gemm) with its
  tuned kernel. GPU tensors (a ROCm build of torch) stay on the device and
  run on torch's current stream. CPU tensors take it when a HIP library is
  configured (set_context(), or $MXGEMM_HIP_LIBRARY: the emulator's HIP
  facade in the tests): they are copied into that library's device memory.
- "reference": the project's bit-exact CPU reference (libmxgemm_numerics.so:
  the C++ reference GEMM with the kernel's K step, the C++ quantizer and
  panel packer), when no runtime is configured or the runtime declines the
  problem; the record's reason says why (the runtime's reason name).
  quantize_mxfp8 with per-row scales runs the runtime's device quantizer
  (mxgemm_quantize) on the same rule as scaled_mm; block32x32 scales
  (weights) always come from the C++ quantizer.
- "fallback": make_mxfp8_linear's caller-supplied path.
Nothing is computed in Python: the numerics exist once, in C++.

Meta ("fake") implementations for shape inference are registered on torch
versions that have torch.library.register_fake / impl_abstract (2.x);
torch 1.13 (Debian's) has neither.
"""

import collections
import ctypes
import os
import threading
import warnings
import weakref

import numpy as np
import torch

from . import _api, _numerics

__all__ = ["scaled_mm", "quantize_mxfp8", "pack_weights", "weight_layout",
           "x_scale_layout",
           "make_mxfp8_linear", "last_path", "counters", "reset_counters",
           "set_context", "PathRecord", "OP_SCHEMAS"]

# The K step of gfx950's 32x32x64 scaled MFMA: what the reference uses for
# a problem no kernel serves (the serving kernel's own step otherwise).
DEFAULT_K_STEP = 64
ALIGNMENT = 16  # bytes; the runtime's pointer rule (MXGEMM_REASON_MISALIGNED)

OP_SCHEMAS = {
    "scaled_mm": "scaled_mm(Tensor x, Tensor x_scale, Tensor weight, "
                 "Tensor weight_scale, ScalarType? out_dtype=None, "
                 'str w_layout="row_major", '
                 'str x_scale_layout="row_major") -> Tensor',
    "quantize_mxfp8": 'quantize_mxfp8(Tensor x, str fmt="e4m3", '
                      'str granularity="per_row", '
                      'str scale_layout="row_major") -> (Tensor, Tensor)',
    "pack_weights": "pack_weights(Tensor weight, int? m=None) -> Tensor",
}

PathRecord = collections.namedtuple("PathRecord", "op path reason detail")

_FP8 = {torch.uint8: "e4m3"}
_E8M0 = {torch.uint8}
if hasattr(torch, "float8_e4m3fn"):  # torch 2.1+: float8 dtypes as views
    _FP8.update({torch.float8_e4m3fn: "e4m3", torch.float8_e5m2: "e5m2"})
if hasattr(torch, "float8_e8m0fnu"):
    _E8M0.add(torch.float8_e8m0fnu)
_OUT = {torch.bfloat16: "bf16", torch.float32: "f32"}
_QUANT_IN = (torch.float32, torch.bfloat16, torch.float16)


class ArgumentError(_api.InvalidArgument):
    """A tensor argument the operators cannot take (a ValueError)."""

    def __init__(self, message):
        super().__init__("INVALID_ARGUMENT", message)


# --- which path ran ---------------------------------------------------------

_lock = threading.Lock()
_counts = collections.Counter()
_local = threading.local()


def _record(op, path, reason="NONE", detail=""):
    rec = PathRecord(op, path, reason, detail)
    _local.last = rec
    with _lock:
        _counts[(op, path)] += 1
    return rec


def last_path():
    """The PathRecord(op, path, reason, detail) of this thread's last call
    (None before any): path is 'runtime', 'reference' or 'fallback'; reason
    the runtime's reason name ('NONE' when it ran) or why it was not asked;
    detail the kernel or the runtime's message."""
    return getattr(_local, "last", None)


def counters():
    """{(op, path): calls} since the last reset_counters(), all threads."""
    with _lock:
        return dict(_counts)


def reset_counters():
    with _lock:
        _counts.clear()


# --- the runtime context ----------------------------------------------------

_ctx_lock = threading.Lock()
_ctx_state = {"explicit": None, "auto": None, "gpu": None, "dry_run": None}


def set_context(ctx):
    """Which runtime CPU tensors go through: an mxgemm.Context (e.g. on the
    emulator facade), None (default: a context on $MXGEMM_HIP_LIBRARY when
    that is set, else the CPU reference) or False (always the reference).
    Returns the previous setting."""
    if ctx is not None and ctx is not False and \
            not isinstance(ctx, _api.Context):
        raise TypeError("set_context takes an mxgemm.Context, None or False")
    with _ctx_lock:
        previous, _ctx_state["explicit"] = _ctx_state["explicit"], ctx
    return previous


def _cpu_context():
    """(context or None, why not) for CPU tensors."""
    with _ctx_lock:
        explicit = _ctx_state["explicit"]
        if explicit is False:
            return None, "DISABLED"
        if explicit is not None:
            return explicit, "NONE"
        hip = os.environ.get("MXGEMM_HIP_LIBRARY")
        if not hip:
            return None, "NO_HIP_LIBRARY"
        auto = _ctx_state["auto"]
        if auto is None or auto.hip_library != hip:
            auto = _ctx_state["auto"] = _api.Context(hip_library=hip)
        return auto, "NONE"


def _dry_run_context():
    """A context that plans without HIP: which kernel would serve a problem
    when the tensors go through no context."""
    with _ctx_lock:
        if _ctx_state["dry_run"] is None:
            _ctx_state["dry_run"] = _api.Context(dry_run=True)
        return _ctx_state["dry_run"]


def _gpu_context():
    """The context for tensors already on a GPU (ROCm torch): HIP is the
    library torch itself uses."""
    with _ctx_lock:
        if _ctx_state["gpu"] is None:
            _ctx_state["gpu"] = _api.Context(
                hip_library=os.environ.get("MXGEMM_HIP_LIBRARY") or
                "libamdhip64.so")
        return _ctx_state["gpu"]


def _query_context(cuda):
    """The context a plan is asked of: the one GPU tensors (`cuda`) or CPU
    tensors go through, else a dry-run context (so that loaded libraries
    and JIT count where they would serve the call)."""
    ctx = _gpu_context() if cuda else _cpu_context()[0]
    return ctx if ctx is not None else _dry_run_context()


def _on_gpu(t):
    return t.device.type == "cuda"  # a ROCm build names HIP devices "cuda"


def _stream(t):
    return ctypes.c_void_p(torch.cuda.current_stream(t.device).cuda_stream)


# --- argument checks --------------------------------------------------------

def _tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got "
                        f"{type(t).__name__}")
    return t


def _dtype_names(dtypes):
    return ", ".join(sorted(str(d) for d in dtypes))


def _checked_tensor(name, t, dtypes, what, dim, shape_rule,
                    contiguous=False):
    """A `dim`-D tensor (contiguous if asked) of one of `dtypes` on the CPU
    or a GPU; `shape_rule` completes the message "<name> ..." otherwise."""
    _tensor(name, t)
    if t.dtype not in dtypes:
        raise ArgumentError(f"{name} must hold {what} as "
                            f"{_dtype_names(dtypes)}, got {t.dtype}")
    if t.dim() != dim or (contiguous and not t.is_contiguous()):
        raise ArgumentError(f"{name} {shape_rule}, got shape "
                            f"{tuple(t.shape)}")
    if t.device.type not in ("cpu", "cuda"):
        raise ArgumentError(f"{name} is on device '{t.device}': mxgemm takes "
                            f"CPU tensors or GPU (ROCm) tensors")
    return t


def _matrix(name, t, dtypes, what):
    """A 2-D tensor of one of `dtypes` on the CPU or a GPU."""
    return _checked_tensor(name, t, dtypes, what, 2, "must be 2-D")


def _scale_layout(what, layout):
    """True for an MFMA-native scale layout, False for row-major."""
    if layout not in _api._rt.SCALE_LAYOUTS:
        raise ArgumentError(f"{what} must be one of "
                            f"{sorted(_api._rt.SCALE_LAYOUTS)}, got "
                            f"{layout!r}")
    return layout != "row_major"


def _native_scales(name, t, layout):
    """E8M0 scales in an MFMA-native layout: a contiguous 1-D tensor."""
    _checked_tensor(name, t, _E8M0, "E8M0 scales", 1,
                    f"in {layout} must be a contiguous 1-D tensor of "
                    f"mxgemm.scale_bytes() bytes", contiguous=True)


def _contiguous(**tensors):
    """Checked after the shapes: a slice is named by its shape first."""
    for name, t in tensors.items():
        rows, cols = t.shape
        if rows * cols and not t.is_contiguous():
            raise ArgumentError(f"{name} must be contiguous row-major "
                                f"(stride ({cols}, 1)), got stride "
                                f"{tuple(t.stride())}; call .contiguous()")


def _row_strides(**tensors):
    """{ld_<key>: leading dimension} of tensors given as key=(name, t), by
    the binding's rule (_api._row_stride: row-major views with dense rows,
    0 for dense rows); ArgumentError for any other layout."""
    try:
        return {"ld_" + key: _api._row_stride(name, t, tuple(t.shape))
                for key, (name, t) in tensors.items()}
    except _api.InvalidArgument as e:
        raise ArgumentError(e.message) from None


def _same_device(**tensors):
    devices = {name: t.device for name, t in tensors.items()}
    if len(set(devices.values())) > 1:
        where = ", ".join(f"{n} on {d}" for n, d in devices.items())
        raise ArgumentError(f"all tensors must be on one device: {where}")


def _aligned(**tensors):
    """The runtime reads device tensors in place: 16-byte aligned only."""
    for name, t in tensors.items():
        if t.data_ptr() % ALIGNMENT:
            raise ArgumentError(
                f"{name} starts at {t.data_ptr():#x}, not {ALIGNMENT}-byte "
                f"aligned (a view with a storage offset?); call .clone()")


def _bytes(t):
    return t if t.dtype == torch.uint8 else t.view(torch.uint8)


class _Gemm:
    """The checked operands of one scaled_mm."""

    def __init__(self, x, x_scale, weight, weight_scale, out_dtype,
                 w_layout, x_scale_layout="row_major"):
        _matrix("x", x, _FP8, "FP8 codes")
        _matrix("weight", weight, _FP8, "FP8 codes")
        native = _scale_layout("x_scale_layout", x_scale_layout)
        if native:
            _native_scales("x_scale", x_scale, x_scale_layout)
        else:
            _matrix("x_scale", x_scale, _E8M0, "E8M0 scales")
        _matrix("weight_scale", weight_scale, _E8M0, "E8M0 scales")
        _same_device(x=x, x_scale=x_scale, weight=weight,
                     weight_scale=weight_scale)
        if out_dtype is None:
            out_dtype = torch.bfloat16
        if out_dtype not in _OUT:
            raise ArgumentError(f"out_dtype must be one of "
                                f"{_dtype_names(_OUT)}, got {out_dtype}")
        if w_layout not in _api._rt.WEIGHT_LAYOUTS:
            raise ArgumentError(f"w_layout must be one of "
                                f"{sorted(_api._rt.WEIGHT_LAYOUTS)}, got "
                                f"{w_layout!r}")
        m, k = x.shape
        n, wk = weight.shape
        if m == 0 or n == 0 or k == 0:
            raise ArgumentError(f"empty problem: x {tuple(x.shape)}, weight "
                                f"{tuple(weight.shape)}")
        if k % 32:
            raise ArgumentError(f"K = {k} (x.shape[1]) must be a multiple of "
                                f"32, the MX block size")
        if wk != k:
            raise ArgumentError(f"weight has K = {wk} (shape "
                                f"{tuple(weight.shape)}) but x has K = {k}")
        if native:
            want = _api.scale_bytes(x_scale_layout, m, k)
            if x_scale.numel() != want:
                raise ArgumentError(
                    f"x_scale in {x_scale_layout} must hold "
                    f"mxgemm.scale_bytes({x_scale_layout!r}, {m}, {k}) = "
                    f"{want} bytes, got {x_scale.numel()}")
        elif tuple(x_scale.shape) != (m, k // 32):
            raise ArgumentError(f"x_scale must be [M, K/32] = "
                                f"{[m, k // 32]} (one E8M0 per 32 elements "
                                f"of a row of x), got {list(x_scale.shape)}")
        block, row = (-(-n // 32), k // 32), (n, k // 32)
        if tuple(weight_scale.shape) == block:
            self.w_scale = "block32x32"
        elif tuple(weight_scale.shape) == row:
            self.w_scale = "per_row"
        else:
            raise ArgumentError(
                f"weight_scale must be [ceil(N/32), K/32] = {list(block)} "
                f"(32x32 blocks) or [N, K/32] = {list(row)} (per row), got "
                f"{list(weight_scale.shape)}")
        views = dict(x=("x", x), xs=("x_scale", x_scale),
                     w=("weight", weight), ws=("weight_scale", weight_scale))
        if native:  # a flat tensor of whole chunks: no leading dimension
            del views["xs"]
        lds = _row_strides(**views)
        self.m, self.n, self.k = m, n, k
        self.x_format, self.w_format = _FP8[x.dtype], _FP8[weight.dtype]
        self.out_dtype, self.out_type = out_dtype, _OUT[out_dtype]
        self.w_layout = w_layout
        self.x_scale_layout = x_scale_layout
        self.tensors = [_bytes(t) for t in (x, x_scale, weight, weight_scale)]
        self.device = x.device
        # GPU tensors are read in place, so the runtime sees their strides;
        # CPU tensors reach it as dense copies.
        self.lds = lds if x.device.type == "cuda" else {}

    def k_step(self):
        """The K step of the kernel the runtime runs for this problem (its
        M bucket's entry, a generic or loaded kernel), so that the reference
        path steps K as that kernel does; DEFAULT_K_STEP when none serves
        it."""
        info = _serving_kernel(self.n, self.k, self.x_format, self.w_format,
                               self.w_scale, self.m,
                               self.device.type == "cuda", self.out_type,
                               self.w_layout, self.x_scale_layout)
        return info["k_step"] if info else DEFAULT_K_STEP


def _serving_kernel(n, k, x_format="e4m3", w_format="e4m3",
                    w_scale="block32x32", m=None, cuda=False, out_type="bf16",
                    w_layout="row_major", x_scale_layout="row_major"):
    """{'kernel', 'w_layout', 'k_step', 'mfma', 'm'} of the kernel the
    runtime runs for (M, N, K, formats, out_type), or None when none serves
    it. Asked of the context the tensors go through (so that loaded
    libraries and JIT count), else of a dry-run context; W in `w_layout`
    first, then in the other layout; X scales in `x_scale_layout`, then
    row-major (so that a call no kernel serves in a native layout steps K
    as its row-major twin does). M None: the key's first embedded M range
    (all M ranges of a key read one W layout), else 1."""
    if m is None:
        m = _api._key_m(n, k, x_format, w_format, w_scale)
    ctx = _query_context(cuda)
    other = "row_major" if w_layout == "mfma_panels" else "mfma_panels"
    tries = [(x_scale_layout, w_layout), (x_scale_layout, other)]
    if x_scale_layout != "row_major":
        tries += [("row_major", w_layout), ("row_major", other)]
    for scales, layout in tries:
        p = _api.plan(m, n, k, x_format, w_format, w_scale, out_type,
                      ctx=ctx, w_layout=layout, x_scale_layout=scales)
        if p.eligible:
            # The panel layout follows the MFMA, which the K step names.
            return {"kernel": p.kernel, "w_layout": p.w_layout, "m": m,
                    "k_step": p.k_step,
                    "mfma": "m16n16k128" if p.k_step == 128 else "m32n32k64"}
    return None


# --- scaled_mm --------------------------------------------------------------

def _np(t):
    return t.numpy() if t.device.type == "cpu" else t.cpu().numpy()


def _row_major_weight(g, w):
    """W [N, K] bytes in row-major order (NumPy). Packed W is put back
    through the C++ packer's own permutation (packing byte planes of each
    element's index), never a second copy of the layout formula."""
    if g.w_layout == "row_major":
        return _np(w)
    info = _serving_kernel(g.n, g.k, g.x_format, g.w_format, g.w_scale, g.m,
                           g.device.type == "cuda")
    if info is None or info["w_layout"] != "mfma_panels":
        raise ArgumentError(
            f"w_layout='mfma_panels' but no kernel packs W of N = {g.n}, "
            f"K = {g.k} (pack_weights returns W unchanged for such shapes)")
    mfma = info["mfma"]
    index = np.arange(g.n * g.k, dtype=np.uint32).reshape(g.n, g.k)
    source = np.zeros(g.n * g.k, np.uint32)
    for shift in (0, 8, 16, 24):
        plane = ((index >> shift) & 0xFF).astype(np.uint8)
        source |= _numerics.pack_weight_panels(plane, mfma) \
            .reshape(-1).astype(np.uint32) << shift
    row_major = np.empty(g.n * g.k, np.uint8)
    row_major[source] = _np(w).reshape(-1)
    return row_major.reshape(g.n, g.k)


def _reference_mm(g, reason, detail=""):
    x, xs, w, ws = g.tensors
    xs = _np(xs)
    if g.x_scale_layout != "row_major":
        xs = _numerics.unshuffle_scales(xs, g.x_scale_layout, g.m, g.k)
    ops = _numerics.GemmOperands(_np(x), xs, _row_major_weight(g, w),
                                 _np(ws), g.x_format, g.w_format, g.w_scale)
    k_step = g.k_step()  # plans: asked once
    bits = _numerics.reference_gemm(ops, k_step, out_type=g.out_type)
    view = np.int16 if g.out_type == "bf16" else np.float32
    y = torch.from_numpy(bits.view(view)).view(g.out_dtype)
    _record("scaled_mm", "reference", reason, detail or
            f"CPU reference, k_step {k_step}")
    return y.to(g.device)


def _plan(g, ctx, w_layout=None):
    return _api.plan(g.m, g.n, g.k, g.x_format, g.w_format, g.w_scale,
                     g.out_type, ctx=ctx, w_layout=w_layout or g.w_layout,
                     x_scale_layout=g.x_scale_layout, **g.lds)


def _runtime_mm(g, ctx, p):
    """mxgemm_gemm: GPU tensors in place on torch's current stream, CPU
    tensors through copies into the context's device memory."""
    x, xs, w, ws = g.tensors
    kw = dict(x_format=g.x_format, w_format=g.w_format, w_scale=g.w_scale,
              ctx=ctx, w_layout=g.w_layout, x_scale_layout=g.x_scale_layout)
    if g.device.type == "cuda":
        _aligned(x=x, x_scale=xs, weight=w, weight_scale=ws)
        y = torch.empty((g.m, g.n), dtype=torch.bfloat16, device=g.device)
        _api.gemm(x, xs, w, ws, out=y, stream=_stream(x), **kw)
    else:
        y = torch.empty((g.m, g.n), dtype=torch.bfloat16)
        out = y.view(torch.int16).numpy().view(np.uint16)
        out.fill(0xFFFF)  # unwritten outputs stay NaN, never stale memory
        _api.gemm(x.numpy(), xs.numpy(), w.numpy(), ws.numpy(), out=out,
                  **kw)
    _record("scaled_mm", "runtime", "NONE", p.kernel)
    return y


def _runtime_for(g):
    """(context, plan) when the runtime takes the problem, else (None,
    (reason, detail)) for the reference."""
    if g.out_type != "bf16":
        return None, ("OUTPUT_TYPE", "the runtime's kernels write BF16")
    if g.device.type == "cuda":
        ctx = _gpu_context()
    else:
        ctx, why = _cpu_context()
        if ctx is None:
            return None, (why, "set_context(False): CPU tensors take the "
                          "reference" if why == "DISABLED" else
                          "no HIP library configured for CPU tensors "
                          "(set_context() or $MXGEMM_HIP_LIBRARY)")
    p = _plan(g, ctx)
    if p.eligible:
        return ctx, p
    if p.reason == "PACKED_WEIGHTS" and g.w_layout == "row_major":
        # _api.gemm packs a temporary copy (with a RuntimeWarning).
        packed = _plan(g, ctx, w_layout="mfma_panels")
        if packed.eligible:
            return ctx, packed
    return None, (p.reason, p.message)


def _scaled_mm_impl(x, x_scale, weight, weight_scale, out_dtype=None,
                    w_layout="row_major", x_scale_layout="row_major"):
    g = _Gemm(x, x_scale, weight, weight_scale, out_dtype, w_layout,
              x_scale_layout)
    ctx, p = _runtime_for(g)
    if ctx is None:
        return _reference_mm(g, *p)
    return _runtime_mm(g, ctx, p)


def scaled_mm(x, x_scale, weight, weight_scale, out_dtype=torch.bfloat16,
              w_layout="row_major", x_scale_layout="row_major"):
    """Y [M, N] = (x * 2^x_scale) . (weight * 2^weight_scale)^T in
    out_dtype (bfloat16 or float32), bit-exact with the CPU reference on
    every path. `w_layout`: the layout `weight` is in ('row_major', or
    'mfma_panels' from pack_weights). `x_scale_layout`: the layout
    `x_scale` is in ('row_major' [M, K/32], or an MFMA-native layout from
    quantize_mxfp8(..., scale_layout=), a flat tensor; x_scale_layout()
    says which one the runtime's kernel for the call reads). Raises
    ArgumentError (a ValueError) or TypeError for arguments it cannot
    take; see last_path()."""
    _Gemm(x, x_scale, weight, weight_scale, out_dtype, w_layout,
          x_scale_layout)
    return torch.ops.mxgemm.scaled_mm(x, x_scale, weight, weight_scale,
                                      out_dtype, w_layout, x_scale_layout)


# --- quantize_mxfp8 ---------------------------------------------------------

def _quantize_args(x, fmt, granularity, scale_layout="row_major"):
    _matrix("x", x, _QUANT_IN, "values to quantize")
    if _scale_layout("scale_layout", scale_layout) and \
            granularity != "per_row":
        raise ArgumentError(f"scale_layout {scale_layout!r} is for per-row "
                            f"(activation) scales, got granularity "
                            f"{granularity!r}")
    if fmt not in _numerics.FORMATS:
        raise ArgumentError(f"fmt must be one of {sorted(_numerics.FORMATS)}"
                            f", got {fmt!r}")
    if granularity not in ("per_row", "block32x32"):
        raise ArgumentError(f"granularity must be 'per_row' or "
                            f"'block32x32', got {granularity!r}")
    if x.shape[1] % 32 or x.shape[1] == 0:
        raise ArgumentError(f"K = {x.shape[1]} (x.shape[1]) must be a "
                            f"positive multiple of 32, the MX block size")
    _contiguous(x=x)


_QUANT_TYPES = {torch.float32: "f32", torch.bfloat16: "bf16",
                torch.float16: "f16"}


def _quantize_reference(x, fmt, granularity, reason, detail,
                        scale_layout="row_major"):
    # FP32 first is exact for BF16/FP16; the C++ quantizer takes FP32.
    codes, scales = _numerics.quantize_mx(_np(x.float()), fmt, granularity)
    if scale_layout != "row_major":
        scales = _numerics.preshuffle_scales(scales, scale_layout)
    _record("quantize_mxfp8", "reference", reason, detail)
    return (torch.from_numpy(codes).to(x.device),
            torch.from_numpy(scales).to(x.device))


def _quantize_runtime(x, fmt, ctx, scale_layout="row_major"):
    """mxgemm_quantize: GPU tensors in place on torch's current stream, CPU
    tensors through copies into the context's device memory."""
    in_type = _QUANT_TYPES[x.dtype]
    m, k = x.shape
    if x.device.type == "cuda":
        _aligned(x=x)
        codes = torch.empty((m, k), dtype=torch.uint8, device=x.device)
        shape = (m, k // 32) if scale_layout == "row_major" else \
            (_api.scale_bytes(scale_layout, m, k),)
        scales = torch.empty(shape, dtype=torch.uint8, device=x.device)
        _api.quantize_device(x, fmt, in_type, codes, scales,
                             stream=_stream(x), ctx=ctx,
                             scale_layout=scale_layout)
    else:
        # The raw bits (NumPy has no bfloat16): BF16 as int16.
        host = x.view(torch.int16).numpy() if in_type == "bf16" else \
            x.numpy()
        codes, scales = _api.quantize_device(host, fmt, in_type, ctx=ctx,
                                             scale_layout=scale_layout)
        codes, scales = torch.from_numpy(codes), torch.from_numpy(scales)
    _record("quantize_mxfp8", "runtime", "NONE",
            f"mxgemm_quantize_{in_type}_{fmt}")
    return codes, scales


def _quantize_impl(x, fmt="e4m3", granularity="per_row",
                   scale_layout="row_major"):
    _quantize_args(x, fmt, granularity, scale_layout)
    if granularity != "per_row":
        return _quantize_reference(
            x, fmt, granularity, "GRANULARITY",
            "block32x32 scales (weights, once) come from the C++ quantizer "
            "on the host; the device kernel writes per-row scales")
    if x.device.type == "cuda":
        ctx = _gpu_context()
    else:
        ctx, why = _cpu_context()
        if ctx is None:
            return _quantize_reference(
                x, fmt, granularity, why,
                "set_context(False): CPU tensors take the reference"
                if why == "DISABLED" else
                "no HIP library configured for CPU tensors (set_context() or"
                " $MXGEMM_HIP_LIBRARY)", scale_layout)
    try:
        return _quantize_runtime(x, fmt, ctx, scale_layout)
    except _api.NotEligible as e:
        # No HIP, not a gfx950, a misaligned view: the C++ quantizer does it.
        return _quantize_reference(x, fmt, granularity, "NOT_ELIGIBLE",
                                   e.message, scale_layout)


def quantize_mxfp8(x, fmt="e4m3", granularity="per_row",
                   scale_layout="row_major"):
    """x [M, K] (float32, bfloat16 or float16; K % 32 == 0) -> (codes
    uint8 [M, K] in `fmt` ('e4m3' or 'e5m2'), scales uint8 E8M0): [M, K/32]
    per row (activations), [ceil(M/32), K/32] for 'block32x32' (weights).
    OCP MX v1.0 rule of lib/Numerics/Quantize.cpp (docs/Numerics.md):
    round to nearest even, saturating; an all-zero block gets scale 127.
    `scale_layout` (per-row scales only): 'row_major', or an MFMA-native
    layout ('mfma_32x32x64', 'mfma_16x16x128'; see x_scale_layout()), then
    the scales are a flat tensor of mxgemm.scale_bytes(layout, M, K) bytes
    for scaled_mm(..., x_scale_layout=layout)."""
    _quantize_args(x, fmt, granularity, scale_layout)
    return torch.ops.mxgemm.quantize_mxfp8(x, fmt, granularity, scale_layout)


# --- weight packing ---------------------------------------------------------

def weight_layout(n, k, fmt="e4m3", w_scale="block32x32", m=None):
    """The layout of W [N, K] the runtime's kernel reads ('row_major' or
    'mfma_panels'), at M `m` (None: any M of the key; every M range of a
    key reads one layout); 'row_major' when no kernel serves (N, K)."""
    info = _serving_kernel(n, k, fmt, fmt, w_scale, m)
    return info["w_layout"] if info else "row_major"


def x_scale_layout(m, n, k, fmt="e4m3", w_scale="block32x32",
                   w_layout=None, cuda=False):
    """The layout of X's scales to quantize into for a call of M rows on
    W [N, K]: an MFMA-native layout ('mfma_32x32x64' or 'mfma_16x16x128')
    when the runtime serves the call with a kernel that reads it (a
    scale-layout variant, docs/Tuning.md), else 'row_major' (what every
    kernel of the runtime takes). `w_layout` None: weight_layout(n, k).
    Asked of the context GPU tensors (cuda=True) or CPU tensors go through,
    else of a dry-run context, as scaled_mm would ask."""
    if w_layout is None:
        w_layout = weight_layout(n, k, fmt, w_scale, m)
    ctx = _query_context(cuda)
    for layout in ("mfma_32x32x64", "mfma_16x16x128"):
        p = _api.plan(m, n, k, fmt, fmt, w_scale, "bf16", ctx=ctx,
                      w_layout=w_layout, x_scale_layout=layout)
        if p.eligible:
            return layout
    return "row_major"


def _pack_impl(weight, m=None):
    _matrix("weight", weight, _FP8, "FP8 codes")
    _contiguous(weight=weight)
    n, k = weight.shape
    fmt = _FP8[weight.dtype]
    info = _serving_kernel(n, k, fmt, fmt, m=m,
                           cuda=weight.device.type == "cuda")
    if info is None or info["w_layout"] != "mfma_panels":
        raise ArgumentError(
            f"no kernel reads packed W of N = {n}, K = {k}: nothing to pack "
            f"(mxgemm.torch.pack_weights returns such W unchanged)")
    w = _bytes(weight)
    m = info["m"]
    if weight.device.type == "cuda":
        _aligned(weight=w)
        out = torch.empty_like(w)
        _api.pack_weights(w, m=m, out=out, x_format=fmt, w_format=fmt,
                          stream=_stream(w), ctx=_gpu_context())
        _record("pack_weights", "runtime", "NONE", info["kernel"])
        return out
    ctx, why = _cpu_context()
    if ctx is not None:
        try:
            packed = _api.pack_weights(w.numpy(), m=m, x_format=fmt,
                                       w_format=fmt, ctx=ctx)
            _record("pack_weights", "runtime", "NONE", info["kernel"])
            return torch.from_numpy(packed)
        except _api.NotEligible as e:
            why = e.reason  # e.g. HIP_UNAVAILABLE: the host packer does it
    packed = _numerics.pack_weight_panels(w.numpy(), info["mfma"])
    _record("pack_weights", "reference", why, info["kernel"])
    return torch.from_numpy(packed)


def pack_weights(weight, m=None):
    """(W', w_layout) for scaled_mm: W [N, K] FP8 codes in the layout the
    runtime's kernel for (N, K) reads. A kernel that reads MFMA panels gets
    a packed copy (pack once per weight tensor; the weight scales stay as
    they are); otherwise `weight` itself comes back with 'row_major'."""
    _matrix("weight", weight, _FP8, "FP8 codes")
    _contiguous(weight=weight)
    fmt = _FP8[weight.dtype]
    info = _serving_kernel(weight.shape[0], weight.shape[1], fmt, fmt, m=m,
                           cuda=weight.device.type == "cuda")
    layout = info["w_layout"] if info else "row_major"
    if layout == "row_major":
        return weight, layout
    packed = torch.ops.mxgemm.pack_weights(weight, m)
    return (packed if packed.dtype == weight.dtype
            else packed.view(weight.dtype)), layout


# --- the vLLM-style callable ------------------------------------------------

def make_mxfp8_linear(fallback, w_layout="row_major"):
    """A function (x, x_scale, weight, weight_scale, out_dtype) -> Y that
    runs scaled_mm when the runtime takes the call (asked with
    mxgemm_query) and `fallback` with the same arguments otherwise.

    `weight` is in `w_layout`. Row-major W for a kernel that reads MFMA
    panels is packed once per weight tensor (kept while the tensor lives
    and is unmodified), so `fallback` always receives the caller's W (with
    w_layout='mfma_panels' that is the packed W: keep row-major W and this
    default when the fallback reads W itself).
    Arguments that neither path could take raise. The function's
    `.counts` ({'mxgemm': n, 'fallback': n}) and `.fallback_reasons`
    (reason -> calls) are the path-engagement counts of the integration.
    """
    if not callable(fallback):
        raise TypeError("fallback must be callable")
    packed_cache = {}
    counts = collections.Counter({"mxgemm": 0, "fallback": 0})
    reasons = collections.Counter()
    lock = threading.Lock()

    def packed_weight(weight, m):
        key = id(weight)
        with lock:
            hit = packed_cache.get(key)
            if hit and hit[0]() is weight and hit[1] == weight._version:
                return hit[2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            packed, _ = pack_weights(weight, m)
        with lock:
            packed_cache[key] = (weakref.ref(weight), weight._version,
                                 packed)
            weakref.finalize(weight, packed_cache.pop, key, None)
        return packed

    def linear(x, x_scale, weight, weight_scale, out_dtype=torch.bfloat16):
        g = _Gemm(x, x_scale, weight, weight_scale, out_dtype, w_layout)
        ctx, p = _runtime_for(g)
        if ctx is None:
            with lock:
                counts["fallback"] += 1
                reasons[p[0]] += 1
            _record("linear", "fallback", p[0], p[1])
            return fallback(x, x_scale, weight, weight_scale, out_dtype)
        w = weight
        layout = w_layout
        if p.w_layout == "mfma_panels" and w_layout == "row_major":
            w, layout = packed_weight(weight, g.m), "mfma_panels"
        y = torch.ops.mxgemm.scaled_mm(x, x_scale, w, weight_scale,
                                       out_dtype, layout)
        with lock:
            counts["mxgemm"] += 1
        return y

    linear.counts = counts
    linear.fallback_reasons = reasons
    return linear


# --- registration -----------------------------------------------------------

def _register():
    lib = torch.library.Library("mxgemm", "DEF")
    impls = {"scaled_mm": _scaled_mm_impl, "quantize_mxfp8": _quantize_impl,
             "pack_weights": _pack_impl}
    for name, schema in OP_SCHEMAS.items():
        lib.define(schema)
        for key in ("CPU", "CUDA"):  # CUDA is HIP on a ROCm build
            lib.impl(name, impls[name], key)
    fake = getattr(torch.library, "register_fake", None) or \
        getattr(torch.library, "impl_abstract", None)
    if fake is not None:  # torch 2.x: shape inference without data
        def mm_fake(x, x_scale, weight, weight_scale, out_dtype=None,
                    w_layout="row_major", x_scale_layout="row_major"):
            return x.new_empty((x.shape[0], weight.shape[0]),
                               dtype=out_dtype or torch.bfloat16)

        def quantize_fake(x, fmt="e4m3", granularity="per_row",
                          scale_layout="row_major"):
            rows = x.shape[0] if granularity == "per_row" else \
                -(-x.shape[0] // 32)
            shape = (rows, x.shape[1] // 32) if scale_layout == "row_major" \
                else (_api.scale_bytes(scale_layout, x.shape[0],
                                       x.shape[1]),)
            return (x.new_empty(x.shape, dtype=torch.uint8),
                    x.new_empty(shape, dtype=torch.uint8))

        def pack_fake(weight, m=None):
            return torch.empty_like(weight)
        for name, fn in (("scaled_mm", mm_fake),
                         ("quantize_mxfp8", quantize_fake),
                         ("pack_weights", pack_fake)):
            fake("mxgemm::" + name, fn, lib=lib)
    return lib


_library = _register()
