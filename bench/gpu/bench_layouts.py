#!/usr/bin/env python3
"""Issue 13's figures beside their peers, measured in the same run.

linear bf16 relu(x @ W^T + b) at M=N=8192, K=4096 against torch
(F.linear + relu); GEMV f16 16384^2 (examples/gemv.tile) against the
device copy bandwidth. tile-jit --bench (CUDA events, median) for Tile,
peers.bench for torch. Usage: python3 bench/gpu/bench_layouts.py --jit J
"""
import argparse
import os
import sys
import tempfile

import peers
from bench_h200 import tile_time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--target", default="cuda -arch=sm_90a")
    ap.add_argument("--reps", type=int, default=10)
    o = ap.parse_args()
    import torch
    M = N = 8192
    K = 4096
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(N, device="cuda", dtype=torch.bfloat16)
    tp = peers.bench(lambda: torch.relu(torch.nn.functional.linear(x, w, b)))
    fl = 2 * M * N * K
    # As written (the backend's default rasterization: panels of 8 block
    # rows for a GEMM-shaped kernel), then in launch order (raster_swizzle
    # = 1 written into a copy of the kernel).
    src = open("bench/gpu/linear_bf16.tile").read()
    launch = os.path.join(tempfile.mkdtemp(), "linear_bf16_launch_order.tile")
    with open(launch, "w") as f:
        f.write(src.replace("(%bx, %by) {", "(%bx, %by) attributes {raster_swizzle = 1} {"))
    for name, path in (("as written", "bench/gpu/linear_bf16.tile"), ("launch order", launch)):
        t, err = tile_time(o.jit, o.target, [path, "--dim", f"M={M}",
                                             "--dim", f"N={N}", "--dim", f"K={K}"], o.reps)
        tile = fl / t / 1e12 if t else None
        print(f"linear bf16 relu(x W^T + b) {M}x{N}x{K} {name}: "
              f"Tile {tile} TFLOP/s, torch {fl / tp / 1e12:.1f} TFLOP/s, "
              f"ratio {tile / (fl / tp / 1e12) if tile else err}")
    del x, w, b
    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    tc = peers.bench(lambda: y.copy_(x))
    copy_bw = 2 * n * 4 / tc / 1e12
    R = 16384
    t, err = tile_time(o.jit, o.target, ["examples/gemv.tile", "--dim", f"M={R}",
                                         "--dim", f"K={R}"], o.reps)
    bw = (R * R * 2 + R * 2 * 2) / t / 1e12 if t else None
    print(f"gemv f16 {R}^2: Tile {bw} TB/s, device copy {copy_bw:.2f} TB/s, "
          f"ratio {bw / copy_bw if bw else err}")


if __name__ == "__main__":
    sys.exit(main())
