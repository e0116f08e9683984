#!/usr/bin/env python3
"""What a row-split dispatch would gain (issue 16, not built): rows
[0, M1) by the tuning database's entry for M, launched so that its last
round is full, then rows [M1, M) by the entry for M - M1, a second launch.
For each case it tries every M1 that is a whole number of rounds of the
first kernel (tail at most half of M), simulates both parts with mxgemm-sim
(all XCDs traced, sustained clock) and prints the best two against the one
launch. Every time is a PREDICTION of the simulator.

    /usr/bin/python3 tools/mxgemm-sim/row_split.py --build build \
        --db tuning/gfx950.json --out build/row-split \
        [--cases index_query@9199,wo_b@10732]
"""
import argparse
import json
import os
import subprocess

DEFAULT_CASES = ("index_query@9199,index_query@10732,shared_down@9199,"
                 "shared_down@10732,fused_qkv@10732,fused_qkv@16384,"
                 "wo_b@10732,shared_gate_up@9199,engram@9199")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    entries = json.load(open(args.db))["entries"]
    times = {}

    def entry_for(key, m):
        return next(e for e in entries
                    if e["key"] == key and e["m_range"][0] <= m <= e["m_range"][1])

    def sim(name, m):
        if (name, m) not in times:
            hsaco = os.path.join(args.out, name + ".hsaco")
            if not os.path.exists(hsaco):
                subprocess.run([os.path.join(args.build, "bin", "mxgemm-compile"),
                                "--tuning-db", args.db, "--entry", name, "-o", hsaco],
                               check=True, capture_output=True)
            out = subprocess.run([os.path.join(args.build, "bin", "mxgemm-sim"), hsaco,
                                  "--m", str(m), "--json"],
                                 check=True, capture_output=True, text=True).stdout
            times[(name, m)] = json.loads(out)["time_us"]
        return times[(name, m)]

    print("| case | one launch | best row split (M1 + tail) | change |")
    print("|---|---|---|---|")
    for case in args.cases.split(","):
        family, m = case.split("@")
        m = int(m)
        key = next(e for e in entries if e["name"] == family)["key"]
        first = entry_for(key, m)
        config = first["config"]
        columns = -(-key["n"] // config["tile_n"])
        # A workgroup computes tile_m / split rows (split = 2: two programs).
        program_tile_m = config["tile_m"] // config.get("split", 1)
        predicted = [p for p in first["predicted"] if p["m"] == m]
        per_round = 256 * (predicted[0]["workgroups_per_cu"] if predicted else 1)
        one = sim(first["name"], m)
        splits = []
        for rounds in range(1, 64):
            m1 = (rounds * per_round // columns) * program_tile_m
            if m1 <= 0 or m1 >= m or m - m1 > m // 2:
                continue
            tail = entry_for(key, m - m1)
            t1, t2 = sim(first["name"], m1), sim(tail["name"], m - m1)
            splits.append((t1 + t2, m1, t1, tail["name"], t2))
        splits = sorted(set(splits))[:2]
        best = "; ".join(f"{m1} by {first['name']} {t1:.2f} + {m - m1} by {name} "
                         f"{t2:.2f} = {t:.2f} us" for t, m1, t1, name, t2 in splits)
        change = f"{(splits[0][0] / one - 1) * 100:+.1f}%" if splits else "-"
        print(f"| {family} M = {m} | {first['name']} {one:.2f} us | {best or 'none'} "
              f"| {change} |", flush=True)


if __name__ == "__main__":
    main()
