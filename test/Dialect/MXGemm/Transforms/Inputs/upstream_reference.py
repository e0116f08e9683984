"""Generates and checks the CPU run of mxgemm-lower-to-upstream.

`gen` writes an MLIR module: deterministic MX operands (mxgemm.random_mx,
the C++ numerics library) as byte globals, a @gemm function holding one
mxgemm.scaled_matmul, and a @main that runs it and prints Y's bits as
integers (printMemrefI32: exact, no decimal rounding).

`check` reads mlir-runner's output and compares it with the C++ reference
by the tolerance rule of docs/Numerics.md: the FP64 sum of the products
dequantized by the C++ library (referenceGemmFP64), with
|y - ref| <= K * 2^-24 * sum|p| (upstream rounds every f32 addition: a
K-step of 1), plus half a bf16 ulp of |y| for bf16 output. The expected
values never come from the code under test. `--perturb` changes one
output element by more than the tolerance, to show the check can fail.
"""

import argparse
import re
import sys

import numpy as np

import mxgemm

FORMAT_TYPES = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def operands(a):
    x, xs = mxgemm.random_mx(a.seed, a.m, a.k, a.x_format, "per_row")
    w, ws = mxgemm.random_mx(a.seed + 1, a.n, a.k, a.w_format, a.w_scale)
    return x, xs, w, ws


def hexbytes(array):
    return '"0x' + array.tobytes().hex().upper() + '"'


def gen(a):
    x, xs, w, ws = operands(a)
    xt, wt = FORMAT_TYPES[a.x_format], FORMAT_TYPES[a.w_format]
    yt = "bf16" if a.out == "bf16" else "f32"
    kb = a.k // 32
    wsr = ws.shape[0]
    types = (f"memref<?x{a.k}x{xt}>", f"memref<?x{kb}xf8E8M0FNU>",
             f"memref<{a.n}x{a.k}x{wt}>", f"memref<{wsr}x{kb}xf8E8M0FNU>",
             f"memref<?x{a.n}x{yt}>")
    out = ["module {",
           "  func.func private @printMemrefI32(memref<*xi32>)"]
    for name, arr in (("x", x), ("xs", xs), ("w", w), ("ws", ws)):
        out.append(f'  memref.global "private" constant @{name} : '
                   f"memref<{arr.size}xi8> = dense<{hexbytes(arr)}>")
    out += [
        "  func.func @gemm(%x: {0}, %xs: {1}, %w: {2}, %ws: {3}, %y: {4}) {{"
        .format(*types),
        "    mxgemm.scaled_matmul %x, %xs, %w, %ws into %y {config = "
        f"#mxgemm.config<>, w_scale = #mxgemm.w_scale<{a.w_scale}>}} : "
        f"{types[0]}, {types[1]}, {types[2]}, {types[3]} into {types[4]}",
        "    return",
        "  }",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        f"    %m = arith.constant {a.m} : index",
    ]
    for i, name in enumerate(("x", "xs", "w", "ws")):
        arr = (x, xs, w, ws)[i]
        dyn = "[%m]" if name in ("x", "xs") else "[]"
        out += [f"    %{name}b = memref.get_global @{name} : "
                f"memref<{arr.size}xi8>",
                f"    %{name} = memref.view %{name}b[%c0]{dyn} : "
                f"memref<{arr.size}xi8> to {types[i]}"]
    bits = "%v : f32 to i32" if yt == "f32" else "%v : bf16 to i16"
    out += [
        f"    %y = memref.alloc(%m) : {types[4]}",
        "    call @gemm(%x, %xs, %w, %ws, %y) : ({0}, {1}, {2}, {3}, {4}) -> ()"
        .format(*types),
        f"    %bits = memref.alloc(%m) : memref<?x{a.n}xi32>",
        "    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, "
        "affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", "
        "\"parallel\"]}",
        f"        ins(%y : {types[4]}) outs(%bits : memref<?x{a.n}xi32>) {{",
        f"    ^bb0(%v: {yt}, %o: i32):",
        f"      %b = arith.bitcast {bits}",
    ]
    if yt == "f32":
        out.append("      linalg.yield %b : i32")
    else:
        out += ["      %e = arith.extui %b : i16 to i32",
                "      linalg.yield %e : i32"]
    out += [
        "    }",
        f"    %u = memref.cast %bits : memref<?x{a.n}xi32> to memref<*xi32>",
        "    call @printMemrefI32(%u) : (memref<*xi32>) -> ()",
        f"    memref.dealloc %y : {types[4]}",
        f"    memref.dealloc %bits : memref<?x{a.n}xi32>",
        "    return",
        "  }",
        "}",
    ]
    print("\n".join(out))


