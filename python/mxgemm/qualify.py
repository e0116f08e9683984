"""Qualification of the tuned kernels of the case table (mxgemm-qualify,
docs/Qualification.md).

For every case (family x M) and seed: the real runtime shim's dispatch
decision; a run through the shim on the emulator's HIP facade executing
sampled workgroups (first, last, M-edge, random; a checker finding fails the
launch), with W packed once by the shim when the kernel reads MFMA panels;
every sampled output tile checked bit for bit by the numerics library's GEMM
check (the reference semantics of docs/Numerics.md), byte for byte against
the naive kernel of the same MFMA shape on the same device buffers, inputs
unchanged, no stray writes; static figures and the timing simulator's
predicted performance (mxgemm-sim, docs/Simulator.md); and the
ineligible probes, each NOT_ELIGIBLE with its reason and without a launch.
"""

import atexit
import collections
import ctypes
import datetime
import hashlib
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from . import _api as mx
from . import _numerics as nx
from . import _report
from . import _runtime as rt
from . import perf as perf_model
from .cases import read_cases

M_VALUES = (16384, 10732, 9199)


class SetupError(Exception):
    pass


def log(msg):
    print(msg, flush=True)


def make_inputs(seed, m, n, k):
    """X [M, K] (per-row scales) and W [N, K] (32x32 scale blocks) from the
    numerics library's random MX operands, seeded per (seed, M, N, K)."""
    sx, sw = np.random.SeedSequence([seed, m, n, k]).generate_state(
        2, np.uint64)
    return nx.random_mx(int(sx), m, k) + \
        nx.random_mx(int(sw), n, k, granularity="block32x32")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def structure(cfg, base):
    """A short name of the kernel structure of a descriptor's config: tiles,
    waves, MFMA and staging, and what else differs from the naive config
    `base`."""
    parts = ["%(tile_m)sx%(tile_n)sx%(tile_k)s" % cfg,
             "waves %(waves_m)sx%(waves_n)s" % cfg, cfg["mfma"],
             "X:%(stage_x)s W:%(stage_w)s" % cfg]
    differs = lambda *fields: any(cfg[f] != base[f] for f in fields)
    if differs("stage_x", "stage_w", "stages"):
        parts.append("%(stages)s stages %(lds_layout)s" % cfg)
    if differs("schedule"):
        parts.append("sched " + cfg["schedule"])
    if differs("split"):
        parts.append("split %s" % cfg["split"])
    if differs("group_m", "group_n"):
        parts.append("group %(group_m)sMx%(group_n)sN" % cfg)
    if differs("xcd_remap"):
        parts.append("xcd remap" if cfg["xcd_remap"] else "no xcd remap")
    return ", ".join(parts)


class DevBuf:
    """A device allocation that mxgemm.gemm accepts as device memory."""

    def __init__(self, ptr, shape, itemsize=1):
        self.ptr, self.shape, self.itemsize = ptr, shape, itemsize

    def data_ptr(self):
        return self.ptr

    def element_size(self):
        return self.itemsize


