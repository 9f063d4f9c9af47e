#!/usr/bin/env python3
"""GEMV beside its peers, measured in the same run (issue 13).

examples/gemv.tile (f16) and its variants under test/Target/CUDA/Inputs/
(gemv-bf16; gemv-transposed, A stored transposed) and
bench/gpu/gemv_rows32.tile (32 rows per block) at several shapes, each against torch.mv on the same
shape and dtype and against the device copy bandwidth (torch copy_ of
1 GiB, bytes read + written). Tile time: tile-jit --bench (CUDA events,
median); torch: peers.bench (CUDA events, median of 20). Bandwidth counts
A, x and y once. Usage: python3 bench/gpu/bench_gemv.py --jit J
"""
import argparse
import sys

import peers
from bench_h200 import tile_time

# (kernel file, dtype, A transposed, M, K)
CASES = [
    ("examples/gemv.tile", "f16", False, 16384, 16384),
    ("test/Target/CUDA/Inputs/gemv-bf16.tile", "bf16", False, 16384, 16384),
    ("test/Target/CUDA/Inputs/gemv-transposed.tile", "f16", True, 16384, 16384),
    ("examples/gemv.tile", "f16", False, 4096, 4096),
    ("examples/gemv.tile", "f16", False, 8192, 28672),
    ("examples/gemv.tile", "f16", False, 28672, 8192),
    ("test/Target/CUDA/Inputs/gemv-transposed.tile", "f16", True, 4096, 4096),
    ("bench/gpu/gemv_rows32.tile", "f16", False, 8192, 28672),
    ("bench/gpu/gemv_rows32.tile", "f16", False, 16384, 16384),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--target", default="cuda -arch=sm_90a")
    ap.add_argument("--reps", type=int, default=20)
    o = ap.parse_args()
    import torch
    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    copy_bw = 2 * n * 4 / peers.bench(lambda: y.copy_(x)) / 1e12
    del x, y
    print(f"device copy (torch copy_, 1 GiB f32): {copy_bw:.2f} TB/s")
    print(f"{'case':58s} {'Tile TB/s':>9s} {'torch.mv':>9s} {'vs mv':>6s} {'vs copy':>7s}")
    for path, dt, trans, M, K in CASES:
        tdt = torch.float16 if dt == "f16" else torch.bfloat16
        A = torch.randn((K, M) if trans else (M, K), device="cuda", dtype=tdt)
        v = torch.randn(K, device="cuda", dtype=tdt)
        At = A.t() if trans else A
        tm = peers.bench(lambda: torch.mv(At, v))
        del A, v
        torch.cuda.empty_cache()
        nbytes = (M * K + K + M) * (2 if dt in ("f16", "bf16") else 4)
        t, err = tile_time(o.jit, o.target, [path, "--dim", f"M={M}", "--dim", f"K={K}"],
                           o.reps)
        bw_mv = nbytes / tm / 1e12
        name = f"{path.split('/')[-1]} {dt} {'A^T ' if trans else ''}M={M} K={K}"
        if t is None:
            print(f"{name:58s} {'failed':>9s} {bw_mv:9.2f}   ({err})")
            continue
        bw = nbytes / t / 1e12
        print(f"{name:58s} {bw:9.2f} {bw_mv:9.2f} {bw / bw_mv:6.2f} {bw / copy_bw:7.2f}")


if __name__ == "__main__":
    sys.exit(main())
