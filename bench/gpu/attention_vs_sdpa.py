#!/usr/bin/env python3
"""Checks Tile's FlashAttention against torch SDPA on the GPU machine.

For each kernel file and entry, draws fresh random Q, K, V (fp16, N(0, 1)),
runs tile-jit on them (--input/--output .npy), computes the reference with
SDPA in float32 on the GPU from the same fp16 values, and prints ||O - ref|| / ||ref|| (Frobenius) and the largest element error.
fp16 inputs with f32 accumulation land near 1e-3; a layout or pipeline bug
gives errors of order 1. Exits non-zero when any relative error exceeds
--tol (default 1e-2) or is NaN.

Usage (repository root): python3 bench/gpu/attention_vs_sdpa.py --jit .bundle/tile-jit FILE...
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--target", default="cuda -arch=sm_90a")
    ap.add_argument("--shapes", default="1,2,70;2,3,300;1,1,2048")
    ap.add_argument("--tol", type=float, default=1e-2)
    ap.add_argument("files", nargs="+")
    o = ap.parse_args()
    bad = 0
    tmp = tempfile.mkdtemp()
    for shape in o.shapes.split(";"):
        B, H, S = (int(x) for x in shape.split(","))
        D = 128
        g = torch.Generator().manual_seed(B * 1000003 + H * 101 + S)
        q, k, v = (torch.randn(B, H, S, D, generator=g).half() for _ in range(3))
        for name, t in (("q", q), ("k", k), ("v", v)):
            np.save(os.path.join(tmp, name + ".npy"), t.numpy())
        scale = 1.0 / math.sqrt(D)
        for causal in (False, True):
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.cuda().float(), k.cuda().float(), v.cuda().float(),
                is_causal=causal, scale=scale).cpu()
            entry = "flash_attention_causal" if causal else "flash_attention"
            for f in o.files:
                out = os.path.join(tmp, "o.npy")
                if os.path.exists(out):
                    os.remove(out)
                cmd = [o.jit, f, "-entry=" + entry, "-target=" + o.target,
                       "--input", "Q=" + os.path.join(tmp, "q.npy"),
                       "--input", "K=" + os.path.join(tmp, "k.npy"),
                       "--input", "V=" + os.path.join(tmp, "v.npy"),
                       "--scalar", f"scale={scale!r}", "--dim", f"B={B}", "--dim", f"H={H}",
                       "--dim", f"S={S}", "--output", "O=" + out]
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                label = f"{os.path.basename(f):22} {entry:24} B={B} H={H} S={S:5}"
                if p.returncode != 0 or not os.path.exists(out):
                    print(f"FAIL {label}: tile-jit rc={p.returncode}: "
                          + " | ".join((p.stdout + p.stderr).strip().splitlines()[-2:]))
                    bad += 1
                    continue
                got = torch.from_numpy(np.load(out).astype(np.float32))
                rel = (torch.linalg.norm(got - ref) / torch.linalg.norm(ref)).item()
                mx = (got - ref).abs().max().item()
                ok = rel <= o.tol and not math.isnan(rel)
                bad += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {label}: rel {rel:.3e}  max abs {mx:.3e}")
    print(f"attention vs SDPA: {'all ok' if not bad else f'{bad} failed'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
