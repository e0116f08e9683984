#!/usr/bin/env python3
"""Draws an mxgemm-sim Chrome trace (--trace FILE) as a PNG: one row per
wave, one colour per state, a time axis in cycles and a legend. Standard
library only (zlib writes the PNG; a 3x5 pixel font writes the labels).

    python3 tools/mxgemm-sim/trace_png.py trace.json out.png \
        [--from CYCLE] [--to CYCLE] [--width PX]
"""
import argparse
import json
import struct
import zlib

COLOURS = {
    "issue_mfma": (0, 150, 60),
    "issue_other": (120, 200, 140),
    "vmcnt": (210, 40, 40),
    "lgkmcnt": (240, 150, 30),
    "barrier": (130, 60, 170),
    "mfma_dependency": (240, 220, 40),
    "mfma_busy": (30, 90, 45),
    "dependency": (190, 160, 40),
    "issue_contention": (150, 150, 150),
    "lds_queue": (240, 120, 190),
    "vmem_queue": (130, 80, 40),
    "nop_sleep_branch": (205, 205, 205),
    "store_drain": (50, 100, 210),
}

# 3x5 glyphs, rows top to bottom, 3 bits each (MSB left).
FONT = {
    "A": "010 101 111 101 101", "B": "110 101 110 101 110", "C": "011 100 100 100 011",
    "D": "110 101 101 101 110", "E": "111 100 110 100 111", "F": "111 100 110 100 100",
    "G": "011 100 101 101 011", "H": "101 101 111 101 101", "I": "111 010 010 010 111",
    "J": "001 001 001 101 010", "K": "101 101 110 101 101", "L": "100 100 100 100 111",
    "M": "101 111 111 101 101", "N": "110 101 101 101 101", "O": "010 101 101 101 010",
    "P": "110 101 110 100 100", "Q": "010 101 101 111 011", "R": "110 101 110 101 101",
    "S": "011 100 010 001 110", "T": "111 010 010 010 010", "U": "101 101 101 101 111",
    "V": "101 101 101 101 010", "W": "101 101 111 111 101", "X": "101 101 010 101 101",
    "Y": "101 101 010 010 010", "Z": "111 001 010 100 111", "0": "111 101 101 101 111",
    "1": "010 110 010 010 111", "2": "110 001 010 100 111", "3": "110 001 010 001 110",
    "4": "101 101 111 001 001", "5": "111 100 110 001 110", "6": "011 100 111 101 111",
    "7": "111 001 010 010 010", "8": "111 101 111 101 111", "9": "111 101 111 001 110",
    " ": "000 000 000 000 000", "_": "000 000 000 000 111", "-": "000 000 111 000 000",
    ".": "000 000 000 000 010", ":": "000 010 000 010 000", "|": "010 010 010 010 010",
    "(": "001 010 010 010 001", ")": "100 010 010 010 100", "%": "101 001 010 100 101",
    "/": "001 001 010 100 100", ",": "000 000 000 010 100", "=": "000 111 000 111 000",
}


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray([255] * (w * h * 3))

    def rect(self, x0, y0, x1, y1, rgb):
        x0, x1 = max(0, int(x0)), min(self.w, int(x1))
        y0, y1 = max(0, int(y0)), min(self.h, int(y1))
        if x1 <= x0 or y1 <= y0:
            return
        row = bytes(rgb) * (x1 - x0)
        for y in range(y0, y1):
            at = (y * self.w + x0) * 3
            self.px[at:at + len(row)] = row

    def text(self, x, y, s, scale=2, rgb=(0, 0, 0)):
        for ch in s.upper():
            glyph = FONT.get(ch, FONT[" "]).split()
            for r, bits in enumerate(glyph):
                for c, b in enumerate(bits):
                    if b == "1":
                        self.rect(x + c * scale, y + r * scale,
                                  x + (c + 1) * scale, y + (r + 1) * scale, rgb)
            x += 4 * scale
        return x

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind, data):
            c = struct.pack(">I", len(data)) + kind + data
            return c + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
            f.write(chunk(b"IEND", b""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--from", dest="start", type=float, default=None,
                    help="first cycle (default: a third into the trace)")
    ap.add_argument("--to", dest="end", type=float, default=None)
    ap.add_argument("--width", type=int, default=1400)
    args = ap.parse_args()
    d = json.load(open(args.trace))
    ghz = d["otherData"]["clock_ghz"]
    names, events = {}, []
    for e in d["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif e.get("ph") == "X":
            events.append((e["tid"], e["ts"] * ghz * 1e3, e["dur"] * ghz * 1e3, e["name"]))
    last = max(t + dur for _, t, dur, _ in events)
    start = args.start if args.start is not None else last / 3
    end = args.end if args.end is not None else min(last, start + 12000)
    shown = {tid for tid, t, dur, _ in events if t + dur >= start and t <= end}
    tids = sorted(shown, key=lambda t: (names[t].split("|")[0], t))
    left, top, row, gap = 230, 60, 22, 6
    legend = 40 + 22 * ((len(COLOURS) + 3) // 4)
    h = top + len(tids) * (row + gap) + 50 + legend
    c = Canvas(args.width, h)
    title = (f"MXGEMM-SIM PREDICTION: {d['otherData']['kernel']}, "
             f"{d['otherData']['description']}, {ghz:.2f} GHZ, CYCLES {int(start)}-{int(end)}")
    c.text(10, 15, title, scale=2)
    span = end - start
    scale = (args.width - left - 20) / span
    for i, tid in enumerate(tids):
        y = top + i * (row + gap)
        c.text(10, y + 6, names[tid].replace("|", " "), scale=2)
        c.rect(left, y, args.width - 20, y + row, (245, 245, 245))
    for tid, t, dur, name in events:
        if tid not in tids or t + dur < start or t > end:
            continue
        y = top + tids.index(tid) * (row + gap)
        x0 = left + (max(t, start) - start) * scale
        x1 = left + (min(t + dur, end) - start) * scale
        c.rect(x0, y, max(x1, x0 + 1), y + row, COLOURS.get(name, (0, 0, 0)))
    axis = top + len(tids) * (row + gap) + 5
    c.rect(left, axis, args.width - 20, axis + 2, (0, 0, 0))
    step = 1000 if span <= 20000 else 5000
    tick = (int(start) // step + 1) * step
    while tick < end:
        x = left + (tick - start) * scale
        c.rect(x, axis, x + 2, axis + 8, (0, 0, 0))
        c.text(int(x) - 10, axis + 12, str(tick), scale=2)
        tick += step
    y = axis + 40
    for i, (name, rgb) in enumerate(COLOURS.items()):
        x = 10 + (i % 4) * 340
        yy = y + (i // 4) * 22
        c.rect(x, yy, x + 20, yy + 14, rgb)
        c.text(x + 28, yy + 2, name, scale=2)
    c.png(args.out)


if __name__ == "__main__":
    main()
