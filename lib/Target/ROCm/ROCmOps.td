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

#endif // TILE_TARGET_ROCM_ROCMOPS_TD
