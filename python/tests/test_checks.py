"""Bad arguments are exceptions before they reach C, never a crash or a
silent wrong run (issue 13, item 10): read-only outputs, workgroup ids the
facade would replace by workgroup 0, mis-shaped device operands, integers
that ctypes would wrap; and the readers of descriptors and case tables."""

import numpy as np
import pytest

import mxgemm
from mxgemm import _runtime, cases


@pytest.fixture(scope="module")
def problem():
    """An embedded kernel's smallest problem, with W in the layout its
    kernel reads (zeros: only the argument checks matter here)."""
    # Tuned entries only: a generic kernel's N and K read 0 (any).
    k = min((e for e in mxgemm.kernels() if e["n"]),
            key=lambda e: (e["k"], e["n"]))
    m, n, kk = k["m_range"][0], k["n"], k["k"]
    return dict(x=np.zeros((m, kk), np.uint8),
                xs=np.zeros((m, kk // 32), np.uint8),
                w=np.zeros((n, kk), np.uint8),
                ws=np.zeros((-(-n // 32), kk // 32), np.uint8),
                w_layout=k["w_layout"])


def test_gemm_refuses_a_read_only_out(ctx, problem):
    out = np.zeros((problem["x"].shape[0], problem["w"].shape[0]), np.uint16)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        mxgemm.gemm(out=out, ctx=ctx, **problem)
    assert not out.any()


@pytest.mark.parametrize("workgroups", [[10**9], ["a"], [-1], [], [0, 2**32],
                                        [1.5], "0", 7, [True]])
def test_gemm_refuses_bad_workgroup_ids(ctx, problem, workgroups):
    with pytest.raises(ValueError):
        mxgemm.gemm(ctx=ctx, workgroups=workgroups, **problem)


class Device:
    """Device memory as gemm takes it, with what torch tensors tell."""

    def __init__(self, shape, itemsize=1, contiguous=True, ptr=4096):
        self.shape, self.itemsize, self.contiguous = shape, itemsize, \
            contiguous
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr

    def element_size(self):
        return self.itemsize

    def is_contiguous(self):
        return self.contiguous


def _device(problem, **changes):
    (m, k), n = problem["x"].shape, problem["w"].shape[0]
    ops = dict(x=Device((m, k)), xs=Device((m, k // 32)), w=Device((n, k)),
               ws=Device(problem["ws"].shape), out=Device((m, n), 2))
    ops.update(changes)
    return ops


@pytest.mark.parametrize("name,bad", [
    ("out", Device((1, 1), 2)), ("out", lambda m, n, k: Device((m, n), 4)),
    ("xs", lambda m, n, k: Device((m, k // 32 + 1))),
    ("ws", lambda m, n, k: Device((n, k // 32))),
    ("w", lambda m, n, k: Device((n, k + 32))),
    ("w", lambda m, n, k: Device((n, k), 2)),
    ("x", lambda m, n, k: Device((m, k), contiguous=False)),
    ("x", lambda m, n, k: Device((m, k, 1))), ("ws", object()),
    ("out", None)])
def test_gemm_checks_device_operands(ctx, problem, name, bad):
    (m, k), n = problem["x"].shape, problem["w"].shape[0]
    if callable(bad) and not isinstance(bad, Device):
        bad = bad(m, n, k)
    ops = _device(problem, **{name: bad})
    # Nothing is launched: the pointers are not device memory at all.
    with pytest.raises(ValueError):
        mxgemm.gemm(ctx=ctx, w_layout=problem["w_layout"], **ops)


@pytest.mark.parametrize("m,exc", [(2**63, OverflowError),
                                   (-2**63 - 1, OverflowError),
                                   (2**64 + 5, OverflowError),
                                   (1.0, ValueError), ("8", ValueError)])
def test_plan_refuses_integers_c_cannot_hold(m, exc):
    c = mxgemm.Context(hip_library="/nonexistent/libamdhip64.so")
    with pytest.raises(exc):
        mxgemm.plan(m, 4096, 1280, ctx=c)
    with pytest.raises(exc):
        mxgemm.plan(4096, m, 1280, ctx=c)
    # Large values that fit int64 reach the shim unchanged: its rules.
    with pytest.raises(mxgemm.InvalidArgument, match="overflows"):
        mxgemm.plan(2**62, 16384, 1280, ctx=c)
    p = mxgemm.plan(2**31, 16384, 1280, ctx=c, w_layout="mfma_panels")
    assert p.reason == "M_OUT_OF_RANGE"


def test_workgroup_tile_checks_the_plan_and_the_id():
    k = mxgemm.kernels()[0]
    m = k["m_range"][0]
    p = mxgemm.descriptor_plan(k["descriptor"], m)
    tiles = {mxgemm.workgroup_tile(p, g) for g in range(p.grid[0])}
    assert len(tiles) == p.grid[0]
    assert all(0 <= r < m and 0 <= c < k["n"] for r, c in tiles)
    for wg in (p.grid[0], -1, "a", 2**40):
        with pytest.raises(ValueError):
            mxgemm.workgroup_tile(p, wg)
    p.group_m, p.group_n = 0, 0
    with pytest.raises(mxgemm.InvalidArgument):
        mxgemm.workgroup_tile(p, 0)
    p.program_tile_m = 2**32
    with pytest.raises(OverflowError):
        mxgemm.workgroup_tile(p, 0)


def test_workgroup_closure_of_a_tail_split(ctx):
    # shared_gate_up at M = 9199: 36 x 9 = 324 tiles of 256x256, W = 256
    # whole tiles, R = 68 tail tiles in 2 K segments (workgroups W + j and
    # W + j + R), reduced by workgroups j and j + R of the second launch;
    # the sets below are worked out by hand from that layout.
    p = mxgemm.plan(9199, 2304, 5120, ctx=ctx)
    assert (p.grid[0], p.tail_tiles, p.k_splits) == (392, 68, 2)
    assert p.tail_split
    assert mxgemm.workgroup_closure([p], [0]) == [0, 68, 256, 324]
    assert mxgemm.workgroup_closure([p], [391]) == [67, 135, 323, 391]
    assert mxgemm.workgroup_closure([p], [200]) == [200]
    for bad in ([], [392], [-1], ["a"]):
        with pytest.raises(ValueError):
            mxgemm.workgroup_closure([p], bad)


def test_descriptors_are_objects_with_every_config_field():
    # The tuned entries (a generic kernel's descriptor has N and K "?").
    for k in (k for k in mxgemm.kernels() if k["n"]):
        d = k["descriptor"]
        assert d["format_version"] == 2 and d["kernel"] == k["kernel"]
        assert d["w_layout"] == k["w_layout"]
        assert (d["problem"]["n"], d["problem"]["k"]) == (k["n"], k["k"])
        assert {"tile_m", "group_m", "stage_w", "mfma"} <= set(d["config"])
        assert mxgemm.kernel_descriptor(k["entry"]) == d
    with pytest.raises(ValueError):
        mxgemm.kernel_descriptor("no_such_entry")


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}', "[" * 100000, "{",
                                  b"\xff\xfe"])
def test_json_reader_refuses_duplicates_and_malformed_input(text):
    with pytest.raises(ValueError, match="not a valid JSON document"):
        _runtime.read_json(text, "test")


@pytest.mark.parametrize("body", [
    "family\tN\n", "family\tN\tK\tN\nx\t1\t2\t3\n", "family\tN\tK\nx\t1\n",
    "family\tN\tK\nx\t-4\t32\n", "family\tN\tK\nx\t4\t32\nx\t8\t32\n",
    "# only a comment\n"])
def test_case_table_errors_name_the_line(tmp_path, body):
    path = tmp_path / "cases.tsv"
    path.write_text(body)
    with pytest.raises(cases.CaseTableError, match=str(path)):
        cases.read_cases(str(path))
    with pytest.raises(cases.CaseTableError, match="cannot read"):
        cases.read_cases(str(tmp_path / "missing.tsv"))


def test_the_repository_case_table():
    rows = cases.read_cases(cases.default_path())
    assert len(rows) == 7 and rows[0]["family"] == "wq_b"
    assert (rows[0]["N"], rows[0]["K"]) == (16384, 1280)


def test_context_memory_helpers_check_their_arguments(ctx):
    p = ctx.alloc(64)
    try:
        ro = np.zeros(64, np.uint8)
        ro.flags.writeable = False
        for call in (lambda: ctx.to_host(p, ro),
                     lambda: ctx.to_host(p, np.zeros((8, 16), np.uint8).T),
                     lambda: ctx.to_host(p, [0] * 64),
                     lambda: ctx.alloc(-1), lambda: ctx.alloc(2**64),
                     lambda: ctx.memset(p, 256, 64),
                     lambda: ctx.memset(p, 0, -1)):
            with pytest.raises(ValueError):
                call()
    finally:
        ctx.free(p)
