"""Static facts about the K loop of a gfx950 ISA listing (mxgemm-compile
--emit=isa): the loop is the backward branch whose range holds the most
MFMAs. Used by mxgemm-bench (steady-state instruction counts) and by
test/Target/pipeline-waits.test (wait counts).

Usage: python3 -m mxgemm.isa K.s  ->  'loop: <mfma> mfma, <n> vmcnt(0)
waits, <m> vmcnt waits, <i> instructions, <r> v_readfirstlane, <s> M0
writes'
"""
import re
import sys


def loop_summary(text):
    """Counts of the K loop's instructions (one pass through its blocks,
    labels, comments and directives excluded), or None without a loop."""
    lines = text.splitlines()
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
        return None
    mfma, body = best
    insts = [b.split(";")[0].strip() for b in body]
    insts = [b for b in insts if b and not b.startswith((".", "//"))
             and not b.endswith(":")]
    waits = [b for b in insts if b.startswith("s_waitcnt") and "vmcnt" in b]
    return {"mfma": mfma, "instructions": len(insts),
            "non_mfma": len(insts) - mfma,
            "vmcnt0_waits": sum("vmcnt(0)" in w for w in waits),
            "vmcnt_waits": len(waits),
            "readfirstlane": sum(b.startswith("v_readfirstlane") for b in insts),
            "m0_writes": sum(bool(re.match(r"s_\w+\s+m0,", b)) for b in insts)}


def main():
    s = loop_summary(open(sys.argv[1]).read())
    if s is None:
        sys.exit("no loop with MFMAs found")
    print("loop: %(mfma)d mfma, %(vmcnt0_waits)d vmcnt(0) waits, "
          "%(vmcnt_waits)d vmcnt waits, %(instructions)d instructions, "
          "%(readfirstlane)d v_readfirstlane, %(m0_writes)d M0 writes" % s)


if __name__ == "__main__":
    main()
