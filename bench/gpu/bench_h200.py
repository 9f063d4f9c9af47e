#!/usr/bin/env python3
"""Tile's GPU benchmarks beside their peers, measured in the same run.

Runs tile-jit --bench on each case (random inputs, median over N runs after
warm-up, timed with CUDA events by the cuda execution backend), times the
peer for the same problem with torch (cuBLAS through torch.matmul,
scaled_dot_product_attention, a device-to-device copy), and prints one table
with the ratio Tile / peer. The full numbers go to $OUT/bench.json.

Usage (on the GPU machine, from the repository root):
  python3 bench/gpu/bench_h200.py --jit .bundle/tile-jit [--quick]
"""
import argparse
import json
import os
import re
import subprocess
import sys

import peers


def tile_time(jit, target, args, reps):
    """Median seconds of one tile-jit --bench run, or the failure text."""
    cmd = [jit] + args + ["-target=" + target, "--random", "--seed", "7",
                          "--bench", str(reps)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=int(os.environ.get("TILE_BENCH_TIMEOUT", "240")))
    except subprocess.TimeoutExpired:
        return None, "timeout"
    m = re.search(r"bench: median ([0-9.]+) ms", p.stdout)
    if p.returncode != 0 or not m:
        return None, (p.stdout + p.stderr).strip().splitlines()[-1:] or ["rc=%d" % p.returncode]
    return float(m.group(1)) / 1e3, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--target", default="cuda -arch=sm_90a")
    ap.add_argument("--gemm-f16", default="examples/gemm.tile")
    ap.add_argument("--gemm-bf16", default="test/Examples/Inputs/gemm_bf16.tile")
    ap.add_argument("--sizes", default="2048,4096,8192")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="GEMM at 4096 only")
    ap.add_argument("--only-gemm", action="store_true",
                    help="the GEMM rows only (no attention, add, rmsnorm)")
    ap.add_argument("--attention", default="examples/flash_attention.tile",
                    help="comma-separated FlashAttention kernels (entries "
                         "flash_attention and flash_attention_causal)")
    ap.add_argument("--only-attention", action="store_true",
                    help="the attention rows only")
    o = ap.parse_args()
    sizes = [4096] if o.quick else [int(s) for s in o.sizes.split(",")]
    import torch

    rows = []  # (case, tile figure, peer figure, unit, error)

    def add_row(case, tile, peer, unit, err=None):
        rows.append({"case": case, "tile": tile, "peer": peer, "unit": unit,
                     "ratio": (tile / peer) if tile and peer else None,
                     "error": err})

    for name, dt, path in [("fp16", torch.float16, o.gemm_f16),
                           ("bf16", torch.bfloat16, o.gemm_bf16)]:
        if o.only_attention:
            break
        for n in sizes:
            t, err = tile_time(o.jit, o.target,
                               [path, "--dim", f"M={n}", "--dim", f"N={n}",
                                "--dim", f"K={n}"], o.reps)
            a = torch.randn(n, n, device="cuda", dtype=dt)
            b = torch.randn(n, n, device="cuda", dtype=dt)
            tp = peers.bench(lambda: torch.matmul(a, b))
            fl = 2 * n ** 3
            add_row(f"gemm {name} {n}^3 ({os.path.basename(path)}) vs cuBLAS",
                    fl / t / 1e12 if t else None, fl / tp / 1e12, "TFLOP/s", err)
            del a, b

    if not o.only_gemm:
        other_rows(o, add_row)
    report(o, rows)


def other_rows(o, add_row):
    import torch
    B, H, S, D = 8, 16, 2048, 128
    q = torch.randn(B, H, S, D, device="cuda", dtype=torch.float16)
    k, v = torch.randn_like(q), torch.randn_like(q)
    for causal, entry in [(False, "flash_attention"), (True, "flash_attention_causal")]:
        tp = peers.bench(lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal))
        fl = 4 * B * H * S * S * D / (2 if causal else 1)
        for path in o.attention.split(","):
            t, err = tile_time(o.jit, o.target,
                               [path, f"-entry={entry}", "--dim", f"B={B}",
                                "--dim", f"H={H}", "--dim", f"S={S}"], o.reps)
            add_row(f"attention fp16 B8 H16 S2048 D128 causal={int(causal)} "
                    f"({os.path.basename(path)}) vs SDPA",
                    fl / t / 1e12 if t else None, fl / tp / 1e12, "TFLOP/s", err)
    del q, k, v
    if o.only_attention:
        return

    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    tc = peers.bench(lambda: y.copy_(x))
    copy_bw = 2 * n * 4 / tc / 1e12
    t, err = tile_time(o.jit, o.target, ["examples/elementwise_add.tile", "--dim",
                                         f"N={n}"], 20)
    add_row("add f32 2^28 vs device copy", 3 * n * 4 / t / 1e12 if t else None,
            copy_bw, "TB/s", err)
    del x, y
    M = N = 8192
    t, err = tile_time(o.jit, o.target, ["examples/rmsnorm.tile", "--dim", f"M={M}",
                                         "--dim", f"N={N}"], 20)
    # Bytes: X read once, Y written once (W is 16 KB).
    add_row("rmsnorm f16 8192x8192 vs device copy",
            2 * M * N * 2 / t / 1e12 if t else None, copy_bw, "TB/s", err)


def report(o, rows):
    import torch
    print(f"{'case':64} {'Tile':>9} {'peer':>9}  ratio")
    for r in rows:
        tile = f"{r['tile']:9.2f}" if r["tile"] else "   failed"
        ratio = f"{r['ratio']:.3f}x" if r["ratio"] else str(r["error"])
        print(f"{r['case']:64} {tile} {r['peer']:9.2f}  {ratio}  {r['unit']}")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench.json"), "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "target": o.target, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
