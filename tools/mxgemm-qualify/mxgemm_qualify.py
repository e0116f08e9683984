#!/usr/bin/env python3
"""mxgemm-qualify: the evidence table of the case-table families.

For every case of the case table (family x M) and every seed it

  1. asks the real runtime shim (libmxgemm_runtime.so, mxgemm_query) for the
     dispatch decision: kernel, config, grid;
  2. runs the problem through the shim (mxgemm_gemm) on the emulator's HIP
     facade, executing only sampled workgroups (the first, the last, the
     M-edge ones and random ones); a checker finding makes the launch fail;
     a kernel that reads W in MFMA panels (stage_w = packed_registers) gets
     W packed once by the shim (mxgemm_pack_weights) into its own buffer,
     checked byte for byte against NumPy's pack_weight_panels;
  3. checks every sampled output tile bit for bit against the CPU reference
     semantics (docs/Numerics.md: exact sum per MFMA K-step, one FP32
     rounding, BF16 RNE), against the naive kernel of the same MFMA shape run
     on the same device buffers (byte-identical), that the inputs are
     unchanged after the call and that no output outside the sampled tiles of
     the copied rows was written;
  4. reports static and modelled performance figures (sidecar resources,
     emulator counts of one interior workgroup, tools/mxgemm-bench's model);

and runs the ineligible cases (M out of range, unknown key, f32 output,
misaligned pointer, non-contiguous scales, W in the other layout than the
kernel reads), each of which must be NOT_ELIGIBLE with its reason and must
not launch.

Writes qualification.md and qualification.json (to --out, default the
current directory). Exit status: 0 all pass, 1 a case failed, 2 a setup
error (bad arguments, missing tools, --device hip without a GPU).
"""

import argparse
import atexit
import ctypes
import datetime
import hashlib
import importlib.util
import json
import os
import platform
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tuning"))
from mxgemm_tuning import read_cases  # noqa: E402
M_VALUES = (16384, 10732, 9199)
DEFAULT_SEEDS = "0,1,2"
DEFAULT_SAMPLE = 6
SCALE_SPAN = 4   # E8M0 scales drawn from 127 - SPAN .. 127 + SPAN

HIP_LAUNCH_PARAM_BUFFER_POINTER = 0x01
HIP_LAUNCH_PARAM_BUFFER_SIZE = 0x02
HIP_LAUNCH_PARAM_END = 0x03


class SetupError(Exception):
    pass


def log(msg):
    print(msg, flush=True)


# --------------------------------------------------------------------------
# Case table
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# Data (NumPy; deterministic per (seed, M, N, K))
# --------------------------------------------------------------------------

def random_fp8(rng, shape):
    """E4M3 codes like numerics::fillRandomFP8: 1/8 zeros, 1/8 subnormals,
    the rest uniform bytes with the NaN codes folded onto finite ones."""
    r = rng.integers(0, 256, size=shape, dtype=np.uint8)
    kind = rng.integers(0, 8, size=shape, dtype=np.uint8)
    sign = r & 0x80
    code = np.where((r & 0x7F) == 0x7F, r ^ 0x40, r)
    sub = sign | (1 + (r & 0x3) % 7).astype(np.uint8)
    code = np.where(kind == 0, sign, np.where(kind == 1, sub, code))
    return np.ascontiguousarray(code.astype(np.uint8))


def random_scales(rng, shape):
    return rng.integers(127 - SCALE_SPAN, 127 + SCALE_SPAN + 1, size=shape,
                        dtype=np.uint8)


