# lit configuration of the mxgemm regression tests: FileCheck on IR, on
# disassembly of generated code objects, and on tool output.
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "MXGEMM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".s"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mxgemm_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mxgemm_src", config.mxgemm_src_root))
config.substitutions.append(("%mxgemm_build_dir", config.mxgemm_obj_root))
# %expect-exit CODE cmd...: cmd must exit with exactly CODE (Support/Tool.h).
config.substitutions.append(("%expect-exit", "%s %s" % (
    sys.executable,
    os.path.join(config.mxgemm_src_root, "test", "Inputs", "expect_exit.py"))))
config.substitutions.append(("%mxgemm_data", os.path.join(config.mxgemm_src_root, "data")))
config.substitutions.append(("%python", sys.executable))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The mxgemm Python package of this checkout (python -m mxgemm.isa, ...).
llvm_config.with_environment("PYTHONPATH", os.path.join(config.mxgemm_src_root,
                                                        "python"),
                             append_path=True)

tool_dirs = [config.mxgemm_tools_dir, config.llvm_tools_dir]
tools = ["mxgemm-opt", "mxgemm-lsp-server", "mxgemm-compile", "mxgemm-cache", "mxgemm-emu", "mxgemm-sim", "mxgemm-tune",
         "FileCheck", "not", "count",
         "llvm-objdump", "llvm-mc", "ld.lld",
         "llvm-readelf"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# --mlir-pass-statistics prints pass statistics only from an MLIR built with
# assertions or LLVM_FORCE_ENABLE_STATS; Debian's release libMLIR compiles
# them out and prints an empty report. Ask the tool whether it prints the
# statistics of an upstream pass.
def _prints_pass_statistics():
    import subprocess
    opt = os.path.join(config.mxgemm_tools_dir, "mxgemm-opt")
    try:
        run = subprocess.run([opt, "--cse", "--mlir-pass-statistics",
                              "-o", os.devnull], input="", text=True,
                             capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "num-cse'd" in run.stderr


if _prints_pass_statistics():
    config.available_features.add("pass-statistics")

# Upstream MLIR's CPU path (mlir-runner and the runtime libraries it loads):
# the reference run of mxgemm-lower-to-upstream needs the APFloat wrappers
# for FP8/E8M0 arithmetic, new in MLIR 22.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%llvm_lib_dir", llvm_lib_dir))
if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner")) and \
        os.path.exists(os.path.join(llvm_lib_dir,
                                    "libmlir_apfloat_wrappers.so")):
    config.available_features.add("mlir-cpu-runner")
