#!/usr/bin/env bash
# The CUDA (pre-Hopper) pipeline on the H200: sm_80 cubins do not load on
# sm_90, so tile-jit must hand the driver PTX (compiled mode is off when no
# ptxas is found). ptxas is hidden in a private mount namespace only.
# Runs from a folder holding tile-jit (with libz3.so.4 on
# LD_LIBRARY_PATH) and a copy of examples/.
set -uo pipefail
JIT=$PWD/tile-jit
E=examples
which ptxas; ls -la /usr/local/cuda/bin/ptxas 2>&1 | head -1
body() {
  export PATH=/usr/bin:/bin
  [ -e /usr/local/cuda/bin/ptxas ] && mount --bind /dev/null /usr/local/cuda/bin/ptxas
  T='cuda -arch=sm_80'
  for k in "elementwise_add.tile --dim N=1000003" "rmsnorm.tile --dim M=33 --dim N=5000" "softmax.tile --dim M=17 --dim N=3000" "rmsnorm.tile --dim M=7 --dim N=1001" "softmax.tile --dim M=5 --dim N=1029"; do
    echo "-- $T $k"; timeout 60 "$JIT" $E/$k -target="$T" --random --seed 5 --check 2>&1 | tail -2
  done
  echo "-- bench $T"; timeout 60 "$JIT" $E/elementwise_add.tile --dim N=268435456 -target="$T" --random --bench 20 2>&1 | tail -1
  timeout 60 "$JIT" $E/rmsnorm.tile --dim M=8192 --dim N=8192 -target="$T" --random --bench 20 2>&1 | tail -1
}
export -f body; export JIT E
unshare -m bash -c body || echo "unshare failed: rc=$?"
