#!/usr/bin/env bash
# ncu_attention_sass.sh - where a FlashAttention kernel's stall samples fall
# (B=8 H=16 S=2048 D128 unless $DIMS says otherwise): one Nsight Compute
# profile with the SourceCounters section, its SASS source page exported as
# CSV, and bench/gpu/sass_regions.py's split of the samples into prologue,
# key loop and epilogue.
# Usage, from the repository root: bash bench/gpu/ncu_attention_sass.sh FILE [ENTRY]
# with a static tile-jit at $TILE_JIT (default .bundle/tile-jit) and the
# tunables in $TILE_PARAMS; output in $OUT (default /tmp/tile-out).
set -uo pipefail
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
F=$1
E=${2:-flash_attention}
P=${TILE_PARAMS:-}
DIMS=${DIMS:-"--dim B=8 --dim H=16 --dim S=2048"}
mkdir -p "$OUT"
N="$OUT/sass-$(basename "$F" .tile)-$E$(echo "$P" | tr -d ' -' | tr '=' '_')"
timeout 240 ncu --clock-control none --launch-skip 2 --launch-count 1 \
  --section SourceCounters --section WarpStateStats -f -o "$N" \
  "$JIT" "$F" -entry="$E" $DIMS -target='cuda -arch=sm_90a' $P --random --no-cache --bench 1 > "$N.log" 2>&1
echo "ncu rc=$?"
ncu -i "$N.ncu-rep" --page source --csv --print-source sass > "$N.csv" 2>&1
echo "export rc=$? ($(wc -l < "$N.csv") lines)"
python3 "$(dirname "$0")/sass_regions.py" "$N.csv" | tee "$N.txt"
rm -f "$N.ncu-rep"
