#!/usr/bin/env bash
# run_attention_h200.sh - issue 16 on the H200 in one command: FlashAttention
# kernels as users write them (examples/flash_attention.tile in fp16 and
# bf16, grouped-query attention at head dim 64, head dim 256), each checked
# against torch, autotuned (records in $OUT/tile-cache), then timed beside
# SDPA in the same run (bench_attention.py); compute-sanitizer memcheck and
# racecheck on the example at its default and at the tuned config
# (BM=128 BN=128; SANITIZE_ONLY=1 stops after them). From the
# repository root on the GPU machine with a static tile-jit at $TILE_JIT
# (default .bundle/tile-jit). Logs in $OUT (default /tmp/tile-out).
source "$(dirname "$0")/prologue.sh" h200-attention.log
T='cuda -arch=sm_90a'
export TILE_BENCH_TIMEOUT=${TILE_BENCH_TIMEOUT:-120}
export TILE_CACHE_DIR=$OUT/tile-cache
rm -rf "$TILE_CACHE_DIR"
echo "== compute-sanitizer on examples/flash_attention.tile (S=130)"
for p in "" "--param BM=128"; do
  for e in flash_attention flash_attention_causal; do
    q=$p; [ -n "$p" ] && [ $e = flash_attention ] && q="$p --param BN=128"
    for tool in memcheck racecheck; do
      echo "$e $q $tool: $(timeout 120 compute-sanitizer --tool $tool "$JIT" examples/flash_attention.tile -entry=$e -target="$T" $q --dim B=1 --dim H=1 --dim S=130 --random --check 2>&1 | grep -E "^check|ERROR SUMMARY|RACECHECK SUMMARY|error" | tr '\n' ' ')"
    done
  done
done
echo "== compute-sanitizer on the tuned grouped-query d64 and d256 kernels (S=130)"
for spec in "bench/gpu/attention/gqa_d64_bf16.tile:--param BM=128 --param STAGES=3 --dim HKV=1:--param BN=128" \
            "bench/gpu/attention/fa_d256.tile:--param BM=128 --param BN=64 --dim HKV=1:"; do
  IFS=: read -r f p pn <<< "$spec"
  for e in flash_attention flash_attention_causal; do
    q=$p; [ $e = flash_attention ] && q="$p $pn"
    for tool in memcheck racecheck; do
      echo "$f $e $q $tool: $(timeout 120 compute-sanitizer --tool $tool "$JIT" $f -entry=$e -target="$T" $q --dim B=1 --dim H=2 --dim S=130 --random --check 2>&1 | grep -E "^check|ERROR SUMMARY|RACECHECK SUMMARY|error" | tr '\n' ' ')"
    done
  done
done
if [ -n "${SANITIZE_ONLY:-}" ]; then date -u; exit 0; fi
echo "== checked against torch, autotuned, beside SDPA (same run)"
timeout ${ATTN_TIMEOUT:-420} python3 bench/gpu/bench_attention.py --jit "$JIT" --target "$T" --autotune ${ATTN_ARGS:-}
echo "== tuning records"
cat "$TILE_CACHE_DIR"/tuning/* 2>/dev/null
rm -rf "$TILE_CACHE_DIR"
date -u
