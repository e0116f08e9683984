"""Tuning data loaded at run time (Context.load_library, the C API's
mxgemm_context_load_library): a directory in the layout `mxgemm-tune
--export` writes, assembled from the embedded fused_qkv kernel with an M
range (1..100000) above the embedded ones (1..65536)."""

import hashlib
import json
import os

import pytest

import mxgemm

from conftest import facade_path

REPO = os.path.join(os.path.dirname(__file__), "..", "..")


def _export(directory, m_range=(1, 100000)):
    """Writes the directory; returns it."""
    code = mxgemm.kernel_code_object("fused_qkv")
    descriptor = mxgemm.kernel_descriptor("fused_qkv")
    with open(os.path.join(REPO, "tuning", "gfx950.json")) as f:
        db = json.load(f)
    entry = next(e for e in db["entries"] if e["name"] == "fused_qkv")
    entry["m_range"] = list(m_range)
    db["entries"] = [entry]
    config = mxgemm.plan(8193, 1792, 5120, ctx=mxgemm.Context(
        hip_library=facade_path()), w_layout="mfma_panels").config
    manifest = {"format": "mxgemm-tune-export", "version": 1,
                "database": "db.json",
                "kernels": [{"name": "fused_qkv", "kernel": "mxgemm_fused_qkv",
                             "code_object": "k.hsaco",
                             "descriptor": "k.hsaco.json",
                             "sha256": hashlib.sha256(code).hexdigest(),
                             "m_range": list(m_range), "n": 1792, "k": 5120,
                             "config": config}]}
    os.makedirs(directory, mode=0o755)
    for name, data in [("k.hsaco", code),
                       ("k.hsaco.json", json.dumps(descriptor).encode()),
                       ("db.json", json.dumps(db).encode()),
                       ("manifest.json", json.dumps(manifest).encode())]:
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
        os.chmod(os.path.join(directory, name), 0o644)
    return str(directory)


def test_loaded_library_serves_its_keys(tmp_path):
    if not os.path.exists(facade_path()):
        pytest.skip("HIP facade not built")
    directory = _export(tmp_path / "lib")
    ctx = mxgemm.Context(hip_library=facade_path())
    before = mxgemm.plan(70000, 1792, 5120, ctx=ctx, w_layout="mfma_panels")
    assert not before.eligible and before.reason == "M_OUT_OF_RANGE"
    assert before.kind == "none"
    assert mxgemm.plan(8193, 1792, 5120, ctx=ctx,
                       w_layout="mfma_panels").kind == "embedded"
    ctx.load_library(directory)
    after = mxgemm.plan(70000, 1792, 5120, ctx=ctx, w_layout="mfma_panels")
    assert after.eligible and after.kind == "library"
    assert after.entry == "fused_qkv" and after.m_range == (1, 100000)


def test_refused_library_leaves_the_context_as_it_was(tmp_path):
    if not os.path.exists(facade_path()):
        pytest.skip("HIP facade not built")
    directory = _export(tmp_path / "lib")
    os.chmod(directory, 0o777)
    ctx = mxgemm.Context(hip_library=facade_path())
    with pytest.raises(mxgemm.InvalidArgument, match="writable by others"):
        ctx.load_library(directory)
    assert mxgemm.plan(70000, 1792, 5120, ctx=ctx,
                       w_layout="mfma_panels").reason == "M_OUT_OF_RANGE"
    os.chmod(directory, 0o755)
    with open(os.path.join(directory, "k.hsaco"), "r+b") as f:
        f.seek(100)
        f.write(b"\xff")
    with pytest.raises(mxgemm.InvalidArgument, match="the manifest says"):
        ctx.load_library(directory)
    assert mxgemm.plan(70000, 1792, 5120, ctx=ctx,
                       w_layout="mfma_panels").kind == "none"


def test_jit_serves_a_shape_without_a_kernel(tmp_path, monkeypatch):
    if not os.path.exists(facade_path()):
        pytest.skip("HIP facade not built")
    monkeypatch.setenv("MXGEMM_CACHE_DIR", str(tmp_path / "cache"))
    ctx = mxgemm.Context(hip_library=facade_path())
    ctx.set_generic(False)  # else a generic kernel serves the key
    off = mxgemm.plan(7, 512, 256, ctx=ctx)
    assert not off.eligible and off.reason == "NO_TUNED_KERNEL"
    ctx.set_jit(True)
    first = mxgemm.plan(7, 512, 256, ctx=ctx)
    # The auto config may read W in MFMA panels: then pass that layout.
    assert first.eligible or first.reason == "PACKED_WEIGHTS", first.message
    p = mxgemm.plan(7, 512, 256, ctx=ctx, w_layout=first.w_layout)
    assert p.eligible and p.kind == "jit", p.message
    assert p.m_range == (1, 2**31 - 1)
    ctx.set_jit(False)
    assert mxgemm.plan(7, 512, 256, ctx=ctx).reason == "NO_TUNED_KERNEL"
