#!/usr/bin/env bash
# run_cold_compile_ab.sh - issue 14 in one short GPU call: two static
# tile-jit builds (.bundle/tile-jit-old.xz and .bundle/tile-jit.xz, carried)
#  1. cold compile of examples/gemm.tile for sm_90a to a loaded kernel
#     (--no-cache), 5 processes of each build, alternating;
#  2. --check of the new build on the fast kernel (N=1000) and on the
#     launch-specialization fallback (odd N, N % 8 != 0, --data-offset=2),
#     examples/gemm.tile and bench/gpu/linear_bf16.tile;
#  3. the first call on the fallback (odd N), wall time of one process each
#     (new: the driver's JIT of the deferred PTX included);
#  4. speed, --bench 20, old/new alternating twice: 4096^3 and odd N.
# Then the gated GPU tests with the new build. From the repository root on
# the GPU machine; log in $OUT/lean-ab.log, $OUT/gated.log.
cd .bundle && xz -d -k tile-jit.xz && xz -d -k tile-jit-old.xz && chmod +x tile-jit tile-jit-old && cd ..
J=$PWD/.bundle/tile-jit; O=$PWD/.bundle/tile-jit-old; T='cuda -arch=sm_90a'
export TILE_CACHE_DIR=$(mktemp -d)
{
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
echo "== cold compile examples/gemm.tile sm_90a 4096^3 --no-cache, alternating old (5ccda3b) / new"
for i in 1 2 3 4 5; do for v in old new; do B=$O; [ $v = new ] && B=$J
 echo "$v: $($B examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --no-cache --print-compile-time 2>&1 | grep -E '^ +(llvm-[a-z]+|ptxas|deferred[a-z ]*|load|executor wait|total):' | tr -s ' ' | tr '\n' ' ')"
done; done
echo "== checks (new)"
for s in "--dim M=1000 --dim N=1000 --dim K=1000" "--dim M=515 --dim N=300 --dim K=260" "--dim M=515 --dim N=301 --dim K=264" "--dim M=515 --dim N=300 --dim K=264 --data-offset=2"; do
 for f in examples/gemm.tile bench/gpu/linear_bf16.tile; do echo "-- $f $s: $(timeout 60 $J $f -target="$T" $s --random --seed 5 --check 2>&1 | tail -1)"; done; done
echo "== first call on the fallback (odd N), wall"
for v in old new; do B=$O; [ $v = new ] && B=$J; t0=$(date +%s%N); r=$($B examples/gemm.tile -target="$T" --dim M=515 --dim N=301 --dim K=264 --random --seed 5 --check --no-cache 2>&1 | tail -1); echo "$v: $(( ($(date +%s%N) - t0) / 1000000 )) ms: $r"; done
echo "== speed"
for v in old new old new; do B=$O; [ $v = new ] && B=$J
 echo "$v 4096^3: $(timeout 60 $B examples/gemm.tile -target="$T" --dim M=4096 --dim N=4096 --dim K=4096 --random --bench 20 2>&1 | tail -1)"
 echo "$v 4096x4095x4096: $(timeout 60 $B examples/gemm.tile -target="$T" --dim M=4096 --dim N=4095 --dim K=4096 --random --bench 20 2>&1 | tail -1)"
done
date -u
} > $OUT/lean-ab.log 2>&1
timeout 150 python3 bench/gpu/run_gated_tests.py --jit $J > $OUT/gated.log 2>&1; echo "gated rc $?" >> $OUT/lean-ab.log
date -u >> $OUT/lean-ab.log; tail -25 $OUT/lean-ab.log; tail -4 $OUT/gated.log
