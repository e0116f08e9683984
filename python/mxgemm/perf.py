"""Performance figures of mxgemm: the lower bound of a problem, and the
predictions of the C++ timing simulator mxgemm-sim (docs/Simulator.md).

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

# docs/Design.md section 2: the MFMA peak and the HBM bandwidth of MI355X.
PEAK_FLOPS = 5.03e15
HBM_BYTES_PER_S = 8e12


class SimulatorError(RuntimeError):
    """mxgemm-sim is missing or failed."""


def lower_bound(m, n, k, out_bytes=2):
    """Compute and memory lower bounds (seconds) and the binding term: MFMA
    issue at PEAK_FLOPS or the compulsory bytes at HBM_BYTES_PER_S."""
    flops = 2.0 * m * n * k
    scale_bytes = m * (k // 32) + ((n + 31) // 32) * (k // 32)
    bytes_moved = m * k + n * k + scale_bytes + out_bytes * m * n
    t_compute = flops / PEAK_FLOPS
    t_memory = bytes_moved / HBM_BYTES_PER_S
    bound = max(t_compute, t_memory)
    return {"flops": flops, "bytes": bytes_moved, "compute_s": t_compute,
            "memory_s": t_memory, "bound_s": bound,
            "binds": "compute" if t_compute >= t_memory else "memory"}


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
