"""mxgemm.perf: the simulator's predictions and bounds passed through from
the C++ tool mxgemm-sim (never re-computed in Python)."""
import json
import os
import subprocess

import pytest

import mxgemm
from mxgemm import perf


def test_the_analytic_model_is_gone():
    for name in ("model_case", "occupancy", "exposed_latency",
                 "hbm_bytes_per_workgroup", "wave_cycles", "lower_bound",
                 "PEAK_FLOPS", "HBM_BYTES_PER_S"):
        assert not hasattr(perf, name), name


@pytest.fixture(scope="module")
def small_kernel(tmp_path_factory):
    try:
        mxgemm.find_compiler()
        sim = perf.find_simulator()
    except (mxgemm.CompileError, perf.SimulatorError) as e:
        pytest.skip(str(e))
    path = str(tmp_path_factory.mktemp("sim") / "k.hsaco")
    mxgemm.compile(256, 256, config={"tile_m": 64, "tile_n": 64,
                                     "tile_k": 128, "waves_m": 1,
                                     "waves_n": 2}, output=path)
    return sim, path


def _strip(result):
    result = dict(result)
    assert result.pop("simulator_cpu_seconds") >= 0
    result.pop("simulator_wall_seconds")
    return result


def test_simulate_returns_the_tools_json(small_kernel):
    sim, path = small_kernel
    got = perf.simulate(path, 300)
    direct = json.loads(subprocess.run(
        [sim, path, "--m", "300", "--json"], check=True,
        capture_output=True, text=True).stdout)
    assert _strip(got) == direct
    assert got["prediction"] == "mxgemm-sim (not a measurement)"
    s = perf.summary(got)
    assert s["time_us"] == direct["time_us"]
    assert s["limiter"] == direct["limiter"]
    assert s["workgroups_per_cu"] == direct["occupancy"]["workgroups_per_cu"]


def test_bounds_come_from_the_simulator(small_kernel):
    # M = 300, N = K = 256, 32x32-block W scales, BF16 Y, by hand: X 76800
    # B, Xs 2400, W 65536, Ws 64, Y 153600 (298400 in all, 144800 read);
    # at 2.4 GHz the MFMAs do 8192 FLOP/clk/CU on 256 CUs; the floor is
    # (664 + 264) cycles + 145.833 ns around the read bytes at 8 TB/s.
    _, path = small_kernel
    b = perf.bounds(perf.simulate(path, 300))
    assert b["memory_s"] == pytest.approx(298400 / 8e12, rel=1e-9)
    assert b["compute_s"] == pytest.approx(
        2 * 300 * 256 * 256 / (8192 * 256 * 2.4e9), rel=1e-9)
    assert b["bound_s"] == b["memory_s"] and b["binds"] == "memory"
    assert b["floor_s"] == pytest.approx(
        928 / 2.4e9 + 145.833333e-9 + 144800 / 8e12, rel=1e-6)


def test_simulate_is_deterministic_and_follows_m(small_kernel):
    _, path = small_kernel
    a, b = _strip(perf.simulate(path, 300)), _strip(perf.simulate(path, 300))
    c = _strip(perf.simulate(path, 64))
    assert a == b
    assert c["workgroups"] < a["workgroups"]


def test_simulate_reports_the_tools_errors(small_kernel, tmp_path):
    _, path = small_kernel
    bad = tmp_path / "bad.json"
    bad.write_text('{"kernel": "x"}')
    with pytest.raises(perf.SimulatorError, match="format_version"):
        perf.simulate(path, 300, sidecar=str(bad))
    old = {v: os.environ.pop(v, None) for v in ("MXGEMM_SIM",
                                                "MXGEMM_COMPILE")}
    old_path = os.environ.get("PATH", "")
    os.environ["PATH"] = str(tmp_path)
    try:
        with pytest.raises(perf.SimulatorError, match="not found"):
            perf.find_simulator(build=str(tmp_path))
    finally:
        os.environ["PATH"] = old_path
        for v, val in old.items():
            if val is not None:
                os.environ[v] = val
