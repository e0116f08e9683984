"""The runtime shim from Python: contexts, dispatch plans, GEMMs, weight
packing, the embedded kernels with their descriptors, and mxgemm-compile.

Arguments are checked here before they reach C (ctypes would silently wrap
an integer that does not fit, and a read-only or mis-shaped buffer would be
written or read out of bounds): every bad argument is an exception, never a
crash.
"""

import ctypes
import json
import numbers
import os
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass

import numpy as np

from . import _numerics
from . import _runtime as _rt


class MXGemmError(RuntimeError):
    def __init__(self, status, message, reason="NONE"):
        super().__init__(f"{status}: {message}")
        self.status, self.reason, self.message = status, reason, message


class NotEligible(MXGemmError):
    """No tuned kernel: run your own path. `reason` names the rule."""


class InvalidArgument(MXGemmError, ValueError):
    pass


class IntegerOverflow(InvalidArgument, OverflowError):
    """An integer argument that the C API's integer type cannot hold."""


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
    group_m: int = 0
    group_n: int = 0
    xcd_remap: int = 0
    # Layout of W the kernel reads: "row_major" or "mfma_panels".
    w_layout: str = "row_major"
    # Layouts of X's and W's scales the kernel reads: "row_major",
    # "mfma_16x16x128" or "mfma_32x32x64" (pack_scales / preshuffle_scales).
    x_scale_layout: str = "row_major"
    w_scale_layout: str = "row_major"
    m_range: tuple = (0, 0)
    # Split-K: K segments per split tile (1: none); with a tail split
    # (grid[1] == 1) the tiles split are the last tail_tiles; the second
    # launch has reduction_grid_x x grid[1] workgroups (0: none).
    k_splits: int = 1
    tail_tiles: int = 0
    reduction_grid_x: int = 0
    # Which kind of kernel serves it: "embedded", "library" (a directory
    # loaded by Context.load_library), "loaded_kernel", "jit" (compiled at
    # run time, MXGEMM_JIT=1), "generic" (an embedded generic kernel: run-time
    # N and K, for keys without a tuned one), or "none".
    kind: str = "none"

    @property
    def eligible(self):
        return self.status == "OK"

    @property
    def tail_split(self):
        """A tail split (docs/Runtime.md, "Split-K kernels"): split K on a
        1-D grid, only the last tail_tiles tiles in k_splits segments."""
        return self.k_splits > 1 and self.grid[1] == 1


_library = _rt.library


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

    def load_library(self, directory):
        """Loads a directory exported by `mxgemm-tune --export` (manifest,
        tuning database, code objects, descriptors) into this context
        (mxgemm_context_load_library): its entries then serve their keys
        ahead of the embedded ones (Plan.kind == "library"). Everything is
        checked first, and a refusal (InvalidArgument, HipError,
        NotEligible with the reason) leaves the context as it was."""
        self._check(self._lib.mxgemm_context_load_library(
            self._handle, os.fsencode(os.fspath(directory))))

    def set_jit(self, enable=True):
        """JIT for this context (mxgemm_context_set_jit; MXGEMM_JIT=1 turns
        it on for every context): a problem no tuned or loaded kernel
        serves gets a kernel compiled at run time (the call waits; the
        kernel cache keeps it for the next process), Plan.kind == "jit".
        A failure is NotEligible with reason JIT_FAILED."""
        self._check(self._lib.mxgemm_context_set_jit(self._handle,
                                                     int(bool(enable))))

    def set_generic(self, enable=True):
        """Generic kernels for this context (mxgemm_context_set_generic).
        On by default (MXGEMM_GENERIC=0 turns them off for every context):
        a problem no tuned, loaded or JIT kernel serves (E4M3 x E4M3, BF16
        out, row-major W, K a multiple of 32) runs on an embedded kernel
        that takes N and K at run time, Plan.kind == "generic".
        set_generic(False) gives NotEligible (NO_TUNED_KERNEL /
        M_OUT_OF_RANGE) instead, for a caller with a faster path."""
        self._check(self._lib.mxgemm_context_set_generic(self._handle,
                                                         int(bool(enable))))

    # Device memory (thin wrappers over the dlopened HIP).
    def alloc(self, nbytes):
        p = ctypes.c_void_p()
        nbytes = _int("nbytes", nbytes, 0, 2**64 - 1, "size_t")
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
        if not isinstance(out, np.ndarray) or not out.flags.c_contiguous or \
                not out.flags.writeable:
            raise InvalidArgument("INVALID_ARGUMENT", "out must be a "
                                  "writeable contiguous NumPy array")
        self._check(self._lib.mxgemm_copy_to_host(
            self._handle, out.ctypes.data, ptr, out.nbytes))

    def memset(self, ptr, value, nbytes):
        value = _int("value", value, 0, 255)
        nbytes = _int("nbytes", nbytes, 0, 2**64 - 1, "size_t")
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


