#!/usr/bin/env bash
# run_h200_quick.sh - the integrated H200 check in a few minutes: every
# gated lit test (both NVIDIA pipelines, with a per-command limit so that a
# hang cannot eat the lease), compute-sanitizer memcheck on the
# warp-specialized FlashAttention, compile latency by stage, and the
# benchmark table beside cuBLAS / SDPA / a device copy in the same run.
# From the repository root on the GPU machine, with a static tile-jit at
# $TILE_JIT (default .bundle/tile-jit). Logs in $OUT (default /tmp/tile-out).
source "$(dirname "$0")/prologue.sh" h200-quick.log
T='cuda -arch=sm_90a'
export TILE_BENCH_TIMEOUT=${TILE_BENCH_TIMEOUT:-60}
echo "== gated lit tests"
timeout 240 python3 bench/gpu/run_gated_tests.py --jit "$JIT" --timeout 60 | grep -E "^(PASS|FAIL)|^  FAIL|gated tests"
echo "== compute-sanitizer memcheck, warp-specialized FlashAttention (two consumer warpgroups)"
for e in flash_attention flash_attention_causal; do
  timeout 120 compute-sanitizer --tool memcheck "$JIT" bench/gpu/attention/fa_128x64s2_e2.tile -entry=$e -target="$T" --dim B=1 --dim H=1 --dim S=130 --random --check 2>&1 | grep -E "^check|ERROR SUMMARY"
done
echo "== the benchmarked FlashAttention variants against the f64 interpreter (S=257)"
for f in bench/gpu/attention/fa_128x64s2_e2.tile bench/gpu/attention/fa_128x64s2_e2_fs.tile bench/gpu/attention/fa_64x64s2_e2_fs.tile; do
  for e in flash_attention flash_attention_causal; do
    echo "$f $e: $(timeout 60 "$JIT" "$f" -entry=$e -target="$T" --dim B=1 --dim H=2 --dim S=257 --random --seed 5 --check 2>&1 | grep -E "^check|error" | head -2)"
  done
done
echo "== compile latency (cold, by stage)"
"$JIT" bench/gpu/gemm_hopper_f16.tile -target="$T" --dim M=256 --dim N=256 --dim K=256 --random --print-compile-time | grep -E "total|llvm|ptxas|pipeline|wait|load"
"$JIT" bench/gpu/attention/fa_128x64s2_e2.tile -entry=flash_attention -target="$T" --dim B=1 --dim H=1 --dim S=128 --random --print-compile-time | grep -E "total|llvm|ptxas|pipeline|wait|load"
echo "== benchmarks beside their peers (same run)"
A=examples/flash_attention.tile
for v in fa_64x64s2_e2 fa_64x64s2_e2_fs fa_128x64s2_e2 fa_128x64s2_e2_ws0 fa_128x64s2_e2_fs; do A=$A,bench/gpu/attention/$v.tile; done
timeout 240 python3 bench/gpu/bench_h200.py --jit "$JIT" --target "$T" --sizes 4096,8192 \
  --gemm-f16 bench/gpu/gemm_hopper_f16.tile --gemm-bf16 bench/gpu/gemm_hopper_bf16.tile --attention "$A"
