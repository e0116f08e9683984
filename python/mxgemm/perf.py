"""Performance figures of mxgemm: the predictions of the C++ timing
simulator mxgemm-sim (docs/Simulator.md) and the bounds it gives with them.

This module models nothing itself. `simulate` runs `mxgemm-sim K.hsaco --m M
--json` and returns its JSON object: predicted time and TFLOPS at the
sustained MFMA clock and at the 2.4 GHz peak clock, MFMA utilisation,
limiter, occupancy, cache hit rates, stalls, and the hash of the timing
table it used. Every figure it returns is a prediction, not a measurement.
(The analytic model that used to live here was removed by issue 14.)
"""
import json
import os
import resource
import shutil
import subprocess
import time


class SimulatorError(RuntimeError):
    """mxgemm-sim is missing or failed."""


def bounds(prediction):
    """The problem's bounds that mxgemm-sim prints beside a GEMM prediction
    (sim::GemmBounds, docs/Simulator.md "Bounds and the latency floor"),
    in seconds at the 2.4 GHz peak clock, the clock of the reports' "% of
    peak": the MFMA issue time of 2MNK, the operands' bytes at 8 TB/s, the
    larger of the two and which binds, and the latency floor."""
    compute = prediction["compute_bound_us_peak_clock"] * 1e-6
    memory = prediction["memory_bound_us_peak_clock"] * 1e-6
    return {"compute_s": compute, "memory_s": memory,
            "bound_s": max(compute, memory),
            "binds": "compute" if compute >= memory else "memory",
            "floor_s": prediction["latency_floor_us_peak_clock"] * 1e-6}


def first_workgroup(report):
    """The first workgroup record of an `mxgemm-emu --stats-json` report,
    with the report's 'class_order' (static counts, not a prediction)."""
    wg = dict(report["workgroups"][0])
    wg["class_order"] = report["class_order"]
    return wg


def find_simulator(build=None):
    """mxgemm-sim: $MXGEMM_SIM, <build>/bin, the build tree next to the
    runtime library, or PATH."""
    env = os.environ.get("MXGEMM_SIM")
    if env:
        return env
    candidates = []
    if build:
        candidates.append(os.path.join(build, "bin", "mxgemm-sim"))
    compiler = os.environ.get("MXGEMM_COMPILE")
    if compiler:
        candidates.append(os.path.join(os.path.dirname(compiler),
                                       "mxgemm-sim"))
    for cand in candidates:
        if os.path.exists(cand):
            return cand
    found = shutil.which("mxgemm-sim")
    if not found:
        raise SimulatorError("mxgemm-sim not found (set MXGEMM_SIM, pass the "
                             "build directory, or put it on PATH)")
    return found


def simulate(hsaco, m, sidecar=None, simulator=None, build=None,
             extra_args=()):
    """The simulator's prediction for code object `hsaco` at M rows: the
    JSON object of `mxgemm-sim --json` (docs/Simulator.md), plus the
    simulator's own CPU and wall seconds. The sidecar defaults to
    `hsaco`.json, as in mxgemm-sim."""
    cmd = [simulator or find_simulator(build), hsaco, "--m", str(int(m)),
           "--json"]
    if sidecar:
        cmd += ["--sidecar", sidecar]
    cmd += list(extra_args)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SimulatorError("%s failed (exit %d): %s" % (
            " ".join(cmd), proc.returncode,
            (proc.stderr or proc.stdout).strip()[-400:]))
    try:
        result = json.loads(proc.stdout)
    except ValueError as e:
        raise SimulatorError("mxgemm-sim printed no JSON: %s" % e)
    result["simulator_cpu_seconds"] = (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
    result["simulator_wall_seconds"] = wall
    return result


def summary(prediction):
    """The headline figures of a prediction (the columns of
    docs/Performance.md)."""
    occ = prediction.get("occupancy") or {}
    return {"time_us": prediction["time_us"],
            "tflops": prediction["tflops"],
            "percent_of_peak": prediction["percent_of_peak"],
            "mfma_utilisation": prediction["mfma_utilisation"],
            "limiter": prediction["limiter"],
            "time_us_peak_clock": prediction["time_us_peak_clock"],
            "clock_ghz": prediction["clock_ghz"],
            "workgroups_per_cu": occ.get("workgroups_per_cu"),
            "target_hash": prediction["target_hash"]}