def _int(name, value, lo, hi, c_type="int64"):
    """`value` as an int in [lo, hi]; a non-integer or a value outside the
    range is InvalidArgument, one that `c_type` cannot hold IntegerOverflow
    (ctypes would wrap it silently)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} must be an "
                              f"integer, got {value!r}")
    v = int(value)
    c_lo, c_hi = {"int64": (-2**63, 2**63 - 1), "uint32": (0, 2**32 - 1),
                  "size_t": (0, 2**64 - 1), "uint64": (0, 2**64 - 1)}[c_type]
    if not c_lo <= v <= c_hi:
        raise IntegerOverflow("INVALID_ARGUMENT", f"{name} = {v} does not "
                              f"fit the C API's {c_type}")
    if not lo <= v <= hi:
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} = {v} is outside "
                              f"{lo}..{hi}")
    return v


_I64 = (-2**63, 2**63 - 1)


def _enum(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise InvalidArgument("INVALID_ARGUMENT", f"{what} must be one of "
                              f"{sorted(table)}, got {value!r}") from None


_LEADING_DIMENSIONS = ("ld_x", "ld_xs", "ld_w", "ld_ws", "ld_y")


def _problem(m, n, k, x_format, w_format, w_scale, out_type,
             w_layout="row_major", lds=None, x_scale_layout="row_major",
             w_scale_layout="row_major"):
    """The C problem; `lds` maps ld_x, ld_xs, ld_w, ld_ws, ld_y to leading
    dimensions in elements (0 or absent: contiguous rows). The runtime owns
    the rules on them (which kernels take views, NOT_CONTIGUOUS)."""
    m, n, k = (_int(name, v, *_I64) for name, v in
               (("m", m), ("n", n), ("k", k)))
    p = _rt.Problem()
    _library().mxgemm_problem_init(ctypes.byref(p), m, n, k)
    p.x_type = _enum(_rt.DTYPES, x_format, "x_format")
    p.w_type = _enum(_rt.DTYPES, w_format, "w_format")
    p.out_type = _enum(_rt.DTYPES, out_type, "out_type")
    p.w_scale = _enum(_rt.SCALES, w_scale, "w_scale")
    p.w_layout = _enum(_rt.WEIGHT_LAYOUTS, w_layout, "w_layout")
    p.x_scale_layout = _enum(_rt.SCALE_LAYOUTS, x_scale_layout,
                             "x_scale_layout")
    p.w_scale_layout = _enum(_rt.SCALE_LAYOUTS, w_scale_layout,
                             "w_scale_layout")
    for name, value in (lds or {}).items():
        if name not in _LEADING_DIMENSIONS:
            raise InvalidArgument("INVALID_ARGUMENT", f"unknown leading "
                                  f"dimension {name!r}")
        setattr(p, name, _int(name, value, 0, _I64[1]))
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
                x_scale_layout=_rt.SCALE_LAYOUT_NAMES.get(
                    ps.x_scale_layout, str(ps.x_scale_layout)),
                w_scale_layout=_rt.SCALE_LAYOUT_NAMES.get(
                    ps.w_scale_layout, str(ps.w_scale_layout)),
                m_range=(ps.m_min, ps.m_max), k_splits=ps.k_splits,
                tail_tiles=ps.tail_tiles,
                reduction_grid_x=ps.reduction_grid_x,
                kind=_rt.PLAN_KINDS.get(ps.kind, str(ps.kind)))


def plan(m, n, k, x_format="e4m3", w_format="e4m3", w_scale="block32x32",
         out_type="bf16", ctx=None, w_layout="row_major", ld_x=0, ld_xs=0,
         ld_w=0, ld_ws=0, ld_y=0, x_scale_layout="row_major",
         w_scale_layout="row_major"):
    """The shim's decision (never raises for NOT_ELIGIBLE; see .eligible).

    `w_layout` is the layout the caller's W is in; a kernel that reads the
    other one makes the problem NOT_ELIGIBLE with reason PACKED_WEIGHTS.
    `x_scale_layout` / `w_scale_layout` are the layouts of the caller's
    scales ("row_major", "mfma_16x16x128", "mfma_32x32x64"); a kernel that
    reads others makes it NOT_ELIGIBLE with reason SCALE_LAYOUT (the plan's
    x_scale_layout / w_scale_layout say which).
    ld_* are the operands' leading dimensions in elements (0: contiguous):
    views of X, its scales and Y are served by the generic kernels, views
    of W or its scales are NOT_ELIGIBLE (reason NOT_CONTIGUOUS).
    """
    lds = dict(ld_x=ld_x, ld_xs=ld_xs, ld_w=ld_w, ld_ws=ld_ws, ld_y=ld_y)
    p = _problem(m, n, k, x_format, w_format, w_scale, out_type, w_layout,
                 lds, x_scale_layout, w_scale_layout)
    c = _context(ctx)
    ps = _rt.PlanStruct()
    status = c._lib.mxgemm_query(c._handle, ctypes.byref(p), ctypes.byref(ps))
    if status not in (0, 1):
        c._check(status, ps.message.decode(errors="replace"), ps.reason)
    return _plan(ps)


def row_split(m, n, k, x_format="e4m3", w_format="e4m3",
              w_scale="block32x32", out_type="bf16", ctx=None,
              w_layout="row_major"):
    """The launches gemm() makes (mxgemm_query_row_split): (plan,
    first_rows, tail). One launch: first_rows 0 and tail None. A row split:
    `plan` runs rows [0, first_rows), `tail` the rest (its workgroup tiles
    count rows from first_rows). Never raises for NOT_ELIGIBLE."""
    p = _problem(m, n, k, x_format, w_format, w_scale, out_type, w_layout,
                 dict(ld_x=0, ld_xs=0, ld_w=0, ld_ws=0, ld_y=0))
    c = _context(ctx)
    ps, ts = _rt.PlanStruct(), _rt.PlanStruct()
    first = ctypes.c_int64(0)
    status = c._lib.mxgemm_query_row_split(c._handle, ctypes.byref(p),
                                           ctypes.byref(ps),
                                           ctypes.byref(first),
                                           ctypes.byref(ts))
    if status not in (0, 1):
        c._check(status, ps.message.decode(errors="replace"), ps.reason)
    return _plan(ps), first.value, (_plan(ts) if first.value else None)


def _descriptor(descriptor):
    """(dict, JSON text) of a kernel descriptor given as either."""
    if isinstance(descriptor, (str, bytes)):
        text = descriptor.decode() if isinstance(descriptor, bytes) \
            else descriptor
        return _rt.read_json(text, "kernel descriptor"), text
    if not isinstance(descriptor, dict):
        raise InvalidArgument("INVALID_ARGUMENT", "a kernel descriptor is a "
                              "dict or its JSON text")
    return descriptor, json.dumps(descriptor)


def _descriptor_problem(d, m):
    """The problem a descriptor's kernel was compiled for, with M = m."""
    try:
        q = d["problem"]
        return _problem(m, q["n"], q["k"], q["x_format"], q["w_format"],
                        q["w_scale"], q["out_type"], d["w_layout"], None,
                        d.get("x_scale_layout", "row_major"),
                        d.get("w_scale_layout", "row_major"))
    except (KeyError, TypeError):
        raise InvalidArgument("INVALID_ARGUMENT", "kernel descriptor: no "
                              "problem and w_layout") from None


