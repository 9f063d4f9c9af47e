#!/usr/bin/env bash
# Copied as run from build-hopper-wgmma-gpu/, an ignored folder carried to the
# GPU machine with tile-jit, the cubins and these .tile files.
# Second H200 run of the Hopper wgmma path: SASS, correctness and speed of the
# committed tiles and of tile-shape variants, with cuBLAS in the same run.
set -uo pipefail
D=build-hopper-wgmma-gpu
JIT=$D/tile-jit
OUT=${OUT:-/tmp/tile-out}; mkdir -p "$OUT"
exec > >(tee "$OUT/hopper_final.log") 2>&1
T='cuda -arch=sm_90a'
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
for c in $D/*.cubin; do echo "-- $c: HGMMA $(cuobjdump -sass "$c" | grep -c HGMMA), LDL/STL $(cuobjdump -sass "$c" | grep -cE '\b(LDL|STL)\b')"; done
chk() { echo "-- $*"; timeout 60 "$JIT" "$@" -target="$T" --random --seed 7 --check 2>&1 | tail -1; }
echo "== correctness"
for f in examples/gemm.tile test/Examples/Inputs/gemm_bf16.tile $D/gemm_hopper_f16.tile $D/gemm_hopper_bf16.tile $D/v_128x64s3.tile $D/v_128x64s3_bf16.tile $D/v_256x64s3.tile $D/v_256x64s4_m0.tile; do chk $f --dim M=515 --dim N=300 --dim K=260; done
chk $D/v_128x64s3.tile --dim M=1000 --dim N=1000 --dim K=1000
echo "== bench"
b() { echo "-- $*"; timeout 40 "$JIT" "$@" -target="$T" --random --bench 10 2>&1 | tail -1; }
for f in $D/gemm_hopper_f16.tile $D/gemm_hopper_bf16.tile $D/v_128x64s3.tile $D/v_128x64s3_bf16.tile $D/v_256x64s3.tile $D/v_256x64s4_m0.tile examples/gemm.tile test/Examples/Inputs/gemm_bf16.tile; do b $f --dim M=4096 --dim N=4096 --dim K=4096; done
for f in $D/gemm_hopper_f16.tile $D/gemm_hopper_bf16.tile $D/v_128x64s3.tile $D/v_128x64s3_bf16.tile $D/v_256x64s4_m0.tile; do b $f --dim M=8192 --dim N=8192 --dim K=8192; done
echo "== cuBLAS"
python3 bench/gpu/cublas_gemm.py
echo "== sanitizer"
for tool in memcheck racecheck; do echo "-- $tool v_128x64s3"; timeout 30 compute-sanitizer --tool $tool --print-limit 5 "$JIT" $D/v_128x64s3.tile -target="$T" --dim M=200 --dim N=300 --dim K=136 --random --check 2>&1 | tail -2; done
echo "== end"; date -u
