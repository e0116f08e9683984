"""The documented offline install (docs/Runtime.md, python/pyproject.toml)
works on Debian 12: a venv that sees Debian's NumPy, pip without network
and without build isolation; the installed package imports and finds the
libraries through the environment."""

import os
import shutil
import subprocess
import sys

import pytest

import mxgemm


def test_offline_install_into_a_venv(tmp_path):
    src = os.path.dirname(os.path.dirname(os.path.abspath(mxgemm.__file__)))
    if not os.path.exists(os.path.join(src, "pyproject.toml")):
        pytest.skip("mxgemm is not imported from a checkout")
    # A copy: setuptools builds in the source tree.
    shutil.copytree(src, tmp_path / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "tests"))
    venv = tmp_path / "venv"
    made = subprocess.run([sys.executable, "-m", "venv",
                           "--system-site-packages", str(venv)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip("no venv/ensurepip (Debian: python3-venv): "
                    + made.stderr.strip()[-200:])
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                    "--no-build-isolation", str(tmp_path / "python")],
                   check=True, capture_output=True, text=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MXGEMM_RUNTIME_LIBRARY"] = os.path.abspath(
        mxgemm._api._library().path)
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import mxgemm, mxgemm.qualify, mxgemm.bench; "
         "print(mxgemm.__file__); print(mxgemm.version()); "
         "print(mxgemm.encode_fp8(1.0))"],
        check=True, capture_output=True, text=True, env=env,
        cwd=str(tmp_path)).stdout.split()
    assert out[0].startswith(str(venv)) and out[1:] == [mxgemm.version(),
                                                        "56"]
