"""Shared fixtures: the runtime library, the emulator's HIP facade, and
kernels that read W in MFMA panels served through a loaded library.

Run from the build tree with PYTHONPATH=python and MXGEMM_RUNTIME_LIBRARY /
MXGEMM_HIP_LIBRARY pointing at build/lib (scripts/test.sh does this).
"""

import hashlib
import json
import os
import sys
import types

import pytest

try:
    import mxgemm
except ImportError:  # no PYTHONPATH: the checkout's package
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    import mxgemm


def facade_path():
    env = os.environ.get("MXGEMM_HIP_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(mxgemm._api._library().path),
                        "libmxgemm_hip_emu.so")


@pytest.fixture(scope="session")
def ctx():
    path = facade_path()
    if not os.path.exists(path):
        pytest.skip(f"HIP facade not built: {path}")
    return mxgemm.Context(hip_library=path)


# --------------------------------------------------------------------------
# Loaded libraries (Context.load_library)
# --------------------------------------------------------------------------

def tuning_entry(name, descriptor, m_range):
    """The tuning-database entry `name` that a kernel descriptor describes
    (its problem and config) for M in m_range."""
    return {"name": name,
            "key": dict(descriptor["problem"], arch=descriptor["chip"]),
            "m_range": list(m_range), "config": descriptor["config"]}


def write_library(directory, kernels, ctx):
    """Writes `kernels`, a list of (tuning-database entry, code object,
    descriptor), as a directory in the layout `mxgemm-tune --export` writes
    (manifest.json, db.json, <name>.hsaco, <name>.hsaco.json; files 0644,
    the directory 0755), for Context.load_library. Returns its path."""
    entries, listed = [], []
    for entry, code, descriptor in kernels:
        name = entry["name"]
        # The manifest's config text is the runtime's (formatConfigBody):
        # the plan of the kernel loaded on its own says it.
        loaded = mxgemm.LoadedKernel(code, descriptor, ctx=ctx)
        try:
            config = loaded.plan(entry["m_range"][0]).config
        finally:
            loaded.unload()
        listed.append({"name": name, "kernel": "mxgemm_" + name,
                       "code_object": name + ".hsaco",
                       "descriptor": name + ".hsaco.json",
                       "sha256": hashlib.sha256(code).hexdigest(),
                       "m_range": list(entry["m_range"]),
                       "n": entry["key"]["n"], "k": entry["key"]["k"],
                       "config": config})
        entries.append(entry)
    db = {"format": "mxgemm-tuning-db", "version": 1, "entries": entries}
    manifest = {"format": "mxgemm-tune-export", "version": 1,
                "database": "db.json", "kernels": listed}
    files = [("db.json", json.dumps(db).encode()),
             ("manifest.json", json.dumps(manifest).encode())]
    for (entry, code, descriptor), m in zip(kernels, listed):
        files += [(m["code_object"], code),
                  (m["descriptor"], json.dumps(descriptor).encode())]
    os.makedirs(directory, mode=0o755)
    os.chmod(directory, 0o755)
    for name, data in files:
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
        os.chmod(os.path.join(directory, name), 0o644)
    return str(directory)


# Kernels that read W in MFMA panels (stage_w = packed_registers), compiled
# here so that the panel path (pack_weights, layout refusals, packed GEMMs)
# does not depend on the production database having such a kernel. One key
# per MFMA shape: the runtime packs each with its own kernel
# (mxgemm_pack_panels_32 / _16). Small shapes, cheap on the emulator; no
# embedded entry has these keys. The m32n32k64 config is the `panels`
# entry of unittests/Runtime/test-db.json.
PANEL_KERNELS = {
    "m32n32k64": ("test_panels_32", 512, 256, {
        "tile_m": 128, "tile_n": 256, "tile_k": 128, "waves_m": 1,
        "waves_n": 4, "mfma": "m32n32k64", "stage_x": "lds_async",
        "stage_w": "packed_registers", "stages": 2, "lds_layout": "padded",
        "schedule": "interleave", "group_m": 8, "group_n": 4,
        "xcd_remap": True}),
    "m16n16k128": ("test_panels_16", 256, 512, {
        "tile_m": 64, "tile_n": 128, "tile_k": 256, "waves_m": 1,
        "waves_n": 4, "mfma": "m16n16k128", "stage_x": "lds_async",
        "stage_w": "packed_registers", "stages": 2,
        "lds_layout": "padded"}),
}
PANEL_M_RANGE = (1, 4096)


@pytest.fixture(scope="session")
def panel_library(ctx, tmp_path_factory):
    """The PANEL_KERNELS compiled with mxgemm.compile and written as a
    loaded-library directory: .directory, and .kernels {mfma: row}, each
    row as mxgemm.kernels() gives one (entry, kernel, n, k, m_range,
    config, w_layout, descriptor) plus its code object (.code)."""
    kernels, rows = [], {}
    for mfma, (name, n, k, config) in PANEL_KERNELS.items():
        # No skip without the compiler: that would drop the panel path's
        # coverage silently.
        code, d = mxgemm.compile(n, k, config=config, name="mxgemm_" + name)
        assert d["w_layout"] == "mfma_panels", d
        assert d["config"]["mfma"] == mfma
        kernels.append((tuning_entry(name, d, PANEL_M_RANGE), code, d))
    directory = write_library(
        tmp_path_factory.mktemp("panel_library") / "lib", kernels, ctx)
    with open(os.path.join(directory, "manifest.json")) as f:
        listed = {m["name"]: m for m in json.load(f)["kernels"]}
    for entry, code, d in kernels:
        rows[d["config"]["mfma"]] = {
            "entry": entry["name"], "kernel": d["kernel"],
            "n": d["problem"]["n"], "k": d["problem"]["k"],
            "m_range": PANEL_M_RANGE,
            "config": listed[entry["name"]]["config"],
            "w_layout": d["w_layout"], "descriptor": d, "code": code}
    return types.SimpleNamespace(directory=directory, kernels=rows)


@pytest.fixture(scope="session")
def panel_ctx(panel_library):
    """A context on the facade with the panel library loaded: its keys are
    served by kernels that read MFMA panels (Plan.kind == "library"), every
    other key as on any context."""
    c = mxgemm.Context(hip_library=facade_path())
    c.load_library(panel_library.directory)
    for row in panel_library.kernels.values():
        p = mxgemm.plan(row["m_range"][0], row["n"], row["k"], ctx=c,
                        w_layout="mfma_panels")
        assert p.eligible and p.kind == "library", p.message
        assert p.kernel == row["kernel"] and p.w_layout == "mfma_panels"
    return c
