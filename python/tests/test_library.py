"""Tuning data loaded at run time (Context.load_library, the C API's
mxgemm_context_load_library): a directory in the layout `mxgemm-tune
--export` writes (conftest.write_library), here the embedded index_query
kernel with an M range (1..100000) above the embedded ones (1..65536).
conftest's panel_ctx loads compiled kernels that read MFMA panels the same
way."""

import os

import pytest

import mxgemm

from conftest import facade_path, tuning_entry, write_library

N, K = 4096, 1280  # index_query


def _export(directory, ctx, m_range=(1, 100000)):
    """Writes the directory; returns it."""
    code = mxgemm.kernel_code_object("index_query")
    descriptor = mxgemm.kernel_descriptor("index_query")
    entry = tuning_entry("index_query", descriptor, m_range)
    return write_library(directory, [(entry, code, descriptor)], ctx)


def _w_layout():
    """The W layout the embedded index_query kernel reads."""
    return next(k["w_layout"] for k in mxgemm.kernels()
                if k["entry"] == "index_query")


def _fresh_context():
    c = mxgemm.Context(hip_library=facade_path())
    # Else a generic kernel serves M above the tuned entries' ranges.
    c.set_generic(False)
    return c


def test_loaded_library_serves_its_keys(ctx, tmp_path):
    directory = _export(tmp_path / "lib", ctx)
    c, lay = _fresh_context(), _w_layout()
    before = mxgemm.plan(70000, N, K, ctx=c, w_layout=lay)
    assert not before.eligible and before.reason == "M_OUT_OF_RANGE"
    assert before.kind == "none"
    assert mxgemm.plan(8193, N, K, ctx=c, w_layout=lay).kind == "embedded"
    c.load_library(directory)
    after = mxgemm.plan(70000, N, K, ctx=c, w_layout=lay)
    assert after.eligible and after.kind == "library"
    assert after.entry == "index_query" and after.m_range == (1, 100000)
    assert after.kernel == "mxgemm_index_query" and after.w_layout == lay
    # The library's entry serves its whole key, ahead of the embedded and
    # the generic kernels.
    assert mxgemm.plan(8193, N, K, ctx=c, w_layout=lay).kind == "library"
    c.set_generic(True)
    assert mxgemm.plan(70000, N, K, ctx=c, w_layout=lay).kind == "library"


def test_refused_library_leaves_the_context_as_it_was(ctx, tmp_path):
    directory = _export(tmp_path / "lib", ctx)
    os.chmod(directory, 0o777)
    c, lay = _fresh_context(), _w_layout()
    with pytest.raises(mxgemm.InvalidArgument, match="writable by others"):
        c.load_library(directory)
    assert mxgemm.plan(70000, N, K, ctx=c,
                       w_layout=lay).reason == "M_OUT_OF_RANGE"
    os.chmod(directory, 0o755)
    with open(os.path.join(directory, "index_query.hsaco"), "r+b") as f:
        f.seek(100)
        f.write(b"\xff")
    with pytest.raises(mxgemm.InvalidArgument, match="the manifest says"):
        c.load_library(directory)
    assert mxgemm.plan(70000, N, K, ctx=c, w_layout=lay).kind == "none"


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
