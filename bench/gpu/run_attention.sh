#!/usr/bin/env bash
# run_attention.sh - FlashAttention on wgmma (hopper-wgmma-fragments) on the
# H200: the gated FlashAttention tests, every tile-shape variant in
# bench/gpu/attention checked against the f64 reference interpreter
# (tile-jit --check) and against torch SDPA (relative Frobenius error),
# compute-sanitizer memcheck and racecheck, the SASS of the cubins built
# here (HGMMA present), and the timings beside SDPA in the same run.
#
# From the repository root on the GPU machine, with a static tile-jit at
# $TILE_JIT (default .bundle/tile-jit) and optionally cubins in
# $CUBINS (default .bundle/*.cubin) to disassemble. Log: $OUT/attention.log.
# QUICK=1 checks one size per variant and runs memcheck on the example only.
source "$(dirname "$0")/prologue.sh" attention.log
T='cuda -arch=sm_90a'
if [ -n "${QUICK:-}" ]; then
  SIZES="257"; SHAPES="1,2,2048"; TOOLS="memcheck"
else
  SIZES="1 257"; SHAPES="2,3,300;1,2,2048"; TOOLS="memcheck racecheck"
fi
V=(examples/flash_attention.tile bench/gpu/attention/fa_*.tile)
echo "== gated FlashAttention tests (both pipelines)"
python3 bench/gpu/run_gated_tests.py --jit "$JIT" test/Examples/cuda-flash-attention.test
echo "== --check against the f64 interpreter (B=1 H=2), every variant"
for f in "${V[@]}"; do
  for e in flash_attention flash_attention_causal; do
    for S in $SIZES; do
      r=$(timeout 60 "$JIT" "$f" -entry=$e --dim B=1 --dim H=2 --dim S=$S -target="$T" --random --seed $S --check 2>&1 | grep -E "^check|error" | head -2)
      echo "$f $e S=$S: $r"
    done
  done
done
echo "== the cp.async producer path (data not 16-byte aligned: --data-offset=2)"
for f in examples/flash_attention.tile bench/gpu/attention/fa_128x64s2_e2.tile; do
  for e in flash_attention flash_attention_causal; do
    r=$(timeout 60 "$JIT" "$f" -entry=$e --dim B=1 --dim H=2 --dim S=257 -target="$T" --random --seed 3 --data-offset=2 --check 2>&1 | grep -E "^check|error" | head -2)
    echo "$f $e S=257 offset 2: $r"
  done
done
echo "== against torch SDPA"
PYTHONUNBUFFERED=1 python3 bench/gpu/attention_vs_sdpa.py --jit "$JIT" --shapes "$SHAPES" "${V[@]}"
echo "== compute-sanitizer"
for tool in $TOOLS; do
  for e in flash_attention flash_attention_causal; do
    F=(examples/flash_attention.tile)
    F+=(bench/gpu/attention/fa_128x64s2_e2.tile)
    for f in "${F[@]}"; do
      echo "-- $tool $f $e"
      compute-sanitizer --tool $tool --print-limit 5 "$JIT" "$f" -entry=$e -target="$T" --dim B=1 --dim H=1 --dim S=130 --random --check 2>&1 | grep -E "^check|SUMMARY|Invalid|Race reported|Error:|=========     at" | head -6
    done
  done
done
echo "== SASS of the cubins built off the GPU machine"
for c in "${CUBINS:-.bundle}"/*.cubin; do
  [ -e "$c" ] || continue
  echo "-- $c: $(cuobjdump -sass "$c" | grep -c HGMMA) HGMMA, $(cuobjdump -sass "$c" | grep -cE '\b(LDL|STL)\b') LDL/STL, $(cuobjdump -sass "$c" | grep -c 'MUFU.EX2') MUFU.EX2"
done
echo "== timings beside SDPA (B=8 H=16 S=2048 D=128)"
IFS=,; FILES="${V[*]}"; unset IFS
PYTHONUNBUFFERED=1 python3 bench/gpu/bench_h200.py --jit "$JIT" --target "$T" --only-attention --attention "$FILES"
