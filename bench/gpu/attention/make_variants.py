#!/usr/bin/env python3
"""Writes the FlashAttention tile-shape variants of this folder.

Each variant is examples/flash_attention.tile (plain and causal entries)
with BM query rows per block (BM / 64 warpgroups of 128 threads), key tiles
of BN and a K/V ring of S stages. "e2" variants compute the softmax in base
2 with the scale folded into one multiplier (scale * log2(e), then exp2),
one multiply per score fewer; "o0" variants turn off the overlap of the
second gemm with the next iteration (pass.wgmma_overlap = false); "ws0"
variants keep the cp.async rings instead of the TMA producer warpgroup
(pass.warp_specialize = false); "fs" variants keep the scores unscaled
and fold the scale into the exponent, exp2(s * c - m * c), which the
backend contracts into one fma per score (the max of unscaled scores is
the unscaled max, as the scale is positive), and divide the output by the
row sums through one reciprocal a row; "pp1" variants have the two
consumer warpgroups take turns at the gemms (pass.warpgroup_pingpong =
true; 6 % slower on the H200, so not the default); "mk" variants run the
mask's parallel loop only on the key tiles that need it (past the end of
the sequence, or on the causal diagonal), under an if of block-level
values.
The "ex_" files are examples/flash_attention.tile itself (tunable BM, BN,
STAGES: time them at the tuned BM=128 BN=128) with one pass option set:
"ex_gm" runs the mask loop only on the key tiles where it can mask
(pass.guard_masks = true, found by the compiler rather than written as an
if), "ex_pp1" the warpgroup ping-pong, "ex_ps0" a block per tile (the
default, stated: pass.persistent = false), "ex_ps1" the persistent kernel
(pass.persistent = true; off by default until measured on a GPU),
"ex_db0" the persistent kernel with one Q buffer (pass.double_buffer_once
= false), "ex_pu1" the causal entry persistent too (pass.persistent_uneven
= true), "ex_so0" O stored from the registers as 4-byte pairs rather than
staged through the spent Q tile (pass.stage_copy_out = false).
run_attention.sh times them side by side. Run from anywhere; it rewrites
the .tile files here.
"""
import os

# (BM, BN, stages, exp2 form, overlap, warp-specialized, scale in exponent[,
#  ping-pong[, mask only where needed]])
VARIANTS = [(64, 64, 2, True, True, True, False), (64, 64, 2, True, True, False, False),
            (128, 64, 2, True, True, True, False), (128, 64, 2, True, True, False, False),
            (128, 64, 3, True, True, True, False), (128, 128, 2, True, True, True, False),
            (64, 64, 2, True, False, False, False), (128, 64, 2, True, True, True, True),
            (64, 64, 2, True, True, True, True),
            (128, 64, 2, True, True, True, True, True),
            (128, 64, 2, True, True, True, True, False, True),
            (64, 64, 2, True, True, True, True, False, True)]

BODY = """func @{name}(%Q: f16[B, H, S, 128], %K: f16[B, H, S, 128], %V: f16[B, H, S, 128], %O: f16[B, H, S, 128], %scale: f32){attrs} {{
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
    {prelude}copy %Q[%bz, %by, %bx * {bm}, 0] -> %Qs
    clear %Of
    clear %l
    fill %m, -inf<f32>()
    for %j in pipelined(0, {hi}, stages = {stages}) {{
      copy %K[%bz, %by, %j * {bn}, 0] -> %Ks
      gemm %Qs, %Ks -> %Sc {{transpose_b = true, clear_accum = true}}
      {maskloop}
      copy %m -> %m_prev
      reduce max %Sc -> %m {{dim = 1, clear = false}}
      for %i in parallel({bm}) {{
        %alpha[%i] = {alpha}
      }}
      for %i, %c in parallel({bm}, {bn}) {{
        %Sc[%i, %c] = {p}
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
    {epilogue}
    copy %Of -> %O[%bz, %by, %bx * {bm}, 0]
  }}
}}
"""

PLAIN = "%Sc[%i, %c] = select(%j * {bn} + %c < S, %Sc[%i, %c] * {sc}, -inf<f32>())"
CAUSAL = ("let %q = %bx * {bm} + %i\n        let %kv = %j * {bn} + %c\n        "
          "%Sc[%i, %c] = select(%kv <= %q && %kv < S, %Sc[%i, %c] * {sc}, -inf<f32>())")


def mask_loop(mask, bm, bn, fs, guard):
    """The parallel loop of the mask: unscaled scores with fs, under an if
    of `guard` (the key tiles that need the mask) unless it is empty."""
    if fs:
        mask = mask.replace(" * %sl2, -inf", ", -inf")
    loop = f"for %i, %c in parallel({bm}, {bn}) {{\n        {mask}\n      }}"
    if guard:
        loop = f"if {guard} {{\n        " + loop.replace("\n", "\n  ") + "\n      }"
    return loop


