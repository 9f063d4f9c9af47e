#!/usr/bin/env bash
# run_acceptance_h200.sh - what issues 14 and 16 still need from a GPU, in
# one command of about 7 minutes, so that one lease (starts are the scarce
# part) covers them:
#  1. compute-sanitizer memcheck and racecheck: the attention kernels of
#     run_attention_h200.sh (SANITIZE_ONLY), the persistent staged example
#     (ex_ps1, two resident blocks) and the example GEMM, its copy out
#     staged, at the tuned 128x256 config;
#  2. FlashAttention beside SDPA, alternated (bench_attention.py --rounds):
#     the example fp16 and bf16 at S2048 and S8192 (BM=BN=128), the
#     persistent staged example against it at S2048, grouped-query d64 and
#     d256 in their tuned configs;
#  3. the example GEMM's staged copy out against pairs (gemm_so0.tile) at
#     the tuned config, 4096^3 and 8192^3 fp16, interleaved, beside cuBLAS
#     (cublas_gemm.py) in the same command;
#  4. run_tune_h200.sh: cold compile, cache hit, autotune of the examples
#     and bench_h200.py against cuBLAS and SDPA (issue 14's figures).
# SKIP_PAIRS=1 leaves out part 3 (about a minute) where device time is short.
# From the repository root on the GPU machine with a static tile-jit at
# $TILE_JIT (default .bundle/tile-jit). Logs in $OUT (default /tmp/tile-out).
source "$(dirname "$0")/prologue.sh" acceptance.log
T='cuda -arch=sm_90a'
export TILE_BENCH_TIMEOUT=${TILE_BENCH_TIMEOUT:-120}
G="--param BM=128 --param BN=256 --param BK=64 --param STAGES=4 --param THREADS=256"

echo "== 1. sanitizers"
SANITIZE_ONLY=1 timeout 150 bash bench/gpu/run_attention_h200.sh > "$OUT/sanitize.txt" 2>&1
grep -oE "(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z]+|: ok|FAIL[A-Z]*" "$OUT/sanitize.txt" | sort | uniq -c
for tool in memcheck racecheck; do
  echo "ex_ps1 $tool: $(TILE_CUDA_RESIDENT_BLOCKS=2 timeout 60 compute-sanitizer --tool $tool "$JIT" bench/gpu/attention/ex_ps1.tile -entry=flash_attention -target="$T" --param BM=128 --param BN=128 --dim B=1 --dim H=3 --dim S=300 --random --check 2>&1 | grep -E '^check|SUMMARY' | tr '\n' ' ')"
  echo "gemm staged $tool: $(timeout 60 compute-sanitizer --tool $tool "$JIT" examples/gemm.tile -target="$T" $G --dim M=300 --dim N=520 --dim K=200 --random --check 2>&1 | grep -E '^check|SUMMARY' | tr '\n' ' ')"
done

echo "== 2. attention beside SDPA, alternated"
sed 's/f16\[/bf16[/g' examples/flash_attention.tile > "$OUT/fa_bf16.tile"
timeout 300 python3 bench/gpu/bench_attention.py --jit "$JIT" --target "$T" --reps 20 --rounds 5 --only none \
  --extra examples/flash_attention.tile:BM=128,BN=128 \
  --extra bench/gpu/attention/ex_ps1.tile:BM=128,BN=128 \
  --extra "$OUT/fa_bf16.tile":BM=128,BN=128 \
  --extra examples/flash_attention.tile:BM=128,BN=128,B=4,S=8192 \
  --extra "$OUT/fa_bf16.tile":BM=128,BN=128,B=4,S=8192 \
  --extra bench/gpu/attention/gqa_d64_bf16.tile:BM=128,BN=128,STAGES=3 \
  --extra bench/gpu/attention/fa_d256.tile:BM=128,BN=64 2>&1 | grep -vE "^check vs"

echo "== 3. GEMM: staged copy out (the example) against pairs (gemm_so0), tuned config, interleaved"
if [ -n "${SKIP_PAIRS:-}" ]; then echo "skipped (SKIP_PAIRS)"; else
python3 bench/gpu/cublas_gemm.py 2>&1 | grep fp16
for n in 4096 8192; do
  for r in 1 2 3; do
    for f in bench/gpu/gemm_so0.tile examples/gemm.tile; do
      echo "$n $f round $r: $("$JIT" "$f" -target="$T" $G --dim M=$n --dim N=$n --dim K=$n --random --no-cache --bench 20 2>&1 | grep -E '^bench')"
    done
  done
done
python3 bench/gpu/cublas_gemm.py 2>&1 | grep fp16
fi

echo "== 4. run_tune_h200.sh"
timeout 280 bash bench/gpu/run_tune_h200.sh > "$OUT/tune.log" 2>&1
grep -E "median|TFLOP|ratio|x " "$OUT/tune.log" | tail -40
date -u
