#!/usr/bin/env bash
# run_h200.sh - Tile on the H200: correctness of every reference kernel
# against the f64 reference interpreter, compute-sanitizer, benchmarks with
# their peers measured in the same run, compile latency by stage.
#
# BENCH_ARGS passes options to bench_h200.py (other GEMM kernels, --quick).
# Runs on the GPU machine from the repository root, with a static tile-jit
# (cmake -DTILE_BUNDLE=ON; ninja tile-jit) at $TILE_JIT (default
# .bundle/tile-jit). Everything it prints goes to $OUT/h200.log as well.
source "$(dirname "$0")/prologue.sh" h200.log
T='cuda -arch=sm_90a'
E=examples
echo "== correctness: the gated lit tests (REQUIRES: cuda-device), random inputs, poisoned outputs, sizes not multiples of the tiles, both NVIDIA pipelines"
python3 bench/gpu/run_gated_tests.py --jit "$JIT"
for f in bench/gpu/gemm_*.tile; do
  [ -e "$f" ] || continue
  echo "-- $f"; timeout 120 "$JIT" "$f" -target='cuda -arch=sm_90a' --dim M=1000 --dim N=1000 --dim K=1000 --random --seed 5 --check; echo "rc=$?"
done
T='cuda -arch=sm_90a'
echo "== compute-sanitizer"
for tool in memcheck racecheck; do
  echo "-- $tool gemm"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/gemm.tile -target="$T" --dim M=200 --dim N=130 --dim K=70 --random --check 2>&1 | grep -E "^(ran|check)|SUMMARY|Program hit|Invalid|Race reported|Error:|=========     at" | head -8
  echo "-- $tool flash_attention_causal"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/flash_attention.tile -entry=flash_attention_causal -target="$T" --dim B=1 --dim H=1 --dim S=130 --random --check 2>&1 | grep -E "^(ran|check)|SUMMARY|Program hit|Invalid|Race reported|Error:|=========     at" | head -8
  echo "-- $tool softmax"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/softmax.tile -target="$T" --dim M=3 --dim N=1500 --random --check 2>&1 | grep -E "^(ran|check)|SUMMARY|Program hit|Invalid|Race reported|Error:|=========     at" | head -8
  echo "-- $tool rmsnorm"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/rmsnorm.tile -target="$T" --dim M=3 --dim N=2500 --random --check 2>&1 | grep -E "^(ran|check)|SUMMARY|Program hit|Invalid|Race reported|Error:|=========     at" | head -8
  echo "-- $tool gemm sm_80"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/gemm.tile -target='cuda -arch=sm_80' --dim M=200 --dim N=130 --dim K=70 --random --check 2>&1 | grep -E "^(ran|check)|SUMMARY|Program hit|Invalid|Race reported|Error:|=========     at" | head -8
done
echo "== compile latency (cold, by stage)"
"$JIT" $E/gemm.tile -target="$T" --dim M=256 --dim N=256 --dim K=256 --random --print-compile-time | head -14
"$JIT" $E/elementwise_add.tile -target="$T" --dim N=4096 --random --print-compile-time | head -14
echo "== the reference gemm on each tensor-core path (4096^3; cuBLAS in the table below)"
for T2 in 'cuda -arch=sm_90a' 'cuda -arch=sm_80'; do
  echo "-- examples/gemm.tile $T2"; timeout 120 "$JIT" $E/gemm.tile -target="$T2" --dim M=4096 --dim N=4096 --dim K=4096 --random --bench 10 | tail -1
done
echo "== benchmarks beside their peers (same run)"
python3 bench/gpu/bench_h200.py --jit "$JIT" --target "$T" ${BENCH_ARGS:-}
