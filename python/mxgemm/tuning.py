"""The tuning database (tuning/gfx950.json, docs/Tuning.md) through its one
reader, mxgemm-compile (--tuning-db DB --list / --entry NAME): this package
never parses the database itself."""

import os
import subprocess
import time

from . import _api


class TuningDatabaseError(ValueError):
    pass


def entry_names(db, compiler=None):
    """The entry names of `db`, checked by mxgemm-compile."""
    proc = subprocess.run([compiler or _api.find_compiler(), "--tuning-db", db,
                           "--list"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise TuningDatabaseError((proc.stderr or proc.stdout).strip())
    return proc.stdout.split()


def compile_entries(db, out_dir, compiler=None):
    """Compiles every entry of `db` into out_dir/<name>.hsaco (+ .json).
    Returns {(n, k): (name, descriptor, seconds)}, keyed by each kernel's
    problem as its descriptor states it (the first entry of a key: the
    others serve other M ranges)."""
    os.makedirs(out_dir, exist_ok=True)
    by_key = {}
    for name in entry_names(db, compiler):
        t0 = time.perf_counter()
        _, desc = _api.compile(tuning_db=db, entry=name, compiler=compiler,
                               output=os.path.join(out_dir, name + ".hsaco"))
        problem = desc["problem"]
        by_key.setdefault((problem["n"], problem["k"]),
                          (name, desc, time.perf_counter() - t0))
    return by_key
