"""ctypes bindings of mxgemm_runtime.h (the C API of libmxgemm_runtime.so),
and how the package finds the project's shared libraries.

ctypes rather than pybind11: the package stays pure Python (no compiler, no
build dependency beyond setuptools, it installs offline) and binds the C API
exactly as any other engine would use it.
"""

import ctypes
import json
import os
import threading

_here = os.path.dirname(os.path.abspath(__file__))

STATUS = {0: "OK", 1: "NOT_ELIGIBLE", 2: "INVALID_ARGUMENT", 3: "HIP_ERROR",
          4: "NOT_SUPPORTED", 5: "INTERNAL"}
REASONS = {0: "NONE", 1: "HIP_UNAVAILABLE", 2: "ARCH_MISMATCH",
           3: "OUTPUT_TYPE", 4: "NOT_PREQUANTIZED", 5: "K_NOT_MULTIPLE_OF_32",
           6: "NOT_CONTIGUOUS", 7: "NO_TUNED_KERNEL", 8: "M_OUT_OF_RANGE",
           9: "CODE_OBJECT_LOAD", 10: "MISALIGNED", 11: "PACKED_WEIGHTS",
           12: "JIT_FAILED", 13: "SCALE_LAYOUT"}
DTYPES = {"e4m3": 0, "e5m2": 1, "bf16": 2, "f16": 3, "f32": 4}
SCALES = {"block32x32": 0, "per_row": 1, "per-row": 1}
# mxgemm_weight_layout: how W is laid out in memory (WeightPanels.h).
WEIGHT_LAYOUTS = {"row_major": 0, "mfma_panels": 1}
WEIGHT_LAYOUT_NAMES = {v: k for k, v in WEIGHT_LAYOUTS.items()}
# mxgemm_scale_layout: how an E8M0 scale tensor is laid out (ScaleLayout.h).
SCALE_LAYOUTS = {"row_major": 0, "mfma_16x16x128": 1, "mfma_32x32x64": 2}
SCALE_LAYOUT_NAMES = {v: k for k, v in SCALE_LAYOUTS.items()}
# mxgemm_plan_kind: which kind of kernel a plan names.
PLAN_KINDS = {0: "none", 1: "embedded", 2: "library", 3: "loaded_kernel",
              4: "jit", 5: "generic"}


class Problem(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64),
                ("k", ctypes.c_int64), ("x_type", ctypes.c_int),
                ("w_type", ctypes.c_int), ("w_scale", ctypes.c_int),
                ("out_type", ctypes.c_int), ("ld_x", ctypes.c_int64),
                ("ld_xs", ctypes.c_int64), ("ld_w", ctypes.c_int64),
                ("ld_ws", ctypes.c_int64), ("ld_y", ctypes.c_int64),
                ("w_layout", ctypes.c_int), ("x_scale_layout", ctypes.c_int),
                ("w_scale_layout", ctypes.c_int)]


class Tensors(ctypes.Structure):
    _fields_ = [(n, ctypes.c_void_p) for n in ("x", "xs", "w", "ws", "y")]


_U32 = ctypes.c_uint32


class PlanStruct(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("reason", ctypes.c_int),
                ("entry", ctypes.c_char_p), ("kernel", ctypes.c_char_p),
                ("config", ctypes.c_char_p), ("note", ctypes.c_char_p)] + \
        [(f, _U32) for f in ("grid_x", "grid_y", "grid_z", "block_x",
                             "block_y", "block_z", "lds_bytes",
                             "program_tile_m", "tile_n", "num_tiles_n",
                             "k_step", "group_m", "group_n", "xcd_remap")] + \
        [("w_layout", ctypes.c_int), ("kind", ctypes.c_int),
         ("x_scale_layout", ctypes.c_int), ("w_scale_layout", ctypes.c_int),
         ("m_min", ctypes.c_int64), ("m_max", ctypes.c_int64)] + \
        [(f, _U32) for f in ("k_splits", "tail_tiles", "reduction_grid_x")] + \
        [("message", ctypes.c_char * 320)]


LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class ContextOptions(ctypes.Structure):
    _fields_ = [("hip_library", ctypes.c_char_p), ("strict", ctypes.c_int),
                ("dry_run", ctypes.c_int), ("log", LOG_FN),
                ("log_user_data", ctypes.c_void_p)]


class KernelInfo(ctypes.Structure):
    _fields_ = [(f, ctypes.c_char_p) for f in ("entry", "kernel", "arch",
                                               "config", "note")] + \
        [(f, ctypes.c_int64) for f in ("n", "k", "m_min", "m_max")] + \
        [(f, ctypes.c_int) for f in ("x_type", "w_type", "out_type",
                                     "w_scale")] + \
        [("code_object_bytes", ctypes.c_size_t)] + \
        [(f, _U32) for f in ("workgroup_size", "vgpr_count", "agpr_count",
                             "sgpr_count")] + \
        [(f, ctypes.c_int) for f in ("w_layout", "x_scale_layout",
                                     "w_scale_layout")]


def _candidates(filename, env):
    """Where `filename` may be: $env; else next to the runtime library named
    by $MXGEMM_RUNTIME_LIBRARY; the package's lib/; the build tree of the
    checkout the package sits in; the dynamic loader's search path."""
    if os.environ.get(env):
        yield os.environ[env]
        return
    runtime = os.environ.get("MXGEMM_RUNTIME_LIBRARY")
    if runtime:
        yield os.path.join(os.path.dirname(runtime), filename)
    yield os.path.join(_here, "lib", filename)
    repo = os.path.dirname(os.path.dirname(_here))  # python/mxgemm -> repo
    for build in ("build", "build-rt"):
        yield os.path.join(repo, build, "lib", filename)
    yield filename


