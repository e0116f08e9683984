"""mxgemm: block-scaled MXFP8 GEMMs for AMD gfx950 from Python.

- quantize_mx / dequantize / bf16_to_float32: NumPy MX quantization that
  matches the C++ quantizer bit for bit (docs/Numerics.md);
- plan(...): the runtime shim's decision for a problem (mxgemm_query);
- gemm(x, xs, w, ws, out=None, ...): Y = X . W^T through the shim
  (mxgemm_gemm); NumPy/`__array_interface__` inputs are copied to the device,
  objects with data_ptr() are taken as device memory as they are;
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
from dataclasses import dataclass

import numpy as np

from . import _runtime as _rt
from ._mx import (bf16_to_float32, decode_e8m0, decode_table, dequantize,
                  encode_fp8, quantize_mx)

__all__ = ["quantize_mx", "dequantize", "bf16_to_float32", "encode_fp8",
           "decode_table", "decode_e8m0", "plan", "gemm", "compile",
           "kernels", "version", "Plan", "Context", "MXGemmError",
           "NotEligible", "InvalidArgument", "HipError", "CompileError"]


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


class CompileError(RuntimeError):
    pass


_ERRORS = {"NOT_ELIGIBLE": NotEligible, "INVALID_ARGUMENT": InvalidArgument,
           "HIP_ERROR": HipError}


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


def _problem(m, n, k, x_format, w_format, w_scale, out_type):
    p = _rt.Problem()
    _library().mxgemm_problem_init(ctypes.byref(p), m, n, k)
    try:
        p.x_type, p.w_type = _rt.DTYPES[x_format], _rt.DTYPES[w_format]
        p.out_type = _rt.DTYPES[out_type]
        p.w_scale = _rt.SCALES[w_scale]
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
                m_range=(ps.m_min, ps.m_max))


def plan(m, n, k, x_format="e4m3", w_format="e4m3", w_scale="block32x32",
         out_type="bf16", ctx=None):
    """The shim's decision (never raises for NOT_ELIGIBLE; see .eligible)."""
    c = _context(ctx)
    p = _problem(m, n, k, x_format, w_format, w_scale, out_type)
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
                    "vgpr_count": info.vgpr_count})
    return out


def _device_ptr(obj):
    """Device pointer of an object with data_ptr() (e.g. a torch tensor)."""
    dp = getattr(obj, "data_ptr", None)
    return dp() if callable(dp) else None


def gemm(x, xs, w, ws, out=None, x_format="e4m3", w_format="e4m3",
         w_scale="block32x32", stream=None, ctx=None, workgroups=None):
    """Y = X . W^T through the runtime shim; returns Y as BF16 bits (uint16).

    x [M, K] / w [N, K]: uint8 FP8 codes; xs [M, K/32] and ws: uint8 E8M0
    scales ([ceil(N/32), K/32] for block32x32, [N, K/32] for per_row).
    Host arrays (NumPy or anything with __array_interface__) are copied to
    the device and Y is copied back into `out` (allocated if None). If all of
    x, xs, w, ws and `out` have data_ptr(), they are used as device memory
    and the launch stays asynchronous on `stream`. `workgroups` (emulator
    facade only) executes just those workgroups; other elements of Y are
    left as they were (0xffff when `out` is None).
    Raises NotEligible (with .reason) when the caller's own path must run.
    """
    c = _context(ctx)
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
    p = _problem(m, n, k, x_format, w_format, w_scale, "bf16")
    pre = plan(m, n, k, x_format, w_format, w_scale, "bf16", ctx=c)
    if not pre.eligible:
        raise NotEligible(pre.status, pre.message, pre.reason)
    if workgroups is not None:
        os.environ["MXGEMM_EMU_WORKGROUPS"] = ",".join(map(str, workgroups))
    ps = _rt.PlanStruct()
    try:
        if device:
            t = _rt.Tensors(*[_device_ptr(o) for o in ops + [out]])
            status = c._lib.mxgemm_gemm(c._handle, ctypes.byref(p),
                                        ctypes.byref(t), stream,
                                        ctypes.byref(ps))
            c._check(status, ps.message.decode(errors="replace"), ps.reason)
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
