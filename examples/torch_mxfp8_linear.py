#!/usr/bin/env python3
"""An MXFP8 linear layer from PyTorch through mxgemm.torch, on the emulator.

BF16 activations [M, K] are quantized to E4M3 with per-32 E8M0 scales on
the device (the runtime's mxgemm_quantize kernel, here on the emulator's HIP
facade, the whole grid), the BF16 weight [N, K] to E4M3 with 32x32-block
scales on the host and packed once for the tuned kernel; Y = X . W^T runs through the runtime shim on the emulator's
HIP facade and is compared with torch's BF16 matmul. The emulator runs a
few sampled workgroups (a full grid of the 8193-row problem takes minutes on
the CPU); their tiles are compared. The time printed is the timing
simulator's prediction for the whole problem on MI355X (mxgemm-sim), never
the emulator's wall time.

Run from a build tree (the paths scripts/test.sh uses):
    PYTHONPATH=python MXGEMM_RUNTIME_LIBRARY=build/lib/libmxgemm_runtime.so \\
    MXGEMM_HIP_LIBRARY=build/lib/libmxgemm_hip_emu.so \\
    /usr/bin/python3 examples/torch_mxfp8_linear.py [--entry index_query]
"""

import argparse
import json
import os
import sys
import tempfile

import torch

import mxgemm
import mxgemm.perf
import mxgemm.torch as mt


def predicted_time_us(entry, m, build):
    """mxgemm-sim's prediction for the embedded kernel `entry` at M rows."""
    with tempfile.TemporaryDirectory() as tmp:
        hsaco = os.path.join(tmp, entry + ".hsaco")
        with open(hsaco, "wb") as f:
            f.write(mxgemm.kernel_code_object(entry))
        with open(hsaco + ".json", "w") as f:
            json.dump(mxgemm.kernel_descriptor(entry), f)
        return mxgemm.perf.summary(mxgemm.perf.simulate(hsaco, m,
                                                        build=build))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entry", default="index_query",
                    help="embedded kernel whose (N, K) to run")
    ap.add_argument("--m", type=int, default=8193)
    ap.add_argument("--workgroups", default="0,last",
                    help="workgroups the emulator runs ('last' = the last)")
    ap.add_argument("--build", default="build",
                    help="build tree with bin/mxgemm-sim")
    ap.add_argument("--no-predict", action="store_true",
                    help="skip the simulator's prediction")
    args = ap.parse_args()
    hip = os.environ.get("MXGEMM_HIP_LIBRARY")
    if not hip:
        sys.exit("set MXGEMM_HIP_LIBRARY to the emulator's HIP facade "
                 "(build/lib/libmxgemm_hip_emu.so)")
    ctx = mxgemm.Context(hip_library=hip)
    mt.set_context(ctx)  # CPU tensors go through the runtime on it

    info = next(k for k in mxgemm.kernels() if k["entry"] == args.entry)
    m, n, k = args.m, info["n"], info["k"]
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(m, k, generator=gen).bfloat16()
    w = (torch.randn(n, k, generator=gen) / k ** 0.5).bfloat16()

    xq, xs = mt.quantize_mxfp8(x)                       # per call, device
    rec = mt.last_path()
    print(f"quantize X {m}x{k}: path {rec.path} ({rec.reason}), "
          f"{rec.detail}")
    wq, ws = mt.quantize_mxfp8(w, granularity="block32x32")  # once
    wq, layout = mt.pack_weights(wq)                          # once
    print(f"pack W {n}x{k}: layout {layout}")

    p = mxgemm.plan(m, n, k, ctx=ctx, w_layout=layout)
    if not p.eligible:
        sys.exit(f"the runtime declines M = {m}: {p.reason}: {p.message}")
    wgs = [p.grid[0] - 1 if g == "last" else int(g)
           for g in args.workgroups.split(",")]
    os.environ["MXGEMM_EMU_WORKGROUPS"] = ",".join(map(str, wgs))
    try:
        y = mt.scaled_mm(xq, xs, wq, ws, w_layout=layout)
    finally:
        del os.environ["MXGEMM_EMU_WORKGROUPS"]
    rec = mt.last_path()
    print(f"scaled_mm {m}x{n}x{k}: path {rec.path}, kernel {rec.detail}, "
          f"workgroups {wgs} of {p.grid[0]} on the emulator")

    worst = 0.0
    for wg in wgs:
        r, c = mxgemm.workgroup_tile(p, wg)
        rows = slice(r, min(r + p.program_tile_m, m))
        cols = slice(c, c + p.tile_n)
        ref = (x[rows].float() @ w[cols].float().T).bfloat16().float()
        got = y[rows, cols].float()
        err = ((got - ref).norm() / ref.norm()).item()
        worst = max(worst, err)
        print(f"  tile rows {rows.start}..{rows.stop - 1} cols "
              f"{cols.start}..{cols.stop - 1}: relative error vs BF16 "
              f"matmul {err:.4f}")
    if args.no_predict:
        return 0 if worst < 0.1 else 1
    try:
        s = predicted_time_us(args.entry, m, args.build)
        print(f"predicted (mxgemm-sim, MI355X at {s['clock_ghz']} GHz): "
              f"{s['time_us']:.1f} us, {s['tflops']:.0f} TFLOPS, limiter "
              f"{s['limiter']}")
    except mxgemm.perf.SimulatorError as e:
        print(f"no prediction: {e}")
    # MXFP8 of both operands: a few percent of relative error is expected.
    return 0 if worst < 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
