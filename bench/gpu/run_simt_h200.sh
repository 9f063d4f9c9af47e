#!/usr/bin/env bash
# run_simt_h200.sh - the memory-bound kernels on the H200 after
# cuda-register-fragments: every non-gemm reference kernel checked against
# the f64 reference interpreter at sizes that are not multiples of the
# tiles (both NVIDIA pipelines), compute-sanitizer on RMSNorm and softmax,
# and bandwidth of elementwise add and RMSNorm next to a torch
# device-to-device copy timed in the same run.
#
# Runs on the GPU machine from the repository root with a static tile-jit
# at $TILE_JIT (default .bundle/tile-jit); prints to $OUT/simt.log too.
source "$(dirname "$0")/prologue.sh" simt.log
E=examples
run() { echo "-- $T $*"; timeout 120 "$JIT" "$@" -target="$T" --random --seed 5 --check 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"; }
for T in 'cuda -arch=sm_90a' 'cuda -arch=sm_80'; do
  echo "== correctness, $T"
  run $E/elementwise_add.tile --dim N=1000003
  run $E/rmsnorm.tile --dim M=33 --dim N=5000
  run $E/softmax.tile --dim M=17 --dim N=3000
  # odd row lengths: rows not 16-byte aligned take the element path
  run $E/rmsnorm.tile --dim M=7 --dim N=1001
  run $E/softmax.tile --dim M=5 --dim N=1029
done
# the kernels cuda-register-fragments leaves to the generic path
T='cuda -arch=sm_90a'
run $E/gemv.tile --dim M=1000 --dim K=3000
run $E/transpose.tile --dim M=1000 --dim N=700
run $E/flash_attention.tile -entry=flash_attention --dim B=2 --dim H=3 --dim S=300
run $E/flash_attention.tile -entry=flash_attention_causal --dim B=2 --dim H=3 --dim S=300
T='cuda -arch=sm_90a'
echo "== compute-sanitizer"
for tool in memcheck racecheck; do
  for k in "rmsnorm.tile --dim M=5 --dim N=3000" "softmax.tile --dim M=3 --dim N=1500" "elementwise_add.tile --dim N=5000"; do
    echo "-- $tool $k"; compute-sanitizer --tool $tool --print-limit 5 "$JIT" $E/$k -target="$T" --random --check 2>&1 | tail -3
  done
done
echo "== bandwidth"
b() { echo "-- $*"; timeout 120 "$JIT" "$@" -target="$T" --random --bench 20 2>&1 | tail -1; }
b $E/elementwise_add.tile --dim N=268435456
b $E/rmsnorm.tile --dim M=8192 --dim N=8192
b $E/softmax.tile --dim M=8192 --dim N=8192
echo "== torch copy (same run)"
python3 - <<'PY'
import torch
def bench(fn, reps=20, warmup=5):
    for _ in range(warmup): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) / 1e3)
    ts.sort(); return ts[len(ts) // 2]
n = 1 << 28
x = torch.randn(n, device="cuda"); y = torch.empty_like(x)
print("copy f32 2^28: %.1f GB/s (bytes read + written)" % (2 * n * 4 / bench(lambda: y.copy_(x)) / 1e9))
m = torch.randn(8192, 8192, device="cuda", dtype=torch.float16); w = torch.randn(8192, device="cuda", dtype=torch.float16)
rms = lambda: (m.float() * torch.rsqrt(m.float().pow(2).mean(-1, keepdim=True) + 1e-6)).half() * w
print("torch rmsnorm 8192^2 f16: %.1f GB/s" % (2 * m.numel() * 2 / bench(rms) / 1e9))
print("torch softmax 8192^2 f16: %.1f GB/s" % (2 * m.numel() * 2 / bench(lambda: torch.softmax(m, -1)) / 1e9))
PY
