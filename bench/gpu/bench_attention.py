#!/usr/bin/env python3
"""FlashAttention kernels as users write them, beside SDPA in the same run.

Cases (issue 16's list):
  - examples/flash_attention.tile in fp16 and in bf16 (the same text with
    f16 element types replaced by bf16) at B8 H16 S2048 D128 and
    B4 H16 S8192 D128, plain and causal;
  - grouped-query attention at head dim 64, bf16, 32 query heads over 8 K/V
    heads, S=4096 (bench/gpu/attention/gqa_d64_bf16.tile) against SDPA with
    enable_gqa=True;
  - head dim 256, fp16 (bench/gpu/attention/fa_d256.tile), B4 H16 S4096.

Each kernel is first checked against torch on the GPU at a size that is not
a multiple of the tiles (B1, two K/V heads, S=257, or --check-shape B,KVH,S;
random N(0,1) inputs through .npy files, SDPA in
float32 from the same rounded values, relative Frobenius error <= 2e-2),
then timed with tile-jit --bench (CUDA events, median) and SDPA with CUDA
events (median), same dtype and shapes. With --autotune each case is tuned
first (tile-jit --autotune; set TILE_CACHE_DIR to keep the records), and the
timed run uses the recorded config. FLOPs: 4*B*H*S*S*D, halved when causal.

Usage (GPU machine, repository root):
  python3 bench/gpu/bench_attention.py --jit .bundle/tile-jit [--autotune] [--quick]
      [--rounds N] [--only LABELS] [--extra FILE[:PARAM=V,...]]...
With --rounds N each case times Tile and SDPA alternately N times; the row
gives the median TFLOP/s of each and the median of the N ratios, with
their range (SDPA alone moved by up to 10% between measurements of one
shape in a run on an H100).
An --extra file runs at its own shape (dtype and head dim from its %Q, the
built-in case's B/H/HKV/S for that head dim unless given as PARAM=V), e.g.
  --only gqa --extra bench/gpu/attention/gqa_d64_bf16_m256.tile:BM=256,BN=64
"""
import argparse
import math
import re
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

import peers
from bench_h200 import report, tile_time

F = torch.nn.functional


def bf16_example(tmp):
    path = os.path.join(tmp, "flash_attention_bf16.tile")
    with open("examples/flash_attention.tile") as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("f16[", "bf16["))
    return path


def save(t, path):
    # numpy has no bfloat16: tile-jit reads and writes bf16 tensors as uint16
    # bit patterns (docs/Tools.md).
    np.save(path, t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16
            else t.numpy())


def load(path):
    a = np.load(path)
    if a.dtype == np.uint16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).float()
    return torch.from_numpy(a.astype(np.float32))


def entry_params(path, entry, args):
    """The --param pairs of args that entry declares as tunables (the causal
    entry of a file may declare fewer than the plain one)."""
    m = re.search(r"func @" + re.escape(entry) + r"<([^>]*)>", open(path).read())
    names = set(re.findall(r"(\w+)\s*:", m.group(1))) if m else set()
    out = []
    for flag, kv in zip(args[::2], args[1::2]):
        if kv.partition("=")[0] in names:
            out += [flag, kv]
    return out


def extra_shape(path):
    """(dtype, B, H, HKV, S, D) of an --extra file: dtype and head dim from
    its %Q parameter, the rest from the built-in case of that head dim (HKV
    = H unless the file declares HKV and the case has grouped heads)."""
    text = open(path).read()
    m = re.search(r"%Q:\s*(bf16|f16)\[[^\]]*?(\d+)\]", text)
    dt = torch.bfloat16 if m and m.group(1) == "bf16" else torch.float16
    D = int(m.group(2)) if m else 128
    B, H, HKV, S = {64: (4, 32, 8, 4096), 256: (4, 16, 16, 4096)}.get(D, (8, 16, 16, 2048))
    if "HKV" not in text:
        HKV = H
    return dt, B, H, HKV, S, D


