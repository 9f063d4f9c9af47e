#!/usr/bin/env bash
# run_mma.sh - the tensor-core gemm (cuda-lower-gemm-mma) on the H200:
# correctness against the f64 reference on sizes that hit the cp.async
# path, the element-copy path (rows not 16-byte aligned) and partial tiles,
# for sm_80 and sm_90a code; compute-sanitizer memcheck and racecheck; the
# SASS of cubins made on the build machine ($SASS_DIR/*.cubin, from
# `tile-llc -emit=obj`); benchmarks at 4096^3 with torch.matmul timed in
# the same run.
#
# Runs from a folder holding examples/ and test/Examples/Inputs/ with a
# static tile-jit at $TILE_JIT. Every step is sequential, has a hard time
# limit and writes to files, not pipes (a process left behind by a killed
# compute-sanitizer cannot hold the script up); the log is $OUT/mma.log,
# written as it goes.
set -u
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
SASS_DIR=${SASS_DIR:-.bundle}
mkdir -p "$OUT"
LOG=$OUT/mma.log
TMP=$(mktemp)
say() { echo "$*" >> "$LOG"; }
# step SECONDS CMD...: runs CMD with a hard limit, logs its last lines.
step() {
  local t=$1; shift
  local s=$SECONDS
  timeout -k 2 "$t" "$@" > "$TMP" 2>&1
  local rc=$?
  say "-- $* [rc=$rc, $((SECONDS - s)) s]"
  tail -3 "$TMP" >> "$LOG"
}
G=examples/gemm.tile
GB=test/Examples/Inputs/gemm_bf16.tile
G32=test/Examples/Inputs/gemm_f32.tile
dims() { echo "--dim M=$1 --dim N=$2 --dim K=$3"; }
say "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$LOG"; date -u >> "$LOG"
say "== correctness"
for T in 'cuda -arch=sm_80' 'cuda -arch=sm_90a'; do
  for f in $G $GB; do
    for s in "1000 1000 1000" "515 300 260"; do
      step 30 "$JIT" $f -target="$T" $(dims $s) --random --seed 5 --check
    done
  done
done
step 30 "$JIT" $G -target='cuda -arch=sm_90a' $(dims 515 264 1000) --random --seed 5 --check
step 30 "$JIT" $GB -target='cuda -arch=sm_80' $(dims 257 129 70) --random --seed 5 --check
step 30 "$JIT" $G32 -target='cuda -arch=sm_90a' $(dims 300 200 100) --random --seed 5 --check
say "== SASS"
for c in "$SASS_DIR"/*.cubin; do
  cuobjdump -sass "$c" > "$OUT/$(basename "$c").sass" 2>&1
  line="-- $c:"
  for i in HMMA LDSM LDGSTS LDGDEPBAR DEPBAR BAR.SYNC LDL STL STG LDG; do line="$line $i=$(grep -c "$i" "$OUT/$(basename "$c").sass")"; done
  say "$line"
done
say "== benchmarks 4096^3"
for T in 'cuda -arch=sm_90a' 'cuda -arch=sm_80'; do
  for f in $G $GB; do step 40 "$JIT" $f -target="$T" $(dims 4096 4096 4096) --random --bench 10; done
done
say "== torch.matmul 4096^3 (same run)"
cat > "$TMP.py" <<'PY'
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
step 60 python3 "$TMP.py"
say "== compute-sanitizer (sm_90a code; a tool that outlives its limit is killed)"
for tool in memcheck racecheck; do
  for s in "200 136 72" "130 70 50"; do
    step 45 compute-sanitizer --tool $tool --print-limit 5 "$JIT" $G -target='cuda -arch=sm_90a' $(dims $s) --random --check
  done
done
say "== done"; date -u >> "$LOG"
