#!/usr/bin/env bash
# run_python_h200.sh - the tile Python package on the H200 (torch CUDA
# tensors): examples/gemm.tile and examples/flash_attention.tile against
# torch.matmul and SDPA, and the per-call launch overhead of a compiled
# kernel beside a Triton launch, in one run (bench/gpu/python_h200.py).
#
# From the repository root on the GPU machine (python3, torch, triton, no
# LLVM), with a TILE_BUNDLE build of libTileCAPI at $TILE_PYBUNDLE (default
# build-pybundle/): libTileCAPI.so, or libTileCAPI.so.xz as carried. The
# package itself is python/tile from this checkout. Log: $OUT/python-h200.log.
set -uo pipefail
OUT=${OUT:-/tmp/tile-out}
B=${TILE_PYBUNDLE:-build-pybundle}
mkdir -p "$OUT"
exec > >(tee "$OUT/python-h200.log") 2>&1
echo "== machine"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; grep -m1 "model name" /proc/cpuinfo; python3 --version; date -u
if [ ! -f "$B/libTileCAPI.so" ]; then
  xz -dkc "$B/libTileCAPI.so.xz" > /tmp/libTileCAPI.so || exit 1
  LIB=/tmp/libTileCAPI.so
else
  LIB=$B/libTileCAPI.so
fi
echo "== libTileCAPI: $(ls -l "$LIB" | awk '{print $5}') bytes; needs:"
ldd "$LIB" | sed 's/^/  /'
export TILE_CAPI_LIBRARY=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
timeout 540 python3 bench/gpu/python_h200.py
echo "exit status $?"