def read_output(path, a):
    text = open(path).read()
    data = text.split("data =", 1)
    if len(data) != 2:
        sys.exit(f"{path}: no printMemrefI32 output")
    values = [int(v) for v in re.findall(r"-?\d+", data[1])]
    if len(values) != a.m * a.n:
        sys.exit(f"{path}: {len(values)} values, expected {a.m * a.n}")
    raw = np.array(values, np.int64).reshape(a.m, a.n)
    if a.out == "f32":
        return (raw & 0xFFFFFFFF).astype(np.uint32).view(np.float32) \
            .astype(np.float64)
    return mxgemm.bf16_to_float32(raw.astype(np.uint16)).astype(np.float64)


def check(a):
    x, xs, w, ws = operands(a)
    y = read_output(a.output, a)
    # The C++ library dequantizes (exact in f32); the sum is FP64.
    xd = mxgemm.dequantize(x, xs, a.x_format, "per_row").astype(np.float64)
    wd = mxgemm.dequantize(w, ws, a.w_format, a.w_scale).astype(np.float64)
    ref = xd @ wd.T
    sum_abs = np.abs(xd) @ np.abs(wd).T
    tol = a.k * 2.0 ** -24 * sum_abs
    if a.out == "bf16":
        tol = tol * (1 + 2.0 ** -8) + 2.0 ** -8 * np.abs(ref)
    if a.perturb:
        y = y.copy()
        y[a.m - 1, a.n - 1] += 4 * tol[a.m - 1, a.n - 1] + 1e-30
    err = np.abs(y - ref)
    bad = np.argwhere(~(err <= tol))
    denom = np.where(sum_abs > 0, sum_abs, 1.0)
    print(f"checked {a.m}x{a.n} {a.out} outputs, K = {a.k}: max "
          f"|y - ref| / sum|p| = {np.max(err / denom):.3g}, max "
          f"|y - ref| / tolerance = {np.max(err / np.maximum(tol, 1e-300)):.3g}")
    if len(bad):
        i, j = bad[0]
        sys.exit(f"FAIL: {len(bad)} outputs outside the tolerance; first "
                 f"Y[{i}, {j}] = {y[i, j]!r}, reference {ref[i, j]!r}, "
                 f"tolerance {tol[i, j]!r}")
    print("PASS")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("mode", choices=["gen", "check"])
    p.add_argument("output", nargs="?")
    p.add_argument("--m", type=int, default=3)
    p.add_argument("--n", type=int, default=128)
    p.add_argument("--k", type=int, default=256)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--x-format", default="e4m3", choices=FORMAT_TYPES)
    p.add_argument("--w-format", default="e4m3", choices=FORMAT_TYPES)
    p.add_argument("--w-scale", default="per_row",
                   choices=["per_row", "block32x32"])
    p.add_argument("--out", default="bf16", choices=["bf16", "f32"])
    p.add_argument("--perturb", action="store_true")
    a = p.parse_args()
    if a.mode == "gen":
        gen(a)
    else:
        if not a.output:
            p.error("check needs the runner's output file")
        check(a)


if __name__ == "__main__":
    main()
