#!/usr/bin/env bash
# check-all.sh - set up a fresh machine, build everything and run every test
# (lit suites and GoogleTest, through ctest). This is README command (2) and
# what CI runs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${TILE_BUILD_DIR:-$ROOT/build}
bash "$ROOT/utils/setup.sh"
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j2
