#!/usr/bin/env python3
"""Splits each workgroup of an mxgemm-sim Chrome trace (--trace FILE) into
its three phases and says what its waves did in each:

  prologue  from the workgroup's first slice to its first MFMA issue
  K loop    from the first MFMA issue to the end of the last one
  epilogue  from there to the workgroup's last slice

A phase's time is the workgroup's (its earliest and latest wave); the
states under it are averaged over the workgroup's waves. Where a kernel
loses time per round (a short K loop, a long prologue) this says which
phase and which stall. Standard library only; times in microseconds of
the trace's clock.

    python3 tools/mxgemm-sim/round_phases.py trace.json [--states N]
"""
import argparse
import collections
import json
import re
import sys

WAVE_NAME = re.compile(r"SIMD (\d+) \| wg (\d+) wave (\d+)$")


def load_waves(path):
    """Returns {(cu, workgroup): [slices of each wave, ...]} from a trace."""
    with open(path) as f:
        trace = json.load(f)
    names = {}
    slices = collections.defaultdict(list)
    for event in trace.get("traceEvents", []):
        key = (event.get("pid"), event.get("tid"))
        if event.get("ph") == "M" and event.get("name") == "thread_name":
            names[key] = event["args"]["name"]
        elif event.get("ph") == "X":
            slices[key].append(event)
    workgroups = collections.defaultdict(list)
    for key, wave_slices in slices.items():
        match = WAVE_NAME.match(names.get(key, ""))
        if match and wave_slices:
            workgroups[(key[0], int(match.group(2)))].append(wave_slices)
    return workgroups


def phases(waves):
    """The phase boundaries of one workgroup and its waves' mean state times."""
    every = [s for wave in waves for s in wave]
    mfmas = [s for s in every if s["name"] == "issue_mfma"]
    if not mfmas:
        return None
    start = min(s["ts"] for s in every)
    end = max(s["ts"] + s["dur"] for s in every)
    first = min(s["ts"] for s in mfmas)
    last = max(s["ts"] + s["dur"] for s in mfmas)
    states = [collections.Counter() for _ in range(3)]
    for wave in waves:
        for s in wave:
            phase = 0 if s["ts"] < first else (1 if s["ts"] < last else 2)
            states[phase][s["name"]] += s["dur"] / len(waves)
    return {"start": start, "prologue": first - start, "loop": last - first,
            "epilogue": end - last, "total": end - start, "states": states}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--states", type=int, default=3,
                        help="largest states shown per phase (default 3)")
    args = parser.parse_args()
    workgroups = load_waves(args.trace)
    if not workgroups:
        sys.exit(f"round_phases.py: no wave tracks in {args.trace}")
    print("cu wg  start_us  prologue_us  loop_us  epilogue_us  total_us"
          "  | prologue / loop / epilogue: largest states (us per wave)")
    for (cu, wg), waves in sorted(workgroups.items()):
        p = phases(waves)
        if p is None:
            print(f"{cu:2} {wg:2}  no MFMA issued")
            continue
        shown = []
        for counter in p["states"]:
            shown.append(", ".join(f"{name} {time:.2f}"
                                   for name, time in counter.most_common(args.states)))
        print(f"{cu:2} {wg:2} {p['start']:9.2f} {p['prologue']:12.2f} {p['loop']:8.2f}"
              f" {p['epilogue']:12.2f} {p['total']:9.2f}  | " + " / ".join(shown))


if __name__ == "__main__":
    main()
