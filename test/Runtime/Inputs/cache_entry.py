"""Writes one kernel-cache entry file the way docs/Runtime.md ('Kernel
cache') specifies it, independently of the C++ writer:
"MXGEMM-KERNEL-CACHE 1\n", the descriptor's byte count, "\n", the
descriptor, the code object.

usage: cache_entry.py DIR KEY CODE_OBJECT  (descriptor: CODE_OBJECT.json)
"""
import os
import sys

directory, key, code_path = sys.argv[1:4]
with open(code_path, "rb") as f:
    code = f.read()
with open(code_path + ".json", "rb") as f:
    descriptor = f.read()
path = os.path.join(directory, key + ".mxk")
with open(path, "wb") as f:
    f.write(b"MXGEMM-KERNEL-CACHE 1\n" + str(len(descriptor)).encode() +
            b"\n" + descriptor + code)
os.chmod(path, 0o600)