def load(filename, env, signatures):
    """dlopens the first candidate of `filename`, declares `signatures`
    ({name: (restype, argtypes)}) and records the path as `.path`."""
    errors = []
    for path in _candidates(filename, env):
        if os.path.sep in path and not os.path.exists(path):
            errors.append(f"{path}: not found")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
            continue
        for name, (res, args) in signatures.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        lib.path = path
        return lib
    raise OSError(f"cannot load {filename} (set {env}): " + "; ".join(errors))


def _signatures():
    P, I, V, S = ctypes.POINTER, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
    I64, STR = ctypes.c_int64, ctypes.c_char_p
    return {
        "mxgemm_version": (STR, []),
        "mxgemm_status_string": (STR, [I]),
        "mxgemm_reason_string": (STR, [I]),
        "mxgemm_last_error": (STR, []),
        "mxgemm_context_options_init": (None, [P(ContextOptions)]),
        "mxgemm_problem_init": (None, [P(Problem), I64, I64, I64]),
        "mxgemm_context_create": (I, [P(ContextOptions), P(V)]),
        "mxgemm_context_destroy": (I, [V]),
        "mxgemm_context_load_library": (I, [V, STR]),
        "mxgemm_context_set_jit": (I, [V, I]),
        "mxgemm_context_set_generic": (I, [V, I]),
        "mxgemm_query": (I, [V, P(Problem), P(PlanStruct)]),
        # (context, problem, plan, first_rows, tail plan).
        "mxgemm_query_row_split": (I, [V, P(Problem), P(PlanStruct), P(I64),
                                       P(PlanStruct)]),
        "mxgemm_gemm": (I, [V, P(Problem), P(Tensors), V, P(PlanStruct)]),
        # (context, problem, w, packed, packed_bytes, stream): no Ws.
        "mxgemm_pack_weights": (I, [V, P(Problem), V, V, P(S), V]),
        # (layout, rows, K, bytes) and (context, layout, scales, rows, K,
        # packed, stream).
        "mxgemm_scale_bytes": (I, [I, I64, I64, P(S)]),
        "mxgemm_pack_scales": (I, [V, I, V, I64, I64, V, V]),
        # (context, in_type, format, M, K, input, ld_input, codes, scales,
        # stream).
        "mxgemm_quantize": (I, [V, I, I, I64, I64, V, I64, V, V, V]),
        # (context, in_type, format, scale_layout, M, K, input, ld_input,
        # codes, scales, stream).
        "mxgemm_quantize_to_layout": (I, [V, I, I, I, I64, I64, V, I64, V, V,
                                          V]),
        "mxgemm_kernel_count": (S, []),
        "mxgemm_kernel_get": (I, [S, P(KernelInfo)]),
        "mxgemm_kernel_code_object": (I, [S, P(V), P(S)]),
        "mxgemm_kernel_descriptor": (STR, [S]),
        # Kernels compiled elsewhere: (context, code object, bytes,
        # descriptor JSON, out handle), and the plan of a descriptor alone.
        "mxgemm_kernel_load": (I, [V, STR, S, STR, P(V)]),
        "mxgemm_kernel_query": (I, [V, V, P(Problem), P(PlanStruct)]),
        "mxgemm_kernel_launch": (I, [V, V, P(Problem), P(Tensors), V,
                                     P(PlanStruct)]),
        "mxgemm_kernel_unload": (I, [V, V]),
        "mxgemm_descriptor_query": (I, [STR, P(Problem), P(PlanStruct)]),
        "mxgemm_plan_workgroup_tile": (I, [P(PlanStruct), ctypes.c_uint32,
                                           P(I64), P(I64)]),
        # (plans, num_plans, ids, num_ids, out, capacity, count).
        "mxgemm_plan_workgroup_closure": (I, [P(P(PlanStruct)), S,
                                              P(ctypes.c_uint64), S,
                                              P(ctypes.c_uint64), S, P(S)]),
        "mxgemm_device_alloc": (I, [V, S, P(V)]),
        "mxgemm_device_free": (I, [V, V]),
        "mxgemm_copy_to_device": (I, [V, V, V, S]),
        "mxgemm_copy_to_host": (I, [V, V, V, S]),
        "mxgemm_device_memset": (I, [V, V, I, S]),
        "mxgemm_synchronize": (I, [V, V]),
        "mxgemm_device_info": (I, [V, STR, S, P(I), P(I)]),
    }


def loader(filename, env, signatures, check=None):
    """A function that returns the library, loaded at its first call;
    `check(lib)` may refuse it (OSError)."""
    lock, lib = threading.Lock(), []

    def library():
        with lock:
            if not lib:
                loaded = load(filename, env, signatures())
                if check:
                    check(loaded)
                lib.append(loaded)
            return lib[0]
    return library


# The structures above are those of this C ABI version (major.minor; the
# library's SONAME).
ABI_VERSION = "0.3"


def _check_abi(lib):
    have = lib.mxgemm_version().decode()
    if have.rsplit(".", 1)[0] != ABI_VERSION:
        raise OSError(f"{lib.path} is mxgemm {have}; this package binds the "
                      f"{ABI_VERSION}.x C API (its structures differ)")


library = loader("libmxgemm_runtime.so", "MXGEMM_RUNTIME_LIBRARY",
                 _signatures, _check_abi)


def _no_duplicate_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key '{key}'")
        obj[key] = value
    return obj


def read_json(text, what):
    """Parses JSON (a kernel descriptor, an emulator report): duplicate
    keys, malformed or too deeply nested input are a ValueError that names
    `what`, never a traceback from the parser's internals."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{what}: not a valid JSON document: "
                         f"{type(e).__name__}: {e}") from None


def read_json_file(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror}") from None
    return read_json(data, path)
