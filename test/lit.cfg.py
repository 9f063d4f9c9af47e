# lit configuration for Tile's test suites.
import os
import shutil

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Tile"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".tile", ".td", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "--enable-var-scope --dump-input=fail"
llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# `not`, FileCheck and count come from LLVM's tools dir; Tile's from ours.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

config.substitutions.append(("%tile_src", config.tile_src_root))
config.substitutions.append(("%tile_include", config.tile_include_dir))
config.substitutions.append(("%examples", os.path.join(config.tile_src_root, "examples")))

tools = ["tile-opt", "tile-tblgen", "tile-llc", "tile-jit"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], [config.tile_tools_dir])

# Optional external tools and hardware.
for tool, feature in [("ptxas", "ptxas"), ("spirv-val", "spirv-val"),
                      ("spirv-dis", "spirv-dis"), ("ld.lld-22", "ld.lld")]:
    if shutil.which(tool) or os.path.exists(os.path.join("/usr/local/cuda/bin", tool)):
        config.available_features.add(feature)
if os.path.exists("/dev/nvidia0") or os.environ.get("TILE_CUDA_DEVICE"):
    config.available_features.add("cuda-device")
