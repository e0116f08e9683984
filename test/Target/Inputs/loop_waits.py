"""Summarizes the s_waitcnt instructions of the K loop of a gfx950 ISA
listing (mxgemm-compile --emit=isa): the loop is the backward branch whose
range holds the MFMAs. Prints 'loop: <mfma> mfma, <n> vmcnt(0) waits,
<m> vmcnt waits' for FileCheck."""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
labels = {}
for i, line in enumerate(lines):
    m = re.match(r"^(\.LBB\d+_\d+):", line)
    if m:
        labels[m.group(1)] = i
best = None
for i, line in enumerate(lines):
    m = re.match(r"^\s+s_(?:c?branch\w*)\s+(\.LBB\d+_\d+)", line)
    if not m or labels.get(m.group(1), i) >= i:
        continue
    body = lines[labels[m.group(1)]:i + 1]
    mfma = sum("v_mfma" in b for b in body)
    if mfma and (best is None or mfma > best[0]):
        best = (mfma, body)
if best is None:
    sys.exit("no loop with MFMAs found")
mfma, body = best
waits = [b for b in body if "s_waitcnt" in b and "vmcnt" in b]
print("loop: %d mfma, %d vmcnt(0) waits, %d vmcnt waits" %
      (mfma, sum("vmcnt(0)" in w for w in waits), len(waits)))