def check(o, path, entry, dt, B, H, HKV, S, D, tmp, extra=()):
    g = torch.Generator().manual_seed(B * 7919 + H * 101 + S + D)
    q = torch.randn(B, H, S, D, generator=g).to(dt)
    k = torch.randn(B, HKV, S, D, generator=g).to(dt)
    v = torch.randn(B, HKV, S, D, generator=g).to(dt)
    for n, t in (("q", q), ("k", k), ("v", v)):
        save(t, os.path.join(tmp, n + ".npy"))
    scale = 1.0 / math.sqrt(D)
    causal = entry.endswith("causal")
    ref = F.scaled_dot_product_attention(q.cuda().float(), k.cuda().float(), v.cuda().float(),
                                         is_causal=causal, scale=scale,
                                         enable_gqa=HKV != H).cpu()
    out = os.path.join(tmp, "o.npy")
    if os.path.exists(out):
        os.remove(out)
    cmd = [o.jit, path, "-entry=" + entry, "-target=" + o.target,
           "--input", "Q=" + os.path.join(tmp, "q.npy"), "--input", "K=" + os.path.join(tmp, "k.npy"),
           "--input", "V=" + os.path.join(tmp, "v.npy"), "--scalar", f"scale={scale!r}",
           "--dim", f"B={B}", "--dim", f"H={H}", "--dim", f"S={S}", "--output", "O=" + out] + list(extra)
    if HKV != H or "HKV" in open(path).read():
        cmd += ["--dim", f"HKV={HKV}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if p.returncode != 0 or not os.path.exists(out):
        return f"tile-jit rc={p.returncode}: " + " | ".join((p.stdout + p.stderr).strip().splitlines()[-2:])
    got = load(out)
    rel = (torch.linalg.norm(got - ref) / torch.linalg.norm(ref)).item()
    print(f"check vs torch {os.path.basename(path)} {entry} {dt} B={B} H={H} HKV={HKV} S={S}: "
          f"rel {rel:.3e} max abs {(got - ref).abs().max().item():.3e}", flush=True)
    return None if rel <= 2e-2 else f"rel error {rel:.3e} vs torch"


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--target", default="cuda -arch=sm_90a")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=1,
                    help="time Tile and SDPA alternately this many times per case and "
                         "report the medians and the median of the per-round ratios "
                         "(SDPA alone moves by several percent between measurements)")
    ap.add_argument("--autotune", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one shape per kernel")
    ap.add_argument("--check-shape", default="1,2,257",
                    help="B,KVH,S of the check against torch (KVH K/V heads, each with "
                         "its group of query heads); more tiles than the GPU has "
                         "multiprocessors (e.g. 4,16,1100) give each block of a "
                         "persistent kernel several")
    ap.add_argument("--only", default="",
                    help="comma-separated substrings: keep the cases whose label contains one")
    ap.add_argument("--extra", action="append", default=[],
                    help="FILE[:PARAM=V,...]: another kernel (entries flash_attention and "
                         "flash_attention_causal) at its own shape: dtype and head dim from "
                         "its %%Q, B/H/HKV/S those of the built-in case of that head dim "
                         "(D128: B8 H16 S2048; D64 with HKV: B4 H32/8 S4096; D256: B4 H16 "
                         "S4096), each overridable as B=, H=, HKV=, S=; every other PARAM=V "
                         "is a tile-jit --param (no autotune for it)")
    o = ap.parse_args()
    tmp = tempfile.mkdtemp()
    ex16 = "examples/flash_attention.tile"
    ex_bf = bf16_example(tmp)
    gqa = "bench/gpu/attention/gqa_d64_bf16.tile"
    d256 = "bench/gpu/attention/fa_d256.tile"
    # (label, path, dtype, B, H, HKV, S, D)
    cases = [("example fp16", ex16, torch.float16, 8, 16, 16, 2048, 128),
             ("example bf16", ex_bf, torch.bfloat16, 8, 16, 16, 2048, 128),
             ("example fp16", ex16, torch.float16, 4, 16, 16, 8192, 128),
             ("example bf16", ex_bf, torch.bfloat16, 4, 16, 16, 8192, 128),
             ("gqa d64 bf16", gqa, torch.bfloat16, 4, 32, 8, 4096, 64),
             ("d256 fp16", d256, torch.float16, 4, 16, 16, 4096, 256)]
    if o.quick:
        cases = [c for c in cases if c[6] != 8192]
    if o.only:
        cases = [c for c in cases if any(w in c[0] for w in o.only.split(","))]
    params = {}
    for x in o.extra:
        path, _, ps = x.partition(":")
        label = os.path.basename(path) + (" " + ps if ps else "")
        dt, B, H, HKV, S, D = extra_shape(path)
        shape = {"B": B, "H": H, "HKV": HKV, "S": S}
        tunables = []
        for kv in (kv for kv in ps.split(",") if kv):
            k, _, v = kv.partition("=")
            if k in shape:
                shape[k] = int(v)
            else:
                tunables += ["--param", kv]
        params[label] = tunables
        cases.append((label, path, dt, shape["B"], shape["H"], shape["HKV"], shape["S"], D))
    rows = []

    def add_row(case, tile, peer, unit, err=None):
        rows.append({"case": case, "tile": tile, "peer": peer, "unit": unit,
                     "ratio": (tile / peer) if tile and peer else None, "error": err})

    checked = {}
    for label, path, dt, B, H, HKV, S, D in cases:
        q = torch.randn(B, H, S, D, device="cuda", dtype=dt)
        k = torch.randn(B, HKV, S, D, device="cuda", dtype=dt)
        v = torch.randn_like(k)
        for causal in (False, True):
            entry = "flash_attention_causal" if causal else "flash_attention"
            key = (path, entry, label)
            if key not in checked:
                extra = entry_params(path, entry, params.get(label, []))
                # --check-shape: KVH K/V heads (2 by default), each with its
                # group of query heads.
                cb, ckv, cs = (int(x) for x in o.check_shape.split(","))
                checked[key] = check(o, path, entry, dt, cb, H // HKV * ckv if HKV != H else ckv,
                                     ckv, cs, D, tmp, extra)
            dims = ["--dim", f"B={B}", "--dim", f"H={H}", "--dim", f"S={S}"]
            if "HKV" in open(path).read():
                dims += ["--dim", f"HKV={HKV}"]
            args = [path, f"-entry={entry}"] + dims + entry_params(path, entry, params.get(label, []))
            if o.autotune and label not in params:
                p = subprocess.run([o.jit] + args + ["-target=" + o.target, "--random", "--seed", "7",
                                                     "--autotune", "--bench", "5"],
                                   capture_output=True, text=True, timeout=300)
                print(f"-- autotune {label} {entry} B{B} H{H} HKV{HKV} S{S} D{D}\n"
                      + "\n".join(l for l in (p.stdout + p.stderr).splitlines() if not l.startswith("ran ")),
                      flush=True)
            fl = 4 * B * H * S * S * D / (2 if causal else 1)
            tiles, sdpas, err = [], [], None
            for _ in range(max(1, o.rounds)):
                t, err = tile_time(o.jit, o.target, args, o.reps)
                tp = peers.bench(lambda: F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, enable_gqa=HKV != H))
                if err:
                    break
                tiles.append(fl / t / 1e12)
                sdpas.append(fl / tp / 1e12)
            case = f"{label} B{B} H{H}/{HKV} S{S} D{D} causal={int(causal)} vs SDPA"
            if o.rounds > 1 and tiles and not checked[key]:
                ratios = sorted(a / b for a, b in zip(tiles, sdpas))
                case += f" ({len(ratios)} rounds, ratios {ratios[0]:.3f}-{ratios[-1]:.3f})"
                add_row(case, median(tiles), median(sdpas), "TFLOP/s")
                rows[-1]["ratio"] = median(ratios)
                rows[-1]["rounds"] = {"tile": tiles, "sdpa": sdpas}
            else:
                add_row(case, tiles[0] if tiles and not checked[key] else None,
                        sdpas[0] if sdpas else fl / tp / 1e12, "TFLOP/s", checked[key] or err)
        del q, k, v
    report(o, rows)
    return 1 if any(r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
