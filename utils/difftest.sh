#!/usr/bin/env bash
# difftest.sh - differential testing: generated valid kernels on the CPU
# target and in the CUDA emulator (sm_80, sm_90a) against the f64 reference
# interpreter (tools/tile-fuzz/DiffTest.cpp, docs/Fuzzing.md).
#
#   utils/difftest.sh [COUNT] [FIRST_SEED]     (defaults: 2000 programs from seed 1)
#
# Runs under nice in chunks of 250 programs, JOBS chunks at a time (default
# 1); each chunk's summary goes to $OUT (default build/difftest), with the
# programs of that chunk, and summary-all.txt adds them up. TILE_DIFFTEST
# names another tile-difftest (a TILE_BUNDLE build carried to a machine
# with more cores). The exit status is 1 when any chunk found a mismatch.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${TILE_BUILD_DIR:-$ROOT/build}
BIN=${TILE_DIFFTEST:-$BUILD/bin/tile-difftest}
COUNT=${1:-2000}
SEED=${2:-1}
OUT=${OUT:-$BUILD/difftest}
JOBS=${JOBS:-1}
CHUNK=250
mkdir -p "$OUT"
chunk() {
  local S=$1 N=$2
  mkdir -p "$OUT/seeds-$S"
  nice -n 19 "$BIN" -seed="$S" -count="$N" -dir="$OUT/seeds-$S" \
    > "$OUT/summary-$S.txt" 2>&1
}
STATUS=0
PIDS=()
for ((S = SEED; S < SEED + COUNT; S += CHUNK)); do
  N=$(( SEED + COUNT - S < CHUNK ? SEED + COUNT - S : CHUNK ))
  chunk "$S" "$N" &
  PIDS+=($!)
  if (( ${#PIDS[@]} >= JOBS )); then
    wait "${PIDS[0]}" || STATUS=1
    PIDS=("${PIDS[@]:1}")
  fi
done
for P in "${PIDS[@]}"; do wait "$P" || STATUS=1; done
# The chunks' tallies added up, per configuration.
for ((S = SEED; S < SEED + COUNT; S += CHUNK)); do
  cat "$OUT/summary-$S.txt"
done | awk '
  /^  [a-z0-9-]+: [0-9]+ match, [0-9]+ mismatch, [0-9]+ rejected$/ {
    c = $1; m[c] += $2; x[c] += $4; r[c] += $6; seen[c] = 1 }
  END { for (c in seen) printf "  %s %d match, %d mismatch, %d rejected\n", c, m[c], x[c], r[c] }' \
  | sort > "$OUT/summary-all.txt"
echo "difftest: $COUNT programs from seed $SEED in $OUT"
cat "$OUT/summary-all.txt"
exit $STATUS
