#!/usr/bin/env bash
# run_epilogue_ab.sh - issue 14: the warp-specialized GEMM's predicated copy
# out (cuda.aligned + cuda.store_if) against the per-pair epilogue before it,
# two tile-jit builds interleaved on the same GPU:
#  1. cold compile of examples/gemm.tile for sm_90a to a loaded kernel
#     (--no-cache), 5 processes of each build, alternating; medians;
#  2. correctness (--check against the f64 reference) of each build on the
#     pair side (aligned, even N), the single-element side (odd N; C 2 bytes
#     into its allocation, which also takes the cp.async producer) and edge
#     tiles, for examples/gemm.tile, gemm_hopper_f16/bf16 and linear_bf16;
#     with launch specialization (issue 14, docs/Targets.md) N=1000
#     aligned runs the specialized kernel, and N=300 (rows not whole
#     16-byte chunks), N=301 and --data-offset=2 its fallback, compiled by
#     the driver's JIT at its first launch;
#  3. speed: --bench 20 of each build, alternating, 3 rounds, at 4096^3 and
#     8192^3 (examples/gemm.tile, gemm_hopper_f16/bf16, linear_bf16) and on
#     the single-element side (4096 x 4095 x 4096, odd N).
# OLD_JIT and NEW_JIT name the two static tile-jit builds; run from the
# repository root on the GPU machine. Log in $OUT/epilogue-ab.log.
source "$(dirname "$0")/prologue.sh" epilogue-ab.log
OLD=${OLD_JIT:?OLD_JIT: the tile-jit before the change}
NEW=${NEW_JIT:?NEW_JIT: the tile-jit with it}
T='cuda -arch=sm_90a'
export TILE_CACHE_DIR=$(mktemp -d)   # no tuning record picks another config
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "== 1. cold compile, examples/gemm.tile sm_90a (--no-cache), alternating"
: > "$OUT/cold_old.txt"; : > "$OUT/cold_new.txt"
for i in 1 2 3 4 5; do
  for v in old new; do
    J=$OLD; [ $v = new ] && J=$NEW
    "$J" examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --no-cache --print-compile-time > "$OUT/c.txt" 2>&1
    echo "$v: $(grep -E '^ +(llvm-[a-z]+|ptxas|deferred[^:]*|executor wait|load|total):' "$OUT/c.txt" | tr -s ' ' | tr '\n' ' ')"
    awk '$1 == "total:" {print $2}' "$OUT/c.txt" >> "$OUT/cold_$v.txt"
  done
done
echo "cold median total (ms): old $(median < "$OUT/cold_old.txt"), new $(median < "$OUT/cold_new.txt")"
echo "== 2. correctness"
G=examples/gemm.tile; HF=bench/gpu/gemm_hopper_f16.tile; HB=bench/gpu/gemm_hopper_bf16.tile; L=bench/gpu/linear_bf16.tile
for v in old new; do
  J=$OLD; [ $v = new ] && J=$NEW
  for f in $G $HF $HB $L; do
    for s in "--dim M=1000 --dim N=1000 --dim K=1000" "--dim M=515 --dim N=300 --dim K=260" \
             "--dim M=515 --dim N=301 --dim K=264" "--dim M=515 --dim N=300 --dim K=264 --data-offset=2"; do
      echo "-- $v $f $s: $(timeout 60 "$J" $f -target="$T" $s --random --seed 5 --check 2>&1 | tail -1)"
    done
  done
done
echo "== 2b. first call on the fallback (odd N): compile + the driver JIT of the deferred PTX, one process each"
for v in old new; do
  J=$OLD; [ $v = new ] && J=$NEW
  t0=$(date +%s%N)
  r=$("$J" $G -target="$T" --dim M=515 --dim N=301 --dim K=264 --random --seed 5 --check --no-cache 2>&1 | tail -1)
  echo "$v: $(( ($(date +%s%N) - t0) / 1000000 )) ms wall: $r"
done
echo "== 3. speed (--bench 20), alternating, 3 rounds"
for r in 1 2 3; do
  for f in "$G" "$HF" "$HB" "$L"; do
    for n in 4096 8192; do
      for v in old new; do
        J=$OLD; [ $v = new ] && J=$NEW
        echo "-- r$r $v $f ${n}^3: $(timeout 90 "$J" $f -target="$T" --dim M=$n --dim N=$n --dim K=$n --random --bench 20 2>&1 | tail -1)"
      done
    done
  done
  for v in old new; do
    J=$OLD; [ $v = new ] && J=$NEW
    echo "-- r$r $v $G 4096x4095x4096 (single elements): $(timeout 90 "$J" $G -target="$T" --dim M=4096 --dim N=4095 --dim K=4096 --random --bench 20 2>&1 | tail -1)"
  done
done
rm -rf "$TILE_CACHE_DIR" "$OUT/c.txt"
date -u
