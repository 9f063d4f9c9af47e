#!/usr/bin/env bash
# ab_compile_time.sh - interleaved A/B of two builds' compile time:
# ROUNDS rounds of (old, new), each one process of TOOL (tile-jit or
# tile-llc) with --print-compile-time and ARGS; prints each build's median
# of every phase (total, llvm-opt, llvm-codegen, ...) and of the process's
# user CPU time (less sensitive than wall time to other work on the
# machine), and the load average before and after.
#
#   bench/ab_compile_time.sh OLD_BUILD NEW_BUILD ROUNDS TOOL ARGS...
#
# e.g. bench/ab_compile_time.sh /work/main/build build 9 tile-jit \
#        bench/cpu/gemm_f32.tile --no-cache --dim M=256 --dim N=256 --dim K=256 --random
#      TILE_PTXAS=none bench/ab_compile_time.sh /work/main/build build 9 tile-llc \
#        examples/gemm.tile -target='cuda -arch=sm_90a' -o /dev/null
# From the repository root.
set -uo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
OLD=$1 NEW=$2 ROUNDS=$3 TOOL=$4
shift 4
D=$(mktemp -d)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$ROUNDS"); do
  for side in old new; do
    [ $side = old ] && B=$OLD || B=$NEW
    # bash's time: user seconds of the process, on its own line at the end.
    { TIMEFORMAT='user %3U'; time "$B/bin/$TOOL" "$@" --print-compile-time > "$D/out" 2>&1; } 2>> "$D/out"
    awk '/^ +[a-z+ -]+: +[0-9.]+ ms$/ {n=$0; sub(/^ +/,"",n); sub(/:.*/,"",n); gsub(/ /,"-",n); print n, $(NF-1)}
         /^user / {print "user-cpu", $2 * 1000}' "$D/out" >> "$D/$side"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-16s %10s %10s %8s   (medians of %s rounds, ms)\n" phase old new new/old "$ROUNDS"
for phase in $(awk '{print $1}' "$D/old" | awk '!s[$0]++'); do
  o=$(awk -v p="$phase" '$1 == p {print $2}' "$D/old" | median)
  n=$(awk -v p="$phase" '$1 == p {print $2}' "$D/new" | median)
  printf "%-16s %10s %10s %8s\n" "$phase" "$o" "$n" \
    "$(awk -v o="$o" -v n="$n" 'BEGIN {if (o > 0) printf "%.3f", n / o}')"
done
rm -rf "$D"
