#!/usr/bin/env python3
"""Checks mxgemm-tune --repredict's output against its input database and
against mxgemm-sim run directly on the entry's code object.

  check_repredict.py BEFORE.json AFTER.json HASH NAME M=SIM.json...

Every field but the predictions of NAME must be unchanged; each of NAME's
predictions must carry HASH and the time of the direct simulation of that M
(rounded to 0.01 us, as the database records it)."""
import json
import sys

before, after = (json.load(open(p)) for p in sys.argv[1:3])
want_hash, name = sys.argv[3], sys.argv[4]
direct = {}
for arg in sys.argv[5:]:
    m, path = arg.split("=", 1)
    direct[int(m)] = json.load(open(path))["time_us"]

ok = True
if [e["name"] for e in before["entries"]] != [e["name"] for e in after["entries"]]:
    print("entries differ"); ok = False
if before["comment"] != after["comment"]:
    print("comment differs"); ok = False
for b, a in zip(before["entries"], after["entries"]):
    rest = lambda e: {k: v for k, v in e.items() if k != "predicted"}
    if rest(b) != rest(a):
        print(f"{b['name']}: fields other than the predictions changed"); ok = False
    if b["name"] != name:
        if b.get("predicted") != a.get("predicted"):
            print(f"{b['name']}: predictions changed"); ok = False
        continue
    for pb, pa in zip(b["predicted"], a["predicted"]):
        if (pb["m"], pb["sampling"]) != (pa["m"], pa["sampling"]):
            print(f"{name}: M or sampling changed"); ok = False
        if pa["target_hash"] != want_hash:
            print(f"{name} M = {pa['m']}: hash {pa['target_hash']}"); ok = False
        if abs(pa["time_us"] - round(direct[pa["m"]], 2)) > 1e-9:
            print(f"{name} M = {pa['m']}: {pa['time_us']} us, direct "
                  f"simulation {direct[pa['m']]:.2f}"); ok = False
        print(f"{name} M = {pa['m']} {pa['sampling']}: {pb['time_us']} -> "
              f"{pa['time_us']} us")
print("OK" if ok else "FAILED")
