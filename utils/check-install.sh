#!/usr/bin/env bash
# check-install.sh STAGE BUILD_DIR - the install as a user meets it; ctest
# runs the three stages (cmake/TileInstall.cmake), install first.
#
#   install    cmake --install into BUILD_DIR/install-test (emptied first)
#   embedding  configure and build examples/embedding against that prefix
#              with find_package(Tile), compile examples/elementwise_add.tile
#              with the installed tile-llc to an artifact, run it, check
#   python     the Python package's tests (python/tests) against the
#              installed package, on the CPU target with NumPy
#
# Environment: CMAKE_GENERATOR, CXX (the compiler for the example), PYTHON
# (a python3 with NumPy; default /usr/bin/python3, Debian's),
# TILE_SANITIZER_PRELOAD (a sanitizer build's runtime, preloaded into the
# programs that load its instrumented libraries without being built with
# it: the example and Python).
set -euo pipefail
STAGE=$1
# Runs "$@" with the sanitizer runtime preloaded, in a sanitizer build.
preload() {
  if [ -n "${TILE_SANITIZER_PRELOAD:-}" ]; then
    LD_PRELOAD=$TILE_SANITIZER_PRELOAD "$@"
  else
    "$@"
  fi
}
BUILD=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=$BUILD/install-test

case $STAGE in
install)
  rm -rf "$PREFIX"
  cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
  for f in lib/cmake/tile/TileConfig.cmake lib/cmake/tile/TileConfigVersion.cmake \
           lib/libTileExec.so lib/libTileCAPI.so include/tile-c/Tile.h \
           include/tile/Exec/ExecBackends.inc bin/tile-llc lib/python3/site-packages/tile/__init__.py; do
    [ -e "$PREFIX/$f" ] || { echo "check-install: $PREFIX/$f is missing" >&2; exit 1; }
  done
  echo "installed to $PREFIX"
  ;;
embedding)
  WORK=$PREFIX/embedding
  rm -rf "$WORK"
  cmake -S "$ROOT/examples/embedding" -B "$WORK/build" \
    ${CMAKE_GENERATOR:+-G "$CMAKE_GENERATOR"} ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"} \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release >"$WORK.log" 2>&1 ||
    { cat "$WORK.log"; exit 1; }
  cmake --build "$WORK/build" >>"$WORK.log" 2>&1 || { cat "$WORK.log"; exit 1; }
  # The program links the runtime only: no compiler library is needed.
  if ldd "$WORK/build/run-add" | grep -E 'libTile(IR|Transforms|CodeGen|Target|Driver)'; then
    echo "check-install: run-add links a compiler library" >&2
    exit 1
  fi
  "$PREFIX/bin/tile-llc" "$ROOT/examples/elementwise_add.tile" -target=cpu \
    -emit=artifact -o "$WORK/add.tart"
  preload "$WORK/build/run-add" "$WORK/add.tart" 100003 | tee "$WORK/out.txt"
  grep -q '^add of 100003 elements on orc (cpu.*): ok$' "$WORK/out.txt"
  ;;
python)
  PY=${PYTHON:-/usr/bin/python3}
  cd "$ROOT"
  # CPython frees little at exit: its allocations are not ours to leak-check.
  [ -n "${TILE_SANITIZER_PRELOAD:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  PYTHONPATH="$PREFIX/lib/python3/site-packages" TILE_SOURCE_DIR="$ROOT" \
    preload "$PY" -m unittest discover -s "$ROOT/python/tests" -t "$ROOT/python/tests" -v 2>&1
  # The package came from the prefix, not the source tree.
  PYTHONPATH="$PREFIX/lib/python3/site-packages" preload "$PY" -c \
    "import tile, sys; p = tile.__file__; sys.exit(0 if p.startswith('$PREFIX') else 'tile from ' + p)"
  ;;
*)
  echo "usage: check-install.sh install|embedding|python BUILD_DIR" >&2
  exit 2
  ;;
esac
