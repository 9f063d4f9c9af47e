#!/usr/bin/env bash
# run_persistent_ab.sh - issue 16: persistent FlashAttention
# (pass.persistent = true, off by default until this is measured) on the
# GPU in one command. First --check on the device with at most 2 resident
# blocks (TILE_CUDA_RESIDENT_BLOCKS), so that each block loops over several
# tiles: the persistent example (ex_ps1) and the persistent causal entry
# (ex_pu1), then memcheck and racecheck of the same; then the example as it
# is (a block per tile), ex_ps1, ex_db0 (one Q buffer) and ex_pu1 timed
# beside SDPA in one run (bench_attention.py, BM=128 BN=128), at B8 H16
# S2048 and B4 H16 S8192. From the repository root on the GPU machine with
# a static tile-jit at $TILE_JIT (default .bundle/tile-jit). Log in $OUT.
source "$(dirname "$0")/prologue.sh" persistent-ab.log
T='cuda -arch=sm_90a'; A=bench/gpu/attention
echo "== device checks, TILE_CUDA_RESIDENT_BLOCKS=2"
for e in flash_attention flash_attention_causal; do
  p="--param BM=128"; [ $e = flash_attention ] && p="$p --param BN=128"
  for f in $A/ex_ps1.tile $A/ex_pu1.tile; do
    s=(-entry=$e "-target=$T" $p --dim B=1 --dim H=3 --dim S=300 --random --check)
    echo "$f $e: $(TILE_CUDA_RESIDENT_BLOCKS=2 timeout 60 "$JIT" $f "${s[@]}" 2>&1 | tail -1)"
    for tool in memcheck racecheck; do
      echo "  $tool: $(TILE_CUDA_RESIDENT_BLOCKS=2 timeout 120 compute-sanitizer --tool $tool "$JIT" $f "${s[@]}" 2>&1 | grep -E "^check|ERROR SUMMARY|RACECHECK SUMMARY|rror" | tr '\n' ' ')"
    done
  done
done
echo "== timing beside SDPA (same run)"
X=""
for f in examples/flash_attention.tile $A/ex_ps1.tile $A/ex_db0.tile $A/ex_pu1.tile; do
  X="$X --extra $f:BM=128,BN=128"
done
for f in examples/flash_attention.tile $A/ex_ps1.tile; do
  X="$X --extra $f:BM=128,BN=128,S=8192,B=4"
done
timeout ${TIME_LIMIT:-420} python3 bench/gpu/bench_attention.py --jit "$JIT" --target "$T" --reps 10 --only none --check-shape 4,16,1100 $X
date -u
