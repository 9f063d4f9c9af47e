#!/usr/bin/env bash
# setup.sh - install what a fresh Debian 12 machine needs to build and test
# Tile, then configure a Ninja build in ./build (or $TILE_BUILD_DIR).
#
# Idempotent: packages already present are skipped, and an existing build
# directory is reconfigured in place.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${TILE_BUILD_DIR:-$ROOT/build}
BUILD_TYPE=${TILE_BUILD_TYPE:-Release}

PACKAGES=(
  cmake ninja-build python3 g++
  llvm-22-dev llvm-22-tools clang-22 lld-22 libclang-rt-22-dev
  libgtest-dev libgmock-dev libzstd-dev zlib1g-dev libdlpack-dev
  libhsa-runtime-dev libze-dev
  python3-numpy  # tile-jit lit tests write .npy files with it
  spirv-tools    # spirv-val and spirv-dis check the Level Zero backend's SPIR-V
  # The webgpu execution backend: Dawn for Node on Mesa's llvmpipe (OpenGL
  # ES through EGL without a display).
  libegl-mesa0 libgles2 libgl1-mesa-dri
)
# Node.js for the webgpu runner, unless a node (with its npm) is already
# installed from elsewhere.
if ! command -v node >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

bash "$ROOT/utils/install-packages.sh" setup "${PACKAGES[@]}"

# The npm package `webgpu` (Dawn for Node, prebuilt) for the runner in
# utils/webgpu, pinned by its package-lock.json.
if [ ! -f "$ROOT/utils/webgpu/node_modules/webgpu/package.json" ]; then
  echo "setup: installing the npm package webgpu into utils/webgpu"
  (cd "$ROOT/utils/webgpu" && npm ci --no-audit --no-fund)
fi

if [ "${TILE_SETUP_NO_CONFIGURE:-0}" != 1 ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    ${TILE_CMAKE_ARGS:-}
fi
