"""Checks an mxgemm-emu run of a pack_panels kernel: reads the printed
buffers `w` (row-major [N, K] bytes) and `p` (the packed output plus a tail
that must stay as filled), packs `w` with NumPy from the panel formula of
docs/Design.md section 9 (an implementation independent of the C++ one)
and compares byte for byte.

usage: check_pack_panels.py N K NON_K TAIL_FILL < emu-output
"""
import sys

import numpy as np


def pack(w, non_k):
    n, k = w.shape
    k_step = 2048 // non_k
    # panel (nb, ks), lane l, byte e = W[nb non_k + l % non_k]
    #   [ks k_step + (k_step / 2) (e >> 4) + 16 (l / non_k) + (e & 15)]
    lane = np.arange(64)[:, None]
    e = np.arange(32)[None, :]
    row = lane % non_k + 0 * e
    col = (k_step // 2) * (e >> 4) + 16 * (lane // non_k) + (e & 15)
    out = []
    for nb in range(n // non_k):
        for ks in range(k // k_step):
            out.append(w[nb * non_k + row, ks * k_step + col].reshape(-1))
    return np.concatenate(out)


def main():
    n, k, non_k, fill = map(int, sys.argv[1:5])
    bufs = {}
    for line in sys.stdin:
        name, _, values = line.partition(":")
        if name in ("w", "p"):
            bufs[name] = np.array(values.split(), dtype=np.int64)
    w = bufs["w"][: n * k].reshape(n, k)
    got, tail = bufs["p"][: n * k], bufs["p"][n * k:]
    want = pack(w, non_k)
    bad = np.flatnonzero(got != want)
    if len(set(w.reshape(-1).tolist())) < 200:
        sys.exit("the input bytes are not varied enough to catch a permutation")
    print(f"compared {n * k} bytes, {len(bad)} mismatches; "
          f"tail {int((tail != fill).sum())} changed")
    if len(bad) or (tail != fill).any():
        sys.exit(f"first mismatch at byte {bad[0] if len(bad) else -1}")


main()
