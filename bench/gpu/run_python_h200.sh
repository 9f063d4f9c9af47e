#!/usr/bin/env bash
# run_python_h200.sh - the tile Python package on the H200 (torch CUDA
# tensors): examples/gemm.tile and examples/flash_attention.tile against
# torch.matmul and SDPA, and the per-call launch overhead of a compiled
# kernel beside a Triton launch, in one run (bench/gpu/python_h200.py);
# before it, the same launch from C without Python (launch_floor.c).
#
# From the repository root on the GPU machine (python3, torch, triton, no
# LLVM), with a TILE_BUNDLE build of libTileCAPI at $TILE_PYBUNDLE (default
# build-pybundle/): libTileCAPI.so, or libTileCAPI.so.xz as carried, and
# launch_floor built against it (or built here with cc). The package is
# $TILE_PYTHON (default python/ of this checkout); $TILE_PY_OLD, when set,
# is a folder holding another version of it as the package tile_old, whose
# launcher python_h200.py times beside this one. Log: $OUT/python-h200.log.
set -uo pipefail
OUT=${OUT:-/tmp/tile-out}
B=${TILE_PYBUNDLE:-build-pybundle}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=$(cd "${TILE_PYTHON:-python}" && pwd)
mkdir -p "$OUT"
exec > >(tee "$OUT/python-h200.log") 2>&1
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; python3 --version; date -u
if [ ! -f "$B/libTileCAPI.so" ]; then
  mkdir -p /tmp/tile-lib
  xz -dkc "$B/libTileCAPI.so.xz" > /tmp/tile-lib/libTileCAPI.so || exit 1
  LIB=/tmp/tile-lib/libTileCAPI.so
else
  LIB=$B/libTileCAPI.so
fi
echo "== libTileCAPI: $(ls -l "$LIB" | awk '{print $5}') bytes; needs:"
ldd "$LIB" | sed 's/^/  /'
export TILE_CAPI_LIBRARY=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
export PYTHONPATH=$PY:$HERE${TILE_PY_OLD:+:$TILE_PY_OLD}${PYTHONPATH:+:$PYTHONPATH}

echo "== the launch from C (launch_floor)"
FLOOR=$B/launch_floor
if [ ! -x "$FLOOR" ] || LD_LIBRARY_PATH=$(dirname "$LIB") ldd "$FLOOR" | grep -q "not found"; then
  mkdir -p /tmp/tile-lib
  cc -O2 -I"${TILE_INCLUDE:-include}" "$HERE/launch_floor.c" -L"$(dirname "$LIB")" \
    -lTileCAPI -ldl -o /tmp/tile-lib/launch_floor && FLOOR=/tmp/tile-lib/launch_floor
fi
LD_LIBRARY_PATH=$(dirname "$LIB") timeout 120 "$FLOOR" examples/elementwise_add.tile
echo "exit status $?"

echo "== python"
PYTHONUNBUFFERED=1 timeout 480 python3 "$HERE/python_h200.py"
echo "exit status $?"
