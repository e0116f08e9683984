"""Runs mxgemm-sim --json on every tuned kernel of the build at the given
M values, twice each, and prints one line per run: the kernel, M, whether
both runs printed the same bytes, the headline fields, and whether the time
lies above the problem's latency floor (sim::GemmBounds: no kernel may beat
it, so a time below it means the floor or the model is wrong). Exits
non-zero if a run fails, prints no JSON or lacks a field the tools read."""
import json
import os
import subprocess
import sys

sim, kernels_dir = sys.argv[1], sys.argv[2]
ms = [int(m) for m in sys.argv[3].split(",")]
FIELDS = ["prediction", "target_hash", "time_us", "tflops", "percent_of_peak",
          "mfma_utilisation", "limiter", "clock_ghz", "time_us_peak_clock",
          "memory_bound_us", "compute_bound_us", "latency_floor_us",
          "latency_floor_us_peak_clock"]
status = 0
# The generic kernels beside them take N and K at run time; the simulator
# takes kernels with static N and K (and they are not tuned kernels).
names = sorted(f[:-len(".hsaco")] for f in os.listdir(kernels_dir)
               if f.endswith(".hsaco") and not f.startswith("generic_"))
for name in names:
    hsaco = os.path.join(kernels_dir, name + ".hsaco")
    for m in ms:
        cmd = [sim, hsaco, "--m", str(m), "--json"]
        a = subprocess.run(cmd, capture_output=True, text=True)
        b = subprocess.run(cmd, capture_output=True, text=True)
        if a.returncode or b.returncode:
            print("%s M=%d: FAILED %s" % (name, m, (a.stderr or b.stderr)))
            status = 1
            continue
        r = json.loads(a.stdout)
        missing = [f for f in FIELDS if f not in r]
        if missing:
            print("%s M=%d: missing %s" % (name, m, missing))
            status = 1
            continue
        ok = r["time_us"] > 0 and 0 < r["mfma_utilisation"] <= 1
        above = (0 < r["latency_floor_us"] < r["time_us"] and
                 0 < r["latency_floor_us_peak_clock"] < r["time_us_peak_clock"])
        print("%s M=%d: %s, %s, time %s, %s the latency floor, limiter %s" % (
            name, m, "same output" if a.stdout == b.stdout else "DIFFERENT",
            r["prediction"], "positive" if ok else "BAD",
            "above" if above else "NOT ABOVE", r["limiter"]))
sys.exit(status)
