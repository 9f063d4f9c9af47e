//===- ROCmOps.td - The rocm dialect -------------------------*- tablegen -*-===//
//
// AMD-specific tile ops, lowered only by the ROCm backend. Written
// `rocm.<op>` in .tile files.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_ROCM_ROCMOPS_TD
#define TILE_TARGET_ROCM_ROCMOPS_TD

include "tile/Target/DialectBase.td"

def ROCmDialect : Dialect<"rocm"> {
  let Summary = "AMD GPU ops, lowered by the ROCm backend";
  let CppPrefix = "ROCm";
  let RegisterFn = "registerROCmOps";
}

def ROCmMfmaOp : Op<ROCmDialect, "mfma"> {
  let Summary = "Matrix-core multiply-accumulate: C += A * B (v_mfma)";
  let Description = [{
    A and B come from shared memory or fragments, C is a fragment laid out
    for the chosen MFMA instruction shape (auto: the largest the dtypes and
    tile allow).
  }];
  let Example = "rocm.mfma %As, %Bs -> %Cf {shape = m32n32k8}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c,
                   EnumAttr<["auto", "m16n16k16", "m32n32k8", "m16n16k32"], "auto",
                            "MFMA instruction shape (MxNxK)">:$shape,
                   BoolAttr<"false", "zero C before accumulating">:$clear_accum);
  let Format = "$a `,` $b `->` $c attr-dict";
  let Verifier = "verifyROCmMfmaOp";
}

def ROCmMfmaLaneOp : Op<ROCmDialect, "mfma_lane"> {
  let Summary = "One MFMA instruction, as the calling lane of a wave64 sees it";
  let Description = [{
    Per-thread code: all 64 lanes of a wave execute it together, as they
    execute the v_mfma instruction it becomes. %a and %b hold the lane's
    four A and B elements (local f16 or bf16), %c the lane's accumulators
    (local f32: 4 for m16n16k16, 16 for m32n32k8), which it reads and
    overwrites with C + A * B. Which element of the wave's tiles each lane
    holds is the instruction's layout (see rocm-lower-gemm-mfma, which
    produces this op).
  }];
  let Example = "rocm.mfma_lane %a, %b -> %acc[%t * 4 : 4] {shape = m16n16k16}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c,
                   EnumAttr<["m16n16k16", "m32n32k8"], "m16n16k16",
                            "MFMA instruction shape (MxNxK)">:$shape);
  let Format = "$a `,` $b `->` $c attr-dict";
  let Verifier = "verifyROCmMfmaLaneOp";
  let Elementwise = 1;
  let Writes = ["c"];
}

def ROCmLaneXorOp : Op<ROCmDialect, "lane_xor"> {
  let Summary = "Butterfly exchange in a wave64: read `value` of lane (lane ^ mask)";
  let Description = [{
    Per-thread code: every lane of the wave contributes `value` and
    receives, in the local element dst, the value of the lane whose index
    is its own xor `mask`. Masks below 32 stay within each half of the
    wave and become ds_swizzle (bit-mask mode, no LDS allocated); 32 and
    above cross the halves through ds_bpermute. All 64 lanes of the wave
    must execute it together. The destination holds at most 32 bits.
    rocm-lower-gemm-mfma produces it for the reductions along the rows of
    an MFMA accumulator.
  }];
  let Example = "rocm.lane_xor %p[0] -> %t[0] {mask = 16}";
  let Arguments = (ins Expr:$value, Region:$dst,
                   IntAttr<"", "lane xor mask, 1 to 63">:$mask);
  let Format = "$value `->` $dst attr-dict";
  let Verifier = "verifyROCmLaneXorOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

#endif // TILE_TARGET_ROCM_ROCMOPS_TD
