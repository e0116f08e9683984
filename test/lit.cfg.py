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
config.substitutions.append(("%shared", config.shared_dir))
config.substitutions.append(("%python", sys.executable))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.mxgemm_tools_dir, config.llvm_tools_dir]
tools = ["mxgemm-opt", "mxgemm-compile", "mxgemm-emu", "mxgemm-sim", "FileCheck", "not", "count",
         "llvm-objdump", "llvm-mc", "ld.lld",
         "llvm-readelf"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
