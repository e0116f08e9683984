"""mxgemm.compile: mxgemm-compile as a subprocess."""

import pytest

import mxgemm


def _compiler_or_skip():
    try:
        return mxgemm.find_compiler()
    except mxgemm.CompileError as e:
        pytest.skip(str(e))


def test_compile_returns_code_object_and_metadata():
    _compiler_or_skip()
    code, meta = mxgemm.compile(4096, 1280, config={"tile_m": 128,
                                                    "tile_n": 128},
                                name="py_kernel")
    assert code[:4] == b"\x7fELF"
    assert meta["kernel"] == "py_kernel"
    assert meta["problem"]["n"] == 4096 and meta["grid"]["workgroup_size"] > 0


def test_compile_reports_rejected_configs():
    _compiler_or_skip()
    with pytest.raises(mxgemm.CompileError, match="waves_m"):
        mxgemm.compile(4096, 1280, config="waves_m = 3")
