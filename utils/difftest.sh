#!/usr/bin/env bash
# difftest.sh - differential testing: generated valid kernels on the CPU
# target and in the CUDA emulator (sm_80, sm_90a) against the f64 reference
# interpreter (tools/tile-fuzz/DiffTest.cpp, docs/Fuzzing.md).
#
#   utils/difftest.sh [COUNT] [FIRST_SEED]     (defaults: 2000 programs from seed 1)
#
# Runs under nice in chunks of 250 programs; each chunk's summary goes to
# $OUT (default build/difftest), with the programs of that chunk. The exit
# status is 1 when any chunk found a mismatch.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${TILE_BUILD_DIR:-$ROOT/build}
COUNT=${1:-2000}
SEED=${2:-1}
OUT=${OUT:-$BUILD/difftest}
CHUNK=250
mkdir -p "$OUT"
STATUS=0
for ((S = SEED; S < SEED + COUNT; S += CHUNK)); do
  N=$(( SEED + COUNT - S < CHUNK ? SEED + COUNT - S : CHUNK ))
  DIR="$OUT/seeds-$S"
  mkdir -p "$DIR"
  nice -n 19 "$BUILD/bin/tile-difftest" -seed="$S" -count="$N" -dir="$DIR" \
    > "$OUT/summary-$S.txt" 2>&1 || STATUS=1
  tail -n 20 "$OUT/summary-$S.txt"
done
exit $STATUS
