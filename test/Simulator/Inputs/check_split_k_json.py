"""Consistency of mxgemm-sim's JSON for a split-K kernel (split-k.test)."""
import json
import sys

d = json.load(open(sys.argv[1]))
r = d["split_k_reduction"]
flops = d["flops"]
print("flops %d" % flops)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


print("time_us = phase0 + reduction:",
      close(d["time_us"], d["time_us_phase0"] + r["time_us"]))
print("tflops x time_us = flops:",
      close(d["tflops"] * d["time_us"] * 1e6, flops))
print("peak clock: tflops x time_us = flops:",
      close(d["tflops_peak_clock"] * d["time_us_peak_clock"] * 1e6, flops))
# 8192 FLOP/clk/CU x 256 CUs x 2.4 GHz = 5033.1648 TFLOP/s.
print("percent_of_peak = tflops / 5033.1648:",
      close(d["percent_of_peak"], 100 * d["tflops"] / 5033.1648))
# The reduction issues no MFMA; phase 0 does.
print("MFMAs in phase 0 only:",
      r["mfma_utilisation"] == 0 and d["mfma_utilisation"] > 0)
