#!/usr/bin/env bash
# run_hopper_gemm.sh - the Hopper GEMM path (hopper-lower-gemm-wgmma) on
# the H200: SASS of cubins compiled here (HGMMA present, no local memory),
# correctness against the f64 reference interpreter at sizes that are not
# multiples of the tiles (and rows that are not 16-byte aligned), speed at
# 4096^3 and 8192^3 with cuBLAS (torch.matmul) timed in the same run, and
# compute-sanitizer memcheck/racecheck at a small size.
#
# Runs on the GPU machine from the repository root with a static tile-jit
# at $TILE_JIT (default .bundle/tile-jit), the cubins in $CUBINS (default
# .bundle) and the bench tiles in $BENCH_TILES (default bench/gpu). Prints
# to $OUT/hopper_gemm.log as well.
source "$(dirname "$0")/prologue.sh" hopper_gemm.log
T='cuda -arch=sm_90a'
G=examples/gemm.tile
GB=test/Examples/Inputs/gemm_bf16.tile
HF=${BENCH_TILES:-bench/gpu}/gemm_hopper_f16.tile
HB=${BENCH_TILES:-bench/gpu}/gemm_hopper_bf16.tile
echo "== SASS (cubins compiled by tile-llc -emit=obj)"
for c in "${CUBINS:-.bundle}"/*.cubin; do
  echo "-- $c: HGMMA $(cuobjdump -sass "$c" | grep -c HGMMA), LDL/STL $(cuobjdump -sass "$c" | grep -cE '\b(LDL|STL)\b')"
  cuobjdump -sass "$c" | grep -m1 HGMMA
done
chk() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --seed 5 --check 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"; }
echo "== correctness"
for f in $G $GB $HF $HB; do chk $f --dim M=515 --dim N=300 --dim K=260; done
chk $HF --dim M=256 --dim N=512 --dim K=64
chk $G --dim M=130 --dim N=136 --dim K=8
echo "== Tile benchmarks"
b() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --bench 10 2>&1 | tail -1; }
for n in 4096 8192; do for f in $HF $HB $G $GB; do b $f --dim M=$n --dim N=$n --dim K=$n; done; done
echo "== cuBLAS (torch.matmul, CUDA events, median of 20)"
python3 bench/gpu/cublas_gemm.py
echo "== correctness 1000^3"
chk $G --dim M=1000 --dim N=1000 --dim K=1000
chk $HB --dim M=1000 --dim N=1000 --dim K=1000
echo "== compute-sanitizer"
for tool in memcheck racecheck; do for f in $G $HB; do
  echo "-- $tool $f"; timeout 90 compute-sanitizer --tool $tool --print-limit 5 "$JIT" $f -target="$T" --dim M=200 --dim N=300 --dim K=136 --random --check 2>&1 | tail -3
done; done
echo "== end"; date -u
