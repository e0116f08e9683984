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
        "heuristic:decode"
    assert meta["config"] == by_hand["config"]
    assert meta["config"]["tile_m"] == 16  # the decode bucket's tile


def test_compile_default_is_the_naive_config():
    _compiler_or_skip()
    _, meta = mxgemm.compile(16384, 1280, config="default", m=16384)
    assert meta["config_source"] == "default"
    assert (meta["config"]["tile_m"], meta["config"]["tile_n"],
            meta["config"]["stage_w"]) == (128, 128, "direct")


def test_compile_masks_edges_no_tile_divides():
    # N = 1000, K = 992: direct loads, which mask the partial last tile
    # column and the K tail (issue 17 item 1): the decode rule at M = 1
    # (32-wide tiles), the naive kernel at M = 100 (128-wide).
    _compiler_or_skip()
    code, desc = mxgemm.compile(1000, 992, m=1)
    assert desc["config_source"] == "heuristic:decode"
    assert desc["grid"]["num_tiles_n"] == 32
    code, desc = mxgemm.compile(1000, 992, m=100)
    assert desc["config_source"] == "heuristic:naive-size"
    assert desc["grid"]["num_tiles_n"] == 8


def _choose_or_skip(*args, **kwargs):
    try:
        return mxgemm.choose_config(*args, **kwargs)
    except OSError as e:  # no libMXGemmCAPI.so (an installed runtime only)
        pytest.skip(str(e))


def test_choose_config_is_the_compilers_choice():
    """choose_config binds the C API (mxgemmProblemChooseConfig): the
    database's entry, read here from tuning/gfx950.json, at M = 16384; and
    the config mxgemm.compile builds, field for field, for a heuristic key."""
    choice = _choose_or_skip(16384, 1280, m=16384)
    entry = _db_entry(16384, 1280, 16384)
    assert choice["config_source"] == "database:" + entry["name"]
    body = dict(f.split(" = ") for f in choice["config"].split(", "))
    for field, value in entry["config"].items():
        assert body[field] == str(value).lower(), field
    _compiler_or_skip()
    choice = _choose_or_skip(7168, 2112, m=4)
    _, meta = mxgemm.compile(7168, 2112, m=4)
    assert choice["config_source"] == meta["config_source"]
    body = dict(f.split(" = ") for f in choice["config"].split(", "))
    for field, value in body.items():
        assert str(meta["config"][field]).lower() == value, field


def test_choose_config_errors_are_messages():
    _choose_or_skip(128, 128)
    with pytest.raises(ValueError, match="multiple of 32"):
        mxgemm.choose_config(128, 100)
    with pytest.raises(ValueError, match="mHint must be in"):
        mxgemm.choose_config(128, 128, m=-1)
    with pytest.raises(ValueError, match="cannot read"):
        mxgemm.choose_config(128, 128, tuning_db="/nonexistent/db.json")
    with pytest.raises(ValueError, match="int64"):
        mxgemm.choose_config(2**64, 128)
