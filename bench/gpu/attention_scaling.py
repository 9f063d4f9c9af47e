#!/usr/bin/env python3
"""Where FlashAttention's time goes per query tile, beside SDPA.

Runs examples/flash_attention.tile (or --file) and SDPA at sequence lengths
S with B*H*S held constant (the same number of query tiles, hence the same
waves of blocks), so that only the key tiles per query tile change. A block
of BM query rows then takes a + b * (S / BN) time: b is the steady state of
the key loop, a the fixed cost of a query tile (launch, Q load, the first
QK^T and softmax that nothing overlaps, the last P*V, the epilogue, the O
store). A least-squares fit of the medians over S gives a / b, the fixed
cost in key-loop iterations, for Tile and (with BN as its key tile, an
assumption: cuDNN's own tile is not known) for SDPA.

Usage (GPU machine, repository root):
  python3 bench/gpu/attention_scaling.py --jit .bundle/tile-jit
      [--params BM=128,BN=128] [--sizes 1024,2048,4096,8192] [--rounds 3]
      [--causal] [--dtype f16|bf16]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import torch

import peers
from bench_h200 import tile_time

F = torch.nn.functional


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--target", default="cuda -arch=sm_90a")
    ap.add_argument("--file", default="examples/flash_attention.tile")
    ap.add_argument("--params", default="BM=128,BN=128")
    ap.add_argument("--sizes", default="1024,2048,4096,8192")
    ap.add_argument("--tokens", type=int, default=8 * 16 * 2048, help="B*H*S")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    o = ap.parse_args()
    params = dict(kv.split("=") for kv in o.params.split(",") if kv)
    bn = int(params.get("BN", params.get("BM", 64)))
    entry = "flash_attention_causal" if o.causal else "flash_attention"
    if o.causal:
        params.pop("BN", None)
    path = o.file
    tmp = tempfile.mkdtemp()
    if o.dtype == "bf16":
        path = os.path.join(tmp, "fa_bf16.tile")
        with open(o.file) as f, open(path, "w") as g:
            g.write(f.read().replace("f16[", "bf16["))
    dt = torch.float16 if o.dtype == "f16" else torch.bfloat16
    D = 128
    print(f"# {torch.cuda.get_device_name()}, {o.file} {entry} {o.dtype} {o.params}, "
          f"B*H*S = {o.tokens}, H = {o.heads}, rounds {o.rounds}, reps {o.reps}", flush=True)
    print(f"{'S':>6} {'B':>3} {'kv iters':>8} {'Tile ms':>9} {'SDPA ms':>9} {'Tile TF':>8} {'SDPA TF':>8} {'ratio':>6}")
    pts = []
    for S in [int(s) for s in o.sizes.split(",")]:
        B = o.tokens // (o.heads * S)
        if B < 1:
            continue
        fl = 4 * B * o.heads * S * S * D / (2 if o.causal else 1)
        q, k, v = (torch.randn(B, o.heads, S, D, device="cuda", dtype=dt) for _ in range(3))
        args = [path, "-entry=" + entry, "--dim", f"B={B}", "--dim", f"H={o.heads}",
                "--dim", f"S={S}", "--no-cache"]
        for kv in params.items():
            args += ["--param", "=".join(kv)]
        ts, ps = [], []
        for _ in range(o.rounds):
            t, err = tile_time(o.jit, o.target, args, o.reps)
            if err:
                print(f"{S}: tile-jit failed: {err}", file=sys.stderr)
                return 1
            ts.append(t)
            ps.append(peers.bench(lambda: F.scaled_dot_product_attention(
                q, k, v, is_causal=o.causal, scale=1 / math.sqrt(D)), reps=o.reps))
        t, p = sorted(ts)[len(ts) // 2], sorted(ps)[len(ps) // 2]
        n = S / bn
        pts.append((n, t, p, B))
        print(f"{S:>6} {B:>3} {n:>8.0f} {t * 1e3:>9.3f} {p * 1e3:>9.3f} {fl / t / 1e12:>8.1f} "
              f"{fl / p / 1e12:>8.1f} {p / t:>6.3f}", flush=True)
    # Per query tile: t / (B*H*S/BM tiles) is proportional to a + b * n
    # (causal: a + b * n / 2 on average), the tile count the same for all S.
    for name, col in (("Tile", 1), ("SDPA", 2)):
        xs = [(p[0] / 2 if o.causal else p[0]) for p in pts]
        ys = [p[col] for p in pts]
        m = len(xs)
        if m < 2:
            break
        mx, my = sum(xs) / m, sum(ys) / m
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        a = my - b * mx
        print(f"{name}: fixed cost per query tile = {a / b:.2f} key-loop iterations "
              f"(a = {a * 1e6:.1f} us, b = {b * 1e6:.2f} us per iteration, over the whole grid)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
