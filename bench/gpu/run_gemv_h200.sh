#!/usr/bin/env bash
# run_gemv_h200.sh - GEMV (issue 13) on the H200 in one command: the
# example and its variants (bf16, A transposed) checked against the f64
# reference interpreter on the device at sizes that are not multiples of
# the tiles, on both NVIDIA pipelines; bandwidth beside torch.mv and the
# device copy (bench_gemv.py); ncu's DRAM throughput, registers and
# occupancy for the example (16384^2 and 8192 x 28672) and the transposed
# one. From the repository root on the GPU machine with a static tile-jit
# at $TILE_JIT (default .bundle/tile-jit). Log in $OUT/h200-gemv.log (default /tmp/tile-out).
source "$(dirname "$0")/prologue.sh" h200-gemv.log
echo "== --check on the device"
for T in 'cuda -arch=sm_90a' 'cuda -arch=sm_80'; do
  for f in examples/gemv.tile test/Target/CUDA/Inputs/gemv-bf16.tile test/Target/CUDA/Inputs/gemv-transposed.tile bench/gpu/gemv_rows32.tile; do
    echo "-- $T $f"
    timeout 60 "$JIT" $f -target="$T" --dim M=1000 --dim K=3000 --random --seed 3 --check 2>&1 | grep -E "^check|error"
  done
done
echo "== bandwidth beside torch.mv and the device copy (same run)"
timeout 240 python3 bench/gpu/bench_gemv.py --jit "$JIT"
run_ncu() {
  timeout 120 ncu --clock-control none --launch-skip 1 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    "$JIT" "$@" -target='cuda -arch=sm_90a' --random --bench 2 2>&1 | grep -E "gpu__|dram__|launch__|sm__|error" | head -20
}
echo "== ncu: examples/gemv.tile f16 16384^2"
run_ncu examples/gemv.tile --dim M=16384 --dim K=16384
echo "== ncu: examples/gemv.tile f16 M=8192 K=28672"
run_ncu examples/gemv.tile --dim M=8192 --dim K=28672
echo "== ncu: gemv-transposed.tile f16 16384^2"
run_ncu test/Target/CUDA/Inputs/gemv-transposed.tile --dim M=16384 --dim K=16384
