#!/usr/bin/env bash
# run_tma_gemm.sh - the Hopper GEMM with a TMA producer warpgroup
# (hopper-lower-gemm-wgmma's warp-specialized kernel) on the H200:
#  1. correctness against the f64 reference (--check, random inputs,
#     poisoned outputs) of the bench tiles, examples/gemm.tile and the bf16
#     reference tile on the TMA path (1000^3, 64x8x16, 256x512x64,
#     130x136x8) and on the producer's cp.async path (515x300x260: rows not
#     16-byte aligned; --data-offset=2: data not 16-byte aligned; K=0), the
#     cp.async ring (pass.warp_specialize = false) and the variants;
#  2. compute-sanitizer memcheck and racecheck on a small GEMM, both paths;
#  3. speed at 4096^3 and 8192^3, f16 and bf16, beside cuBLAS in the same
#     run (bench_h200.py --only-gemm), and the variants of
#     bench/gpu/tma-variants (the previous cp.async ring among them);
#  4. a summary table, last.
# Runs on the GPU machine from the repository root, with a static tile-jit
# at $TILE_JIT (default .bundle/tile-jit); logs go to $OUT (default
# /tmp/tile-out): tma_gemm.log (everything), bench.json (bench_h200.py).
# About 3 minutes.
source "$(dirname "$0")/prologue.sh" tma_gemm.log
T='cuda -arch=sm_90a'
HF=bench/gpu/gemm_hopper_f16.tile
HB=bench/gpu/gemm_hopper_bf16.tile
EX=examples/gemm.tile
EXB=test/Examples/Inputs/gemm_bf16.tile
V=bench/gpu/tma-variants
RES=$OUT/tma_results.txt
: > "$RES"
git log -1 --oneline 2>/dev/null || true

# chk LABEL FILE ARGS...: one --check run; "ok"/"FAIL" into $RES.
chk() {
  local label=$1; shift
  local log
  log=$(timeout 90 "$JIT" "$@" -target="$T" --random --seed 7 --check 2>&1)
  local rc=$?
  echo "-- [$label] $*"
  echo "$log" | grep -E "^(check|tile-jit: error)" | head -3
  if [ $rc -eq 0 ] && echo "$log" | grep -q ": ok$"; then
    echo "check ok $label $*" >> "$RES"
  else
    echo "   rc=$rc"; echo "$log" | tail -3
    echo "check FAIL $label $*" >> "$RES"
  fi
}
sz() { echo --dim M=$1 --dim N=$2 --dim K=$3; }

echo "== correctness"
for f in $HF $HB $EX $EXB; do
  chk tma "$f" $(sz 1000 1000 1000)
  chk tma "$f" $(sz 64 8 16)
  chk cp.async "$f" $(sz 515 300 260)
done
chk tma $HF $(sz 256 512 64)
chk tma $HF $(sz 130 136 8)
chk tma $HB $(sz 2048 256 320)
chk cp.async $HF $(sz 1000 1000 1000) --data-offset=2
chk cp.async $HB $(sz 1000 1000 1000) --data-offset=2
chk cp.async $EX $(sz 300 200 136) --data-offset=2
chk empty $HF $(sz 200 264 0)
for f in $V/*.tile; do
  chk variant "$f" $(sz 1000 1000 1000)
done
chk ring $V/ring_256x64s4_f16.tile $(sz 515 300 260)
chk variant $V/ws_256x64s4_tb_f16.tile $(sz 515 300 264)

echo "== compute-sanitizer"
san() {
  local tool=$1 label=$2; shift 2
  local log
  log=$(timeout 120 compute-sanitizer --tool "$tool" --print-limit 5 "$JIT" "$@" -target="$T" --random --check 2>&1)
  echo "-- $tool [$label] $*"
  echo "$log" | grep -E "^(check)|ERROR SUMMARY|RACECHECK SUMMARY|Program hit|Invalid|Race reported|Error:|=========     at" | head -8
  local s
  s=$(echo "$log" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1 | sed 's/========= //')
  echo "sanitizer $tool $label: ${s:-no summary (rc or timeout)}" >> "$RES"
}
for tool in memcheck racecheck; do
  san $tool tma $HF $(sz 200 300 136)
  san $tool cp.async $HF $(sz 200 300 130)
done

echo "== speed: bench tiles beside cuBLAS (bench_h200.py --only-gemm, same run)"
python3 bench/gpu/bench_h200.py --jit "$JIT" --target "$T" --only-gemm \
  --gemm-f16 $HF --gemm-bf16 $HB --sizes 4096,8192

echo "== speed: variants"
for n in 4096 8192; do
  for f in $V/*.tile $EX; do
    log=$(timeout 90 "$JIT" "$f" $(sz $n $n $n) -target="$T" --random --bench 10 2>&1)
    ms=$(echo "$log" | sed -n 's/.*bench: median \([0-9.]*\) ms.*/\1/p' | tail -1)
    echo "-- $f $n^3: ${ms:-failed} ms"
    [ -n "$ms" ] || echo "$log" | tail -2
    echo "bench $(basename "$f" .tile) $n ${ms:-nan}" >> "$RES"
  done
done

echo "== summary"
python3 - "$RES" "$OUT/bench.json" <<'PY'
import json, sys
res, bench = sys.argv[1], sys.argv[2]
lines = [l.split() for l in open(res)]
checks = [l for l in lines if l[0] == "check"]
bad = [" ".join(l[2:]) for l in checks if l[1] != "ok"]
print(f"correctness: {len(checks) - len(bad)} of {len(checks)} ok" +
      ("" if not bad else "; FAILED: " + " | ".join(bad)))
for l in lines:
    if l[0] == "sanitizer":
        print(" ".join(l))
try:
    rows = json.load(open(bench))["rows"]
except Exception as e:
    rows = []
    print("bench.json unreadable:", e)
cublas = {}
print(f"{'GEMM (TFLOP/s)':44} {'Tile':>7} {'cuBLAS':>7} {'ratio':>6}")
for r in rows:
    name = r["case"].split(" (")[0]
    t = f"{r['tile']:7.1f}" if r["tile"] else "   fail"
    q = f"{r['ratio']:6.3f}" if r["ratio"] else "     -"
    print(f"{name:44} {t} {r['peer']:7.1f} {q}")
    parts = name.split()
    cublas[(parts[1], parts[2].replace("^3", ""))] = r["peer"]
for l in lines:
    if l[0] != "bench":
        continue
    name, n, ms = l[1], l[2], l[3]
    dt = "bf16" if "bf16" in name else "fp16"
    peer = cublas.get((dt, n))
    if ms == "nan":
        print(f"{name + ' ' + n + '^3':44}    fail")
        continue
    tf = 2 * int(n) ** 3 / (float(ms) / 1e3) / 1e12
    ratio = f"{tf / peer:6.3f}" if peer else "     -"
    p = f"{peer:7.1f}" if peer else "      -"
    print(f"{name + ' ' + n + '^3':44} {tf:7.1f} {p} {ratio}")
PY
date -u