def descriptor_plan(descriptor, m):
    """The plan of a kernel descriptor (a compiled kernel's sidecar, as a
    dict or JSON text, or kernel_descriptor()) for M: the grid, tile order
    and k_step the runtime launches it with (mxgemm_descriptor_query; no
    context, HIP or code object). Raises like plan() does not: an M the
    kernel cannot take is NotEligible, a descriptor the runtime refuses is
    InvalidArgument."""
    d, text = _descriptor(descriptor)
    p = _descriptor_problem(d, m)
    ps = _rt.PlanStruct()
    status = _library().mxgemm_descriptor_query(text.encode(),
                                                ctypes.byref(p),
                                                ctypes.byref(ps))
    if status != 0:
        name = _rt.STATUS.get(status, str(status))
        raise _ERRORS.get(name, MXGemmError)(
            name, ps.message.decode(errors="replace"),
            _rt.REASONS.get(ps.reason, str(ps.reason)))
    result = _plan(ps)
    result.kernel = d.get("kernel", "")
    return result


class LoadedKernel:
    """A kernel compiled elsewhere (mxgemm-compile's code object and its
    descriptor) loaded into a context by the runtime (mxgemm_kernel_load):
    the runtime checks the descriptor against the bytes, plans the grid
    and packs the arguments; Python only passes device pointers."""

    def __init__(self, code, descriptor, ctx=None):
        self.ctx = _context(ctx)
        self.descriptor, text = _descriptor(descriptor)
        if not isinstance(code, (bytes, bytearray)) or not code:
            raise InvalidArgument("INVALID_ARGUMENT", "code must be the "
                                  "code object's bytes")
        self._code = bytes(code)
        self._handle, self._unloaded = ctypes.c_void_p(), False
        c = self.ctx
        c._check(c._lib.mxgemm_kernel_load(c._handle, self._code,
                                           len(self._code), text.encode(),
                                           ctypes.byref(self._handle)))

    @property
    def kernel(self):
        return self.descriptor["kernel"]

    def plan(self, m):
        """The runtime's plan of this kernel for M (its own problem)."""
        p = _descriptor_problem(self.descriptor, m)
        ps = _rt.PlanStruct()
        c = self.ctx
        status = c._lib.mxgemm_kernel_query(c._handle, self._handle,
                                            ctypes.byref(p), ctypes.byref(ps))
        if status != 0:
            c._check(status, ps.message.decode(errors="replace"), ps.reason)
        return _plan(ps)

    def launch(self, x, xs, w, ws, y, m, stream=None, workgroups=None):
        """Launches on device pointers (ints) X, Xs, W, Ws, Y with M = m,
        asynchronously on `stream`. `workgroups` (emulator facade only)
        executes just those tiles (ids of the plan's grid x), each with all
        its split-K segments."""
        p = _descriptor_problem(self.descriptor, m)
        ptrs = [_int(name, v, 0, 2**64 - 1, "size_t") for name, v in
                zip(("x", "xs", "w", "ws", "y"), (x, xs, w, ws, y))]
        if workgroups is not None:
            os.environ["MXGEMM_EMU_WORKGROUPS"] = _workgroup_list(
                workgroups, [self.plan(m)])
        ps = _rt.PlanStruct()
        c = self.ctx
        try:
            t = _rt.Tensors(*ptrs)
            status = c._lib.mxgemm_kernel_launch(c._handle, self._handle,
                                                 ctypes.byref(p),
                                                 ctypes.byref(t), stream,
                                                 ctypes.byref(ps))
            c._check(status, ps.message.decode(errors="replace"), ps.reason)
        finally:
            if workgroups is not None:
                os.environ.pop("MXGEMM_EMU_WORKGROUPS", None)
        return _plan(ps)

    def unload(self):
        """mxgemm_kernel_unload (also done by closing the context). The
        handle is kept: the runtime refuses every later use of it (and a
        second unload) as an unloaded kernel."""
        c, self._unloaded = self.ctx, True
        c._check(c._lib.mxgemm_kernel_unload(c._handle, self._handle))

    def __del__(self):
        try:
            if self._handle and not self._unloaded and self.ctx._handle:
                self.unload()
        except Exception:
            pass


def _plan_struct(p):
    """The C plan of an eligible Plan: the fields that describe its grid and
    launches (what the runtime's mappings read, and check)."""
    if not p.eligible:
        raise InvalidArgument("INVALID_ARGUMENT", "the plan has no kernel")
    ps = _rt.PlanStruct()
    ps.status = 0
    for field, value in (("grid_x", p.grid[0]), ("grid_y", p.grid[1]),
                         ("grid_z", p.grid[2]),
                         ("program_tile_m", p.program_tile_m),
                         ("tile_n", p.tile_n), ("num_tiles_n", p.num_tiles_n),
                         ("group_m", p.group_m), ("group_n", p.group_n),
                         ("xcd_remap", p.xcd_remap), ("k_splits", p.k_splits),
                         ("tail_tiles", p.tail_tiles),
                         ("reduction_grid_x", p.reduction_grid_x)):
        setattr(ps, field, _int(f"plan.{field}", value, 0, 2**32 - 1,
                                "uint32"))
    return ps


