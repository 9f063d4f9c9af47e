#!/usr/bin/env python3
"""Writes the FlashAttention tile-shape variants of this folder.

Each variant is examples/flash_attention.tile (plain and causal entries)
with BM query rows per block (BM / 64 warpgroups of 128 threads), key tiles
of BN and a K/V ring of S stages; bench_h200.py --attention-variants times
them side by side. Run from anywhere; it rewrites the .tile files here.
"""
import os

VARIANTS = [(64, 64, 2), (128, 64, 2), (128, 128, 2), (64, 128, 2), (128, 64, 3)]

BODY = """func @{name}(%Q: f16[B, H, S, 128], %K: f16[B, H, S, 128], %V: f16[B, H, S, 128], %O: f16[B, H, S, 128], %scale: f32) {{
  kernel grid(ceildiv(S, {bm}), H, B) threads({threads}) (%bx, %by, %bz) {{
    %Qs = alloc shared f16[{bm}, 128]
    %Ks = alloc shared f16[{bn}, 128]
    %Vs = alloc shared f16[{bn}, 128]
    %Sc = alloc fragment f32[{bm}, {bn}]
    %P = alloc fragment f16[{bm}, {bn}]
    %Of = alloc fragment f32[{bm}, 128]
    %m = alloc fragment f32[{bm}]
    %m_prev = alloc fragment f32[{bm}]
    %l = alloc fragment f32[{bm}]
    %rowsum = alloc fragment f32[{bm}]
    %alpha = alloc fragment f32[{bm}]
    copy %Q[%bz, %by, %bx * {bm}, 0] -> %Qs
    clear %Of
    clear %l
    fill %m, -inf<f32>()
    for %j in pipelined(0, {hi}, stages = {stages}) {{
      copy %K[%bz, %by, %j * {bn}, 0] -> %Ks
      gemm %Qs, %Ks -> %Sc {{transpose_b = true, clear_accum = true}}
      for %i, %c in parallel({bm}, {bn}) {{
        {mask}
      }}
      copy %m -> %m_prev
      reduce max %Sc -> %m {{dim = 1, clear = false}}
      for %i in parallel({bm}) {{
        %alpha[%i] = exp(%m_prev[%i] - %m[%i])
      }}
      for %i, %c in parallel({bm}, {bn}) {{
        %Sc[%i, %c] = exp(%Sc[%i, %c] - %m[%i])
      }}
      reduce sum %Sc -> %rowsum {{dim = 1}}
      for %i in parallel({bm}) {{
        %l[%i] = %l[%i] * %alpha[%i] + %rowsum[%i]
      }}
      for %i, %d in parallel({bm}, 128) {{
        %Of[%i, %d] = %Of[%i, %d] * %alpha[%i]
      }}
      copy %Sc -> %P
      copy %V[%bz, %by, %j * {bn}, 0] -> %Vs
      gemm %P, %Vs -> %Of
    }}
    for %i, %d in parallel({bm}, 128) {{
      %Of[%i, %d] = %Of[%i, %d] / %l[%i]
    }}
    copy %Of -> %O[%bz, %by, %bx * {bm}, 0]
  }}
}}
"""

PLAIN = "%Sc[%i, %c] = select(%j * {bn} + %c < S, %Sc[%i, %c] * %scale, -inf<f32>())"
CAUSAL = ("let %q = %bx * {bm} + %i\n        let %kv = %j * {bn} + %c\n        "
          "%Sc[%i, %c] = select(%kv <= %q && %kv < S, %Sc[%i, %c] * %scale, -inf<f32>())")

here = os.path.dirname(os.path.abspath(__file__))
for bm, bn, stages in VARIANTS:
    p = dict(bm=bm, bn=bn, stages=stages, threads=bm * 2)
    text = (f"// FlashAttention forward, {bm} query rows per block ({bm // 64} warpgroups),\n"
            f"// key tiles of {bn}, a {stages}-stage K/V ring. Written by make_variants.py.\n")
    text += BODY.format(name="flash_attention", hi=f"ceildiv(S, {bn})",
                        mask=PLAIN.format(**p), **p)
    text += "\n"
    text += BODY.format(name="flash_attention_causal",
                        hi=f"min(ceildiv((%bx + 1) * {bm}, {bn}), ceildiv(S, {bn}))",
                        mask=CAUSAL.format(**p), **p)
    with open(os.path.join(here, f"fa_{bm}x{bn}s{stages}.tile"), "w") as f:
        f.write(text)
