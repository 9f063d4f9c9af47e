#!/usr/bin/env bash
# run_compile_latency.sh - compile latency on the CPU, from .tile text to a
# loaded kernel (tile-jit --print-compile-time), median of 5 processes:
# cold (an empty kernel cache each time) and a kernel cache hit, for the
# f32 GEMM of the CPU benchmark and examples/gemm.tile. The peer is the
# same tool with --no-cache. From the repository root; $TILE_JIT (default
# build/bin/tile-jit). Prints one table.
#
# With $TILE_JIT_PEER (another build's tile-jit, e.g.
# /work/main/build/bin/tile-jit), every process of $TILE_JIT is followed by
# the same process of the peer, and the table has a row for each: on a
# machine whose speed changes between minutes the two are compared over
# the same minutes. The load average before and after is printed.
#
# $TILE_TARGET (default: tile-jit's, cpu) is the target of $TILE_JIT's
# processes, $TILE_PEER_TARGET (default $TILE_TARGET) the peer's: with the
# same tool as its own peer, e.g. TILE_JIT_PEER=build/bin/tile-jit
# TILE_PEER_TARGET='cpu -llvm_codegen=nolsr', two targets are compared.
set -uo pipefail
JIT=${TILE_JIT:-build/bin/tile-jit}
PEER=${TILE_JIT_PEER:-}
TARGET=${TILE_TARGET:-}
PEER_TARGET=${TILE_PEER_TARGET:-$TARGET}
N=${RUNS:-5}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# .tile text to loaded kernel: the total less what is left of the
# execution backend's start (it overlaps the compile).
total() { awk '/^  total:/ {t=$2} /executor wait:/ {w=$3} END {printf "%.3f\n", t - w}'; }
stage() { awk -v s="$1" '$0 ~ "^ +" s ":" {print $(NF-1)}'; }
TOOLS=("$JIT")
TARGETS=("${TARGET:+-target=$TARGET}")
[ -n "$PEER" ] && TOOLS+=("$PEER") && TARGETS+=("${PEER_TARGET:+-target=$PEER_TARGET}")
NAMEW=34
[ -n "$PEER" ] && NAMEW=38 && echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$TARGET$PEER_TARGET" ] && echo "targets: this ${TARGET:-(default)}, peer ${PEER_TARGET:-(default)}"
printf "%-${NAMEW}s %12s %12s %12s %12s\n" kernel "cold ms" "no-cache ms" "hit ms" "hit cache ms"
for spec in "bench/cpu/gemm_f32.tile:--dim M=512 --dim N=512 --dim K=512" \
            "examples/gemm.tile:--dim M=512 --dim N=512 --dim K=512" \
            "examples/elementwise_add.tile:--dim N=1000000"; do
  f=${spec%%:*}; args=${spec#*:}
  # Per tool T (0: $TILE_JIT, 1: the peer): its cache directory and the
  # figures of its processes, one per line, in $W/<kind>.T.
  W=$(mktemp -d)
  for t in "${!TOOLS[@]}"; do mkdir -p "$W/cache.$t"; done
  for i in $(seq $N); do
    for t in "${!TOOLS[@]}"; do
      D=$W/cache.$t
      rm -rf "$D"/*
      TILE_CACHE_DIR=$D "${TOOLS[$t]}" "$f" $args ${TARGETS[$t]:+"${TARGETS[$t]}"} --random --print-compile-time | total >> "$W/cold.$t"
      "${TOOLS[$t]}" "$f" $args ${TARGETS[$t]:+"${TARGETS[$t]}"} --random --print-compile-time --no-cache | total >> "$W/nocache.$t"
    done
  done
  for i in $(seq $N); do
    for t in "${!TOOLS[@]}"; do
      o=$(TILE_CACHE_DIR=$W/cache.$t "${TOOLS[$t]}" "$f" $args ${TARGETS[$t]:+"${TARGETS[$t]}"} --random --print-compile-time)
      echo "$o" | total >> "$W/hit.$t"
      echo "$o" | stage "kernel cache" >> "$W/lookup.$t"
    done
  done
  for t in "${!TOOLS[@]}"; do
    name=$f
    [ -n "$PEER" ] && name="$f ($([ "$t" = 0 ] && echo this || echo peer))"
    printf "%-${NAMEW}s %12s %12s %12s %12s\n" "$name" \
      "$(median < "$W/cold.$t")" "$(median < "$W/nocache.$t")" \
      "$(median < "$W/hit.$t")" "$(median < "$W/lookup.$t")"
  done
  rm -rf "$W"
done
[ -n "$PEER" ] && echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
