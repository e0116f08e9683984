"""mxgemm: block-scaled MXFP8 GEMMs for AMD gfx950 from Python.

- quantize_mx / dequantize / bf16_to_float32: NumPy MX quantization that
  matches the C++ quantizer bit for bit (docs/Numerics.md);
- plan(...): the runtime shim's decision for a problem (mxgemm_query);
- gemm(x, xs, w, ws, out=None, ...): Y = X . W^T through the shim
  (mxgemm_gemm); NumPy/`__array_interface__` inputs are copied to the device,
  objects with data_ptr() are taken as device memory as they are;
- pack_weights(w, ...): W in the MFMA-panel layout of kernels with
  stage_w = packed_registers (mxgemm_pack_weights), once per weight tensor;
  pack_weight_panels(w, mfma): the same layout in NumPy (WeightPanels.h);
- compile(...): runs mxgemm-compile and returns (code object bytes, sidecar).

The runtime library is found via $MXGEMM_RUNTIME_LIBRARY, then the build tree;
HIP via $MXGEMM_HIP_LIBRARY, then libamdhip64.so, then the emulator's HIP
facade next to the runtime library (see docs/Runtime.md).
"""

import ctypes
import json
import os
import shutil
import subprocess
import tempfile
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from . import _runtime as _rt
from ._mx import (bf16_to_float32, decode_e8m0, decode_table, dequantize,
                  encode_fp8, quantize_mx)

__all__ = ["quantize_mx", "dequantize", "bf16_to_float32", "encode_fp8",
           "decode_table", "decode_e8m0", "plan", "gemm", "compile",
           "kernels", "version", "pack_weights", "pack_weight_panels",
           "Plan", "Context", "MXGemmError", "NotEligible",
           "InvalidArgument", "HipError", "NotSupported", "CompileError"]


class MXGemmError(RuntimeError):
    def __init__(self, status, message, reason="NONE"):
        super().__init__(f"{status}: {message}")
        self.status, self.reason, self.message = status, reason, message


class NotEligible(MXGemmError):
    """No tuned kernel: run your own path. `reason` names the rule."""


class InvalidArgument(MXGemmError, ValueError):
    pass


class HipError(MXGemmError):
    pass


class NotSupported(MXGemmError):
    """pack_weights for a kernel that reads row-major W: nothing to pack."""


class CompileError(RuntimeError):
    pass


_ERRORS = {"NOT_ELIGIBLE": NotEligible, "INVALID_ARGUMENT": InvalidArgument,
           "HIP_ERROR": HipError, "NOT_SUPPORTED": NotSupported}


@dataclass
class Plan:
    status: str
    reason: str
    message: str
    entry: str = ""
    kernel: str = ""
    config: str = ""
    note: str = ""
    grid: tuple = (0, 0, 0)
    block: tuple = (0, 0, 0)
    program_tile_m: int = 0
    tile_n: int = 0
    num_tiles_n: int = 0
    k_step: int = 0
    group_m: int = 1
    group_n: int = 0
    xcd_remap: int = 0
    # Layout of W the kernel reads: "row_major" or "mfma_panels".
    w_layout: str = "row_major"
    m_range: tuple = (0, 0)

    @property
    def eligible(self):
        return self.status == "OK"


_lib = None
_lib_lock = threading.Lock()


def _library():
    global _lib
    with _lib_lock:
        if _lib is None:
            _lib = _rt.load_library()
        return _lib


def version():
    return _library().mxgemm_version().decode()


def _default_hip_library():
    env = os.environ.get("MXGEMM_HIP_LIBRARY")
    if env:
        return env
    try:
        ctypes.CDLL("libamdhip64.so")
        return "libamdhip64.so"
    except OSError:
        pass
    facade = os.path.join(os.path.dirname(_library().path),
                          "libmxgemm_hip_emu.so")
    return facade if os.path.exists(facade) else "libamdhip64.so"


