#!/usr/bin/env bash
# run_mma.sh - the tensor-core gemm (cuda-lower-gemm-mma) on the H200:
# correctness against the f64 reference on sizes that hit the cp.async
# path, the element-copy path (rows not 16-byte aligned) and partial tiles,
# for sm_80 code and sm_90a code; compute-sanitizer; the SASS of the
# cubins ptxas made on the build machine ($SASS_DIR/*.cubin); benchmarks
# at 4096^3 with torch.matmul timed in the same run.
# Runs from the repository root with a static tile-jit at $TILE_JIT.
set -uo pipefail
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
SASS_DIR=${SASS_DIR:-.bundle}
mkdir -p "$OUT"
exec > >(tee "$OUT/mma.log") 2>&1
G=examples/gemm.tile
GB=test/Examples/Inputs/gemm_bf16.tile
G32=test/Examples/Inputs/gemm_f32.tile
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; date +%s
dims() { echo "--dim M=$1 --dim N=$2 --dim K=$3"; }
echo "== correctness"
chk() { echo "-- $1 $2 $3"; timeout 100 "$JIT" $2 -target="$1" $(dims $3) --random --seed 5 --check 2>&1 | tail -1; }
for T in 'cuda -arch=sm_80' 'cuda -arch=sm_90a'; do
  for f in $G $GB; do chk "$T" $f "1000 1000 1000"; chk "$T" $f "515 300 260"; done
done
chk 'cuda -arch=sm_90a' $G "515 264 1000"
chk 'cuda -arch=sm_80' $GB "257 129 70"
chk 'cuda -arch=sm_90a' $G32 "300 200 100"
echo "== compute-sanitizer (sm_90a code) ($(date +%s))"
for tool in memcheck racecheck; do
  for s in "200 136 72" "130 70 50"; do
    echo "-- $tool $s"; timeout 60 compute-sanitizer --tool $tool --print-limit 5 "$JIT" $G -target='cuda -arch=sm_90a' $(dims $s) --random --check 2>&1 | tail -2
  done
done
echo "== SASS ($(date +%s))"
for c in "$SASS_DIR"/*.cubin; do
  echo "-- $c"; cuobjdump -sass "$c" > "$OUT/$(basename $c).sass" 2>&1
  for i in HMMA LDSM LDGSTS LDGDEPBAR DEPBAR BAR.SYNC LDL STL STG LDG; do printf '%s=%s ' $i "$(grep -c "$i" "$OUT/$(basename $c).sass")"; done; echo
done
echo "== benchmarks 4096^3 ($(date +%s))"
b() { echo "-- $1 $2"; timeout 60 "$JIT" $2 -target="$1" $(dims 4096 4096 4096) --random --bench 10 2>&1 | tail -1; }
b 'cuda -arch=sm_90a' $G; b 'cuda -arch=sm_90a' $GB; b 'cuda -arch=sm_80' $G
echo "== torch.matmul (same run) ($(date +%s))"
python3 - <<'PY'
import torch
for dt in (torch.float16, torch.bfloat16):
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
    for _ in range(5): torch.matmul(a, b)
    torch.cuda.synchronize(); ts = []
    for _ in range(20):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); torch.matmul(a, b); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) / 1e3)
    ts.sort(); t = ts[len(ts) // 2]
    print(f"torch.matmul {dt} {n}^3: {t*1e3:.3f} ms, {2*n**3/t/1e12:.1f} TFLOP/s")
PY