here = os.path.dirname(os.path.abspath(__file__))
for bm, bn, stages, e2, overlap, ws, fs, *rest in VARIANTS:
    pp = rest[0] if rest else False
    mk = rest[1] if len(rest) > 1 else False
    assert e2 or not fs, "the scale goes into the exponent of exp2 only"
    attrs = ([] if overlap else ["pass.wgmma_overlap = false"]) + \
            ([] if ws else ["pass.warp_specialize = false"]) + \
            (["pass.warpgroup_pingpong = true"] if pp else [])
    p = dict(bm=bm, bn=bn, stages=stages, threads=bm * 2,
             sc="%sl2" if e2 else "%scale", exp="exp2" if e2 else "exp",
             prelude="let %sl2 = %scale * 1.4426950408889634\n    " if e2 else "",
             attrs=" attributes {" + ", ".join(attrs) + "}" if attrs else "")
    text = (f"// FlashAttention forward, {bm} query rows per block ({bm // 64} warpgroups),\n"
            f"// key tiles of {bn}, a {stages}-stage K/V ring"
            + (", softmax in base 2" if e2 else "")
            + ("" if overlap else ", no gemm overlap")
            + ("" if ws else ", cp.async rings (no TMA producer)")
            + (", the scale in the exponent" if fs else "")
            + (", warpgroups taking turns at the gemms" if pp else "")
            + (", the mask only where needed" if mk else "")
            + ". Written by make_variants.py.\n")
    if fs:
        p["alpha"] = "exp2((%m_prev[%i] - %m[%i]) * %sl2)"
        p["p"] = "exp2(%Sc[%i, %c] * %sl2 - %m[%i] * %sl2)"
    else:
        p["alpha"] = "{exp}(%m_prev[%i] - %m[%i])".format(**p)
        p["p"] = "{exp}(%Sc[%i, %c] - %m[%i])".format(**p)
    p["mask"] = PLAIN.format(**p)
    p["epilogue"] = ((f"for %i in parallel({bm}) {{\n      %l[%i] = 1.0 / %l[%i]\n    }}\n    "
                      f"for %i, %d in parallel({bm}, 128) {{\n      %Of[%i, %d] = %Of[%i, %d] * %l[%i]\n    }}")
                     if fs else
                     f"for %i, %d in parallel({bm}, 128) {{\n      %Of[%i, %d] = %Of[%i, %d] / %l[%i]\n    }}")
    p["maskloop"] = mask_loop(p["mask"], bm, bn, fs, mk and f"(%j + 1) * {bn} > S")
    text += BODY.format(name="flash_attention", hi=f"ceildiv(S, {bn})", **p)
    text += "\n"
    # Blocks with the most key tiles first (the last query rows), so that
    # the long blocks do not trail at the end of the grid.
    p["maskloop"] = mask_loop(CAUSAL.format(**p).replace("%bx", "%qb"), bm, bn, fs,
                              mk and f"(%j + 1) * {bn} > %qb * {bm} + 1 || (%j + 1) * {bn} > S")
    causal = BODY.format(name="flash_attention_causal",
                         hi=f"min(ceildiv((%qb + 1) * {bm}, {bn}), ceildiv(S, {bn}))", **p)
    causal = causal.replace("copy %Q[%bz, %by, %bx", "copy %Q[%bz, %by, %qb")
    causal = causal.replace("copy %Of -> %O[%bz, %by, %bx", "copy %Of -> %O[%bz, %by, %qb")
    causal = causal.replace(f"    %Qs = alloc shared", f"    let %qb = ceildiv(S, {bm}) - 1 - %bx\n    %Qs = alloc shared", 1)
    text += causal
    name = (f"fa_{bm}x{bn}s{stages}" + ("_e2" if e2 else "") + ("" if overlap else "_o0")
            + ("" if ws else "_ws0") + ("_fs" if fs else "") + ("_pp1" if pp else "") + ("_mk" if mk else ""))
    with open(os.path.join(here, name + ".tile"), "w") as f:
        f.write(text)


# The example with one pass option on (see the docstring).
with open(os.path.join(here, "..", "..", "..", "examples", "flash_attention.tile")) as f:
    example = f.read()
for suffix, attr, what in [("gm", "pass.guard_masks = true",
                            "the mask only on the key tiles where it can mask (pass.guard_masks)"),
                           ("pp1", "pass.warpgroup_pingpong = true",
                            "warpgroups taking turns at the gemms (pass.warpgroup_pingpong)"),
                           ("ps0", "pass.persistent = false",
                            "a block per tile, not persistent (pass.persistent = false)"),
                           ("ps1", "pass.persistent = true",
                            "the plain entry persistent (pass.persistent)"),
                           ("db0", "pass.persistent = true, pass.double_buffer_once = false",
                            "one Q buffer in the persistent kernel (pass.double_buffer_once = false)"),
                           ("pu1", "pass.persistent = true, pass.persistent_uneven = true",
                            "the causal entry persistent too, its tiles longest first "
                            "(pass.persistent_uneven)"),
                           ("so0", "pass.stage_copy_out = false",
                            "O stored as 4-byte pairs from the registers, not staged through "
                            "the spent Q tile (pass.stage_copy_out = false)")]:
    text = example.replace("%scale: f32) {", "%scale: f32) attributes {" + attr + "} {")
    assert text.count(attr) == 2
    text = (f"// examples/flash_attention.tile with {what}. Written by make_variants.py.\n"
            + text)
    with open(os.path.join(here, f"ex_{suffix}.tile"), "w") as f:
        f.write(text)
