#!/usr/bin/env bash
# run_gemm_perf.sh - the Hopper GEMM after the load/epilogue rework
# (full-tile cp.async without bounds arithmetic, paired epilogue stores):
# correctness against the f64 reference (aligned rows at 1000^3, unaligned
# rows at 515x300x260: the clamped path), compute-sanitizer on the bench
# tile, speed with cuBLAS in the same run, a K-major-B variant, and one
# ncu profile of the 4096^3 launch.
# Runs on the GPU machine from a folder holding tile-jit (TILE_JIT), the
# repository's examples/ and bench/gpu files copied beside it (ROOT).
set -uo pipefail
JIT=${TILE_JIT:-./tile-jit}
ROOT=${ROOT:-.}
OUT=${OUT:-/tmp/tile-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gemm_perf.log") 2>&1
T='cuda -arch=sm_90a'
G=$ROOT/examples/gemm.tile
HF=$ROOT/bench/gpu/gemm_hopper_f16.tile
HB=$ROOT/bench/gpu/gemm_hopper_bf16.tile
TB=$ROOT/bench/gpu/hopper-variants/v_128x128x64_tb_f16.tile
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
chk() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --seed 5 --check 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"; }
echo "== correctness"
for f in $HF $HB $G $TB; do
  chk $f --dim M=515 --dim N=300 --dim K=260
  chk $f --dim M=1000 --dim N=1000 --dim K=1000
done
chk $HF --dim M=256 --dim N=512 --dim K=64
echo "== speed (bench_h200.py --only-gemm, cuBLAS in the same run)"
python3 $ROOT/bench/gpu/bench_h200.py --jit "$JIT" --only-gemm --gemm-f16 $HF --gemm-bf16 $HB --sizes 4096,8192
b() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --bench 10 2>&1 | tail -1; }
for n in 4096 8192; do for f in $G $TB; do b $f --dim M=$n --dim N=$n --dim K=$n; done; done
echo "== ncu, one 4096^3 launch of $HF"
timeout 60 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SpeedOfLight -k regex:gemm -c 1 "$JIT" $HF -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --bench 1 2>&1 | grep -vE "^==PROF==|^\s*$" | tail -70
echo "== compute-sanitizer"
for tool in memcheck racecheck; do
  echo "-- $tool $HF"; timeout 60 compute-sanitizer --tool $tool --print-limit 5 "$JIT" $HF -target="$T" --dim M=200 --dim N=300 --dim K=136 --random --check 2>&1 | tail -2
done
echo "== end"; date -u
