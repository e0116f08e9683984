"""The compiler's config choice from Python: a ctypes binding of the
compiler C API's mxgemmProblemChooseConfig (libMXGemmCAPI.so,
include/mxgemm-c/Compiler.h). The choice is made in C++
(contract::selectConfig); nothing here restates a rule."""

import ctypes
import threading

from . import _runtime as _rt


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


def _ref(text):
    data = (text or "").encode()
    return _StringRef(data, len(data))


class _ProblemSpec(ctypes.Structure):
    _fields_ = [("name", _StringRef), ("n", ctypes.c_int64),
                ("k", ctypes.c_int64), ("x_format", _StringRef),
                ("w_format", _StringRef), ("w_scale", _StringRef),
                ("out_type", _StringRef), ("config", _StringRef)]


class _ConfigOptions(ctypes.Structure):
    _fields_ = [("m_hint", ctypes.c_int64), ("tuning_database", _StringRef)]


class _Handle(ctypes.Structure):  # MlirContext, MlirDiagnostic: {void *ptr}
    _fields_ = [("ptr", ctypes.c_void_p)]


class _LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


_STRING_CALLBACK = ctypes.CFUNCTYPE(None, _StringRef, ctypes.c_void_p)
# ctypes callbacks cannot return a structure: MlirLogicalResult
# ({int8_t value}) comes back in the same register as an int8_t, and an
# MlirDiagnostic ({void *ptr}) goes in as its pointer (x86-64 SysV).
_DIAGNOSTIC_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int8, ctypes.c_void_p,
                                       ctypes.c_void_p)


def _signatures():
    P, V = ctypes.POINTER, ctypes.c_void_p
    return {
        "mxgemmCompilerGetAPIVersion": (ctypes.c_int, []),
        "mlirContextCreateWithThreading": (_Handle, [ctypes.c_bool]),
        "mlirContextAttachDiagnosticHandler": (
            ctypes.c_uint64, [_Handle, _DIAGNOSTIC_HANDLER, V, V]),
        "mlirContextDetachDiagnosticHandler": (None, [_Handle,
                                                      ctypes.c_uint64]),
        "mlirDiagnosticPrint": (None, [_Handle, _STRING_CALLBACK, V]),
        "mxgemmConfigOptionsInit": (None, [P(_ConfigOptions)]),
        "mxgemmProblemChooseConfig": (
            _LogicalResult, [_Handle, P(_ProblemSpec), P(_ConfigOptions),
                             _STRING_CALLBACK, V]),
    }


library = _rt.loader("libMXGemmCAPI.so", "MXGEMM_CAPI_LIBRARY", _signatures)

# One context for the process: the choice parses nothing into it but a
# config body, and creating one per call would cost more than the choice.
_lock = threading.Lock()
_context = []


def choose_config(n, k, m=None, config=None, x_format="e4m3",
                  w_format="e4m3", w_scale="block32x32", out_type="bf16",
                  tuning_db=None):
    """The config the compiler gives (N, K, formats) with the M hint `m`
    (None: no hint) and `config` ("auto"/None, "default" or a body), from
    `tuning_db` or the embedded database: {"config": body,
    "config_source": "database:<entry>" | "heuristic:<rule>" | "default" |
    "explicit", "reason": ...}. Raises ValueError with the compiler's
    message when the problem is invalid or no config fits."""
    for name, value in (("n", n), ("k", k), ("m", m or 0)):
        if not isinstance(value, int) or not -2**63 <= value < 2**63:
            raise ValueError(f"{name} must be an int64, got {value!r}")
    lib = library()
    spec = _ProblemSpec(_ref(""), n, k, _ref(x_format), _ref(w_format),
                        _ref(w_scale.replace("-", "_")), _ref(out_type),
                        _ref(config))
    options = _ConfigOptions()
    lib.mxgemmConfigOptionsInit(ctypes.byref(options))
    options.m_hint = m or 0
    db = _ref(tuning_db)
    options.tuning_database = db
    out, messages = [], []
    on_text = _STRING_CALLBACK(
        lambda s, _: out.append(ctypes.string_at(s.data, s.length).decode()))
    on_message = _STRING_CALLBACK(
        lambda s, _: messages.append(
            ctypes.string_at(s.data, s.length).decode()))

    def on_diagnostic(diagnostic, _):
        lib.mlirDiagnosticPrint(_Handle(diagnostic), on_message, None)
        messages.append("\n")
        return 1  # handled: nothing reaches stderr
    handler = _DIAGNOSTIC_HANDLER(on_diagnostic)
    with _lock:
        if not _context:
            _context.append(lib.mlirContextCreateWithThreading(False))
        ctx = _context[0]
        hid = lib.mlirContextAttachDiagnosticHandler(ctx, handler, None, None)
        try:
            ok = lib.mxgemmProblemChooseConfig(
                ctx, ctypes.byref(spec), ctypes.byref(options), on_text, None)
        finally:
            lib.mlirContextDetachDiagnosticHandler(ctx, hid)
    if not ok.value:
        raise ValueError("".join(messages).strip() or "no config")
    return _rt.read_json("".join(out), "mxgemmProblemChooseConfig")