def _raise_status(lib, status, what):
    raise _ERRORS.get(_rt.STATUS.get(status), MXGemmError)(
        _rt.STATUS.get(status, str(status)),
        f"{what}: {lib.mxgemm_last_error().decode()}")


def workgroup_tile(p, workgroup):
    """(row, col) of the output tile computed by `workgroup` under plan p,
    by the runtime's mapping (the one the kernel was compiled with)."""
    ps = _plan_struct(p)
    workgroup = _int("workgroup", workgroup, 0, p.grid[0] - 1, "uint32")
    row, col = ctypes.c_int64(), ctypes.c_int64()
    lib = _library()
    status = lib.mxgemm_plan_workgroup_tile(ctypes.byref(ps), workgroup,
                                            ctypes.byref(row),
                                            ctypes.byref(col))
    if status != 0:
        _raise_status(lib, status, f"cannot map workgroup {workgroup}")
    return (row.value, col.value)


def workgroup_closure(plans, workgroups):
    """The workgroup ids (sorted) that a runner executing each listed id in
    every launch of `plans` (one Plan, or the two of a row split) must run
    so that the tiles of `workgroups` are complete: their K segments, a
    tail split's segments and reductions, and the same for what the ids
    compute in the other launches (mxgemm_plan_workgroup_closure)."""
    structs = [_plan_struct(p) for p in plans]
    ids = [_int("workgroup", g, 0, 2**64 - 1, "uint64") for g in workgroups]
    if not ids:
        raise InvalidArgument("INVALID_ARGUMENT", "workgroups is empty")
    c_plans = (ctypes.POINTER(_rt.PlanStruct) * len(structs))(
        *[ctypes.pointer(ps) for ps in structs])
    c_ids = (ctypes.c_uint64 * len(ids))(*ids)
    count = ctypes.c_size_t()
    lib = _library()
    status = lib.mxgemm_plan_workgroup_closure(c_plans, len(structs), c_ids,
                                               len(ids), None, 0,
                                               ctypes.byref(count))
    out = (ctypes.c_uint64 * max(count.value, 1))()
    if status == 0:
        status = lib.mxgemm_plan_workgroup_closure(
            c_plans, len(structs), c_ids, len(ids), out, count.value,
            ctypes.byref(count))
    if status != 0:
        _raise_status(lib, status, "cannot close the workgroup list")
    return list(out[:count.value])


def _kernel_index(entry):
    """Index of an embedded kernel given by index or entry name."""
    lib = _library()
    if isinstance(entry, str):
        for i in range(lib.mxgemm_kernel_count()):
            info = _rt.KernelInfo()
            lib.mxgemm_kernel_get(i, ctypes.byref(info))
            if info.entry.decode() == entry:
                return i
        raise InvalidArgument("INVALID_ARGUMENT", f"no embedded kernel of "
                              f"entry {entry!r}")
    return _int("index", entry, 0, lib.mxgemm_kernel_count() - 1, "int64")


def kernel_descriptor(entry):
    """The kernel descriptor (format_version 2, docs/Runtime.md) of an
    embedded kernel, by index or entry name, as a dict."""
    i = _kernel_index(entry)
    return _rt.read_json(_library().mxgemm_kernel_descriptor(i),
                         f"descriptor of embedded kernel {i}")


def kernel_code_object(entry):
    """The embedded code object of a kernel (by index or entry name)."""
    i = _kernel_index(entry)
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    status = _library().mxgemm_kernel_code_object(i, ctypes.byref(data),
                                                  ctypes.byref(size))
    if status != 0:
        raise MXGemmError(_rt.STATUS.get(status, str(status)),
                          f"no code object for kernel {i}")
    return ctypes.string_at(data, size.value)


def kernels():
    """Static information about every embedded kernel, with its
    descriptor."""
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
                        info.w_layout, str(info.w_layout)),
                    "x_scale_layout": _rt.SCALE_LAYOUT_NAMES.get(
                        info.x_scale_layout, str(info.x_scale_layout)),
                    "w_scale_layout": _rt.SCALE_LAYOUT_NAMES.get(
                        info.w_scale_layout, str(info.w_scale_layout)),
                    "descriptor": kernel_descriptor(i)})
    return out


def _device_ptr(obj):
    """Device pointer of an object with data_ptr() (e.g. a torch tensor)."""
    dp = getattr(obj, "data_ptr", None)
    return dp() if callable(dp) else None


def _device_shape_only(name, obj, itemsize, want=None):
    """The shape of a device operand, checked against `want` (if given),
    with the element size where the object tells it."""
    try:
        shape = tuple(int(d) for d in obj.shape)
    except (AttributeError, TypeError, ValueError):
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} has no shape "
                              f"(device operands need .shape)") from None
    if len(shape) != 2 or (want is not None and shape != want):
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} has shape "
                              f"{shape}, expected "
                              f"{want if want is not None else '2-D'}")
    size = getattr(obj, "element_size", None)
    size = size() if callable(size) else getattr(
        getattr(obj, "dtype", None), "itemsize", None)
    if size is not None and size != itemsize:
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} has {size}-byte "
                              f"elements, expected {itemsize}")
    return shape


