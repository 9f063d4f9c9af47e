#!/usr/bin/env bash
# run_tune_h200.sh - issue 14 on the H200, in one command:
#  1. where an nvPTXCompiler / nvJitLink library is on this machine;
#  2. cold compile of examples/gemm.tile for sm_90a to a loaded kernel,
#     median of 5 fresh processes (--no-cache): with ptxas, and with the
#     PTX left to the driver's JIT (TILE_PTXAS=none, CUDA_CACHE_DISABLE=1);
#  3. a kernel cache hit, .tile text to loaded kernel (median of 5);
#  4. tile-jit --autotune of examples/gemm.tile at 4096^3 and 8192^3 in
#     fp16 and bf16 and of both examples/flash_attention.tile entries
#     (B8 H16 S2048), the tables in the log; then bench_h200.py, whose
#     tile-jit runs use the recorded configs, beside cuBLAS (torch.matmul),
#     SDPA and the best bench/gpu/attention variant in the same run.
# From the repository root on the GPU machine with a static tile-jit at
# $TILE_JIT (default .bundle/tile-jit). Logs in $OUT (default /tmp/tile-out).
# Part 2 also compiles with the kernel middle end (`-llvm_opt=kernel`), and
# LLVM_OPT_AB=1 adds part 2b: that kernel's speed against O3's (the
# default), interleaved --bench runs of the GEMM (4096^3 fp16) and of
# FlashAttention (B8 H16 S2048) in the examples' default configs.
# LATENCY_ONLY=1 stops after part 3.
source "$(dirname "$0")/prologue.sh" h200-tune.log
T='cuda -arch=sm_90a'
G="--dim M=4096 --dim N=4096 --dim K=4096 --random"
export TILE_BENCH_TIMEOUT=${TILE_BENCH_TIMEOUT:-120}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
stage() { awk -v s="$1" '$0 ~ "^ +" s ":" {print $(NF-1)}'; }
"$JIT" --version 2>/dev/null | head -2; nproc

echo "== 1. in-process PTX compilers on this machine"
find /usr /opt -xdev \( -name 'libnvptxcompiler*' -o -name 'libnvJitLink*' \) 2>/dev/null | head
ls /usr/local/cuda/bin/ptxas && /usr/local/cuda/bin/ptxas --version | tail -1

cold() { # $1: label; rest: environment; $CT: the target (default $T)
  local label=$1; shift
  : > "$OUT/cold.txt"
  for i in 1 2 3 4 5; do
    env "$@" "$JIT" examples/gemm.tile -target="${CT:-$T}" $G --no-cache --print-compile-time > "$OUT/c.txt" 2>&1
    grep -E "^ +(device codegen|llvm-[a-z]+|ptxas|host codegen|executor wait|load|total):" "$OUT/c.txt" | tr -s ' ' | tr '\n' ' '; echo
    stage total < "$OUT/c.txt" >> "$OUT/cold.txt"
  done
  echo "$label: cold median total (ms): $(median < "$OUT/cold.txt")"
}
echo "== 2. cold compile, examples/gemm.tile sm_90a, 5 processes each (--no-cache)"
cold "ptxas"
cold "driver JIT" TILE_PTXAS=none CUDA_CACHE_DISABLE=1
CT="$T -llvm_opt=kernel" cold "ptxas, -llvm_opt=kernel"

if [ -n "${LLVM_OPT_AB:-}" ]; then
  echo "== 2b. kernel speed, -llvm_opt=O3 (default) against -llvm_opt=kernel, interleaved"
  # An empty cache directory: no tuning record picks another config.
  export TILE_CACHE_DIR=$(mktemp -d)
  for r in 1 2 3; do
    for o in O3 kernel; do
      echo "-- gemm 4096^3 f16, llvm_opt=$o, round $r"
      "$JIT" examples/gemm.tile -target="$T -llvm_opt=$o" $G --no-cache --bench 20 2>&1 | grep -E "^bench"
      echo "-- flash_attention B8 H16 S2048, llvm_opt=$o, round $r"
      "$JIT" examples/flash_attention.tile -entry=flash_attention -target="$T -llvm_opt=$o" \
        --dim B=8 --dim H=16 --dim S=2048 --random --no-cache --bench 20 2>&1 | grep -E "^bench"
    done
  done
  rm -rf "$TILE_CACHE_DIR"; unset TILE_CACHE_DIR
fi

echo "== 3. cache hit (5 processes on a warm cache)"
D=$(mktemp -d)
TILE_CACHE_DIR=$D "$JIT" examples/gemm.tile -target="$T" $G > /dev/null 2>&1
: > "$OUT/hit.txt"; : > "$OUT/hitnw.txt"
for i in 1 2 3 4 5; do
  TILE_CACHE_DIR=$D "$JIT" examples/gemm.tile -target="$T" $G --print-compile-time > "$OUT/h.txt" 2>&1
  grep -E "kernel cache" "$OUT/h.txt" | head -1 | cut -c1-20
  grep -E "^  [a-z]" "$OUT/h.txt" | tr -s ' ' | tr '\n' ' '; echo
  stage total < "$OUT/h.txt" >> "$OUT/hit.txt"
  awk '/^  total:/ {t=$2} /executor wait:/ {w=$3} END {print t - w}' "$OUT/h.txt" >> "$OUT/hitnw.txt"
done
echo "hit median total (ms): $(median < "$OUT/hit.txt"); less the driver's start (executor wait): $(median < "$OUT/hitnw.txt")"
rm -rf "$D"

if [ -n "${LATENCY_ONLY:-}" ]; then date -u; exit 0; fi   # parts 1-3 only
echo "== 4. autotune (records in a fresh cache directory used by the benchmarks below)"
export TILE_CACHE_DIR=$OUT/tile-cache
rm -rf "$TILE_CACHE_DIR"
sed 's/ f16\[/ bf16[/g' examples/gemm.tile > "$OUT/gemm_bf16.tile"
for n in 4096 8192; do
  for f in examples/gemm.tile "$OUT/gemm_bf16.tile"; do
    echo "-- $f ${n}^3"
    timeout 150 "$JIT" "$f" -target="$T" --dim M=$n --dim N=$n --dim K=$n --random --seed 7 --autotune --bench 10 2>&1 | grep -v "^ran "
  done
done
for e in flash_attention flash_attention_causal; do
  echo "-- examples/flash_attention.tile -entry=$e B8 H16 S2048"
  timeout 120 "$JIT" examples/flash_attention.tile -entry=$e -target="$T" --dim B=8 --dim H=16 --dim S=2048 --random --seed 7 --autotune --bench 10 2>&1 | grep -v "^ran "
done
echo "-- a later run uses the recorded config without tuning"
"$JIT" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --print-compile-time | grep -E "tuned config|kernel cache|total"
echo "== benchmarks with the recorded configs, beside cuBLAS / SDPA (same run)"
A=examples/flash_attention.tile,bench/gpu/attention/fa_128x64s2_e2_fs.tile
timeout 200 python3 bench/gpu/bench_h200.py --jit "$JIT" --target "$T" --sizes 4096,8192 \
  --gemm-f16 examples/gemm.tile --gemm-bf16 "$OUT/gemm_bf16.tile" --attention "$A"
echo "== tuning records"
cat "$TILE_CACHE_DIR"/tuning/*
rm -rf "$TILE_CACHE_DIR" "$OUT"/c.txt "$OUT"/h.txt
date -u
