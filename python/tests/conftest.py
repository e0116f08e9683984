"""Shared fixtures: the runtime library and the emulator's HIP facade.

Run from the build tree with PYTHONPATH=python and MXGEMM_RUNTIME_LIBRARY /
MXGEMM_HIP_LIBRARY pointing at build/lib (scripts/test.sh does this).
"""

import os
import sys

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
