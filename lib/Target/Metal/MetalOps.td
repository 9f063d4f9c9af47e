//===- MetalOps.td - The metal dialect -----------------------*- tablegen -*-===//
//
// Apple-specific tile ops, lowered only by the Metal backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_METAL_METALOPS_TD
#define TILE_TARGET_METAL_METALOPS_TD

include "tile/Target/DialectBase.td"

def MetalDialect : Dialect<"metal"> {
  let Summary = "Apple GPU ops, lowered by the Metal backend";
  let CppPrefix = "Metal";
  let RegisterFn = "registerMetalOps";
}

def MetalSimdgroupMmaOp : Op<MetalDialect, "simdgroup_mma"> {
  let Summary = "8x8 simdgroup matrix multiply-accumulate: C += A * B";
  let Description = [{
    Each simdgroup multiplies 8x8 tiles with simdgroup_multiply_accumulate;
    A and B come from threadgroup (shared) memory or fragments, C is a
    fragment.
  }];
  let Example = "metal.simdgroup_mma %As, %Bs -> %Cf";
  let Arguments = (ins Region:$a, Region:$b, Region:$c);
  let Format = "$a `,` $b `->` $c attr-dict";
}

#endif // TILE_TARGET_METAL_METALOPS_TD