def _device_shape(name, obj, itemsize, want=None):
    """_device_shape_only for an operand that must be contiguous (where the
    object tells its strides)."""
    shape = _device_shape_only(name, obj, itemsize, want)
    contiguous = getattr(obj, "is_contiguous", None)
    if (callable(contiguous) and not contiguous()) or \
            _row_stride(name, obj, shape):
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} is not "
                              f"contiguous")
    return shape


def _row_stride(name, obj, shape):
    """The leading dimension (elements from one row to the next) of a 2-D
    operand as the C API's ld_* takes it: 0 for dense rows, else its
    stride() (torch-style, in elements). Only row-major views with dense
    rows (stride(1) == 1) can be described; an object without stride() is
    dense unless it says it is not contiguous."""
    rows, cols = shape
    stride = getattr(obj, "stride", None)
    if not callable(stride):
        contiguous = getattr(obj, "is_contiguous", None)
        if callable(contiguous) and not contiguous():
            raise InvalidArgument("INVALID_ARGUMENT", f"{name} is not "
                                  f"contiguous and has no stride()")
        return 0
    try:
        row_step, col_step = (int(v) for v in stride())
    except (TypeError, ValueError):
        raise InvalidArgument("INVALID_ARGUMENT", f"{name}.stride() is not "
                              f"two integers") from None
    if rows * cols == 0 or (rows == 1 and cols == 1):
        return 0
    if (cols > 1 and col_step != 1) or (rows > 1 and row_step < cols):
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} must be row-major "
                              f"with dense rows (stride (ld, 1), ld >= "
                              f"{cols}), got stride {(row_step, col_step)}; "
                              f"call .contiguous()")
    # One row: its step never matters.
    return 0 if rows == 1 or row_step == cols else row_step


def _host_array(name, a, itemsize=1, ndim=2):
    """`a` as a NumPy array of raw bytes (`ndim` None: any shape)."""
    a = np.asarray(a)
    if ndim is not None and a.ndim != ndim:
        raise InvalidArgument("INVALID_ARGUMENT",
                              f"{name} must be 2-D, got {a.shape}")
    if a.dtype.itemsize != itemsize or a.dtype.kind not in "uiV":
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} must hold raw "
                              f"FP8/E8M0 bytes (uint8), got {a.dtype}")
    return a


def _native_scales_device(name, obj, nbytes):
    """Device scales in an MFMA-native layout: contiguous, `nbytes` bytes
    where the object tells its size."""
    contiguous = getattr(obj, "is_contiguous", None)
    if callable(contiguous) and not contiguous():
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} is not contiguous")
    numel, size = getattr(obj, "numel", None), getattr(obj, "element_size",
                                                       None)
    if callable(numel) and callable(size) and numel() * size() != nbytes:
        raise InvalidArgument("INVALID_ARGUMENT", f"{name} has "
                              f"{numel() * size()} bytes, expected {nbytes} "
                              f"(scale_bytes)")


