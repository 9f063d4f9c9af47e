#!/usr/bin/env bash
# run_compile_latency.sh - compile latency on the CPU, from .tile text to a
# loaded kernel (tile-jit --print-compile-time), median of 5 processes:
# cold (an empty kernel cache each time) and a kernel cache hit, for the
# f32 GEMM of the CPU benchmark and examples/gemm.tile. The peer is the
# same tool with --no-cache. From the repository root; $TILE_JIT (default
# build/bin/tile-jit). Prints one table.
set -uo pipefail
JIT=${TILE_JIT:-build/bin/tile-jit}
N=${RUNS:-5}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# .tile text to loaded kernel: the total less what is left of the
# execution backend's start (it overlaps the compile).
total() { awk '/^  total:/ {t=$2} /executor wait:/ {w=$3} END {printf "%.3f\n", t - w}'; }
stage() { awk -v s="$1" '$0 ~ "^ +" s ":" {print $(NF-1)}'; }
printf "%-34s %12s %12s %12s %12s\n" kernel "cold ms" "no-cache ms" "hit ms" "hit cache ms"
for spec in "bench/cpu/gemm_f32.tile:--dim M=512 --dim N=512 --dim K=512" \
            "examples/gemm.tile:--dim M=512 --dim N=512 --dim K=512" \
            "examples/elementwise_add.tile:--dim N=1000000"; do
  f=${spec%%:*}; args=${spec#*:}
  D=$(mktemp -d)
  cold=(); nocache=(); hit=(); lookup=()
  for i in $(seq $N); do
    rm -rf "$D"/*
    cold+=("$(TILE_CACHE_DIR=$D "$JIT" "$f" $args --random --print-compile-time | total)")
    nocache+=("$("$JIT" "$f" $args --random --print-compile-time --no-cache | total)")
  done
  for i in $(seq $N); do
    o=$(TILE_CACHE_DIR=$D "$JIT" "$f" $args --random --print-compile-time)
    hit+=("$(echo "$o" | total)")
    lookup+=("$(echo "$o" | stage "kernel cache")")
  done
  printf "%-34s %12s %12s %12s %12s\n" "$f" \
    "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${nocache[@]}" | median)" \
    "$(printf '%s\n' "${hit[@]}" | median)" "$(printf '%s\n' "${lookup[@]}" | median)"
  rm -rf "$D"
done