class Qualifier:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.libdir = os.path.join(self.build, "lib")
        self.compiler = os.path.join(self.build, "bin", "mxgemm-compile")
        self.emu = os.path.join(self.build, "bin", "mxgemm-emu")
        self.sim = os.path.join(self.build, "bin", "mxgemm-sim")
        for tool in (self.compiler, self.emu,
                     os.path.join(self.libdir, "libmxgemm_runtime.so"),
                     os.path.join(self.libdir, "libmxgemm_numerics.so")):
            if not os.path.exists(tool):
                raise SetupError("%s not found (build first: ninja -C %s)"
                                 % (tool, self.build))
        os.environ["MXGEMM_RUNTIME_LIBRARY"] = os.path.join(
            self.libdir, "libmxgemm_runtime.so")
        os.environ["MXGEMM_NUMERICS_LIBRARY"] = os.path.join(
            self.libdir, "libmxgemm_numerics.so")
        os.environ["MXGEMM_COMPILE"] = self.compiler
        if args.threads:
            os.environ["MXGEMM_EMU_THREADS"] = str(args.threads)
        self.emulated = args.device == "emulator"
        if self.emulated:
            self.hip_path = os.path.join(self.libdir, "libmxgemm_hip_emu.so")
            if not os.path.exists(self.hip_path):
                raise SetupError("%s not found" % self.hip_path)
        else:
            self.hip_path = os.environ.get("MXGEMM_HIP_LIBRARY") or \
                "libamdhip64.so"
            self.check_real_hip()
        self.ctx = mx.Context(hip_library=self.hip_path,
                              strict=not self.emulated)
        # Naive kernels loaded into self.ctx by the runtime, by code hash.
        self.loaded = {}
        self.workdir = tempfile.mkdtemp(prefix="mxgemm-qualify-")
        atexit.register(shutil.rmtree, self.workdir, True)
        self.kernel_cache = {}
        self.embedded = {}
        for i, info in enumerate(mx.kernels()):
            blob = mx.kernel_code_object(i)
            self.embedded[info["entry"]] = {
                "sha256": hashlib.sha256(blob).hexdigest(),
                "bytes": len(blob), "info": info}

    def check_real_hip(self):
        try:
            ctypes.CDLL(self.hip_path)
        except OSError as e:
            raise SetupError(
                "--device hip: cannot load the HIP runtime '%s' (%s). No AMD "
                "GPU runtime here: install ROCm (libamdhip64.so) on an MI355X "
                "machine or set MXGEMM_HIP_LIBRARY; use --device emulator "
                "otherwise." % (self.hip_path, e))
        ctx = mx.Context(hip_library=self.hip_path, strict=True)
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

    def compile(self, n, k, config, name):
        """(path, code, descriptor, seconds) of a compiled kernel, cached."""
        key = (n, k, config, name)
        if key not in self.kernel_cache:
            out = os.path.join(self.workdir, "%s_%d_%d_%d.hsaco" % (
                name, n, k, len(self.kernel_cache)))
            t0 = time.perf_counter()
            code, side = mx.compile(n, k, config=config, name=name,
                                    compiler=self.compiler, output=out)
            self.kernel_cache[key] = (out, code, side,
                                      time.perf_counter() - t0)
        return self.kernel_cache[key]

    def load(self, code, descriptor):
        """The compiled kernel `code` loaded into the context by the
        runtime (mxgemm_kernel_load), once per code object."""
        key = hashlib.sha256(code).hexdigest()
        if key not in self.loaded:
            self.loaded[key] = mx.LoadedKernel(code, descriptor, ctx=self.ctx)
        return self.loaded[key]

    def naive(self, n, k, mfma, k_splits=1):
        """The naive kernel of the same MFMA shape and K segments: an
        explicit config body (the naive fields but `mfma` and `k_splits`),
        never the compiler's auto choice."""
        body = "mfma = " + mfma
        if k_splits > 1:
            body += ", k_splits = %d" % k_splits
        return self.compile(n, k, body, None)

    def plan_for(self, m, n, k):
        """The shim's decision as a caller makes it: asked with row-major W,
        and again with MFMA-panel W when the kernel reads those
        (PACKED_WEIGHTS); plan.w_layout says which one the kernel reads."""
        plan = mx.plan(m, n, k, ctx=self.ctx)
        if not plan.eligible and plan.reason == "PACKED_WEIGHTS":
            plan = mx.plan(m, n, k, ctx=self.ctx, w_layout="mfma_panels")
        return plan

    def launches_for(self, plan, m, n, k):
        """[(plan, first row, rows)] of the launches mxgemm_gemm makes: one,
        or the two of a row split."""
        first_plan, first, tail = mx.row_split(m, n, k, ctx=self.ctx,
                                               w_layout=plan.w_layout)
        if not first:
            return [(plan, 0, m)]
        return [(first_plan, 0, first), (tail, first, m - first)]

    def launch_shape(self, plan):
        """(MFMA shape, K segments) of the embedded kernel of `plan`: what
        its bits depend on beside the operands."""
        config = self.embedded[plan.entry]["info"]["descriptor"]["config"]
        return config["mfma"], config.get("k_splits", 1)

    @staticmethod
    def tail_origins(plan, tiles):
        """Origins of the tiles a tail split (docs/Design.md "Tail split")
        splits in K: those of its first launch's workgroups W .. W + R - 1,
        `tiles` being tiles_of(plan); empty for other plans."""
        if not plan.tail_split:
            return set()
        whole = plan.grid[0] - plan.tail_tiles * plan.k_splits
        return set(tiles[whole:whole + plan.tail_tiles])

    # -- workgroup selection ---------------------------------------------------
    @staticmethod
    def tiles_of(plan):
        return [mx.workgroup_tile(plan, g) for g in range(plan.grid[0])]

    def sample(self, tiles, m, seed, count):
        grid = len(tiles)
        last_row = max(r for r, _ in tiles)
        edge = sorted((g for g, (r, _) in enumerate(tiles) if r == last_row),
                      key=lambda g: tiles[g][1])
        picked = []
        for g in [0, grid - 1, edge[0], edge[-1], edge[len(edge) // 2]]:
            if g not in picked:
                picked.append(g)
        rng = random.Random(seed * 7919 + m)
        while len(picked) < min(max(count, len(picked)), grid):
            g = rng.randrange(grid)
            if g not in picked:
                picked.append(g)
        kinds = {}
        for g in picked:
            kind = [name for name, hit in (("first", g == 0),
                                           ("last", g == grid - 1),
                                           ("M-edge", g in edge)) if hit]
            kinds[g] = "+".join(kind) or "random"
        return sorted(picked), kinds

    # -- one problem -----------------------------------------------------------
    def qualify(self, fam, m, seed, dump_dir=None):
        n, k = fam["N"], fam["K"]
        rec = {"family": fam["family"], "m": m, "n": n, "k": k, "seed": seed,
               "checks": {}, "failures": []}
        fail = rec["failures"]
        t_start = time.perf_counter()
        plan = self.plan_for(m, n, k)
        rec["plan"] = {f: getattr(plan, f) for f in (
            "status", "reason", "message", "entry", "kernel", "config",
            "grid", "block", "program_tile_m", "tile_n", "num_tiles_n",
            "k_step", "m_range", "w_layout")}
        if not plan.eligible:
            fail.append("not dispatched: %s: %s" % (plan.reason, plan.message))
            return rec
        emb = self.embedded[plan.entry]
        desc = emb["info"]["descriptor"]
        cfg = desc["config"]
        rec["w_layout"] = plan.w_layout
        # The shim's plan, the runtime's kernel table and the descriptor
        # the compiler wrote agree on the W layout.
        layouts = {plan.w_layout, emb["info"]["w_layout"], desc["w_layout"]}
        if len(layouts) != 1:
            fail.append("W layout disagrees: plan %s, kernel table %s, "
                        "descriptor %s" % (plan.w_layout,
                                           emb["info"]["w_layout"],
                                           desc["w_layout"]))
        _, ncode, nside, _ = self.naive(n, k, cfg["mfma"],
                                        cfg.get("k_splits", 1))
        rec["structure"] = structure(cfg, nside["config"])
        rec["code_object_sha256"] = emb["sha256"]

        # The launches: one, or the two of a row split (docs/Runtime.md,
        # "Row split"), each with its plan and its rows of the call.
        launches = self.launches_for(plan, m, n, k)
        if len(launches) > 1:
            tail, first = launches[1][0], launches[1][1]
            rec["row_split"] = {"first_rows": first, "entry": tail.entry,
                                "kernel": tail.kernel, "config": tail.config,
                                "k_step": tail.k_step}
        chosen, kinds, tiles_of, tails_of = [], {}, [], []
        for i, (lp, row0, rows) in enumerate(launches):
            tiles = [(r + row0, c) for r, c in self.tiles_of(lp)]
            tiles_of.append(tiles)
            tails = self.tail_origins(lp, tiles)
            tails_of.append(tails)
            # The grid maps onto every output tile of its rows exactly once
            # (a tail split's tail tiles once per K segment).
            every = {(r, c) for r in range(row0, row0 + rows,
                                           lp.program_tile_m)
                     for c in range(0, n, lp.tile_n)}
            counts = collections.Counter(tiles)
            if set(tiles) != every or any(
                    count != (lp.k_splits if tile in tails else 1)
                    for tile, count in counts.items()):
                fail.append("the grid of %d workgroups does not cover the %d "
                            "output tiles once each" % (len(tiles),
                                                        len(every)))
            wgs, kind = self.sample(tiles, m + row0, seed, self.args.sample)
            chosen.append(set(wgs))
            kinds.update({(i, g): v for g, v in kind.items()})
        # The facade runs a listed workgroup in every launch whose grid
        # holds it: the runtime closes the lists over every workgroup their
        # tiles need, and each launch checks the tiles of its first grid.
        ids = mx.workgroup_closure([lp for lp, _, _ in launches],
                                   set().union(*chosen))
        for (lp, _, _), ch in zip(launches, chosen):
            ch.update(g % lp.grid[0] for g in ids
                      if g < lp.grid[0] * lp.grid[1])
        wgs = sorted(set().union(*chosen))
        rec["workgroups"] = [
            dict({"id": g, "tile": list(tiles_of[i][g]),
                  "kind": kinds.get((i, g), "other launch")},
                 **({"launch": i} if len(launches) > 1 else {}))
            for i, ch in enumerate(chosen) for g in sorted(ch)]
        # Sampled output regions (one per tile: a tail split runs a tail
        # tile in several workgroups), each with the launch that wrote it
        # and its K segments.
        regions, region_launch, region_splits = [], [], []
        for i, ((lp, row0, rows), ch) in enumerate(zip(launches, chosen)):
            for r0, c0 in sorted({tiles_of[i][g] for g in ch}):
                regions.append((r0, min(r0 + lp.program_tile_m, row0 + rows),
                                c0, min(c0 + lp.tile_n, n)))
                region_launch.append(i)
                # A tail split's whole tiles are one K segment.
                region_splits.append(
                    self.launch_shape(lp)[1]
                    if not lp.tail_split or (r0, c0) in tails_of[i]
                    else 1)
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
            dw_tuned, inputs = dw, [(x, dx), (xs, dxs), (w, dw), (ws, dws)]
            if plan.w_layout == "mfma_panels":
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
                want = nx.pack_weight_panels(w, desc)
                got_packed = np.empty_like(want)
                ctx.to_host(dpw, got_packed)
                same = bool(np.array_equal(got_packed, want))
                rec["checks"]["packed_w_matches_host"] = same
                if not same:
                    fail.append("%d packed W bytes differ from the host "
                                "packing" % int(np.count_nonzero(
                                    got_packed != want)))
                dw_tuned = dpw
                inputs.append((want, dpw))
            # The tuned kernel through the shim.
            t0 = time.perf_counter()
            try:
                mx.gemm(DevBuf(dx, x.shape), DevBuf(dxs, xs.shape),
                        DevBuf(dw_tuned, w.shape), DevBuf(dws, ws.shape),
                        out=DevBuf(dy, (m, n), 2), ctx=ctx,
                        w_layout=plan.w_layout,
                        workgroups=wgs if self.emulated else None)
                ctx.synchronize()
                rec["checks"]["launch"] = "OK (zero checker findings)"
            except mx.MXGemmError as e:
                fail.append("tuned launch failed (checker finding or HIP "
                            "error): %s" % e)
                rec["checks"]["launch"] = "FAIL"
                return rec
            rec["tuned_seconds"] = time.perf_counter() - t0

            block_launch = {(r0, r1): launches[i][0] for
                            (r0, r1, _, _), i in zip(regions, region_launch)}
            splits_of = dict(zip(regions, region_splits))
            row_blocks = sorted({(r0, r1) for r0, r1, _, _ in regions})
            got = {b: self.copy_rows(dy, b, n) for b in row_blocks}
            # The GEMM check of the numerics library, one row block at a
            # time: every written output against the reference, and the
            # outputs written outside the sampled tiles (stray).
            t0 = time.perf_counter()
            totals = dict.fromkeys(("compared", "mismatches", "stray",
                                    "unwritten"), 0)
            for r0, r1 in row_blocks:
                block = [reg for reg in regions if reg[:2] == (r0, r1)]
                y = got[(r0, r1)]
                lp = block_launch[(r0, r1)]
                ops = nx.GemmOperands(x[r0:r1], xs[r0:r1], w, ws)

                def only(regs):
                    mask = np.zeros(y.shape, bool)
                    for q0, q1, c0, c1 in regs:
                        mask[q0 - r0:q1 - r0, c0:c1] = True
                    return mask
                # Stray writes: anything outside the block's sampled tiles
                # (a real GPU ran every workgroup: none are looked for).
                if self.emulated:
                    outside = (y != np.uint16(0xFFFF)) & ~only(block)
                    totals["stray"] += int(np.count_nonzero(outside))
                # Each group of tiles with the same K segments (a tail
                # split's whole and tail tiles) against its reference.
                for splits in sorted({splits_of[reg] for reg in block}):
                    mine = [reg for reg in block if splits_of[reg] == splits]
                    yy = np.where(only(mine), y, np.uint16(0xFFFF))
                    res = nx.check_gemm(
                        ops, yy, lp.k_step,
                        regions=[(q0 - r0, q1 - r0, c0, c1)
                                 for q0, q1, c0, c1 in mine],
                        k_splits=splits)
                    area = sum((q1 - q0) * (c1 - c0)
                               for q0, q1, c0, c1 in mine)
                    for key in ("compared", "mismatches"):
                        totals[key] += res[key]
                    totals["unwritten"] += area - res["compared"]
            rec["reference_seconds"] = time.perf_counter() - t0
            rec["elements"] = sum((r1 - r0) * (c1 - c0)
                                  for r0, r1, c0, c1 in regions)
            if self.emulated:
                rec["checks"]["no_stray_writes"] = totals["stray"] == 0
                if totals["stray"]:
                    fail.append("%d outputs outside the sampled tiles were "
                                "written" % totals["stray"])
            # Inputs unchanged (row-major W and, if any, the packed W).
            same = True
            for host, dptr in inputs:
                back = np.empty_like(host)
                ctx.to_host(dptr, back)
                same &= bool(np.array_equal(back, host))
            rec["checks"]["inputs_unchanged"] = same
            if not same:
                fail.append("an input buffer changed")

            rec["checks"]["reference_mismatches"] = totals["mismatches"]
            if totals["mismatches"]:
                fail.append("%d elements differ from the CPU reference"
                            % totals["mismatches"])
            if totals["unwritten"]:
                fail.append("%d outputs of the sampled tiles were not "
                            "written" % totals["unwritten"])
            tiles_y = [got[(r0, r1)][:, c0:c1] for r0, r1, c0, c1 in regions]

            # The naive kernel of each launch's MFMA shape and K segments
            # on the same buffers, compared on that launch's regions.
            t0 = time.perf_counter()
            rec["naive"] = {"kernel": nside["kernel"],
                            "config": nside["config"],
                            "sha256": hashlib.sha256(ncode).hexdigest()}
            mism_naive = 0
            shape_of = [(self.launch_shape(launches[i][0])[0], splits)
                        for i, splits in zip(region_launch, region_splits)]
            for shape in sorted(set(shape_of)):
                own = [(reg, y) for reg, y, s in
                       zip(regions, tiles_y, shape_of) if s == shape]
                _, mcode, mside, _ = self.naive(n, k, *shape)
                try:
                    nkernel = self.load(mcode, mside)
                    nplan = nkernel.plan(m)
                except mx.MXGemmError as e:
                    fail.append("naive kernel refused by the runtime: %s" % e)
                    return rec
                nwgs = [g for g, (r, c) in enumerate(self.tiles_of(nplan))
                        if any(r < q1 and r + nplan.program_tile_m > q0 and
                               c < d1 and c + nplan.tile_n > d0
                               for (q0, q1, d0, d1), _ in own)]
                rec["naive"]["workgroups"] = (rec["naive"].get("workgroups", 0)
                                              + len(nwgs))
                ctx.memset(dy, 0xFF, ybytes)
                # Through the runtime's C API (mxgemm_kernel_launch): it
                # packs the arguments at the descriptor's offsets.
                try:
                    nkernel.launch(dx, dxs, dw, dws, dy, m,
                                   workgroups=nwgs if self.emulated else None)
                    ctx.synchronize()
                except mx.MXGemmError as e:
                    fail.append("naive launch failed: %s" % e)
                    return rec
                for (r0, r1, c0, c1), y in own:
                    buf = self.copy_rows(dy, (r0, r1), n)
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

    def copy_rows(self, dptr, rows, n):
        """Rows [r0, r1) of the BF16 [M, N] device buffer at dptr."""
        r0, r1 = rows
        buf = np.empty((r1 - r0, n), dtype=np.uint16)
        self.ctx.to_host(dptr + r0 * n * 2, buf)
        return buf

    @staticmethod
    def dump(d, x, xs, w, ws, regions, tiles_y, m, n):
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
        n, k = fam["N"], fam["K"]
        plan = self.plan_for(m, n, k)
        out = {"family": fam["family"], "m": m}
        if not plan.eligible:
            out["error"] = "not dispatched"
            return out
        path, code, side, ctime = self.compile(n, k, plan.config, plan.kernel)
        sha = hashlib.sha256(code).hexdigest()
        out["recompiled_sha256"] = sha
        out["matches_embedded"] = self.embedded[plan.entry]["sha256"] == sha
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
        out["emu_command"] = shlex.join(cmd)
        out["emu_cpp_reference"] = "OK" if proc.returncode == 0 else \
            "FAIL (exit %d): %s" % (proc.returncode,
                                   (proc.stdout + proc.stderr).strip()[-400:])
        try:
            wg = perf_model.first_workgroup(rt.read_json_file(stats_file))
        except (ValueError, KeyError, IndexError) as e:
            out["error"] = "no stats: %s" % e
            return out
        out["interior_workgroup"] = interior
        out["counts"] = {c: wg.get(c) for c in (
            "mfma", "mfma_macs", "global_bytes_read", "global_bytes_written",
            "lds_bytes_read", "lds_bytes_written", "ds_read_b128",
            "ds_read_b128_conflict_cycles", "ds_write_b128_conflict_cycles",
            "waits", "vmcnt0_waits", "full_drain_waits", "barriers",
            "instructions")}
        try:
            # The timing simulator's prediction for the whole launch (not a
            # measurement; docs/Simulator.md), with the problem's bounds.
            prediction = perf_model.simulate(path, m, simulator=self.sim)
            out["lower_bound"] = perf_model.bounds(prediction)
            out["prediction"] = dict(
                perf_model.summary(prediction),
                simulator_cpu_seconds=prediction["simulator_cpu_seconds"])
        except Exception as e:  # keep the run going; report it
            out["prediction_error"] = "%s: %s" % (type(e).__name__, e)
        # A row split: the two launches the runtime makes, each simulated
        # on its rows (their sum; the gap between launches is not in it).
        launches = self.launches_for(plan, m, n, k)
        if len(launches) > 1:
            try:
                (_, _, first), (tail, _, rest) = launches
                tpath = self.compile(n, k, tail.config, tail.kernel)[0]
                t1 = perf_model.simulate(path, first, simulator=self.sim)
                t2 = perf_model.simulate(tpath, rest, simulator=self.sim)
                total = t1["time_us"] + t2["time_us"]
                out["row_split"] = {
                    "first_rows": first, "tail_kernel": tail.kernel,
                    "first_us": t1["time_us"], "tail_us": t2["time_us"],
                    "time_us": total,
                    "tflops": 2.0 * m * n * k / (total * 1e-6) / 1e12}
            except Exception as e:
                out["prediction_error"] = "row split: %s: %s" % (
                    type(e).__name__, e)
        return out

    # -- ineligible cases --------------------------------------------------------
    def ineligible(self, tuned_fam):
        # The probes check the tuned path's reasons: with generic kernels
        # on (the default) the first two would be served by a generic
        # kernel, so they are off for the probes.
        self.ctx.set_generic(False)
        try:
            return self._ineligible(tuned_fam)
        finally:
            self.ctx.set_generic(True)

    def _ineligible(self, tuned_fam):
        ctx = self.ctx
        lib = ctx._lib
        n, k = tuned_fam["N"], tuned_fam["K"]
        infos = [e["info"] for e in self.embedded.values()]
        # The probes give W in the layout the key's kernel reads, so that
        # only the rule under test fails (the layout rule precedes some).
        layout = next((i["w_layout"] for i in infos
                       if (i["n"], i["k"]) == (n, k)), "row_major")
        cases = [
            # Every M of 1..65536 has a kernel; above, the operands would
            # be gigabytes, so this probe is a query (no buffers, no launch).
            ("M = 65537 (above every tuned range)",
             dict(m=65537, n=n, k=k, query_only=True), "M_OUT_OF_RANGE"),
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
            if c.get("query_only"):
                qs = rt.PlanStruct()
                qstatus = lib.mxgemm_query(ctx._handle, ctypes.byref(p),
                                           ctypes.byref(qs))
                rec.update({
                    "query_status": rt.STATUS.get(qstatus, str(qstatus)),
                    "query_reason": rt.REASONS.get(qs.reason, str(qs.reason)),
                    "status": rt.STATUS.get(qstatus, str(qstatus)),
                    "reason": rt.REASONS.get(qs.reason, str(qs.reason)),
                    "message": qs.message.decode(errors="replace"),
                    "output_untouched": True})
                rec["result"] = ("PASS" if rec["status"] == "NOT_ELIGIBLE"
                                 and rec["reason"] == want else "FAIL")
                out.append(rec)
                continue
            ys = (4 if c.get("out") == "f32" else 2) * m * nn
            xs_rows = c.get("ld_xs", kk // 32)
            sizes = [m * kk + 64, m * xs_rows + 64, nn * kk,
                     nx.scale_rows(nn, "block32x32") * (kk // 32), ys]
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


def _case_line(i, total, fam, m, what):
    return "[%2d/%d] %-15s M=%-5d %s" % (i, total, fam["family"], m, what)


def run_qualification(args, argv, source_dir):
    """The whole run of mxgemm-qualify: returns its exit status (0 pass,
    1 a check failed, 2 setup error). `source_dir` is the checkout (for the
    git commit in the report)."""
    t_wall = time.perf_counter()
    try:
        if not args.cases or not os.path.exists(args.cases):
            raise SetupError("case table %s not found (set MXGEMM_CASES or "
                             "--cases)" % args.cases)
        all_cases = read_cases(args.cases)
        cases = [c for c in all_cases
                 if not args.family or c["family"] in args.family]
        if not cases:
            raise SetupError("no family named %s" % args.family)
        try:
            seeds = [int(s) for s in args.seeds.split(",") if s != ""]
            ms = [int(v) for v in args.ms.split(",") if v != ""]
        except ValueError as e:
            raise SetupError("--seeds and --m take integers: %s" % e)
        q = Qualifier(args)
    except (SetupError, ValueError, OSError) as e:
        print("mxgemm-qualify: error: %s" % e, file=sys.stderr)
        return 2
    log("mxgemm-qualify: %d families x %d M x %d seeds, %d workgroups per "
        "run, device %s (%s)" % (len(cases), len(ms), len(seeds), args.sample,
                                 args.device, q.hip_path))
    results, perf = [], {}
    total = len(cases) * len(ms)
    i = 0
    for fam in cases:
        for m in ms:
            i += 1
            entry = {"family": fam["family"], "m": m, "n": fam["N"],
                     "k": fam["K"], "case_table_plan": fam.get("plan"),
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
                log(_case_line(i, total, fam, m, "seed %d: %s  (%d wgs, %d "
                               "elements, %.1fs)" % (
                                   seed, "PASS" if not rec["failures"] else
                                   "FAIL: " + "; ".join(rec["failures"]),
                                   len(rec.get("workgroups", [])),
                                   rec.get("elements", 0),
                                   rec.get("seconds", 0))))
            if not args.no_perf:
                try:
                    p = q.perf_case(fam, m)
                except Exception as e:
                    p = {"family": fam["family"], "m": m,
                         "error": "%s: %s" % (type(e).__name__, e)}
                perf[(fam["family"], m)] = p
                log(_case_line(i, total, fam, m, "perf: C++ reference on an "
                               "interior workgroup %s, %s" % (
                                   p.get("emu_cpp_reference", "n/a")[:60],
                                   "predicted %.1f us, limiter %s" % (
                                       p["prediction"]["time_us"],
                                       p["prediction"]["limiter"])
                                   if p.get("prediction") else
                                   p.get("prediction_error",
                                         p.get("error", "")))))
            results.append(entry)
    inel = []
    if not args.no_ineligible:
        tuned = next((c for c in all_cases if c["family"] == "wo_b"),
                     cases[0])
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
    engagement = _report.engagement_summary(results, inel)
    ok = all(not s["failures"] for r in results for s in r["seeds"]) and \
        all(p.get("emu_cpp_reference", "OK") == "OK" and "error" not in p
            for p in perf.values()) and \
        all(r.get("result") == "PASS" for r in inel)
    code_objects = {name: {"kernel": e["info"]["kernel"], "bytes": e["bytes"],
                           "sha256": e["sha256"]}
                    for name, e in q.embedded.items()}
    for r in results:
        for s in r["seeds"]:
            nv = s.get("naive")
            if nv:
                code_objects["naive " + nv["kernel"]] = {
                    "kernel": nv["kernel"], "sha256": nv["sha256"],
                    "bytes": ""}
    env = "PYTHONPATH=%s " % shlex.quote(os.environ["PYTHONPATH"]) \
        if os.environ.get("PYTHONPATH") else ""
    doc = {"format": "mxgemm-qualification", "version": 1,
           "result": "PASS" if ok else "FAIL",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
               timespec="seconds"),
           "command": "cd %s && %s%s" % (shlex.quote(os.getcwd()), env,
                                         shlex.join([sys.executable] + argv)),
           "device": args.device, "hip_library": q.hip_path,
           "seeds": seeds, "sample": args.sample, "m_values": ms,
           "cases_file": os.path.abspath(args.cases),
           "cases_sha256": hashlib.sha256(open(args.cases, "rb").read())
           .hexdigest(),
           "data": "mxgemm_random_mx of libmxgemm_numerics.so (finite E4M3 "
                   "codes with a random E8M0 scale per block), X and W "
                   "seeded from numpy.random.SeedSequence([seed, M, N, K])",
           "wall_seconds": time.perf_counter() - t_wall,
           "versions": _report.versions(q.compiler, source_dir),
           "code_objects": code_objects, "cases": results,
           "performance": [dict(v, family=k[0], m=k[1])
                           for k, v in perf.items()],
           "ineligible": inel, "engagement": engagement}
    _report.write_reports(args.out, doc, results, perf, inel, ok)
    for lines in (_report.table_lines(results, perf),
                  _report.perf_lines(perf) if perf else [],
                  engagement["lines"]):
        if lines:
            print()
            print("\n".join(lines))
    print()
    print("mxgemm-qualify: %s in %.1f s (%s); wrote %s and %s" % (
        "PASS" if ok else "FAIL", doc["wall_seconds"], args.device,
        os.path.join(args.out, "qualification.md"),
        os.path.join(args.out, "qualification.json")))
    return 0 if ok else 1