def _scale_shapes(m, n, k, w_scale):
    """Expected (xs, ws) shapes: per-row X scales, W scales by w_scale."""
    try:
        return (m, k // 32), (_numerics.scale_rows(n, w_scale), k // 32)
    except ValueError as e:
        raise InvalidArgument("INVALID_ARGUMENT", str(e)) from None


def scale_bytes(layout, rows, k):
    """Bytes of `rows` x K/32 E8M0 scales in `layout` (mxgemm_scale_bytes):
    rows * K/32 row-major; padded to whole 256-byte chunks in the
    MFMA-native layouts that preshuffle_scales makes."""
    size = ctypes.c_size_t()
    status = _library().mxgemm_scale_bytes(
        _enum(_rt.SCALE_LAYOUTS, layout, "layout"),
        _int("rows", rows, *_I64), _int("k", k, *_I64), ctypes.byref(size))
    if status != 0:
        raise InvalidArgument("INVALID_ARGUMENT",
                              _library().mxgemm_last_error().decode())
    return size.value


def pack_scales(scales, layout, ctx=None, stream=None):
    """Row-major E8M0 scales [rows, K/32] rewritten on the device in an
    MFMA-native `layout` by the runtime (mxgemm_pack_scales; once per
    weight tensor: it synchronizes `stream` and goes through host memory).
    Host arrays are copied to the device and back: a uint8 array of
    scale_bytes(layout, rows, K) bytes is returned, byte for byte
    preshuffle_scales(scales, layout)."""
    c = _context(ctx)
    a = np.ascontiguousarray(_host_array("scales", scales))
    rows, k = a.shape[0], a.shape[1] * 32
    if rows == 0 or k == 0:
        raise InvalidArgument("INVALID_ARGUMENT", "scales must not be empty")
    nbytes = scale_bytes(layout, rows, k)
    out = np.empty(nbytes, dtype=np.uint8)
    ptrs = []
    try:
        ptrs.append(c.to_device(a))
        ptrs.append(c.alloc(nbytes))
        c._check(c._lib.mxgemm_pack_scales(
            c._handle, _rt.SCALE_LAYOUTS[layout], ptrs[0], rows, k, ptrs[1],
            stream))
        c.to_host(ptrs[1], out)
    finally:
        for q in ptrs:
            c.free(q)
    return out


def pack_weight_panels(w, mfma="m32n32k64"):
    return _numerics.pack_weight_panels(w, mfma)


pack_weight_panels.__doc__ = _numerics.pack_weight_panels.__doc__


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
    be device memory with data_ptr() too and is returned: a separate buffer
    is packed by the runtime's packing kernel on `stream` (asynchronous),
    `w` itself in place through host memory (`stream` synchronized).
    Raises NotSupported if the kernel reads row-major W (nothing to pack),
    NotEligible if there is no kernel for the problem.
    """
    c = _context(ctx)
    device = _device_ptr(w) is not None
    if device:
        if _device_ptr(out) is None:
            raise InvalidArgument("INVALID_ARGUMENT",
                                  "device W needs a device `out` (data_ptr())")
        n, k = _device_shape("w", w, 1)
        _device_shape("out", out, 1, (n, k))
    else:
        a = _host_array("w", w)
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
    elif not isinstance(out, np.ndarray) or out.shape != (n, k) or \
            out.dtype.itemsize != 1 or not out.flags.c_contiguous or \
            out.nbytes != nbytes:
        raise InvalidArgument("INVALID_ARGUMENT",
                              "out must be a contiguous 1-byte [N, K] array")
    elif not out.flags.writeable:
        raise InvalidArgument("INVALID_ARGUMENT", "out is read-only")
    buffers = [c.to_device(a)]
    try:
        # Out of place, so the runtime's packing kernel does it.
        buffers.append(c.alloc(nbytes))
        _pack_on_device(c, p, buffers[0], buffers[1], stream)
        c.synchronize(stream)
        c.to_host(buffers[1], out)
    finally:
        for q in buffers:
            c.free(q)
    return out


# Input types of mxgemm_quantize by NumPy dtype (BF16 has none: pass its
# bits as uint16/int16 with in_type="bf16").
_QUANTIZE_HOST_TYPES = {"float32": "f32", "float16": "f16"}
_QUANTIZE_ITEMSIZE = {"bf16": 2, "f16": 2, "f32": 4}
_QUANTIZE_FORMATS = ("e4m3", "e5m2")


def quantize_device(x, fmt="e4m3", in_type=None, codes=None, scales=None,
                    stream=None, ctx=None, scale_layout="row_major"):
    """MX quantization by the runtime's device kernel (mxgemm_quantize):
    x [M, K] (K % 32 == 0) -> (codes uint8 [M, K] in `fmt`, scales uint8
    E8M0 [M, K/32]), byte for byte the C++ quantizer (quantize_mx).
    With `scale_layout` "mfma_16x16x128" or "mfma_32x32x64" the scales are
    written in that MFMA-native layout (mxgemm_quantize_to_layout): a flat
    uint8 array of scale_bytes(scale_layout, M, K) bytes, byte for byte
    preshuffle_scales of quantize_mx's scales, for a kernel that reads its X
    scales in that layout.

    Host arrays: float32 or float16 NumPy arrays (in_type from the dtype),
    or BF16 bits as uint16/int16 with in_type="bf16"; x is copied to the
    device, quantized there and the results are copied back into new
    arrays (the call waits). Objects with data_ptr() (device memory, e.g.
    GPU torch tensors) need in_type and device `codes` / `scales` with
    data_ptr() and the right shapes; the kernel is launched on `stream`
    (asynchronous) and (codes, scales) are returned. Raises NotEligible
    (quantize on your own path: no HIP, not a gfx950, misaligned device
    buffers), InvalidArgument for bad arguments.
    """
    c = _context(ctx)
    fmt_code = _enum(_rt.DTYPES, fmt, "fmt")
    layout = _enum(_rt.SCALE_LAYOUTS, scale_layout, "scale_layout")

    def launch(m, k, d_in, d_codes, d_scales):
        c._check(c._lib.mxgemm_quantize_to_layout(
            c._handle, _rt.DTYPES[in_type], fmt_code, layout, m, k, d_in, 0,
            d_codes, d_scales, stream))

    if fmt not in _QUANTIZE_FORMATS:
        raise InvalidArgument("INVALID_ARGUMENT", f"fmt must be one of "
                              f"{list(_QUANTIZE_FORMATS)}, got {fmt!r}")
    device = _device_ptr(x) is not None
    if device:
        if in_type not in _QUANTIZE_ITEMSIZE:
            raise InvalidArgument("INVALID_ARGUMENT", f"device x needs "
                                  f"in_type in {sorted(_QUANTIZE_ITEMSIZE)},"
                                  f" got {in_type!r}")
        m, k = _device_shape("x", x, _QUANTIZE_ITEMSIZE[in_type])
        if _device_ptr(codes) is None or _device_ptr(scales) is None:
            raise InvalidArgument("INVALID_ARGUMENT", "device x needs device "
                                  "`codes` and `scales` (data_ptr())")
        if k % 32:
            raise InvalidArgument("INVALID_ARGUMENT", f"K = {k} is not a "
                                  f"multiple of 32")
        _device_shape("codes", codes, 1, (m, k))
        if layout:
            _native_scales_device("scales", scales,
                                  scale_bytes(scale_layout, m, k))
        else:
            _device_shape("scales", scales, 1, (m, k // 32))
        launch(m, k, _device_ptr(x), _device_ptr(codes), _device_ptr(scales))
        return codes, scales
    a = np.asarray(x)
    if a.ndim != 2:
        raise InvalidArgument("INVALID_ARGUMENT",
                              f"x must be 2-D, got shape {a.shape}")
    host_type = _QUANTIZE_HOST_TYPES.get(a.dtype.name)
    if in_type is None:
        in_type = host_type
    if in_type == "bf16" and a.dtype.name in ("uint16", "int16"):
        pass
    elif in_type is None or in_type != host_type:
        raise InvalidArgument("INVALID_ARGUMENT", f"x of dtype {a.dtype} with "
                              f"in_type {in_type!r}: pass float32 or float16,"
                              f" or BF16 bits (uint16) with in_type='bf16'")
    m, k = a.shape
    if m == 0 or k == 0 or k % 32:
        raise InvalidArgument("INVALID_ARGUMENT", f"x is {m} x {k}: M and K "
                              f"must be positive and K a multiple of 32")
    codes = np.empty((m, k), np.uint8)
    scales = np.empty(scale_bytes(scale_layout, m, k), np.uint8) if layout \
        else np.empty((m, k // 32), np.uint8)
    try:  # no device memory without HIP: the caller's path quantizes
        c.device_info()
    except HipError as e:
        raise NotEligible("NOT_ELIGIBLE", e.message, "HIP_UNAVAILABLE") \
            from None
    d_in = c.to_device(a)
    d_codes = d_scales = None
    try:
        d_codes, d_scales = c.alloc(codes.nbytes), c.alloc(scales.nbytes)
        launch(m, k, d_in, d_codes, d_scales)
        c.synchronize(stream)
        c.to_host(d_codes, codes)
        c.to_host(d_scales, scales)
    finally:
        for ptr in (d_in, d_codes, d_scales):
            if ptr:
                c.free(ptr)
    return codes, scales


def _workgroup_list(workgroups, plans):
    """MXGEMM_EMU_WORKGROUPS for the facade: `workgroups` ids of the first
    grid x of one of `plans` (one, or the two of a row split), closed over
    every workgroup their tiles need (workgroup_closure)."""
    if isinstance(workgroups, (str, bytes)) or not hasattr(workgroups,
                                                           "__iter__"):
        raise InvalidArgument("INVALID_ARGUMENT", "workgroups must be a "
                              "list of workgroup ids")
    top = max(p.grid[0] for p in plans)
    ids = [_int("workgroup", g, 0, top - 1, "uint32") for g in workgroups]
    return ",".join(str(g) for g in workgroup_closure(plans, ids))


def gemm(x, xs, w, ws, out=None, x_format="e4m3", w_format="e4m3",
         w_scale="block32x32", stream=None, ctx=None, workgroups=None,
         w_layout="row_major", x_scale_layout="row_major",
         w_scale_layout="row_major"):
    """Y = X . W^T through the runtime shim; returns Y as BF16 bits (uint16).

    x [M, K] / w [N, K]: uint8 FP8 codes; xs [M, K/32] and ws: uint8 E8M0
    scales ([ceil(N/32), K/32] for block32x32, [N, K/32] for per_row).
    Host arrays (NumPy or anything with __array_interface__) are copied to
    the device and Y is copied back into `out` (allocated if None; it must
    be a writeable contiguous uint16 [M, N] array). If all of x, xs, w, ws
    and `out` have data_ptr(), they are used as device memory (their shapes,
    and element sizes where the objects tell them, are checked) and the
    launch stays asynchronous on `stream`. Device operands may be row-major
    views (stride() == (ld, 1) with ld >= the row length, as a torch slice
    x[:, :K] of a wider buffer): their leading dimensions go to the
    runtime, whose generic kernels take views of x, xs and out; a view of
    w or ws is NOT_ELIGIBLE (reason NOT_CONTIGUOUS). `workgroups`
    (emulator facade only) executes just those tiles (ids of the plan's
    grid x, each with all its split-K segments; with a row split, see
    row_split(), an id runs in each launch whose grid holds it); other
    elements of Y are left as they were (0xffff when `out` is None).
    `w_layout` is the layout `w` is in: "row_major", or "mfma_panels" for W
    from pack_weights (the same [N, K] bytes), which kernels with
    stage_w = packed_registers read. Pack once per weight tensor: given
    row-major W for such a kernel, gemm packs a temporary copy on every call
    (with a RuntimeWarning) and, on device memory, synchronizes `stream`
    before freeing it. That fallback keeps old callers working; it is not
    the design.
    `x_scale_layout` / `w_scale_layout` are the layouts xs and ws are in:
    "row_major" (the shapes above), or an MFMA-native layout from
    pack_scales / preshuffle_scales ("mfma_16x16x128", "mfma_32x32x64"),
    then xs / ws are contiguous uint8 arrays of scale_bytes(layout, rows, K)
    bytes (any shape). A kernel that reads other layouts is NOT_ELIGIBLE
    (reason SCALE_LAYOUT); nothing is rewritten per call.
    Raises NotEligible (with .reason) when the caller's own path must run,
    InvalidArgument (a ValueError) for arguments it cannot take.
    """
    c = _context(ctx)
    _enum(_rt.WEIGHT_LAYOUTS, w_layout, "w_layout")
    layouts = {"xs": x_scale_layout, "ws": w_scale_layout}
    for name, layout in layouts.items():
        _enum(_rt.SCALE_LAYOUTS, layout, name[0] + "_scale_layout")
    native = {name for name, layout in layouts.items()
              if layout != "row_major"}
    ops = [x, xs, w, ws]
    on_device = [_device_ptr(o) is not None for o in ops + [out]]
    device = all(on_device)
    if any(on_device[:4]) and not device:
        raise InvalidArgument("INVALID_ARGUMENT", "either x, xs, w, ws and "
                              "out are all device memory (data_ptr()) or "
                              "none of x, xs, w, ws is")
    if device:
        (m, k), (n, _) = (_device_shape_only(name, o, 1)
                          for name, o in (("x", x), ("w", w)))
        arrays = None
    else:
        # Scales in an MFMA-native layout are raw bytes of any shape.
        arrays = [_host_array(name, a, ndim=None if name in native else 2)
                  for name, a in zip(("x", "xs", "w", "ws"), ops)]
        (m, k), (n, _) = arrays[0].shape, arrays[2].shape
    xs_shape, ws_shape = _scale_shapes(m, n, k, w_scale)
    shapes = {"x": (m, k), "xs": xs_shape, "w": (n, k), "ws": ws_shape}
    # MFMA-native scales: whole chunks of scale_bytes(), no leading dimension.
    sizes = {name: scale_bytes(layouts[name], shapes[name][0], k)
             for name in native}
    lds = {}
    if device:
        # Views pass their leading dimensions (0 for dense rows); the
        # runtime decides which kernels take them: the generic ones for X,
        # Xs and Y, none for W and Ws (NOT_ELIGIBLE, NOT_CONTIGUOUS).
        for name, o in zip(("x", "xs", "w", "ws"), ops):
            if name in native:
                _native_scales_device(name, o, sizes[name])
                continue
            _device_shape_only(name, o, 1, shapes[name])
            lds["ld_" + name] = _row_stride(name, o, shapes[name])
        _device_shape_only("out", out, 2, (m, n))
        lds["ld_y"] = _row_stride("out", out, (m, n))
    else:
        for name, a in zip(("xs", "w", "ws"), arrays[1:]):
            if name in native:
                if a.nbytes != sizes[name]:
                    raise InvalidArgument(
                        "INVALID_ARGUMENT", f"{name} in {layouts[name]} has "
                        f"{a.nbytes} bytes, expected {sizes[name]} "
                        f"(scale_bytes)")
                continue
            if a.shape != shapes[name]:
                raise InvalidArgument("INVALID_ARGUMENT", f"{name} has shape "
                                      f"{a.shape}, expected {shapes[name]}")
        if out is not None and (not isinstance(out, np.ndarray) or
                                out.shape != (m, n) or
                                out.dtype != np.uint16 or
                                not out.flags.c_contiguous):
            raise InvalidArgument("INVALID_ARGUMENT",
                                  "out must be a contiguous uint16 [M, N]")
        if out is not None and not out.flags.writeable:
            raise InvalidArgument("INVALID_ARGUMENT", "out is read-only")
    p = _problem(m, n, k, x_format, w_format, w_scale, "bf16", w_layout, lds,
                 x_scale_layout, w_scale_layout)
    pre = plan(m, n, k, x_format, w_format, w_scale, "bf16", ctx=c,
               w_layout=w_layout, x_scale_layout=x_scale_layout,
               w_scale_layout=w_scale_layout, **lds)
    repack = False
    if not pre.eligible and pre.reason == "PACKED_WEIGHTS" and \
            w_layout == "row_major":
        # The kernel reads MFMA panels and W is row-major: the per-call
        # fallback packs a temporary copy (callers should pack_weights once).
        packed = plan(m, n, k, x_format, w_format, w_scale, "bf16", ctx=c,
                      w_layout="mfma_panels", x_scale_layout=x_scale_layout,
                      w_scale_layout=w_scale_layout, **lds)
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
        # A row split's second launch runs the listed ids of its grid too.
        first_plan = _rt.PlanStruct()
        tail = _rt.PlanStruct()
        first = ctypes.c_int64(0)
        c._lib.mxgemm_query_row_split(c._handle, ctypes.byref(p),
                                      ctypes.byref(first_plan),
                                      ctypes.byref(first), ctypes.byref(tail))
        os.environ["MXGEMM_EMU_WORKGROUPS"] = _workgroup_list(
            workgroups, [_plan(first_plan), _plan(tail)] if first.value
            else [pre])
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
        ptrs = []
        try:
            ptrs = [c.to_device(a) for a in arrays]
            ptrs.append(c.to_device(out))
            t = _rt.Tensors(*ptrs)
            if repack:
                # Out of place, so the runtime's packing kernel does it
                # (freed with the other buffers).
                ptrs.append(c.alloc(n * k))
                _pack_on_device(c, p, ptrs[2], ptrs[5], stream)
                t.w = ptrs[5]
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


def find_compiler():
    """mxgemm-compile: $MXGEMM_COMPILE, the build tree's bin/ next to the
    runtime library's lib/, or PATH."""
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


def compile(n=None, k=None, config=None, x_format="e4m3", w_format="e4m3",
            w_scale="block32x32", out_type="bf16", name=None, compiler=None,
            tuning_db=None, entry=None, output=None, m=None):
    """Compiles one kernel with mxgemm-compile: (N, K, formats, config), or
    the tuning-database entry `entry` of `tuning_db`.

    `config` is None or "auto" (the compiler chooses: the tuning database's
    entry for the key and the M hint `m`, else its heuristic; `tuning_db`,
    if given, replaces the embedded database), "default" (the naive
    config), or the body of #mxgemm.config<...> as a string or a dict of
    fields. The choice is mxgemm-compile's (one C++ implementation); the
    descriptor's "config_source" says where it came from. The code object
    and its descriptor are written to `output` and `output`.json (default: a
    temporary directory). Returns (code object bytes, kernel descriptor
    dict).
    """
    if isinstance(config, dict):
        config = ", ".join(
            f"{f} = {str(v).lower() if isinstance(v, bool) else v}"
            for f, v in config.items())
    with tempfile.TemporaryDirectory() as tmp:
        out = output or os.path.join(tmp, "kernel.hsaco")
        cmd = [compiler or find_compiler(), "-o", out]
        if entry is not None:
            cmd += ["--tuning-db", tuning_db, "--entry", entry]
        else:
            cmd += ["--n", str(n), "--k", str(k), "--x-format", x_format,
                    "--w-format", w_format, "--w-scale",
                    w_scale.replace("-", "_"), "--out-type", out_type]
            if tuning_db is not None:
                cmd += ["--tuning-db", tuning_db]
            if m is not None:
                cmd += ["--m", str(m)]
        if config:
            cmd += ["--config=" + config]
        if name:
            cmd += ["--name", name]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(proc.stderr.strip() or proc.stdout.strip())
        with open(out, "rb") as f:
            code = f.read()
        meta = _rt.read_json_file(out + ".json")
    return code, meta
