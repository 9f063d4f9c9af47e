#!/usr/bin/env bash
# ncu_attention.sh - one Nsight Compute profile of a FlashAttention kernel
# (B=8 H=16 S=2048 D=128) on the GPU machine: speed of light, occupancy,
# scheduler and warp-state statistics (why warps stall), instruction mix,
# and the SASS locations with the most stall samples. Clocks are left as
# they are (--clock-control none).
#
# Usage, from the repository root: bash bench/gpu/ncu_attention.sh FILE [ENTRY]
# with a static tile-jit at $TILE_JIT (default .bundle/tile-jit) and the
# tunables in $TILE_PARAMS (e.g. "--param BM=128 --param BN=128"); the report
# goes to $OUT/ncu-<file>-<entry>.txt.
set -uo pipefail
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
F=$1
E=${2:-flash_attention}
mkdir -p "$OUT"
P=${TILE_PARAMS:-}
R="$OUT/ncu-$(basename "$F" .tile)-$E$(echo "$P" | tr -d ' -' | tr '=' '_').txt"
# tile-jit --bench 1: two warm-up launches, then the one profiled.
timeout 240 ncu --clock-control none --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section SchedulerStats --section WarpStateStats --section InstructionStats \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section SourceCounters \
  "$JIT" "$F" -entry="$E" --dim B=8 --dim H=16 --dim S=2048 -target='cuda -arch=sm_90a' \
  $P --random --bench 1 > "$R" 2>&1
echo "ncu rc=$? -> $R"
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Stall|Executed Instructions  " "$R" | head -40
