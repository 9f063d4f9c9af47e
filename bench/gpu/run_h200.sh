#!/usr/bin/env bash
# run_h200.sh - Tile on the H200: correctness of every reference kernel
# against the f64 reference interpreter, compute-sanitizer, benchmarks with
# their peers measured in the same run, compile latency by stage.
#
# Runs on the GPU machine from the repository root, with a static tile-jit
# (cmake -DTILE_BUNDLE=ON; ninja tile-jit) at $TILE_JIT (default
# .bundle/tile-jit). Everything it prints goes to $OUT/h200.log as well.
set -uo pipefail
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/h200.log") 2>&1
T='cuda -arch=sm_90a'
E=examples
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u
echo "== correctness (random inputs, poisoned outputs, sizes not multiples of the tiles)"
run() { echo "-- $*"; timeout 120 "$JIT" "$@" -target="$T" --random --seed 5 --check; echo "rc=$?"; }
run $E/gemm.tile --dim M=1000 --dim N=1000 --dim K=1000
run test/Examples/Inputs/gemm_bf16.tile --dim M=515 --dim N=300 --dim K=260
run test/Examples/Inputs/gemm_f32.tile --dim M=300 --dim N=200 --dim K=100
run $E/elementwise_add.tile --dim N=1000003
run $E/rmsnorm.tile --dim M=33 --dim N=5000
run $E/softmax.tile --dim M=17 --dim N=3000
run $E/gemv.tile --dim M=1000 --dim K=3000
run $E/transpose.tile --dim M=1000 --dim N=700
run $E/flash_attention.tile -entry=flash_attention --dim B=2 --dim H=3 --dim S=300
run $E/flash_attention.tile -entry=flash_attention_causal --dim B=2 --dim H=3 --dim S=300
echo "== compute-sanitizer"
for tool in memcheck racecheck; do
  echo "-- $tool gemm"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/gemm.tile -target="$T" --dim M=200 --dim N=130 --dim K=70 --random --check 2>&1 | tail -4
  echo "-- $tool flash_attention_causal"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/flash_attention.tile -entry=flash_attention_causal -target="$T" --dim B=1 --dim H=1 --dim S=130 --random --check 2>&1 | tail -4
  echo "-- $tool softmax"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/softmax.tile -target="$T" --dim M=3 --dim N=1500 --random --check 2>&1 | tail -4
done
echo "== compile latency (cold, by stage)"
"$JIT" $E/gemm.tile -target="$T" --dim M=256 --dim N=256 --dim K=256 --random --print-compile-time | head -12
echo "== Tile benchmarks"
b() { echo "-- $*"; timeout 90 "$JIT" "$@" -target="$T" --random --bench 10 | tail -1; }
for n in 2048 4096; do b test/Examples/Inputs/gemm_bf16.tile --dim M=$n --dim N=$n --dim K=$n; b $E/gemm.tile --dim M=$n --dim N=$n --dim K=$n; done
b $E/flash_attention.tile -entry=flash_attention --dim B=8 --dim H=16 --dim S=2048
b $E/flash_attention.tile -entry=flash_attention_causal --dim B=8 --dim H=16 --dim S=2048
b $E/elementwise_add.tile --dim N=268435456
b $E/rmsnorm.tile --dim M=8192 --dim N=8192
echo "== peers (same run)"
python3 bench/gpu/peers.py
