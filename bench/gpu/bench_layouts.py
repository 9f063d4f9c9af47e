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
    # As written (launch order), then in panels of 8 block rows.
    for extra in ([], ["--param", "SWIZZLE=8"]):
        t, err = tile_time(o.jit, o.target, ["bench/gpu/linear_bf16.tile", "--dim", f"M={M}",
                                             "--dim", f"N={N}", "--dim", f"K={K}"] + extra, o.reps)
        tile = fl / t / 1e12 if t else None
        print(f"linear bf16 relu(x W^T + b) {M}x{N}x{K} {' '.join(extra) or 'as written'}: "
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
