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


def _db_entry(n, k, m):
    """The entry of the checkout's tuning/gfx950.json for (n, k) at M."""
    import json
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tuning",
                        "gfx950.json")
    with open(path) as f:
        db = json.load(f)
    for e in db["entries"]:
        key = e["key"]
        if key["n"] == n and key["k"] == k and \
                e["m_range"][0] <= m <= e["m_range"][1]:
            return e
    return None


def test_compile_without_config_takes_the_database_entry():
    _compiler_or_skip()
    _, meta = mxgemm.compile(16384, 1280, m=16384)
    entry = _db_entry(16384, 1280, 16384)
    assert meta["config_source"] == "database:" + entry["name"]
    for field, value in entry["config"].items():
        assert meta["config"][field] == value, field


def test_compile_without_config_follows_the_compiler(tmp_path):
    """mxgemm.compile binds the compiler's choice, it does not make one: the
    same config and source as mxgemm-compile run by hand."""
    import json
    import subprocess
    compiler = _compiler_or_skip()
    out = str(tmp_path / "k.hsaco")
    subprocess.run([compiler, "--n", "7168", "--k", "2112", "--m", "4",
                    "-o", out], check=True, capture_output=True)
    with open(out + ".json") as f:
        by_hand = json.load(f)
    _, meta = mxgemm.compile(7168, 2112, m=4)
    assert meta["config_source"] == by_hand["config_source"] == \
        "heuristic:packed"
    assert meta["config"] == by_hand["config"]
    assert meta["config"]["tile_m"] == 32  # the decode bucket's tile


def test_compile_default_is_the_naive_config():
    _compiler_or_skip()
    _, meta = mxgemm.compile(16384, 1280, config="default", m=16384)
    assert meta["config_source"] == "default"
    assert (meta["config"]["tile_m"], meta["config"]["tile_n"],
            meta["config"]["stage_w"]) == (128, 128, "direct")


def test_compile_reports_shapes_without_a_config():
    _compiler_or_skip()
    with pytest.raises(mxgemm.CompileError, match="no config fits"):
        mxgemm.compile(1000, 992, m=1)
