//===- LevelZeroOps.td - The level_zero dialect --------------*- tablegen -*-===//
//
// Intel-GPU-specific tile ops, lowered only by the Level Zero backend.
// Written `level_zero.<op>` in .tile files.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_LEVELZERO_LEVELZEROOPS_TD
#define TILE_TARGET_LEVELZERO_LEVELZEROOPS_TD

include "tile/Target/DialectBase.td"

def LevelZeroDialect : Dialect<"level_zero"> {
  let Summary = "Intel GPU ops, lowered by the Level Zero backend";
  let CppPrefix = "LevelZero";
  let RegisterFn = "registerLevelZeroOps";
}

def LevelZeroSubGroupReduceOp : Op<LevelZeroDialect, "sub_group_reduce"> {
  let Summary = "Combine a value over the sub-group: OpGroupNonUniformFAdd, FMax, ...";
  let Description = [{
    Per-work-item code: every work-item of the sub-group contributes
    `value` and receives, in the local element dst, the sum (max, min) of
    the sub-group's values, through OpenCL's
    sub_group_non_uniform_reduce_add / _max / _min, which LLVM's SPIR-V
    backend emits as OpGroupNonUniform{F,I}Add, {F,S,U}Max, {F,S,U}Min
    (capability GroupNonUniformArithmetic, SPIR-V 1.3). The kernel that
    uses it requires the target's sub-group size (OpExecutionMode
    SubgroupSize), so that sub-group s holds work-items s * size to
    s * size + size - 1. f32, i32 or u32. Needs the target feature
    `subgroups` (target `level_zero -subgroups`).
    tile-lower-reduce-subgroups produces it.
  }];
  let Example = "level_zero.sub_group_reduce %p[0] -> %t[0] {kind = sum}";
  let Arguments = (ins Expr:$value, Region:$dst,
                   EnumAttr<["sum", "max", "min"], "", "the combining function">:$kind);
  let Format = "$value `->` $dst attr-dict";
  let Verifier = "verifyLevelZeroSubGroupReduceOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

#endif // TILE_TARGET_LEVELZERO_LEVELZEROOPS_TD
