#!/usr/bin/env bash
# compare_codegen.sh - the generated code of every benchmarked kernel under
# two builds, diffed: x86 assembly (`tile-llc -target=cpu -emit=asm`) of
# examples/*.tile and bench/cpu/*.tile, and PTX (`tile-llc -target='cuda
# -arch=sm_90a'`, TILE_PTXAS=none) of examples/*.tile, bench/gpu/*.tile and
# bench/gpu/attention/*.tile. Where two PTX files differ and ptxas is here,
# it also compares ptxas -v's registers, spill stores and spill loads of
# each kernel. For a change to the LLVM pipeline or to what the emitters hand
# it: identical code needs no benchmark, differing code does.
#
#   bench/compare_codegen.sh OLD_BUILD NEW_BUILD [OUT]
#
# OLD_BUILD and NEW_BUILD are build directories (their bin/tile-llc). OUT
# (default: a new temporary directory) receives old/ and new/ with the
# code of each kernel, and the diffs. CPU_TARGET (default `cpu`) and
# GPU_TARGET (default `cuda -arch=sm_90a`) name the targets; OLD_CPU_TARGET,
# NEW_CPU_TARGET, OLD_GPU_TARGET and NEW_GPU_TARGET override them for one
# side (e.g. NEW_GPU_TARGET='cuda -arch=sm_90a -llvm_opt=kernel'). From the
# repository root. Exit status: 0 when every file is identical, 1 when
# some differ, 2 when a compile fails.
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
OLD=$1
NEW=$2
OUT=${3:-$(mktemp -d)}
CPU_TARGET=${CPU_TARGET:-cpu}
GPU_TARGET=${GPU_TARGET:-cuda -arch=sm_90a}
OLD_CPU=${OLD_CPU_TARGET:-$CPU_TARGET}
NEW_CPU=${NEW_CPU_TARGET:-$CPU_TARGET}
OLD_GPU=${OLD_GPU_TARGET:-$GPU_TARGET}
NEW_GPU=${NEW_GPU_TARGET:-$GPU_TARGET}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
ARCH=$(echo "$GPU_TARGET" | sed -n 's/.*-arch=\([a-z0-9_]*\).*/\1/p')
mkdir -p "$OUT/old" "$OUT/new"

STATUS=0
SAME=0
DIFF=0
# compile SIDE BUILD TARGET FILE SUFFIX
compile() {
  local out="$OUT/$1/$(echo "$4" | tr / _).$5"
  if ! TILE_PTXAS=none "$2/bin/tile-llc" "$4" -target="$3" \
       $([ "$5" = s ] && echo -emit=asm) -o "$out" 2> "$out.err"; then
    echo "FAIL  $1 $4 ($3): $(grep -v '^heap:' "$out.err" | head -3)"
    STATUS=2
  fi
}
# ptxas -v's per-kernel "registers, spill stores, spill loads" of a PTX file.
resources() {
  "$PTXAS" -arch="$ARCH" -v "$1" -o /dev/null 2>&1 |
    awk '/Compiling entry function/ {k=$0; sub(/.*function ./,"",k); sub(/. for.*/,"",k)}
         /spill stores/ {st=$5; ld=$9}
         /Used [0-9]+ registers/ {r=$0; sub(/.*Used /,"",r); sub(/ registers.*/,"",r);
                                  print k": "r" registers, "st" spill stores, "ld" spill loads"}'
}
# check FILE SUFFIX
check() {
  local name
  name=$(echo "$1" | tr / _).$2
  [ -f "$OUT/old/$name" ] && [ -f "$OUT/new/$name" ] || return
  if cmp -s "$OUT/old/$name" "$OUT/new/$name"; then
    SAME=$((SAME + 1))
    echo "same  $1 ($2)"
    return
  fi
  DIFF=$((DIFF + 1))
  [ $STATUS -eq 0 ] && STATUS=1
  diff -u "$OUT/old/$name" "$OUT/new/$name" > "$OUT/$name.diff"
  echo "DIFF  $1 ($2): $(grep -c '^[-+][^-+]' "$OUT/$name.diff") lines changed," \
       "$(wc -l < "$OUT/old/$name") -> $(wc -l < "$OUT/new/$name") lines; $OUT/$name.diff"
  if [ "$2" = ptx ] && [ -x "$PTXAS" ] && [ -n "$ARCH" ]; then
    resources "$OUT/old/$name" > "$OUT/old/$name.ptxas"
    resources "$OUT/new/$name" > "$OUT/new/$name.ptxas"
    if cmp -s "$OUT/old/$name.ptxas" "$OUT/new/$name.ptxas"; then
      echo "      ptxas: same registers and spills ($(tr '\n' ';' < "$OUT/new/$name.ptxas"))"
    else
      echo "      ptxas: old $(tr '\n' ';' < "$OUT/old/$name.ptxas")"
      echo "             new $(tr '\n' ';' < "$OUT/new/$name.ptxas")"
    fi
  fi
}

CPU_FILES=(examples/*.tile bench/cpu/*.tile)
GPU_FILES=(examples/*.tile bench/gpu/*.tile bench/gpu/attention/*.tile)
for f in "${CPU_FILES[@]}"; do
  compile old "$OLD" "$OLD_CPU" "$f" s
  compile new "$NEW" "$NEW_CPU" "$f" s
  check "$f" s
done
for f in "${GPU_FILES[@]}"; do
  compile old "$OLD" "$OLD_GPU" "$f" ptx
  compile new "$NEW" "$NEW_GPU" "$f" ptx
  check "$f" ptx
done
echo "$SAME identical, $DIFF different (old: $OLD, $OLD_CPU / $OLD_GPU;" \
     "new: $NEW, $NEW_CPU / $NEW_GPU); files in $OUT"
exit $STATUS
