#!/usr/bin/env bash
# check-sanitizers.sh - build the whole tree with AddressSanitizer and
# UndefinedBehaviorSanitizer (TILE_SANITIZE, see cmake/TileSanitizers.cmake)
# in build-san/ (or $TILE_BUILD_DIR) and run every test under them.
#
# Any report fails the test that triggered it: UBSan does not recover, ASan
# aborts, and leaks are reported at exit. TILE_BUILD_FUZZERS=ON also builds
# the whole-pipeline fuzz target in the same tree (TILE_SAN_FUZZERS=1).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${TILE_BUILD_DIR:-$ROOT/build-san}
FUZZ=OFF
[ "${TILE_SAN_FUZZERS:-0}" = 1 ] && FUZZ=ON
TILE_SETUP_NO_CONFIGURE=1 bash "$ROOT/utils/setup.sh"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
  "-DTILE_SANITIZE=address;undefined" -DTILE_BUILD_FUZZERS=$FUZZ \
  ${TILE_CMAKE_ARGS:-}
cmake --build "$BUILD" -j"${TILE_JOBS:-2}"
# Symbolized reports; a report ends the process with a non-zero status.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
ctest --test-dir "$BUILD" --output-on-failure -j"${TILE_JOBS:-2}"
