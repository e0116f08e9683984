#!/usr/bin/env python3
"""Chooses a tuning-database entry per M bucket (issue 17 item 5) for the
case-table families by simulation: for each family and bucket it compiles a
ranked candidate list of kernel structures that read W in the key's layout
(the layout of its existing database entries: row-major, or 32x32x64 MFMA
panels), simulates each at the bucket's judged M with mxgemm-sim at the
sustained clock and keeps the fastest. Every time is a PREDICTION.

mxgemm-tune's search space (lib/Tuner/SearchSpace.cpp) has no tile_m or
tile_n below 64 and no tile_k above 256, so it cannot reach the decode
structures; this script enumerates them instead (docs/Tuning.md, "Entries
per M bucket"), with split-K variants (k_splits 2 and 4) of the row-major
decode tiles.

The bucket 8193..16384 keeps the database's entry (the qualified kernels).
Buckets up to --full-up-to are judged with full simulations; larger ones
are screened with --xcd0-only (recorded as "sampling": "xcd0-only").

    /usr/bin/python3 tools/mxgemm-sim/rank_buckets.py --build build \
        --out build/rank-buckets --write-db tuning/gfx950.json
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from mxgemm.cases import read_cases  # noqa: E402

# (lo, hi, judged M). The tuned bucket 8193..16384 is not re-chosen.
BUCKETS = [(1, 16, 16), (17, 64, 64), (65, 256, 256), (257, 1024, 1024),
           (1025, 4096, 4096), (4097, 8192, 8192), (16385, 65536, 16385)]

PINGPONG = ("waves_m = {wm}, waves_n = {wn}, group_m = 8, group_n = 4, "
            "xcd_remap = true, stage_x = lds_async, stage_w = lds_async, "
            "stages = 3, lds_layout = xor, schedule = pingpong")


def tile(tm, tn, tk, wm, wn, mfma="m16n16k128", rest=""):
    body = "tile_m = %d, tile_n = %d, tile_k = %d, waves_m = %d, waves_n = %d, mfma = %s" % (
        tm, tn, tk, wm, wn, mfma)
    return body + (", " + rest if rest else "")


def row_major_candidates(n, k, m):
    """Row-major W. M <= 64: 16x16x128 MFMAs with operands loaded directly
    (no LDS round trip, no barrier), narrow tile_m, tile_n 16..128 so that
    the grid spreads W over the CUs, tile_k 256..512 so a wave keeps many
    W bytes in flight. Larger M: wider direct tiles, then the LDS-staged
    and ping-pong structures of the database."""
    tks = [tk for tk in (256, 384, 128) if k % tk == 0][:1]
    out = []
    if m <= 64:
        shapes = [(16, 16, 1, 1), (16, 32, 1, 2), (16, 64, 1, 4), (16, 64, 1, 2),
                  (16, 128, 1, 4)]
        if m > 16:
            shapes += [(32, 32, 2, 1), (32, 64, 2, 2), (64, 64, 2, 2)]
        for tm, tn, wm, wn in shapes:
            for tk in tks:
                out.append(tile(tm, tn, tk, wm, wn))
                # Split-K (two launches, an FP32 workspace) when N alone
                # gives too few workgroups to stream W from every CU.
                for splits in (2, 4):
                    if k % (splits * tk) == 0 and (n + tn - 1) // tn < 512:
                        out.append(tile(tm, tn, tk, wm, wn,
                                        rest="k_splits = %d" % splits))
        return out
    if m <= 1024:
        for tm, tn, wm, wn in [(32, 64, 2, 2), (64, 64, 2, 2), (64, 128, 2, 2),
                               (128, 64, 4, 1), (128, 128, 2, 2), (128, 128, 4, 2)]:
            # At M = 1024 the small direct tiles lose and cost the longest
            # simulations (thousands of workgroups): from 64 x 128 up.
            if m > 256 and tm * tn < 64 * 128:
                continue
            out.append(tile(tm, tn, tks[0], wm, wn))
        out.append(tile(64, 128, 128, 1, 4, "m32n32k64",
                        "stage_x = lds_async, stage_w = lds_async, stages = 2, lds_layout = xor"))
    else:
        # Large M: the tuned structures (Q3 and R2 ping-pong, below) and,
        # in main(), the key's own 8193..16384 config.
        if k % 64 == 0 and n % 256 == 0:
            out.append(tile(256, 256, 64, 4, 2, "m32n32k64", PINGPONG.format(wm=4, wn=2).split(", ", 2)[2]))
        if k % 128 == 0 and n % 256 == 0:
            out.append(tile(128, 256, 128, 2, 4, "m32n32k64", PINGPONG.format(wm=2, wn=4).split(", ", 2)[2]))
        return out
    # Ping-pong: Q3 (256x256x64, 4x2 waves), R1 (256x128x128), R2 (128x256x128).
    if k % 64 == 0 and n % 256 == 0:
        out.append(tile(256, 256, 64, 4, 2, "m32n32k64", PINGPONG.format(wm=4, wn=2).split(", ", 2)[2]))
    if k % 128 == 0 and n % 128 == 0:
        out.append(tile(256, 128, 128, 4, 2, "m32n32k64", PINGPONG.format(wm=4, wn=2).split(", ", 2)[2]))
    if k % 128 == 0 and n % 256 == 0:
        out.append(tile(128, 256, 128, 2, 4, "m32n32k64", PINGPONG.format(wm=2, wn=4).split(", ", 2)[2]))
    return out


def panel_candidates(n, k, m):
    """W in 32x32x64 MFMA panels (the key's packed layout): 32x32x64 MFMAs
    with W loaded straight from the panels; X direct or through LDS."""
    tks = [tk for tk in (512, 256, 128) if k % tk == 0]
    out = []
    if m <= 64:
        shapes = [(32, 32, 1, 1), (32, 64, 1, 2), (32, 128, 1, 4)]
        if m > 32:
            shapes += [(64, 64, 2, 1), (64, 128, 2, 2)]
        for tm, tn, wm, wn in shapes:
            for tk in tks[:1]:
                out.append(tile(tm, tn, tk, wm, wn, "m32n32k64", "stage_w = packed_registers"))
        return out
    lds = "stage_x = lds_async, stage_w = packed_registers, stages = 2, lds_layout = padded, schedule = interleave"
    grouped = ", group_m = 8, group_n = 4, xcd_remap = true"
    if m <= 1024:
        for tm, tn, wm, wn in ([(64, 64, 2, 2)] if m <= 256 else []) + [
                (64, 128, 1, 4), (128, 128, 2, 2)]:
            out.append(tile(tm, tn, 128, wm, wn, "m32n32k64", "stage_w = packed_registers"))
        out.append(tile(64, 128, 128, 1, 4, "m32n32k64", lds))
        out.append(tile(64, 256, 128, 1, 4, "m32n32k64", lds))
    out.append(tile(128, 256, 128, 1, 4, "m32n32k64", lds + grouped))
    if m <= 1024:
        out.append(tile(128, 128, 128, 1, 4, "m32n32k64", lds + grouped))
    if k % 256 == 0 and m <= 1024:
        out.append(tile(128, 128, 256, 1, 4, "m32n32k64",
                        "stage_x = lds_async, stage_w = packed_registers, lds_layout = padded, "
                        "schedule = interleave" + grouped))
    return out


def simulate(args, n, k, m, body, screened):
    digest = hashlib.sha256(("%d %d %s" % (n, k, body)).encode()).hexdigest()[:16]
    hsaco = os.path.join(args.out, digest + ".hsaco")
    result = os.path.join(args.out, "%s-%d%s.json" % (digest, m, "-x0" if screened else ""))
    if os.path.exists(result):
        with open(result) as f:
            return json.load(f)
    if not os.path.exists(hsaco):
        c = subprocess.run([os.path.join(args.build, "bin", "mxgemm-compile"), "--n", str(n),
                            "--k", str(k), "--config", body, "-o", hsaco],
                           capture_output=True, text=True)
        if c.returncode:
            return {"error": c.stderr.strip().splitlines()[-1]}
    s = subprocess.run([os.path.join(args.build, "bin", "mxgemm-sim"), hsaco, "--m", str(m),
                        "--json"] + (["--xcd0-only"] if screened else []),
                       capture_output=True, text=True)
    r = {"error": s.stderr.strip()[-200:]} if s.returncode else json.loads(s.stdout)
    with open(result, "w") as f:
        json.dump(r, f)
    return r


def heuristic_body(args, n, k, m, qualified_db):
    """The config --config=auto takes for M without a bucket entry (the
    heuristic, keeping the key's layout): a candidate in every bucket, so
    an entry is never slower than what the compiler would pick without it."""
    c = subprocess.run([os.path.join(args.build, "bin", "mxgemm-compile"), "--n", str(n),
                        "--k", str(k), "--m", str(m), "--tuning-db", qualified_db,
                        "--explain", "--emit=mlir", "-o", os.devnull],
                       capture_output=True, text=True, check=True)
    for line in c.stderr.splitlines():
        if "config body: " in line:
            return line.split("config body: ", 1)[1].strip()
    raise RuntimeError("no config body in: " + c.stderr)


def parse_body(body):
    config = {}
    for item in body.split(", "):
        key, value = item.split(" = ")
        config[key] = int(value) if value.isdigit() else (
            value == "true" if value in ("true", "false") else value)
    return config


def predicted(r, m, screened):
    occupancy = r["occupancy"]["workgroups_per_cu"]
    rounds = r["sample"]["rounds"]
    return {"m": m, "prediction": "mxgemm-sim (not a measurement)",
            "time_us": round(r["time_us"], 2), "tflops": round(r["tflops"], 1),
            "mfma_utilisation": round(r["mfma_utilisation"], 4),
            "grid_efficiency": round(r["workgroups"] / (rounds * 256 * occupancy), 4),
            "workgroups": r["workgroups"], "workgroups_per_cu": occupancy,
            "limiter": r["limiter"], "target_hash": r["target_hash"],
            "sampling": "xcd0-only" if screened else "all-xcds"}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--db", default=os.path.join(ROOT, "tuning", "gfx950.json"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "data", "cases",
                                                    "deepseek_v4_flash_tp2.tsv"))
    ap.add_argument("--out", default="build/rank-buckets")
    ap.add_argument("--families", default="")
    ap.add_argument("--buckets", default="", help="comma list of bucket lower ends")
    ap.add_argument("--full-up-to", type=int, default=1024,
                    help="largest judged M simulated fully (above: --xcd0-only)")
    ap.add_argument("--write-db", default="",
                    help="write --db with the chosen entries added (replacing "
                         "earlier bucket entries of the same name)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(args.db) as f:
        db = json.load(f)
    wanted = set(filter(None, args.families.split(",")))
    buckets = [b for b in BUCKETS if not args.buckets or
               str(b[0]) in args.buckets.split(",")]
    chosen = []
    # The qualified entries alone: what auto does without the bucket entries.
    qualified_db = os.path.join(args.out, "qualified-entries.json")
    with open(qualified_db, "w") as f:
        names = {fam["family"] for fam in read_cases(args.cases)}
        json.dump(dict(db, entries=[e for e in db["entries"] if e["name"] in names]), f)
    print("| family | bucket | judged M | candidates | chosen config | predicted us | runner-up us |")
    print("|---|---|---|---|---|---|---|")
    for fam in read_cases(args.cases):
        name, n, k = fam["family"], fam["N"], fam["K"]
        if wanted and name not in wanted:
            continue
        base = next(e for e in db["entries"] if e["name"] == name)
        panels = base["config"].get("stage_w") == "packed_registers"
        for lo, hi, m in buckets:
            screened = m > args.full_up_to
            cands = (panel_candidates if panels else row_major_candidates)(n, k, m)
            # The tuned entry's own structure competes in every large bucket.
            base_body = ", ".join("%s = %s" % (key, str(v).lower() if isinstance(v, bool) else v)
                                  for key, v in base["config"].items())
            if m > 1024:
                cands.insert(0, base_body)
            cands.append(heuristic_body(args, n, k, m, qualified_db))
            if lo > 16384:
                # Above the qualified bucket: the qualified kernel (its grid
                # only grows with M), screened at the bucket's lower end.
                cands = [base_body]
            ranked = []
            unique = {}
            for body in cands:  # one per config (field order aside)
                unique.setdefault(frozenset(parse_body(body).items()), body)
            for body in unique.values():
                r = simulate(args, n, k, m, body, screened)
                if "error" in r:
                    print("  %s %d: rejected %s: %s" % (name, m, body, r["error"]), file=sys.stderr)
                    continue
                ranked.append((r["time_us"], body, r))
            ranked.sort(key=lambda t: t[0])
            best = ranked[0]
            second = "%.2f" % ranked[1][0] if len(ranked) > 1 else "-"
            print("| %s | %d..%d | %d%s | %d | `%s` | %.2f | %s |" % (
                name, lo, hi, m, " (xcd0)" if screened else "", len(ranked), best[1],
                best[0], second))
            sys.stdout.flush()
            chosen.append({
                "name": "%s_m%d_%d" % (name, lo, hi),
                "comment": "M bucket %d..%d of %s, chosen by tools/mxgemm-sim/rank_buckets.py "
                           "among %d candidates reading W %s (fastest at M = %d; "
                           "docs/Tuning.md, 'Entries per M bucket'). PREDICTION, sustained clock."
                           % (lo, hi, name, len(ranked),
                              "in 32x32x64 MFMA panels" if panels else "row-major", m),
                "key": base["key"], "m_range": [lo, hi], "config": parse_body(best[1]),
                "predicted": [predicted(best[2], m, screened)]})
    if args.write_db:
        names = {e["name"] for e in chosen}
        db["entries"] = [e for e in db["entries"] if e["name"] not in names] + chosen
        with open(args.write_db, "w") as f:
            json.dump(db, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
