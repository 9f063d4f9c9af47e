#!/usr/bin/env python3
"""cuBLAS (torch.matmul) GEMM at 4096^3 and 8192^3, fp16 and bf16, timed
as peers.py times (CUDA events, median of 20 launches after 5 warm-up
ones): the lines `cublas fp16 4096: X TFLOP/s` that the Hopper GEMM
scripts (run_hopper_gemm.sh, hopper-variants/run_variants.sh) print
beside Tile's figures of the same run."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import bench  # noqa: E402

for n in (4096, 8192):
    for dt, name in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt)
        t = bench(lambda: torch.matmul(a, b))
        print(f"cublas {name} {n}: {2 * n**3 / t / 1e12:.1f} TFLOP/s")
