//===- MetalPasses.td - Passes of the Metal backend --------*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def MetalPasses : PassGroup<"registerMetalPasses">;

def MetalCheckTypes : Pass<MetalPasses, "metal-check-types"> {
  let Summary = "Reject dtypes MSL cannot express, at the op that uses them";
  let Description = [{
    MSL has no double and no 8-bit floats, and scalar parameters travel in a
    constant block of 32-bit fields. Every statement or op of the original
    program that uses such a dtype is a located error naming the dtype, the
    op and the target.
  }];
  let Constructor = "createMetalCheckTypesPass";
}

def MetalLowerGemmSimdgroup : Pass<MetalPasses, "metal-lower-gemm-simdgroup"> {
  let Summary = "Turn gemm into metal.simdgroup_mma where shapes allow";
  let Description = [{
    A gemm whose operands are whole rank-2 shared or fragment buffers with
    M, N and K multiples of 8, A and B of f16 or f32, C of f32 or f16, in a
    kernel whose threads are whole 32-thread simdgroups, becomes
    metal.simdgroup_mma (after a clear of C for clear_accum). Other gemms
    are left to tile-lower-tile-ops.
  }];
  let Constructor = "createMetalLowerGemmSimdgroupPass";
}