def make_inputs(seed, m, n, k):
    rng = np.random.default_rng([seed, m, n, k, 0x6d78])
    x = random_fp8(rng, (m, k))
    xs = random_scales(rng, (m, k // 32))
    w = random_fp8(rng, (n, k))
    ws = random_scales(rng, ((n + 31) // 32, k // 32))
    return x, xs, w, ws


# --------------------------------------------------------------------------
# CPU reference (docs/Numerics.md), bit-exact, for tiles
# --------------------------------------------------------------------------

def _e4m3_units():
    """E4M3 value * 2^9 (an integer) per code, as float64; NaN codes -> nan."""
    codes = np.arange(256)
    field = (codes >> 3) & 0xF
    mant = codes & 7
    mag = np.where(field == 0, mant, (8 + mant) << np.maximum(field - 1, 0))
    val = np.where(codes & 0x80, -mag, mag).astype(np.float64)
    val[(codes & 0x7F) == 0x7F] = np.nan
    return val


E4M3_UNITS = _e4m3_units()          # units of 2^-9; a product is in 2^-18
FLT_MAX = float(np.finfo(np.float32).max)


def _round_to_f32(q):
    """Round a Fraction to FP32 (RNE, subnormals kept, overflow -> inf)."""
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    u = max(e - 23, -149)
    scaled = a / (Fraction(2) ** u)
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1):
        n += 1
    v = float(n) * 2.0 ** u
    return sign * (float("inf") if v > FLT_MAX else v)


def reference_tile(x, xs, w, ws, k_step, stats):
    """BF16 bits of x[r] . w[c]^T for the given operand rows: per K-step one
    exact sum (accumulator plus the step's block products) and one FP32
    rounding, then BF16 RNE. float64 holds every block dot product exactly
    (integers below 2^41 in units of 2^-18); each step's sum is checked exact
    with TwoSum and the rare inexact elements are redone with Fractions."""
    rows, k = x.shape
    cols = w.shape[0]
    a = E4M3_UNITS[x]
    b = E4M3_UNITS[w]
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("reference_tile: NaN codes are not generated")
    sa = xs.astype(np.int64)
    sb = np.repeat(ws.astype(np.int64), 32, axis=0)[:cols] \
        if ws.shape[0] != cols else ws.astype(np.int64)
    acc = np.zeros((rows, cols), dtype=np.float64)
    for k0 in range(0, k, k_step):
        blocks = range(k0 // 32, min(k0 + k_step, k) // 32)
        terms = []
        s = acc.copy()
        inexact = np.zeros((rows, cols), dtype=bool)
        for blk in blocks:
            p = a[:, blk * 32:(blk + 1) * 32] @ b[:, blk * 32:(blk + 1) * 32].T
            e = sa[:, blk][:, None] + sb[:, blk][None, :] - 254 - 18
            t = np.ldexp(p, e)
            terms.append((p, e))
            s2 = s + t
            bb = s2 - s
            err = (s - (s2 - bb)) + (t - bb)
            inexact |= err != 0
            s = s2
        if inexact.any():
            idx = np.argwhere(inexact)
            stats["fraction_fallbacks"] = stats.get("fraction_fallbacks", 0) \
                + len(idx)
            for i, j in idx:
                total = Fraction(float(acc[i, j]))
                allzero = True
                for p, e in terms:
                    pij = int(p[i, j])
                    if pij:
                        allzero = False
                        total += Fraction(pij) * Fraction(2) ** int(e[i, j])
                s[i, j] = acc[i, j] if allzero else _round_to_f32(total)
        acc = s.astype(np.float32).astype(np.float64)
    bits = acc.astype(np.float32).view(np.uint32)
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    lsb = (bits >> 16) & 1
    out = ((bits + np.uint32(0x7FFF) + lsb) >> 16).astype(np.uint16)
    out = np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), out)
    return out


# --------------------------------------------------------------------------
# HIP (the facade or the real runtime) for the naive kernel
# --------------------------------------------------------------------------

class Hip:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        V, P, U = ctypes.c_void_p, ctypes.POINTER, ctypes.c_uint
        self.lib.hipModuleLoadData.argtypes = [P(V), V]
        self.lib.hipModuleGetFunction.argtypes = [P(V), V, ctypes.c_char_p]
        self.lib.hipModuleLaunchKernel.argtypes = [V, U, U, U, U, U, U, U, V,
                                                   P(V), P(V)]
        self.lib.hipModuleUnload.argtypes = [V]
        self.lib.hipGetErrorString.restype = ctypes.c_char_p
        self.lib.hipGetErrorString.argtypes = [ctypes.c_int]
        self.lib.hipDeviceSynchronize.argtypes = []
        self.modules = {}

    def check(self, err, what):
        if err != 0:
            raise RuntimeError("%s: %s (%d)" % (
                what, self.lib.hipGetErrorString(err).decode(), err))

    def function(self, code, name):
        key = (hashlib.sha256(code).hexdigest(), name)
        if key not in self.modules:
            buf = ctypes.create_string_buffer(code, len(code))
            mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
            self.check(self.lib.hipModuleLoadData(ctypes.byref(mod), buf),
                       "hipModuleLoadData")
            self.check(self.lib.hipModuleGetFunction(ctypes.byref(fn), mod,
                                                     name.encode()),
                       "hipModuleGetFunction")
            self.modules[key] = (buf, mod, fn)
        return self.modules[key][2]

    def launch(self, fn, grid, block, args):
        size = ctypes.c_size_t(len(args))
        buf = ctypes.create_string_buffer(bytes(args), len(args))
        extra = (ctypes.c_void_p * 5)(
            HIP_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(buf),
            HIP_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size),
            HIP_LAUNCH_PARAM_END)
        self.check(self.lib.hipModuleLaunchKernel(fn, grid, 1, 1, block, 1, 1,
                                                  0, None, None, extra),
                   "hipModuleLaunchKernel")
        self.check(self.lib.hipDeviceSynchronize(), "hipDeviceSynchronize")


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def config_fields(text):
    body = text
    if body.startswith("#mxgemm.config<"):
        body = body[len("#mxgemm.config<"):-1]
    out = {}
    for part in body.split(","):
        if "=" in part:
            key, val = part.split("=", 1)
            out[key.strip()] = val.strip()
    return out


def structure(cfg):
    """A short name of the kernel structure a config gives."""
    f = cfg
    parts = ["%sx%sx%s" % (f.get("tile_m", "128"), f.get("tile_n", "128"),
                           f.get("tile_k", "128"))]
    parts.append("waves %sx%s" % (f.get("waves_m", "2"), f.get("waves_n", "2")))
    parts.append(f.get("mfma", "m32n32k64"))
    sx, sw = f.get("stage_x", "direct"), f.get("stage_w", "direct")
    parts.append("X:%s W:%s" % (sx, sw))
    if sx != "direct" or sw != "direct":
        parts.append("%s stages %s" % (f.get("stages", "1"),
                                        f.get("lds_layout", "plain")))
    if f.get("schedule", "default") != "default":
        parts.append("sched " + f["schedule"])
    if f.get("split", "1") != "1":
        parts.append("split " + f["split"])
    if f.get("group_m", "1") != "1" or f.get("group_n", "0") not in ("0", "1"):
        parts.append("group %sMx%sN" % (f.get("group_m", "1"),
                                         f.get("group_n", "0")))
    if f.get("xcd_remap", "false") == "true":
        parts.append("xcd remap")
    return ", ".join(parts)


class DevBuf:
    """A device allocation that mxgemm.gemm accepts as device memory."""

    def __init__(self, ptr, shape):
        self.ptr, self.shape = ptr, shape

    def data_ptr(self):
        return self.ptr


# --------------------------------------------------------------------------
# The qualification
# --------------------------------------------------------------------------

class Qualifier:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.bin = os.path.join(self.build, "bin")
        self.libdir = os.path.join(self.build, "lib")
        self.compiler = os.path.join(self.bin, "mxgemm-compile")
        self.emu = os.path.join(self.bin, "mxgemm-emu")
        for tool in (self.compiler, self.emu,
                     os.path.join(self.libdir, "libmxgemm_runtime.so")):
            if not os.path.exists(tool):
                raise SetupError("%s not found (build first: ninja -C %s)"
                                 % (tool, self.build))
        os.environ["MXGEMM_RUNTIME_LIBRARY"] = os.path.join(
            self.libdir, "libmxgemm_runtime.so")
        os.environ["MXGEMM_COMPILE"] = self.compiler
        if args.threads:
            os.environ["MXGEMM_EMU_THREADS"] = str(args.threads)
        if args.device == "emulator":
            self.hip_path = os.path.join(self.libdir, "libmxgemm_hip_emu.so")
            if not os.path.exists(self.hip_path):
                raise SetupError("%s not found" % self.hip_path)
        else:
            self.hip_path = os.environ.get("MXGEMM_HIP_LIBRARY") or \
                "libamdhip64.so"
        sys.path.insert(0, os.path.join(REPO, "python"))
        import mxgemm
        self.mx = mxgemm
        self.emulated = args.device == "emulator"
        if not self.emulated:
            self.check_real_hip()
        self.ctx = mxgemm.Context(hip_library=self.hip_path,
                                  strict=not self.emulated)
        self.hip = Hip(self.hip_path)
        self.workdir = tempfile.mkdtemp(prefix="mxgemm-qualify-")
        atexit.register(shutil.rmtree, self.workdir, True)
        self.kernel_cache = {}
        self.perf = self.load_perf_model()
        self.embedded = self.embedded_code_objects()

    # -- setup -------------------------------------------------------------
    def check_real_hip(self):
        try:
            ctypes.CDLL(self.hip_path)
        except OSError as e:
            raise SetupError(
                "--device hip: cannot load the HIP runtime '%s' (%s). No AMD "
                "GPU runtime here: install ROCm (libamdhip64.so) on an MI355X "
                "machine or set MXGEMM_HIP_LIBRARY; use --device emulator "
                "otherwise." % (self.hip_path, e))
        ctx = self.mx.Context(hip_library=self.hip_path, strict=True)
        try:
            name, cc = ctx.device_info()
        except Exception as e:
            raise SetupError("--device hip: no usable AMD GPU through '%s': "
                             "%s" % (self.hip_path, e))
        if "mxgemm emulator" in name:
            raise SetupError("--device hip: '%s' is the emulator's HIP facade "
                             "(%s); use --device emulator" % (self.hip_path,
                                                              name))
        if cc != (9, 5):
            raise SetupError("--device hip: device '%s' has compute "
                             "capability %d.%d, not gfx950 (9.5)"
                             % (name, cc[0], cc[1]))
        ctx.close()

    def load_perf_model(self):
        path = os.path.join(REPO, "tools", "mxgemm-bench", "mxgemm_perf.py")
        if not os.path.exists(path):
            return None
        spec = importlib.util.spec_from_file_location("mxgemm_perf", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod if hasattr(mod, "model_case") else None

    def embedded_code_objects(self):
        lib = self.mx._library()
        fn = lib.mxgemm_kernel_code_object
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p),
                       ctypes.POINTER(ctypes.c_size_t)]
        out = {}
        for i, info in enumerate(self.mx.kernels()):
            data, size = ctypes.c_void_p(), ctypes.c_size_t()
            if fn(i, ctypes.byref(data), ctypes.byref(size)) != 0:
                continue
            blob = ctypes.string_at(data, size.value)
            out[info["entry"]] = {"sha256": hashlib.sha256(blob).hexdigest(),
                                  "bytes": size.value, "info": info}
        return out

    def compile(self, n, k, config, name):
        key = (n, k, config, name)
        if key in self.kernel_cache:
            return self.kernel_cache[key]
        out = os.path.join(self.workdir, "%s_%d_%d_%d.hsaco" % (
            name, n, k, len(self.kernel_cache)))
        cmd = [self.compiler, "--n", str(n), "--k", str(k), "-o", out]
        if config:
            cmd += ["--config", config]
        if name:
            cmd += ["--name", name]
        t0 = time.perf_counter()
        proc = run(cmd)
        dt = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError("mxgemm-compile failed: %s: %s" % (
                " ".join(cmd), proc.stderr.strip()))
        with open(out, "rb") as f:
            code = f.read()
        with open(out + ".json") as f:
            side = json.load(f)
        res = (out, code, side, dt)
        self.kernel_cache[key] = res
        return res

    def plan_for(self, m, n, k):
        """The shim's decision as a caller makes it: asked with row-major W,
        and again with MFMA-panel W when the kernel reads those
        (PACKED_WEIGHTS); plan.w_layout says which one the kernel reads."""
        plan = self.mx.plan(m, n, k, ctx=self.ctx)
        if not plan.eligible and plan.reason == "PACKED_WEIGHTS":
            plan = self.mx.plan(m, n, k, ctx=self.ctx, w_layout="mfma_panels")
        return plan

    # -- workgroup selection ---------------------------------------------------
    def tiles_of(self, plan):
        grid = plan.grid[0]
        return [self.mx.workgroup_tile(plan, g) for g in range(grid)]

    def sample(self, plan, m, seed, count):
        tiles = self.tiles_of(plan)
        grid = len(tiles)
        last_row = max(r for r, _ in tiles)
        edge = [g for g, (r, _) in enumerate(tiles) if r == last_row]
        edge.sort(key=lambda g: tiles[g][1])
        chosen = [0, grid - 1, edge[0], edge[-1], edge[len(edge) // 2]]
        mandatory = []
        for g in chosen:
            if g not in mandatory:
                mandatory.append(g)
        rng = random.Random(seed * 7919 + m)
        picked = list(mandatory)
        while len(picked) < min(max(count, len(mandatory)), grid):
            g = rng.randrange(grid)
            if g not in picked:
                picked.append(g)
        kinds = {}
        for g in picked:
            k = []
            if g == 0:
                k.append("first")
            if g == grid - 1:
                k.append("last")
            if g in edge:
                k.append("M-edge")
            kinds[g] = "+".join(k) or "random"
        return sorted(picked), tiles, kinds, last_row + plan.program_tile_m > m

    # -- one problem -----------------------------------------------------------
    def qualify(self, fam, m, seed, dump_dir=None):
        mx = self.mx
        n, k = int(fam["N"]), int(fam["K"])
        rec = {"family": fam["family"], "m": m, "n": n, "k": k, "seed": seed,
               "checks": {}, "failures": []}
        fail = rec["failures"]
        t_start = time.perf_counter()
        plan = self.plan_for(m, n, k)
        rec["plan"] = {"status": plan.status, "reason": plan.reason,
                       "message": plan.message, "entry": plan.entry,
                       "kernel": plan.kernel, "config": plan.config,
                       "grid": list(plan.grid), "block": list(plan.block),
                       "program_tile_m": plan.program_tile_m,
                       "tile_n": plan.tile_n, "num_tiles_n": plan.num_tiles_n,
                       "k_step": plan.k_step, "m_range": list(plan.m_range),
                       "w_layout": plan.w_layout}
        if not plan.eligible:
            fail.append("not dispatched: %s: %s" % (plan.reason, plan.message))
            return rec
        cfg = config_fields(plan.config)
        panels = plan.w_layout == "mfma_panels"
        rec["w_layout"] = plan.w_layout
        # The shim's layout flag, the config and the embedded table agree.
        emb = self.embedded.get(plan.entry)
        layouts = {plan.w_layout, "mfma_panels" if cfg.get("stage_w") ==
                   "packed_registers" else "row_major"}
        if emb:
            layouts.add(emb["info"].get("w_layout"))
        if len(layouts) != 1:
            fail.append("W layout disagrees: plan %s, config stage_w = %s, "
                        "kernel table %s" % (plan.w_layout,
                                             cfg.get("stage_w", "direct"),
                                             emb and emb["info"].get(
                                                 "w_layout")))
        want_grid = -(-m // plan.program_tile_m) * plan.num_tiles_n
        if plan.grid[0] != want_grid:
            fail.append("grid %d != ceil(M/%d)*%d = %d" % (
                plan.grid[0], plan.program_tile_m, plan.num_tiles_n,
                want_grid))
        rec["structure"] = structure(cfg)
        rec["code_object_sha256"] = emb["sha256"] if emb else None

        wgs, tiles, kinds, has_partial = self.sample(plan, m, seed,
                                                     self.args.sample)
        rec["workgroups"] = [{"id": g, "tile": list(tiles[g]),
                              "kind": kinds[g]} for g in wgs]
        regions = []
        for g in wgs:
            r0, c0 = tiles[g]
            regions.append((r0, min(r0 + plan.program_tile_m, m), c0,
                            min(c0 + plan.tile_n, n)))
        rec["m_edge_covered"] = any(r1 == m for _, r1, _, _ in regions)
        if not rec["m_edge_covered"]:
            fail.append("M edge not covered")

        x, xs, w, ws = make_inputs(seed, m, n, k)
        ctx = self.ctx
        ptrs = []
        try:
            dx, dxs, dw, dws = [ctx.to_device(a) for a in (x, xs, w, ws)]
            ptrs += [dx, dxs, dw, dws]
            ybytes = m * n * 2
            dy = ctx.alloc(ybytes)
            ptrs.append(dy)
            ctx.memset(dy, 0xFF, ybytes)
            mfma = cfg.get("mfma", "m32n32k64")
            dw_tuned, inputs = dw, [(x, dx), (xs, dxs), (w, dw), (ws, dws)]
            if panels:
                # Packed once, as a caller would, into a buffer of its own:
                # the naive kernel below reads the row-major W.
                t0 = time.perf_counter()
                dpw = ctx.alloc(n * k)
                ptrs.append(dpw)
                try:
                    mx.pack_weights(DevBuf(dw, (n, k)), m=m,
                                    out=DevBuf(dpw, (n, k)), ctx=ctx)
                except mx.MXGemmError as e:
                    fail.append("mxgemm_pack_weights failed: %s" % e)
                    return rec
                rec["pack_seconds"] = time.perf_counter() - t0
                want = mx.pack_weight_panels(w, mfma)
                got_packed = np.empty_like(want)
                ctx.to_host(dpw, got_packed)
                same = bool(np.array_equal(got_packed, want))
                rec["checks"]["packed_w_matches_numpy"] = same
                if not same:
                    fail.append("%d packed W bytes differ from NumPy's "
                                "pack_weight_panels" % int(np.count_nonzero(
                                    got_packed != want)))
                dw_tuned = dpw
                inputs.append((want, dpw))
            # The tuned kernel through the shim.
            if self.emulated:
                os.environ["MXGEMM_EMU_WORKGROUPS"] = ",".join(map(str, wgs))
            t0 = time.perf_counter()
            try:
                mx.gemm(DevBuf(dx, (m, k)), DevBuf(dxs, (m, k // 32)),
                        DevBuf(dw_tuned, (n, k)), DevBuf(dws, ws.shape),
                        out=DevBuf(dy, (m, n)), ctx=ctx,
                        w_layout=plan.w_layout)
                ctx.synchronize()
                rec["checks"]["launch"] = "OK (zero checker findings)"
            except mx.MXGemmError as e:
                fail.append("tuned launch failed (checker finding or HIP "
                            "error): %s" % e)
                rec["checks"]["launch"] = "FAIL"
                return rec
            finally:
                os.environ.pop("MXGEMM_EMU_WORKGROUPS", None)
            rec["tuned_seconds"] = time.perf_counter() - t0

            row_blocks = sorted({(r0, r1) for r0, r1, _, _ in regions})
            got = {}
            for r0, r1 in row_blocks:
                buf = np.empty((r1 - r0, n), dtype=np.uint16)
                self.copy_rows(dy, buf, r0, n)
                got[(r0, r1)] = buf
            # Nothing written outside the sampled tiles in the copied rows.
            if self.emulated:
                stray = 0
                for (r0, r1), buf in got.items():
                    mask = np.zeros(buf.shape, dtype=bool)
                    for q0, q1, c0, c1 in regions:
                        if q0 < r1 and q1 > r0:
                            mask[max(q0, r0) - r0:min(q1, r1) - r0, c0:c1] = True
                    stray += int(np.count_nonzero(buf[~mask] != 0xFFFF))
                rec["checks"]["no_stray_writes"] = stray == 0
                if stray:
                    fail.append("%d outputs outside the sampled tiles were "
                                "written" % stray)
            # Inputs unchanged (row-major W and, if any, the packed W).
            same = True
            for host, dptr in inputs:
                back = np.empty_like(host)
                ctx.to_host(dptr, back)
                same &= bool(np.array_equal(back, host))
            rec["checks"]["inputs_unchanged"] = same
            if not same:
                fail.append("an input buffer changed")

            # Reference.
            t0 = time.perf_counter()
            ref_stats = {}
            mism_ref = 0
            elements = 0
            tiles_y = []
            for r0, r1, c0, c1 in regions:
                blk = [b for b in row_blocks if b[0] <= r0 and b[1] >= r1][0]
                y = got[blk][r0 - blk[0]:r1 - blk[0], c0:c1]
                tiles_y.append(y)
                ref = reference_tile(x[r0:r1], xs[r0:r1], w[c0:c1],
                                     ws[c0 // 32:(c1 + 31) // 32],
                                     plan.k_step, ref_stats)
                elements += y.size
                mism_ref += int(np.count_nonzero(y != ref))
            rec["reference_seconds"] = time.perf_counter() - t0
            rec["elements"] = elements
            rec["reference_fraction_fallbacks"] = ref_stats.get(
                "fraction_fallbacks", 0)
            rec["checks"]["reference_mismatches"] = mism_ref
            if mism_ref:
                fail.append("%d elements differ from the CPU reference"
                            % mism_ref)

            # The naive kernel of the same MFMA shape on the same buffers.
            t0 = time.perf_counter()
            naive_cfg = None if mfma == "m32n32k64" else "mfma = " + mfma
            npath, ncode, nside, _ = self.compile(n, k, naive_cfg, None)
            rec["naive"] = {"kernel": nside["kernel"],
                            "config": nside["config"],
                            "sha256": hashlib.sha256(ncode).hexdigest()}
            nplan = mx.Plan(status="OK", reason="NONE", message="",
                            grid=(-(-m // nside["grid"]["program_tile_m"]) *
                                  nside["grid"]["num_tiles_n"], 1, 1),
                            program_tile_m=nside["grid"]["program_tile_m"],
                            tile_n=nside["grid"]["tile_n"],
                            num_tiles_n=nside["grid"]["num_tiles_n"])
            nplan.group_m = nside["grid"]["group_m"]
            nplan.group_n = nside["grid"]["group_n"]
            nplan.xcd_remap = int(nside["grid"]["xcd_remap"])
            ntiles = self.tiles_of(nplan)
            nwgs = []
            for g, (r, c) in enumerate(ntiles):
                r1, c1 = r + nplan.program_tile_m, c + nplan.tile_n
                if any(r < q1 and r1 > q0 and c < d1 and c1 > d0
                       for q0, q1, d0, d1 in regions):
                    nwgs.append(g)
            rec["naive"]["workgroups"] = len(nwgs)
            ctx.memset(dy, 0xFF, ybytes)
            args = bytearray(nside["resources"]["kernarg_segment_bytes"])
            offs = {a["name"]: a["offset"] for a in nside["arguments"]}
            for name, val in (("X", dx), ("Xs", dxs), ("W", dw), ("Ws", dws),
                              ("Y", dy)):
                args[offs[name]:offs[name] + 8] = int(val).to_bytes(8, "little")
            args[offs["M"]:offs["M"] + 4] = int(m).to_bytes(4, "little")
            if self.emulated:
                os.environ["MXGEMM_EMU_WORKGROUPS"] = ",".join(map(str, nwgs))
            try:
                fn = self.hip.function(ncode, nside["kernel"])
                self.hip.launch(fn, nplan.grid[0],
                                nside["grid"]["workgroup_size"], args)
            except RuntimeError as e:
                fail.append("naive launch failed: %s" % e)
                return rec
            finally:
                os.environ.pop("MXGEMM_EMU_WORKGROUPS", None)
            mism_naive = 0
            for (r0, r1, c0, c1), y in zip(regions, tiles_y):
                buf = np.empty((r1 - r0, n), dtype=np.uint16)
                self.copy_rows(dy, buf, r0, n)
                mism_naive += int(np.count_nonzero(buf[:, c0:c1] != y))
            rec["naive_seconds"] = time.perf_counter() - t0
            rec["checks"]["naive_mismatches"] = mism_naive
            if mism_naive:
                fail.append("%d elements differ from the naive kernel"
                            % mism_naive)

            if dump_dir:
                self.dump(dump_dir, x, xs, w, ws, regions, tiles_y, m, n)
                rec["dump"] = dump_dir
        finally:
            for p in ptrs:
                try:
                    ctx.free(p)
                except Exception:
                    pass
        rec["seconds"] = time.perf_counter() - t_start
        return rec

    def copy_rows(self, dptr, buf, r0, n):
        lib = self.ctx._lib
        st = lib.mxgemm_copy_to_host(self.ctx._handle, buf.ctypes.data,
                                     dptr + r0 * n * 2, buf.nbytes)
        if st != 0:
            raise RuntimeError("copy to host failed: %s"
                               % lib.mxgemm_last_error().decode())

    def dump(self, d, x, xs, w, ws, regions, tiles_y, m, n):
        os.makedirs(d, exist_ok=True)
        y = np.full((m, n), 0xFFFF, dtype=np.uint16)
        mask = np.zeros((m, n), dtype=bool)
        for (r0, r1, c0, c1), t in zip(regions, tiles_y):
            y[r0:r1, c0:c1] = t
            mask[r0:r1, c0:c1] = True
        for name, a in (("x", x), ("xs", xs), ("w", w), ("ws", ws), ("y", y),
                        ("mask", mask)):
            np.save(os.path.join(d, name + ".npy"), a)

    # -- performance figures ---------------------------------------------------
    def perf_case(self, fam, m):
        n, k = int(fam["N"]), int(fam["K"])
        plan = self.plan_for(m, n, k)
        out = {"family": fam["family"], "m": m}
        if not plan.eligible:
            out["error"] = "not dispatched"
            return out
        path, code, side, ctime = self.compile(n, k, plan.config, plan.kernel)
        sha = hashlib.sha256(code).hexdigest()
        emb = self.embedded.get(plan.entry)
        out["recompiled_sha256"] = sha
        out["matches_embedded"] = bool(emb and emb["sha256"] == sha)
        res = side["resources"]
        out["static"] = {"vgpr": res["vgpr_count"], "agpr": res["agpr_count"],
                         "sgpr": res["sgpr_count"],
                         "lds_bytes": res["lds_bytes"],
                         "scratch_bytes": res["scratch_bytes"],
                         "spills": res["vgpr_spill_count"] +
                         res["sgpr_spill_count"],
                         "workgroup_size": side["grid"]["workgroup_size"],
                         "compile_seconds": ctime}
        tiles = self.tiles_of(plan)
        last_row = max(r for r, _ in tiles)
        mid = len(tiles) // 2
        interior = next((g for g in list(range(mid, len(tiles))) +
                         list(range(mid)) if tiles[g][0] != last_row and
                         0 < tiles[g][1] < n - plan.tile_n), mid)
        stats_file = os.path.join(self.workdir, "stats_%s_%d.json"
                                  % (fam["family"], m))
        cmd = [self.emu, "gemm", path, "--sidecar", path + ".json", "--m",
               str(m), "--seed", "0", "--workgroups", str(interior),
               "--stats-json", stats_file]
        if self.args.threads:
            cmd += ["--threads", str(self.args.threads)]
        t0 = time.perf_counter()
        proc = run(cmd)
        out["emu_seconds"] = time.perf_counter() - t0
        out["emu_command"] = " ".join(shlex.quote(c) for c in cmd)
        out["emu_cpp_reference"] = "OK" if proc.returncode == 0 else \
            "FAIL (exit %d): %s" % (proc.returncode,
                                   (proc.stdout + proc.stderr).strip()[-400:])
        try:
            with open(stats_file) as f:
                stats = json.load(f)
            wg = self.perf.first_workgroup(stats) if self.perf else \
                stats["workgroups"][0]
        except (OSError, ValueError, KeyError, IndexError) as e:
            out["error"] = "no stats: %s" % e
            return out
        out["interior_workgroup"] = interior
        out["counts"] = {c: wg.get(c) for c in (
            "mfma", "mfma_macs", "global_bytes_read", "global_bytes_written",
            "lds_bytes_read", "lds_bytes_written", "ds_read_b128",
            "ds_read_b128_conflict_cycles", "ds_write_b128_conflict_cycles",
            "waits", "vmcnt0_waits", "full_drain_waits", "barriers",
            "instructions")}
        if self.perf:
            try:
                # HBM traffic from the kernel's own tile order (the runtime's
                # swizzle), as mxgemm-bench does.
                hbm = self.perf.hbm_bytes_per_workgroup(
                    m, n, k, side, lambda g: tiles[g])
                model = self.perf.model_case(m, n, k, side, wg, hbm)
                out["model"] = json.loads(json.dumps(model, default=str))
            except Exception as e:  # keep the run going; report it
                out["model_error"] = "%s: %s" % (type(e).__name__, e)
        else:
            out["model_error"] = ("tools/mxgemm-bench/mxgemm_perf.py not "
                                  "found: modelled columns are n/a")
        return out

    # -- ineligible cases --------------------------------------------------------
    def ineligible(self, tuned_fam):
        ctx = self.ctx
        from mxgemm import _runtime as rt
        lib = ctx._lib
        n, k = int(tuned_fam["N"]), int(tuned_fam["K"])
        infos = [e["info"] for e in self.embedded.values()]
        # The probes give W in the layout the key's kernel reads, so that
        # only the rule under test fails (the layout rule precedes some).
        layout = next((i["w_layout"] for i in infos
                       if (i["n"], i["k"]) == (n, k)), "row_major")
        cases = [
            ("M = 8192 (below the tuned range)", dict(m=8192, n=n, k=k),
             "M_OUT_OF_RANGE"),
            ("M = 16385 (above the tuned range)", dict(m=16385, n=n, k=k),
             "M_OUT_OF_RANGE"),
            ("unknown (N, K) = (4096, 4096)", dict(m=9199, n=4096, k=4096),
             "NO_TUNED_KERNEL"),
            ("f32 output", dict(m=9199, n=n, k=k, out="f32"), "OUTPUT_TYPE"),
            ("misaligned X pointer (+1 byte)",
             dict(m=9199, n=n, k=k, offset_x=1), "MISALIGNED"),
            ("non-contiguous X scales (ld_xs = K/32 + 4)",
             dict(m=9199, n=n, k=k, ld_xs=k // 32 + 4), "NOT_CONTIGUOUS"),
        ]
        # W in the other layout than the kernel reads, both ways where the
        # library has both kinds of kernel.
        for has, given, what in (("row_major", "mfma_panels",
                                  "MFMA-panel W on a row-major-W kernel"),
                                 ("mfma_panels", "row_major",
                                  "row-major W on an MFMA-panel kernel")):
            i = next((i for i in sorted(infos, key=lambda i: (
                i["n"], i["k"]) != (n, k)) if i["w_layout"] == has), None)
            if i is not None:
                cases.append(("%s (%s)" % (what, i["entry"]),
                              dict(m=min(max(9199, i["m_range"][0]),
                                         i["m_range"][1]),
                                   n=i["n"], k=i["k"], w_layout=given),
                              "PACKED_WEIGHTS"))
        out = []
        for label, c, want in cases:
            m, nn, kk = c["m"], c["n"], c["k"]
            p = rt.Problem()
            lib.mxgemm_problem_init(ctypes.byref(p), m, nn, kk)
            p.w_layout = rt.WEIGHT_LAYOUTS[c.get("w_layout", layout)]
            if c.get("out") == "f32":
                p.out_type = rt.DTYPES["f32"]
            if "ld_xs" in c:
                p.ld_xs = c["ld_xs"]
            rec = {"case": label, "m": m, "n": nn, "k": kk,
                   "w_layout": c.get("w_layout", layout),
                   "expected_reason": want}
            ys = (4 if c.get("out") == "f32" else 2) * m * nn
            xs_rows = c.get("ld_xs", kk // 32)
            sizes = [m * kk + 64, m * xs_rows + 64, nn * kk,
                     ((nn + 31) // 32) * (kk // 32), ys]
            ptrs = [ctx.alloc(s) for s in sizes]
            try:
                for ptr, s in zip(ptrs, sizes):
                    ctx.memset(ptr, 0xA5, s)
                t = rt.Tensors(ptrs[0] + c.get("offset_x", 0), ptrs[1],
                               ptrs[2], ptrs[3], ptrs[4])
                ps = rt.PlanStruct()
                qs = rt.PlanStruct()
                qstatus = lib.mxgemm_query(ctx._handle, ctypes.byref(p),
                                           ctypes.byref(qs))
                if self.emulated:
                    os.environ["MXGEMM_EMU_SAMPLE"] = "4"
                try:
                    status = lib.mxgemm_gemm(ctx._handle, ctypes.byref(p),
                                             ctypes.byref(t), None,
                                             ctypes.byref(ps))
                finally:
                    os.environ.pop("MXGEMM_EMU_SAMPLE", None)
                ctx.synchronize()
                y = np.empty(ys, dtype=np.uint8)
                ctx.to_host(ptrs[4], y)
                untouched = bool((y == 0xA5).all())
                rec.update({
                    "query_status": rt.STATUS.get(qstatus, str(qstatus)),
                    "query_reason": rt.REASONS.get(qs.reason, str(qs.reason)),
                    "status": rt.STATUS.get(status, str(status)),
                    "reason": rt.REASONS.get(ps.reason, str(ps.reason)),
                    "message": ps.message.decode(errors="replace"),
                    "output_untouched": untouched})
                ok = (rec["status"] == "NOT_ELIGIBLE" and rec["reason"] == want
                      and untouched)
                rec["result"] = "PASS" if ok else "FAIL"
            finally:
                for q in ptrs:
                    ctx.free(q)
            out.append(rec)
        return out


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def versions(q):
    v = {"python": sys.version.split()[0], "numpy": np.__version__,
         "platform": platform.platform(), "machine": platform.machine(),
         "cpus": os.cpu_count()}
    try:
        v["mxgemm_runtime"] = q.mx.version()
    except Exception as e:
        v["mxgemm_runtime"] = "?: %s" % e
    p = run([q.compiler, "--version"])
    v["mxgemm_compile"] = " ".join((p.stdout + p.stderr).split())
    for cfg in ("llvm-config-22", "/usr/lib/llvm-22/bin/llvm-config"):
        try:
            p = run([cfg, "--version"])
            if p.returncode == 0:
                v["llvm"] = p.stdout.strip()
                break
        except OSError:
            continue
    try:
        v["git_commit"] = run(["git", "-C", REPO, "rev-parse", "HEAD"]).stdout.strip()
        dirty = run(["git", "-C", REPO, "status", "--porcelain"]).stdout.strip()
        v["git_dirty"] = bool(dirty)
    except OSError:
        pass
    return v


def fmt(v, spec="%.3g"):
    if v is None:
        return "n/a"
    return spec % v


def table_lines(results, perf):
    head = ("%-15s %6s %5s %5s  %-21s %-6s %6s %4s %5s %5s %6s  %-6s %-6s %s" % (
        "family", "M", "N", "K", "kernel", "W", "grid", "wgs", "vgpr", "lds",
        "ref", "naive", "inputs", "result"))
    lines = [head]
    for r in results:
        p = perf.get((r["family"], r["m"]), {})
        st = p.get("static", {})
        seeds = r["seeds"]
        ok = all(not s["failures"] for s in seeds)
        ref = sum(s["checks"].get("reference_mismatches", 0) or 0 for s in seeds)
        nav = sum(s["checks"].get("naive_mismatches", 0) or 0 for s in seeds)
        inp = all(s["checks"].get("inputs_unchanged") for s in seeds)
        plan = seeds[0].get("plan", {})
        wl = {"mfma_panels": "panels", "row_major": "rowmaj"}.get(
            seeds[0].get("w_layout"), "-")
        lines.append("%-15s %6d %5d %5d  %-21s %-6s %6s %4s %5s %5s %6s  %-6s %-6s %s" % (
            r["family"], r["m"], r["n"], r["k"], plan.get("kernel", "-"), wl,
            plan.get("grid", [0])[0], sum(len(s.get("workgroups", []))
                                          for s in seeds),
            st.get("vgpr", "?"), st.get("lds_bytes", "?"),
            "0 mism" if not ref else "%d!" % ref,
            "same" if not nav else "%d!" % nav, "same" if inp else "CHANGED",
            "PASS" if ok else "FAIL: " + "; ".join(
                f for s in seeds for f in s["failures"])[:200]))
    return lines


def perf_lines(perf):
    lines = ["%-15s %6s %8s %9s %6s %6s %8s %9s %9s %6s %-7s" % (
        "family", "M", "mfma/wg", "conflict", "drains", "occ_wg", "binds",
        "bound_us", "model_us", "ratio", "limit")]
    for (fam, m), p in perf.items():
        c = p.get("counts") or {}
        model = p.get("model") or {}
        lb = model.get("lower_bound") or {}
        occ = (model.get("occupancy") or {}).get("workgroups_per_cu")
        confl = None
        if c:
            confl = (c.get("ds_read_b128_conflict_cycles") or 0) + \
                (c.get("ds_write_b128_conflict_cycles") or 0)
        bound_s = lb.get("bound_s")
        binds = lb.get("binds") or lb.get("bound") or \
            ("compute" if lb.get("compute_s", 0) >= lb.get("memory_s", 0)
             else "memory") if lb else None
        lines.append("%-15s %6d %8s %9s %6s %6s %8s %9s %9s %6s %-7s" % (
            fam, m, c.get("mfma", "?"), fmt(confl, "%d"),
            fmt(c.get("full_drain_waits"), "%d"), fmt(occ, "%d"),
            binds or "n/a",
            fmt(bound_s and bound_s * 1e6, "%.1f"),
            fmt(model.get("modelled_s") and model["modelled_s"] * 1e6, "%.1f"),
            fmt(model.get("modelled_over_bound"), "%.2f"),
            model.get("limiting_term", "n/a")))
    return lines


def write_reports(out_dir, doc, results, perf, inel, engagement, ok):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "qualification.json"), "w") as f:
        json.dump(doc, f, indent=1, default=str)
    md = []
    md.append("# mxgemm qualification\n")
    md.append("Result: **%s**. Generated %s on %s (%s CPUs), device `%s`, "
              "%.1f s wall.\n" % ("PASS" if ok else "FAIL", doc["date"],
                                   doc["versions"]["platform"],
                                   doc["versions"]["cpus"], doc["device"],
                                   doc["wall_seconds"]))
    md.append("Reproduce:\n\n    %s\n" % doc["command"])
    md.append("## Cases (seeds %s, %d sampled workgroups per case and seed)\n"
              % (",".join(map(str, doc["seeds"])), doc["sample"]))
    md.append("Each case: the shim's decision; the tuned kernel run through "
              "`mxgemm_gemm` on sampled workgroups; every sampled output tile "
              "compared bit for bit with the CPU reference semantics and "
              "byte for byte with the naive kernel of the same MFMA shape; "
              "inputs unchanged; no write outside the sampled tiles in the "
              "copied rows; zero checker findings (a finding fails the "
              "launch). Column W: `row-major`, or `panels` when the kernel "
              "reads W in MFMA panels: W was packed once by "
              "`mxgemm_pack_weights` into its own buffer (its bytes checked "
              "against NumPy's `pack_weight_panels`), the tuned kernel read "
              "that buffer and the naive kernel the row-major W; both W "
              "buffers must be unchanged.\n")
    md.append("```")
    md.extend(table_lines(results, perf))
    md.append("```\n")
    md.append("| family | M | seed | kernel | config | W | grid | workgroups (tile row, col) | elements | ref mism. | naive mism. | inputs | s | result |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for s in r["seeds"]:
            p = s.get("plan", {})
            wgs = " ".join("%d(%d,%d)%s" % (w["id"], w["tile"][0], w["tile"][1],
                                            "" if w["kind"] == "random" else
                                            " " + w["kind"])
                           for w in s.get("workgroups", []))
            md.append("| %s | %d | %d | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %.1f | %s |" % (
                r["family"], r["m"], s["seed"], p.get("kernel", "-"),
                p.get("config", ""), w_column(s), p.get("grid", [0])[0], wgs,
                s.get("elements", 0),
                s["checks"].get("reference_mismatches", "-"),
                s["checks"].get("naive_mismatches", "-"),
                s["checks"].get("inputs_unchanged", "-"), s.get("seconds", 0),
                "PASS" if not s["failures"] else "FAIL: " +
                "; ".join(s["failures"])))
    md.append("\n## Path engagement\n")
    for line in engagement["lines"]:
        md.append("- " + line)
    md.append("\n## Static and modelled performance\n")
    md.append("Static figures from the `mxgemm-compile` sidecar of the plan's "
              "config (recompiled; its SHA-256 is compared with the code "
              "object embedded in the runtime); counts from `mxgemm-emu gemm "
              "--stats-json` of one interior workgroup (which also checks it "
              "against the C++ CPU reference on the emulator's own data); the "
              "model is `tools/mxgemm-bench/mxgemm_perf.py` (PERF_MODEL.md), "
              "not a measurement.\n")
    md.append("| family | M | vgpr | agpr | sgpr | LDS B | scratch | occupancy (wg/CU) | MFMA/wg | MACs/wg | global B read/wg | LDS B r+w/wg | b128 conflict cycles | full drains | barriers | C++ ref | embedded = recompiled | lower bound us (binds) | modelled us | ratio | limiting |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (fam, m), p in perf.items():
        st = p.get("static", {})
        c = p.get("counts") or {}
        model = p.get("model") or {}
        lb = model.get("lower_bound") or {}
        occ = (model.get("occupancy") or {}).get("workgroups_per_cu")
        md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            fam, m, st.get("vgpr"), st.get("agpr"), st.get("sgpr"),
            st.get("lds_bytes"), st.get("scratch_bytes"), fmt(occ, "%s"),
            c.get("mfma"), c.get("mfma_macs"), c.get("global_bytes_read"),
            (c.get("lds_bytes_read") or 0) + (c.get("lds_bytes_written") or 0),
            (c.get("ds_read_b128_conflict_cycles") or 0) +
            (c.get("ds_write_b128_conflict_cycles") or 0),
            c.get("full_drain_waits"), c.get("barriers"),
            p.get("emu_cpp_reference", "n/a")[:40], p.get("matches_embedded"),
            "%s (%s)" % (fmt(lb.get("bound_s") and lb["bound_s"] * 1e6, "%.1f"),
                         lb.get("binds", lb.get("bound", "n/a"))),
            fmt(model.get("modelled_s") and model["modelled_s"] * 1e6, "%.1f"),
            fmt(model.get("modelled_over_bound"), "%.2f"),
            model.get("limiting_term", p.get("model_error", "n/a"))))
    md.append("\n## Ineligible cases (must be NOT_ELIGIBLE and launch nothing)\n")
    md.append("| case | M | N | K | W given | status | reason | message | output untouched | result |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in inel:
        md.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["m"], r["n"], r["k"], r.get("w_layout", "-"),
            r.get("status"),
            r.get("reason"), r.get("message", "").replace("|", "/"),
            r.get("output_untouched"), r.get("result")))
    md.append("\n## Code objects (SHA-256)\n")
    md.append("| entry | kernel | bytes | sha256 |")
    md.append("|---|---|---|---|")
    for name, e in sorted(doc["code_objects"].items()):
        md.append("| %s | %s | %s | `%s` |" % (name, e.get("kernel", ""),
                                              e.get("bytes", ""), e["sha256"]))
    md.append("\n## Tool versions\n")
    for key, val in doc["versions"].items():
        md.append("- %s: `%s`" % (key, val))
    md.append("\nSee docs/Qualification.md for what this proves and what it "
              "does not.\n")
    with open(os.path.join(out_dir, "qualification.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def w_column(s):
    """The W cell of a case and seed: how the tuned kernel got W."""
    if s.get("w_layout") != "mfma_panels":
        return "row-major" if s.get("w_layout") else "-"
    ok = s["checks"].get("packed_w_matches_numpy")
    if ok is None:
        return "panels (not packed)"
    return "panels (packed once)" if ok else "panels (packed bytes WRONG)"


def engagement_summary(results, inel):
    structs, fallbacks = {}, {}
    for r in results:
        plan = r["seeds"][0].get("plan", {})
        if plan.get("status") == "OK":
            key = r["seeds"][0].get("structure", "?")
            structs.setdefault(key, []).append("%s/%d" % (r["family"], r["m"]))
        else:
            fallbacks.setdefault(plan.get("reason", "?"), []).append(
                "%s/%d" % (r["family"], r["m"]))
    lines = ["%d of %d case-table cases take a tuned kernel, %d fall back" % (
        sum(len(v) for v in structs.values()), len(results),
        sum(len(v) for v in fallbacks.values()))]
    for key, cases in sorted(structs.items(), key=lambda kv: -len(kv[1])):
        lines.append("%d cases: %s (%s)" % (len(cases), key, ", ".join(cases)))
    for key, cases in fallbacks.items():
        lines.append("fallback %s: %d cases (%s)" % (key, len(cases),
                                                     ", ".join(cases)))
    packed = ["%s/%d" % (r["family"], r["m"]) for r in results
              if r["seeds"][0].get("w_layout") == "mfma_panels"]
    if packed:
        lines.append("%d cases read W packed in MFMA panels (mxgemm_pack_"
                     "weights once per case and seed): %s" % (
                         len(packed), ", ".join(packed)))
    for r in inel:
        lines.append("ineligible probe '%s': %s %s" % (r["case"],
                                                       r.get("status"),
                                                       r.get("reason")))
    return {"lines": lines, "structures": structs, "fallbacks": fallbacks}


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="mxgemm-qualify",
        description="Qualify the tuned mxgemm kernels of the case table.")
    ap.add_argument("--build", default=os.environ.get(
        "MXGEMM_BUILD_DIR", os.path.join(REPO, "build")),
        help="build directory (bin/, lib/)")
    ap.add_argument("--cases", default=os.environ.get(
        "MXGEMM_CASES", os.path.join(REPO, "..", "shared", "cases",
                                     "deepseek_v4_flash_tp2.tsv")),
        help="case table TSV")
    ap.add_argument("--device", choices=("emulator", "hip"), default="emulator")
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--sample", type=int, default=DEFAULT_SAMPLE,
                    help="workgroups per case and seed (first, last and M-edge "
                    "always included; default %d)" % DEFAULT_SAMPLE)
    ap.add_argument("--family", action="append",
                    help="only these families (repeatable)")
    ap.add_argument("--m", dest="ms", default=",".join(map(str, M_VALUES)),
                    help="M values (default %s)" % ",".join(map(str, M_VALUES)))
    ap.add_argument("--dump", metavar="DIR",
                    help="write x xs w ws y mask .npy of every case to "
                    "DIR/<family>_M<m>_seed<s>/")
    ap.add_argument("--out", default=".", help="where qualification.md/.json go")
    ap.add_argument("--no-perf", action="store_true",
                    help="skip the static/modelled performance figures")
    ap.add_argument("--no-ineligible", action="store_true")
    ap.add_argument("--threads", type=int, default=0,
                    help="emulator worker threads (default: all cores)")
    return ap.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    t_wall = time.perf_counter()
    try:
        if not os.path.exists(args.cases):
            raise SetupError("case table %s not found (set MXGEMM_CASES or "
                             "--cases)" % args.cases)
        cases = read_cases(args.cases)
        if args.family:
            cases = [c for c in cases if c["family"] in args.family]
            if not cases:
                raise SetupError("no family named %s" % args.family)
        seeds = [int(s) for s in args.seeds.split(",") if s != ""]
        ms = [int(v) for v in args.ms.split(",") if v != ""]
        q = Qualifier(args)
    except SetupError as e:
        print("mxgemm-qualify: error: %s" % e, file=sys.stderr)
        return 2
    cmd = " ".join(shlex.quote(a) for a in
                   ["/usr/bin/python3", os.path.relpath(os.path.abspath(__file__), REPO)]
                   + argv)
    log("mxgemm-qualify: %d families x %d M x %d seeds, %d workgroups per "
        "run, device %s (%s)" % (len(cases), len(ms), len(seeds), args.sample,
                                 args.device, q.hip_path))
    results, perf = [], {}
    total = len(cases) * len(ms)
    i = 0
    for fam in cases:
        for m in ms:
            i += 1
            entry = {"family": fam["family"], "m": m, "n": int(fam["N"]),
                     "k": int(fam["K"]), "case_table_plan": fam.get("plan"),
                     "reference_ratio": fam.get("reference_ratio"),
                     "seeds": []}
            for seed in seeds:
                dump = os.path.join(args.dump, "%s_M%d_seed%d" % (
                    fam["family"], m, seed)) if args.dump else None
                try:
                    rec = q.qualify(fam, m, seed, dump)
                except Exception as e:
                    rec = {"family": fam["family"], "m": m, "seed": seed,
                           "checks": {}, "failures": ["error: %s: %s" % (
                               type(e).__name__, e)]}
                entry["seeds"].append(rec)
                log("[%2d/%d] %-15s M=%-5d seed %d: %s  (%d wgs, %d elements, "
                    "%.1fs)" % (i, total, fam["family"], m, seed,
                                "PASS" if not rec["failures"] else
                                "FAIL: " + "; ".join(rec["failures"]),
                                len(rec.get("workgroups", [])),
                                rec.get("elements", 0), rec.get("seconds", 0)))
            if not args.no_perf:
                try:
                    perf[(fam["family"], m)] = q.perf_case(fam, m)
                except Exception as e:
                    perf[(fam["family"], m)] = {"family": fam["family"], "m": m,
                                                "error": "%s: %s" % (
                                                    type(e).__name__, e)}
                p = perf[(fam["family"], m)]
                log("[%2d/%d] %-15s M=%-5d perf: C++ reference on an interior "
                    "workgroup %s, %s" % (
                        i, total, fam["family"], m,
                        p.get("emu_cpp_reference", "n/a")[:60],
                        "model %s" % p["model"]["limiting_term"]
                        if p.get("model") else
                        p.get("model_error", p.get("error", ""))))
            results.append(entry)
    inel = []
    if not args.no_ineligible:
        tuned = next((c for c in read_cases(args.cases)
                      if c["family"] == "wo_b"), cases[0])
        try:
            inel = q.ineligible(tuned)
        except Exception as e:
            inel = [{"case": "ineligible probes", "m": 0, "n": 0, "k": 0,
                     "result": "FAIL", "message": "%s: %s" % (
                         type(e).__name__, e)}]
        for r in inel:
            log("ineligible: %-45s %s %s: %s -> %s" % (
                r["case"], r.get("status"), r.get("reason"),
                r.get("message", ""), r.get("result")))
    engagement = engagement_summary(results, inel)
    case_ok = all(not s["failures"] for r in results for s in r["seeds"])
    perf_ok = all(p.get("emu_cpp_reference", "OK") == "OK" and
                  "error" not in p for p in perf.values())
    inel_ok = all(r.get("result") == "PASS" for r in inel)
    ok = case_ok and perf_ok and inel_ok
    code_objects = {}
    for name, e in q.embedded.items():
        code_objects[name] = {"kernel": e["info"]["kernel"], "bytes": e["bytes"],
                              "sha256": e["sha256"]}
    for r in results:
        for s in r["seeds"]:
            nv = s.get("naive")
            if nv:
                code_objects["naive " + nv["kernel"]] = {
                    "kernel": nv["kernel"], "sha256": nv["sha256"],
                    "bytes": ""}
    wall = time.perf_counter() - t_wall
    doc = {"format": "mxgemm-qualification", "version": 1,
           "result": "PASS" if ok else "FAIL",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
               timespec="seconds"),
           "command": "cd %s && %s" % (shlex.quote(REPO), cmd),
           "device": args.device, "hip_library": q.hip_path,
           "seeds": seeds, "sample": args.sample, "m_values": ms,
           "cases_file": os.path.abspath(args.cases),
           "cases_sha256": sha256_file(args.cases),
           "data": "NumPy PCG64 seeded with [seed, M, N, K]; E4M3 codes (1/8 "
                   "zero, 1/8 subnormal, rest uniform, NaN folded); E8M0 "
                   "scales uniform in [%d, %d]" % (127 - SCALE_SPAN,
                                                   127 + SCALE_SPAN),
           "wall_seconds": wall, "versions": versions(q),
           "code_objects": code_objects, "cases": results,
           "performance": [dict(v, family=k[0], m=k[1])
                           for k, v in perf.items()],
           "ineligible": inel, "engagement": engagement}
    write_reports(args.out, doc, results, perf, inel, engagement, ok)
    print()
    for line in table_lines(results, perf):
        print(line)
    if perf:
        print()
        for line in perf_lines(perf):
            print(line)
    print()
    for line in engagement["lines"]:
        print(line)
    print()
    print("mxgemm-qualify: %s in %.1f s (%s); wrote %s and %s" % (
        "PASS" if ok else "FAIL", wall, args.device,
        os.path.join(args.out, "qualification.md"),
        os.path.join(args.out, "qualification.json")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
