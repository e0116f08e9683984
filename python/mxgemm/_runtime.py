"""ctypes bindings of mxgemm_runtime.h (the C API of libmxgemm_runtime.so).

ctypes rather than pybind11: the package stays pure Python (no compiler, no
build dependency beyond setuptools, `pip install ./python` works offline) and
binds the C API exactly as any other engine would use it.
"""

import ctypes
import os

_here = os.path.dirname(os.path.abspath(__file__))

STATUS = {0: "OK", 1: "NOT_ELIGIBLE", 2: "INVALID_ARGUMENT", 3: "HIP_ERROR",
          4: "NOT_SUPPORTED", 5: "INTERNAL"}
REASONS = {0: "NONE", 1: "HIP_UNAVAILABLE", 2: "ARCH_MISMATCH",
           3: "OUTPUT_TYPE", 4: "NOT_PREQUANTIZED", 5: "K_NOT_MULTIPLE_OF_32",
           6: "NOT_CONTIGUOUS", 7: "NO_TUNED_KERNEL", 8: "M_OUT_OF_RANGE",
           9: "CODE_OBJECT_LOAD", 10: "MISALIGNED", 11: "PACKED_WEIGHTS"}
DTYPES = {"e4m3": 0, "e5m2": 1, "bf16": 2, "f16": 3, "f32": 4}
SCALES = {"block32x32": 0, "per_row": 1, "per-row": 1}
# mxgemm_weight_layout: how W is laid out in memory (WeightPanels.h).
WEIGHT_LAYOUTS = {"row_major": 0, "mfma_panels": 1}
WEIGHT_LAYOUT_NAMES = {v: k for k, v in WEIGHT_LAYOUTS.items()}


class Problem(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64),
                ("k", ctypes.c_int64), ("x_type", ctypes.c_int),
                ("w_type", ctypes.c_int), ("w_scale", ctypes.c_int),
                ("out_type", ctypes.c_int), ("ld_x", ctypes.c_int64),
                ("ld_xs", ctypes.c_int64), ("ld_w", ctypes.c_int64),
                ("ld_ws", ctypes.c_int64), ("ld_y", ctypes.c_int64),
                ("w_layout", ctypes.c_int)]


class Tensors(ctypes.Structure):
    _fields_ = [(n, ctypes.c_void_p) for n in ("x", "xs", "w", "ws", "y")]


class PlanStruct(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("reason", ctypes.c_int),
                ("entry", ctypes.c_char_p), ("kernel", ctypes.c_char_p),
                ("config", ctypes.c_char_p), ("note", ctypes.c_char_p),
                ("grid_x", ctypes.c_uint32), ("grid_y", ctypes.c_uint32),
                ("grid_z", ctypes.c_uint32), ("block_x", ctypes.c_uint32),
                ("block_y", ctypes.c_uint32), ("block_z", ctypes.c_uint32),
                ("lds_bytes", ctypes.c_uint32),
                ("program_tile_m", ctypes.c_uint32),
                ("tile_n", ctypes.c_uint32), ("num_tiles_n", ctypes.c_uint32),
                ("k_step", ctypes.c_uint32), ("group_m", ctypes.c_uint32),
                ("group_n", ctypes.c_uint32), ("xcd_remap", ctypes.c_uint32),
                ("w_layout", ctypes.c_int), ("m_min", ctypes.c_int64),
                ("m_max", ctypes.c_int64), ("message", ctypes.c_char * 320)]


LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class ContextOptions(ctypes.Structure):
    _fields_ = [("hip_library", ctypes.c_char_p), ("strict", ctypes.c_int),
                ("dry_run", ctypes.c_int), ("log", LOG_FN),
                ("log_user_data", ctypes.c_void_p)]


class KernelInfo(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char_p), ("kernel", ctypes.c_char_p),
                ("arch", ctypes.c_char_p), ("config", ctypes.c_char_p),
                ("note", ctypes.c_char_p), ("n", ctypes.c_int64),
                ("k", ctypes.c_int64), ("m_min", ctypes.c_int64),
                ("m_max", ctypes.c_int64), ("x_type", ctypes.c_int),
                ("w_type", ctypes.c_int), ("out_type", ctypes.c_int),
                ("w_scale", ctypes.c_int), ("code_object_bytes", ctypes.c_size_t),
                ("workgroup_size", ctypes.c_uint32),
                ("vgpr_count", ctypes.c_uint32),
                ("agpr_count", ctypes.c_uint32),
                ("sgpr_count", ctypes.c_uint32), ("w_layout", ctypes.c_int)]


def _candidates():
    env = os.environ.get("MXGEMM_RUNTIME_LIBRARY")
    if env:
        yield env
        return
    yield os.path.join(_here, "lib", "libmxgemm_runtime.so")
    # Source checkout: python/mxgemm -> <repo>/build*/lib.
    repo = os.path.dirname(os.path.dirname(_here))
    for build in ("build", "build-rt"):
        yield os.path.join(repo, build, "lib", "libmxgemm_runtime.so")
    yield "libmxgemm_runtime.so"  # the dynamic loader's search path


def load_library():
    errors = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            errors.append(f"{path}: not found")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
            continue
        _declare(lib)
        lib.path = path
        return lib
    raise OSError("cannot load libmxgemm_runtime.so (set "
                  "MXGEMM_RUNTIME_LIBRARY): " + "; ".join(errors))


def _declare(lib):
    P, I, V, S = ctypes.POINTER, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
    sig = {
        "mxgemm_version": (ctypes.c_char_p, []),
        "mxgemm_status_string": (ctypes.c_char_p, [I]),
        "mxgemm_reason_string": (ctypes.c_char_p, [I]),
        "mxgemm_last_error": (ctypes.c_char_p, []),
        "mxgemm_context_options_init": (None, [P(ContextOptions)]),
        "mxgemm_problem_init": (None, [P(Problem), ctypes.c_int64,
                                       ctypes.c_int64, ctypes.c_int64]),
        "mxgemm_context_create": (I, [P(ContextOptions), P(V)]),
        "mxgemm_context_destroy": (I, [V]),
        "mxgemm_query": (I, [V, P(Problem), P(PlanStruct)]),
        "mxgemm_gemm": (I, [V, P(Problem), P(Tensors), V, P(PlanStruct)]),
        # (context, problem, w, packed, packed_bytes, stream): no Ws.
        "mxgemm_pack_weights": (I, [V, P(Problem), V, V, P(S), V]),
        "mxgemm_kernel_count": (S, []),
        "mxgemm_kernel_get": (I, [S, P(KernelInfo)]),
        "mxgemm_plan_workgroup_tile": (I, [P(PlanStruct), ctypes.c_uint32,
                                           P(ctypes.c_int64),
                                           P(ctypes.c_int64)]),
        "mxgemm_device_alloc": (I, [V, S, P(V)]),
        "mxgemm_device_free": (I, [V, V]),
        "mxgemm_copy_to_device": (I, [V, V, V, S]),
        "mxgemm_copy_to_host": (I, [V, V, V, S]),
        "mxgemm_device_memset": (I, [V, V, I, S]),
        "mxgemm_synchronize": (I, [V, V]),
        "mxgemm_device_info": (I, [V, ctypes.c_char_p, S, P(I), P(I)]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
