#!/usr/bin/env bash
# run_compile_latency_h200.sh - issue 14 on the H200, one command:
#  1. cold compile of examples/gemm.tile for sm_90a to a loaded kernel:
#     median of 5 fresh processes, each with an empty kernel cache, by stage;
#  2. the kernel cache's hit, .tile text to loaded kernel (median of 5);
#  3. tile-jit --autotune of examples/gemm.tile at 4096^3 and 8192^3 in fp16
#     and bf16 and of examples/flash_attention.tile (B8 H16 S2048), the
#     tables in the log; then bench_h200.py, whose tile-jit runs use the
#     recorded configs, beside cuBLAS / SDPA and the best bench/gpu/attention
#     variant in the same run.
# From the repository root on the GPU machine, with a static tile-jit at
# $TILE_JIT (default .bundle/tile-jit; cmake -DTILE_BUNDLE=ON, ninja
# tile-jit, then carry build/bin/tile-jit as .bundle/tile-jit). Logs in
# $OUT (default /tmp/tile-out).
set -uo pipefail
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/h200-compile-latency.log") 2>&1
T='cuda -arch=sm_90a'
export TILE_BENCH_TIMEOUT=${TILE_BENCH_TIMEOUT:-300}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; nproc
"$JIT" --version 2>/dev/null | head -3

echo "== 1. cold compile, examples/gemm.tile sm_90a (5 processes, empty cache each)"
: > "$OUT/cold.txt"
for i in 1 2 3 4 5; do
  D=$(mktemp -d)
  TILE_CACHE_DIR=$D "$JIT" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --print-compile-time > "$OUT/cold-$i.txt" 2>&1
  cat "$OUT/cold-$i.txt" | grep -E "kernel cache|:.* ms"
  grep -E "^  total:" "$OUT/cold-$i.txt" | awk '{print $2}' >> "$OUT/cold.txt"
  rm -rf "$D"
done
echo "cold median total (ms): $(median < "$OUT/cold.txt")"
echo "== 1b. the same without the cache (--no-cache), for the cache's own cost"
for i in 1 2 3; do
  "$JIT" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --print-compile-time --no-cache | grep -E "^  total:"
done

echo "== 2. cache hit (5 processes on a warm cache)"
D=$(mktemp -d)
TILE_CACHE_DIR=$D "$JIT" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random > /dev/null 2>&1
: > "$OUT/hit.txt"
for i in 1 2 3 4 5; do
  TILE_CACHE_DIR=$D "$JIT" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --print-compile-time > "$OUT/hit-$i.txt" 2>&1
  grep -E "kernel cache|:.* ms" "$OUT/hit-$i.txt"
  # From .tile text to a loaded kernel: the total less the executor's start.
  awk '/^  total:/ {t=$2} /executor wait:/ {w=$3} END {print t - w}' "$OUT/hit-$i.txt" >> "$OUT/hit.txt"
done
echo "hit median, .tile text to loaded kernel without the driver's start (ms): $(median < "$OUT/hit.txt")"
rm -rf "$D"

echo "== 3. autotune (records in a fresh cache directory used by the benchmarks below)"
export TILE_CACHE_DIR=$OUT/tile-cache
rm -rf "$TILE_CACHE_DIR"
sed 's/ f16\[/ bf16[/g; s/^\/\/ GEMM: .*/\/\/ examples\/gemm.tile in bf16 (run_compile_latency_h200.sh)./' examples/gemm.tile > "$OUT/gemm_bf16.tile"
for n in 4096 8192; do
  for f in examples/gemm.tile "$OUT/gemm_bf16.tile"; do
    echo "-- $f ${n}^3"
    timeout 900 "$JIT" "$f" -target="$T" --dim M=$n --dim N=$n --dim K=$n --random --seed 7 --autotune --bench 10
  done
done
for e in flash_attention flash_attention_causal; do
  echo "-- examples/flash_attention.tile -entry=$e B8 H16 S2048"
  timeout 900 "$JIT" examples/flash_attention.tile -entry=$e -target="$T" --dim B=8 --dim H=16 --dim S=2048 --random --seed 7 --autotune --bench 10
done
echo "-- every config's winner checked against the f64 interpreter at a small shape (its own bucket)"
timeout 600 "$JIT" examples/gemm.tile -target="$T" --dim M=520 --dim N=264 --dim K=200 --random --seed 3 --autotune --check | grep -E "best|check"
echo "-- a later run uses the recorded config without tuning"
"$JIT" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --print-compile-time | grep -E "tuned config|kernel cache|total"
echo "== benchmarks with the recorded configs, beside cuBLAS / SDPA (same run)"
A=examples/flash_attention.tile,bench/gpu/attention/fa_128x64s2_e2_fs.tile
timeout 900 python3 bench/gpu/bench_h200.py --jit "$JIT" --target "$T" --sizes 4096,8192 \
  --gemm-f16 examples/gemm.tile --gemm-bf16 "$OUT/gemm_bf16.tile" --attention "$A"
echo "== tuning records"
cat "$TILE_CACHE_DIR"/tuning/*.txt