class Context:
    """One mxgemm_context (HIP loaded lazily by the library)."""

    def __init__(self, hip_library=None, strict=False, dry_run=False):
        lib = _library()
        self._lib = lib
        self.hip_library = hip_library or _default_hip_library()
        self._path = self.hip_library.encode()
        opts = _rt.ContextOptions()
        lib.mxgemm_context_options_init(ctypes.byref(opts))
        opts.hip_library = self._path
        opts.strict = int(strict)
        opts.dry_run = int(dry_run)
        self._handle = ctypes.c_void_p()
        self._check(lib.mxgemm_context_create(ctypes.byref(opts),
                                              ctypes.byref(self._handle)))

    def close(self):
        if self._handle:
            self._lib.mxgemm_context_destroy(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _check(self, status, message=None, reason=0):
        if status == 0:
            return
        name = _rt.STATUS.get(status, str(status))
        msg = message if message is not None else \
            self._lib.mxgemm_last_error().decode()
        raise _ERRORS.get(name, MXGEMM_ERROR_FALLBACK)(
            name, msg, _rt.REASONS.get(reason, str(reason)))

    # Device memory (thin wrappers over the dlopened HIP).
    def alloc(self, nbytes):
        p = ctypes.c_void_p()
        self._check(self._lib.mxgemm_device_alloc(self._handle, nbytes,
                                                  ctypes.byref(p)))
        return p.value

    def free(self, ptr):
        self._check(self._lib.mxgemm_device_free(self._handle, ptr))

    def to_device(self, array):
        a = np.ascontiguousarray(array)
        p = self.alloc(max(a.nbytes, 1))
        self._check(self._lib.mxgemm_copy_to_device(
            self._handle, p, a.ctypes.data, a.nbytes))
        return p

    def to_host(self, ptr, out):
        self._check(self._lib.mxgemm_copy_to_host(
            self._handle, out.ctypes.data, ptr, out.nbytes))

    def memset(self, ptr, value, nbytes):
        self._check(self._lib.mxgemm_device_memset(self._handle, ptr, value,
                                                   nbytes))

    def synchronize(self, stream=None):
        self._check(self._lib.mxgemm_synchronize(self._handle, stream))

    def device_info(self):
        name = ctypes.create_string_buffer(128)
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(self._lib.mxgemm_device_info(
            self._handle, name, 128, ctypes.byref(major), ctypes.byref(minor)))
        return name.value.decode(), (major.value, minor.value)


MXGEMM_ERROR_FALLBACK = MXGemmError
_default_context = None


def _context(ctx):
    global _default_context
    if ctx is not None:
        return ctx
    if _default_context is None:
        _default_context = Context()
    return _default_context


def _problem(m, n, k, x_format, w_format, w_scale, out_type,
             w_layout="row_major"):
    p = _rt.Problem()
    _library().mxgemm_problem_init(ctypes.byref(p), m, n, k)
    try:
        p.x_type, p.w_type = _rt.DTYPES[x_format], _rt.DTYPES[w_format]
        p.out_type = _rt.DTYPES[out_type]
        p.w_scale = _rt.SCALES[w_scale]
        p.w_layout = _rt.WEIGHT_LAYOUTS[w_layout]
    except KeyError as e:
        raise InvalidArgument("INVALID_ARGUMENT", f"unknown value {e}")
    return p


def _plan(ps):
    s = lambda b: b.decode() if b else ""
    return Plan(status=_rt.STATUS.get(ps.status, str(ps.status)),
                reason=_rt.REASONS.get(ps.reason, str(ps.reason)),
                message=ps.message.decode(errors="replace"),
                entry=s(ps.entry), kernel=s(ps.kernel), config=s(ps.config),
                note=s(ps.note), grid=(ps.grid_x, ps.grid_y, ps.grid_z),
                block=(ps.block_x, ps.block_y, ps.block_z),
                program_tile_m=ps.program_tile_m, tile_n=ps.tile_n,
                num_tiles_n=ps.num_tiles_n, k_step=ps.k_step,
                group_m=ps.group_m, group_n=ps.group_n,
                xcd_remap=ps.xcd_remap,
                w_layout=_rt.WEIGHT_LAYOUT_NAMES.get(ps.w_layout,
                                                     str(ps.w_layout)),
                m_range=(ps.m_min, ps.m_max))


def plan(m, n, k, x_format="e4m3", w_format="e4m3", w_scale="block32x32",
         out_type="bf16", ctx=None, w_layout="row_major"):
    """The shim's decision (never raises for NOT_ELIGIBLE; see .eligible).

    `w_layout` is the layout the caller's W is in; a kernel that reads the
    other one makes the problem NOT_ELIGIBLE with reason PACKED_WEIGHTS.
    """
    c = _context(ctx)
    p = _problem(m, n, k, x_format, w_format, w_scale, out_type, w_layout)
    ps = _rt.PlanStruct()
    status = c._lib.mxgemm_query(c._handle, ctypes.byref(p), ctypes.byref(ps))
    if status not in (0, 1):
        c._check(status, ps.message.decode(errors="replace"), ps.reason)
    return _plan(ps)


def workgroup_tile(p, workgroup):
    """(row, col) of the output tile computed by `workgroup` under plan p."""
    if not p.eligible or not 0 <= workgroup < p.grid[0]:
        raise InvalidArgument("INVALID_ARGUMENT", "workgroup out of the grid")
    # The runtime owns the swizzle (the one the kernel was compiled with).
    ps = _rt.PlanStruct()
    ps.status = 0
    ps.grid_x, ps.grid_y, ps.grid_z = p.grid
    ps.program_tile_m, ps.tile_n = p.program_tile_m, p.tile_n
    ps.num_tiles_n = p.num_tiles_n
    ps.group_m, ps.group_n, ps.xcd_remap = p.group_m, p.group_n, p.xcd_remap
    row, col = ctypes.c_int64(), ctypes.c_int64()
    lib = _library()
    status = lib.mxgemm_plan_workgroup_tile(ctypes.byref(ps), workgroup,
                                            ctypes.byref(row),
                                            ctypes.byref(col))
    if status != 0:
        raise MXGemmError(_rt.STATUS.get(status, str(status)),
                          "cannot map workgroup %d" % workgroup)
    return (row.value, col.value)


def kernels():
    """Static information about every embedded kernel."""
    lib = _library()
    out = []
    for i in range(lib.mxgemm_kernel_count()):
        info = _rt.KernelInfo()
        lib.mxgemm_kernel_get(i, ctypes.byref(info))
        out.append({"entry": info.entry.decode(), "kernel": info.kernel.decode(),
                    "arch": info.arch.decode(), "n": info.n, "k": info.k,
                    "m_range": (info.m_min, info.m_max),
                    "config": info.config.decode(), "note": info.note.decode(),
                    "code_object_bytes": info.code_object_bytes,
                    "vgpr_count": info.vgpr_count,
                    "w_layout": _rt.WEIGHT_LAYOUT_NAMES.get(
                        info.w_layout, str(info.w_layout))})
    return out


def _device_ptr(obj):
    """Device pointer of an object with data_ptr() (e.g. a torch tensor)."""
    dp = getattr(obj, "data_ptr", None)
    return dp() if callable(dp) else None


# MFMA panels (include/mxgemm/Support/WeightPanels.h): rows per panel by MFMA
# shape; every panel is 64 lanes x 32 operand bytes.
_PANEL_ROWS = {"m32n32k64": 32, "m16n16k128": 16}
_PANEL_BYTES = 2048


def pack_weight_panels(w, mfma="m32n32k64"):
    """W [N, K] (FP8 bytes) in the MFMA-panel layout, in NumPy.

    The layout kernels with stage_w = packed_registers read (DESIGN.md
    section 9's B operand, WeightPanels.h): panels of nonK rows x kStep K
    (32 x 64 for m32n32k64, 16 x 128 for m16n16k128) ordered [N/nonK][K/kStep];
    panel byte 32 * l + e of lane l holds W[nb*nonK + l % nonK][ks*kStep + kk]
    with kk = (kStep/2) * (e >> 4) + 16 * (l // nonK) + (e & 15). Returns a new
    contiguous array of W's dtype and shape [N, K] (the same N * K bytes, no
    longer row-major). mxgemm_pack_weights produces the same bytes on the
    device; this is an independent implementation for tests and for callers
    that prepare weights offline.
    """
    a = np.asarray(w)
    if a.ndim != 2 or a.dtype.itemsize != 1:
        raise ValueError(f"w must be 2-D FP8 bytes (itemsize 1), got shape "
                         f"{a.shape} dtype {a.dtype}")
    try:
        non_k = _PANEL_ROWS[mfma]
    except KeyError:
        raise ValueError(f"mfma must be one of {sorted(_PANEL_ROWS)}, got "
                         f"{mfma!r}")
    n, k = a.shape
    k_step = _PANEL_BYTES // non_k
    if n == 0 or k == 0 or n % non_k or k % k_step:
        raise ValueError(f"W [{n}, {k}] cannot be cut into {mfma} panels "
                         f"(N % {non_k} and K % {k_step} must be 0)")
    groups = 64 // non_k  # lane groups g = l // nonK; kStep / 2 = 16 * groups
    # K offset inside a step = 16 * (h * groups + g) + j for e = 16 * h + j.
    v = a.reshape(n // non_k, non_k, k // k_step, 2, groups, 16)
    #               nb        r        ks         h  g       j
    # Panel (nb, ks), lane l = g * nonK + r, byte e = 16 * h + j.
    return np.ascontiguousarray(v.transpose(0, 2, 4, 1, 3, 5)).reshape(n, k)


def _check_layout(w_layout):
    if w_layout not in _rt.WEIGHT_LAYOUTS:
        raise InvalidArgument(
            "INVALID_ARGUMENT", f"w_layout must be one of "
            f"{sorted(_rt.WEIGHT_LAYOUTS)}, got {w_layout!r}")


def _key_m(n, k, x_format, w_format, w_scale):
    """Some M the embedded kernels of this key accept (all M ranges of one
    key share the weight layout), or 1 so the shim names the failed rule."""
    lib = _library()
    want = (_rt.DTYPES.get(x_format), _rt.DTYPES.get(w_format),
            _rt.SCALES.get(w_scale), _rt.DTYPES["bf16"])
    for i in range(lib.mxgemm_kernel_count()):
        info = _rt.KernelInfo()
        lib.mxgemm_kernel_get(i, ctypes.byref(info))
        types = (info.x_type, info.w_type, info.w_scale, info.out_type)
        if (info.n, info.k) == (n, k) and types == want:
            return info.m_min
    return 1


def _pack_on_device(c, p, w_ptr, packed_ptr, stream):
    """mxgemm_pack_weights of device W into device `packed_ptr` (N * K)."""
    size = ctypes.c_size_t()
    status = c._lib.mxgemm_pack_weights(c._handle, ctypes.byref(p), w_ptr,
                                        packed_ptr, ctypes.byref(size), stream)
    if status == 1:
        # The C call reports no reason; the plan of the packed problem does.
        msg = c._lib.mxgemm_last_error().decode()
        q = _rt.PlanStruct()
        p2 = _rt.Problem.from_buffer_copy(p)
        p2.w_layout, p2.ld_w = _rt.WEIGHT_LAYOUTS["mfma_panels"], 0
        c._lib.mxgemm_query(c._handle, ctypes.byref(p2), ctypes.byref(q))
        raise NotEligible("NOT_ELIGIBLE", msg,
                          _rt.REASONS.get(q.reason, str(q.reason)))
    # NOT_SUPPORTED is the layout rule: the kernel reads row-major W.
    c._check(status, reason=11 if status == 4 else 0)
    return size.value


def pack_weights(w, m=None, out=None, x_format="e4m3", w_format="e4m3",
                 w_scale="block32x32", stream=None, ctx=None):
    """W [N, K] (row-major FP8 bytes) packed by the shim for its kernel.

    Runs mxgemm_pack_weights: the MFMA-panel layout (pack_weight_panels) that
    the kernel for (M, N, K, formats) reads. Pack once per weight tensor and
    pass the result to gemm(..., w_layout="mfma_panels"); the weight scales
    stay as they are. `m` selects the kernel; None takes the first M range
    of the key (every M range of a key reads the same layout). Host arrays:
    W is copied to the device, packed, and the packed bytes are returned as
    a uint8 [N, K] array (`out` if given). If `w` has data_ptr(), `out` must
    be device memory with data_ptr() too (it may be `w` itself); `stream` is
    synchronized (the shim packs through host memory) and `out` is returned.
    Raises NotSupported if the kernel reads row-major W (nothing to pack),
    NotEligible if there is no kernel for the problem.
    """
    c = _context(ctx)
    device = _device_ptr(w) is not None
    if device:
        if _device_ptr(out) is None:
            raise InvalidArgument("INVALID_ARGUMENT",
                                  "device W needs a device `out` (data_ptr())")
        n, k = tuple(w.shape)
    else:
        a = np.asarray(w)
        if a.ndim != 2 or a.dtype.itemsize != 1:
            raise InvalidArgument("INVALID_ARGUMENT",
                                  f"w must be 2-D FP8 bytes (uint8), got "
                                  f"shape {a.shape} dtype {a.dtype}")
        n, k = a.shape
    if m is None:
        m = _key_m(n, k, x_format, w_format, w_scale)
    p = _problem(m, n, k, x_format, w_format, w_scale, "bf16")
    if device:
        _pack_on_device(c, p, _device_ptr(w), _device_ptr(out), stream)
        return out
    # Size query first: a problem without a panel kernel fails before any copy.
    nbytes = _pack_on_device(c, p, None, None, stream)
    if out is None:
        out = np.empty((n, k), dtype=np.uint8)
    elif out.shape != (n, k) or out.dtype.itemsize != 1 or \
            not out.flags.c_contiguous or out.nbytes != nbytes:
        raise InvalidArgument("INVALID_ARGUMENT",
                              "out must be a contiguous 1-byte [N, K] array")
    d = c.to_device(a)
    try:
        _pack_on_device(c, p, d, d, stream)  # in place: the copy is ours
        c.to_host(d, out)
    finally:
        c.free(d)
    return out


def gemm(x, xs, w, ws, out=None, x_format="e4m3", w_format="e4m3",
         w_scale="block32x32", stream=None, ctx=None, workgroups=None,
         w_layout="row_major"):
    """Y = X . W^T through the runtime shim; returns Y as BF16 bits (uint16).

    x [M, K] / w [N, K]: uint8 FP8 codes; xs [M, K/32] and ws: uint8 E8M0
    scales ([ceil(N/32), K/32] for block32x32, [N, K/32] for per_row).
    Host arrays (NumPy or anything with __array_interface__) are copied to
    the device and Y is copied back into `out` (allocated if None). If all of
    x, xs, w, ws and `out` have data_ptr(), they are used as device memory
    and the launch stays asynchronous on `stream`. `workgroups` (emulator
    facade only) executes just those workgroups; other elements of Y are
    left as they were (0xffff when `out` is None).
    `w_layout` is the layout `w` is in: "row_major", or "mfma_panels" for W
    from pack_weights (the same [N, K] bytes), which kernels with
    stage_w = packed_registers read. Pack once per weight tensor: given
    row-major W for such a kernel, gemm packs a temporary copy on every call
    (with a RuntimeWarning) and, on device memory, synchronizes `stream`
    before freeing it. That fallback keeps old callers working; it is not
    the design.
    Raises NotEligible (with .reason) when the caller's own path must run.
    """
    c = _context(ctx)
    _check_layout(w_layout)
    ops = [x, xs, w, ws]
    device = all(_device_ptr(o) is not None for o in ops + [out])
    if device:
        shape = lambda o: tuple(o.shape)
        (m, k), (n, _) = shape(x), shape(w)
    else:
        arrays = [np.asarray(o) for o in ops]
        for name, a in zip(("x", "xs", "w", "ws"), arrays):
            if a.ndim != 2:
                raise InvalidArgument("INVALID_ARGUMENT",
                                      f"{name} must be 2-D, got {a.shape}")
            if a.dtype.itemsize != 1:
                raise InvalidArgument(
                    "INVALID_ARGUMENT",
                    f"{name} must hold raw FP8/E8M0 bytes (uint8), got "
                    f"{a.dtype}")
        (m, k), (n, k2) = arrays[0].shape, arrays[2].shape
        if k2 != k:
            raise InvalidArgument("INVALID_ARGUMENT",
                                  f"x has K = {k} but w has K = {k2}")
        ws_rows = n if w_scale in ("per_row", "per-row") else -(-n // 32)
        want = {"xs": (m, k // 32), "ws": (ws_rows, k // 32)}
        for name, a in (("xs", arrays[1]), ("ws", arrays[3])):
            if a.shape != want[name]:
                raise InvalidArgument("INVALID_ARGUMENT",
                                      f"{name} has shape {a.shape}, expected "
                                      f"{want[name]}")
    p = _problem(m, n, k, x_format, w_format, w_scale, "bf16", w_layout)
    pre = plan(m, n, k, x_format, w_format, w_scale, "bf16", ctx=c,
               w_layout=w_layout)
    repack = False
    if not pre.eligible and pre.reason == "PACKED_WEIGHTS" and \
            w_layout == "row_major":
        # The kernel reads MFMA panels and W is row-major: the per-call
        # fallback packs a temporary copy (callers should pack_weights once).
        packed = plan(m, n, k, x_format, w_format, w_scale, "bf16", ctx=c,
                      w_layout="mfma_panels")
        if packed.eligible:
            warnings.warn(
                f"kernel '{packed.kernel}' reads W in MFMA panels: packing W "
                f"on every call; pack it once with mxgemm.pack_weights and "
                f"pass w_layout='mfma_panels'", RuntimeWarning, stacklevel=2)
            pre, repack = packed, True
            p.w_layout = _rt.WEIGHT_LAYOUTS["mfma_panels"]
    if not pre.eligible:
        raise NotEligible(pre.status, pre.message, pre.reason)
    if workgroups is not None:
        os.environ["MXGEMM_EMU_WORKGROUPS"] = ",".join(map(str, workgroups))
    ps = _rt.PlanStruct()
    try:
        if device:
            t = _rt.Tensors(*[_device_ptr(o) for o in ops + [out]])
            tmp = None
            try:
                if repack:
                    tmp = c.alloc(n * k)
                    _pack_on_device(c, p, t.w, tmp, stream)
                    t.w = tmp
                status = c._lib.mxgemm_gemm(c._handle, ctypes.byref(p),
                                            ctypes.byref(t), stream,
                                            ctypes.byref(ps))
                c._check(status, ps.message.decode(errors="replace"),
                         ps.reason)
            finally:
                if tmp is not None:
                    # The kernel may still read the temporary copy.
                    c.synchronize(stream)
                    c.free(tmp)
            return out
        if out is None:
            out = np.full((m, n), 0xFFFF, dtype=np.uint16)
        elif out.shape != (m, n) or out.dtype != np.uint16 or \
                not out.flags.c_contiguous:
            raise InvalidArgument("INVALID_ARGUMENT",
                                  "out must be a contiguous uint16 [M, N]")
        ptrs = []
        try:
            ptrs = [c.to_device(a) for a in arrays]
            ptrs.append(c.to_device(out))
            t = _rt.Tensors(*ptrs)
            if repack:
                # Packed in place: this device copy of W is ours.
                _pack_on_device(c, p, ptrs[2], ptrs[2], stream)
            status = c._lib.mxgemm_gemm(c._handle, ctypes.byref(p),
                                        ctypes.byref(t), stream,
                                        ctypes.byref(ps))
            c._check(status, ps.message.decode(errors="replace"), ps.reason)
            c.synchronize(stream)
            c.to_host(ptrs[4], out)
        finally:
            for q in ptrs:
                c.free(q)
        return out
    finally:
        if workgroups is not None:
            os.environ.pop("MXGEMM_EMU_WORKGROUPS", None)


def _find_compiler():
    env = os.environ.get("MXGEMM_COMPILE")
    if env:
        return env
    try:
        lib_dir = os.path.dirname(_library().path)
        cand = os.path.join(os.path.dirname(lib_dir), "bin", "mxgemm-compile")
        if os.path.exists(cand):
            return cand
    except OSError:
        pass
    found = shutil.which("mxgemm-compile")
    if not found:
        raise CompileError("mxgemm-compile not found (set MXGEMM_COMPILE or "
                           "put it on PATH)")
    return found


def compile(n, k, config=None, x_format="e4m3", w_format="e4m3",
            w_scale="block32x32", out_type="bf16", name=None, compiler=None):
    """Compiles one kernel with mxgemm-compile.

    `config` is the body of #mxgemm.config<...> as a string or a dict of
    fields. Returns (code object bytes, sidecar metadata dict).
    """
    if isinstance(config, dict):
        config = ", ".join(
            f"{f} = {str(v).lower() if isinstance(v, bool) else v}"
            for f, v in config.items())
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "kernel.hsaco")
        cmd = [compiler or _find_compiler(), "--n", str(n), "--k", str(k),
               "--x-format", x_format, "--w-format", w_format,
               "--w-scale", w_scale.replace("-", "_"), "--out-type", out_type,
               "-o", out]
        if config:
            cmd += ["--config", config]
        if name:
            cmd += ["--name", name]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(proc.stderr.strip() or proc.stdout.strip())
        with open(out, "rb") as f:
            code = f.read()
        with open(out + ".json") as f:
            meta = json.load(f)
    return code, meta
