#!/usr/bin/env bash
# run_layouts_h200.sh - issue 13 on the H200 in one command: the gated lit
# tests; the gemm epilogue kernels and examples/flash_attention.tile
# compiled for sm_80 (mma.sync) and sm_90a run on the device with --check
# at sizes that are not multiples of the tiles; the linear layer and GEMV
# beside torch (bench_layouts.py); today's GEMM and FlashAttention variants
# beside cuBLAS / SDPA for no-regression (bench_h200.py). From the
# repository root on the GPU machine with a static tile-jit (cmake
# -DTILE_BUNDLE=ON; ninja tile-jit) at $TILE_JIT (default
# .bundle/tile-jit). Logs in $OUT (default /tmp/tile-out).
source "$(dirname "$0")/prologue.sh" h200-layouts.log
echo "== gated lit tests"
timeout 300 python3 bench/gpu/run_gated_tests.py --jit "$JIT" --timeout 60 | grep -E "^(PASS|FAIL)|^  FAIL|gated tests"
echo "== epilogue kernels on the device, both tensor-core paths, --check"
for T in 'cuda -arch=sm_90a' 'cuda -arch=sm_80'; do
  echo "-- $T"
  timeout 60 "$JIT" test/Target/CUDA/Inputs/linear-relu.tile -target="$T" --dim M=1000 --dim N=1030 --dim K=700 --random --seed 3 --check 2>&1 | grep -E "^check|error"
  timeout 60 "$JIT" bench/gpu/linear_bf16.tile -target="$T" --dim M=1000 --dim N=1030 --dim K=700 --random --seed 3 --check 2>&1 | grep -E "^check|error"
  for e in scale_rows_cols cast_bf16; do
    timeout 60 "$JIT" test/Target/CUDA/Inputs/gemm-epilogues.tile -entry=$e -target="$T" --dim M=1000 --dim N=1030 --dim K=700 --random --seed 3 --check 2>&1 | grep -E "^check|error"
  done
  for e in flash_attention flash_attention_causal; do
    timeout 120 "$JIT" examples/flash_attention.tile -entry=$e -target="$T" --dim B=1 --dim H=2 --dim S=257 --random --seed 5 --check 2>&1 | grep -E "^check|error"
  done
done
echo "== linear layer and GEMV beside torch (same run)"
timeout 300 python3 bench/gpu/bench_layouts.py --jit "$JIT"
echo "== today's GEMM and FlashAttention variants beside cuBLAS / SDPA (no-regression)"
A=examples/flash_attention.tile
for v in fa_64x64s2_e2 fa_64x64s2_e2_fs fa_128x64s2_e2 fa_128x64s2_e2_fs; do A=$A,bench/gpu/attention/$v.tile; done
timeout 400 python3 bench/gpu/bench_h200.py --jit "$JIT" --target 'cuda -arch=sm_90a' --sizes 4096,8192 \
  --gemm-f16 bench/gpu/gemm_hopper_f16.tile --gemm-bf16 bench/gpu/gemm_hopper_bf16.tile --attention "$A" --only-gemm
timeout 400 python3 bench/gpu/bench_h200.py --jit "$JIT" --target 'cuda -arch=sm_90a' --attention "$A" --only-attention
echo "== examples/flash_attention.tile compiled for sm_80 (mma.sync; the driver JITs the PTX for the H200) beside SDPA"
timeout 300 python3 bench/gpu/bench_h200.py --jit "$JIT" --target 'cuda -arch=sm_80' --attention examples/flash_attention.tile --only-attention
date -u
