#!/usr/bin/env bash
# run_gemm_perf_variants.sh - second H200 run after the load/epilogue
# rework: SASS of the bench tile's cubin (compiled here by tile-llc
# -emit=obj, carried in $CUBINS), ncu stall reasons of one 4096^3 launch,
# the 128x256x64 variants (B [K, N] and B [N, K]) checked and timed with
# cuBLAS in the same run, and the bench tile timed again (run-to-run spread).
# Same layout as run_gemm_perf.sh (TILE_JIT, ROOT, OUT).
set -uo pipefail
JIT=${TILE_JIT:-./tile-jit}
ROOT=${ROOT:-.}
CUBINS=${CUBINS:-.}
OUT=${OUT:-/tmp/tile-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gemm_perf_variants.log") 2>&1
T='cuda -arch=sm_90a'
HF=$ROOT/bench/gpu/gemm_hopper_f16.tile
V=$ROOT/bench/gpu/hopper-variants
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
for c in "$CUBINS"/*.cubin; do
  cuobjdump -sass "$c" > "$OUT/$(basename "$c" .cubin).sass"
  echo "-- $c: HGMMA $(grep -c HGMMA "$OUT/$(basename "$c" .cubin).sass"), LDGSTS $(grep -c LDGSTS "$OUT/$(basename "$c" .cubin).sass"), LDL/STL $(grep -cE '\b(LDL|STL)\b' "$OUT/$(basename "$c" .cubin).sass")"
done
chk() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --seed 5 --check 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"; }
echo "== correctness"
for f in $V/v_256x64s4_f16.tile $V/v_256x64s4_tb_f16.tile; do
  chk $f --dim M=515 --dim N=300 --dim K=260
  chk $f --dim M=1000 --dim N=1000 --dim K=1000
done
echo "== speed (cuBLAS in the same run)"
python3 $ROOT/bench/gpu/bench_h200.py --jit "$JIT" --only-gemm --gemm-f16 $HF --gemm-bf16 $V/v_256x64s4_bf16.tile --sizes 4096,8192
b() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --bench 10 2>&1 | tail -1; }
for n in 4096 8192; do for f in $V/v_256x64s4_f16.tile $V/v_256x64s4_tb_f16.tile; do b $f --dim M=$n --dim N=$n --dim K=$n; done; done
echo "== ncu stall reasons, one 4096^3 launch of $HF"
timeout 60 ncu --clock-control none --metrics 'regex:smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__cycles_active.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum' -k regex:gemm -c 1 "$JIT" $HF -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --bench 1 2>&1 | grep -vE "^==PROF==|^\s*$" | awk '$NF != "0" && $NF !~ /^0\.0/' | tail -45
echo "== end"; date -u
