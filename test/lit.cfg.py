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
# tile-jit's kernel cache: one for the run, in the build tree, never the
# user's (tests of the cache itself use their own directories).
config.environment["TILE_CACHE_DIR"] = os.path.join(config.tile_obj_root, "test", "kernel-cache")
llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# `not`, FileCheck and count come from LLVM's tools dir; Tile's from ours.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

config.substitutions.append(("%tile_src", config.tile_src_root))
config.substitutions.append(("%tile_include", config.tile_include_dir))
config.substitutions.append(("%tile_obj", config.tile_obj_root))
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

# WebGPU: node, the npm package `webgpu` installed by utils/setup.sh in
# utils/webgpu, and an adapter it can open (Mesa's llvmpipe through OpenGL ES,
# or SwiftShader through Vulkan). The probe is the webgpu execution
# backend's own. TILE_REQUIRE_WEBGPU=1 (set by CI) makes its absence an
# error instead of skipping the tests that need it.
import subprocess
_runner = os.path.join(config.tile_src_root, "utils", "webgpu", "tile-webgpu-run.mjs")
_webgpu_why = None
if not shutil.which("node"):
    _webgpu_why = "node is not on PATH"
elif not os.path.isdir(os.path.join(os.path.dirname(_runner), "node_modules", "webgpu")):
    _webgpu_why = "utils/webgpu/node_modules/webgpu is missing (run utils/setup.sh)"
else:
    try:
        _probe = subprocess.run(["node", _runner, "--probe"], capture_output=True,
                                text=True, timeout=120)
        if _probe.returncode != 0:
            _webgpu_why = "no WebGPU adapter: " + _probe.stderr.strip()[-400:]
    except subprocess.TimeoutExpired:
        _webgpu_why = "the WebGPU probe timed out"
if _webgpu_why is None:
    config.available_features.add("webgpu")
elif os.environ.get("TILE_REQUIRE_WEBGPU") == "1":
    lit_config.fatal("TILE_REQUIRE_WEBGPU=1 but WebGPU is unusable: " + _webgpu_why)
else:
    lit_config.note("WebGPU tests are skipped: " + _webgpu_why)
