//===- WebGPUOps.td - The webgpu dialect ---------------------*- tablegen -*-===//
//
// WebGPU-specific tile ops, lowered only by the WebGPU backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_WEBGPU_WEBGPUOPS_TD
#define TILE_TARGET_WEBGPU_WEBGPUOPS_TD

include "tile/Target/DialectBase.td"

def WebGPUDialect : Dialect<"webgpu"> {
  let Summary = "WebGPU ops, lowered by the WebGPU backend";
  let CppPrefix = "WebGPU";
  let RegisterFn = "registerWebGPUOps";
}

def WebGPUSubgroupReduceOp : Op<WebGPUDialect, "subgroup_reduce"> {
  let Summary = "Combine a value over the subgroup: subgroupAdd, subgroupMax, subgroupMin";
  let Description = [{
    Per-invocation code: every invocation of the subgroup contributes
    `value` and receives, in the local element dst, the sum (max, min) of
    the subgroup's values; with first_only, only the subgroup's first
    invocation (subgroup_invocation_id 0) receives it and the others the
    identity of kind (0, -inf, +inf), since the device picks the subgroup
    size and a caller cannot tell which invocations share one. f32, i32 or
    u32. Needs the device's `subgroups` feature (target `webgpu
    -subgroups`). tile-lower-reduce-subgroups produces it.
  }];
  let Example = "webgpu.subgroup_reduce %p[0] -> %t[0] {kind = sum, first_only = true}";
  let Arguments = (ins Expr:$value, Region:$dst,
                   EnumAttr<["sum", "max", "min"], "", "the combining function">:$kind,
                   BoolAttr<"false", "only the subgroup's first invocation receives the result">:$first_only);
  let Format = "$value `->` $dst attr-dict";
  let Verifier = "verifyWebGPUSubgroupReduceOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

#endif // TILE_TARGET_WEBGPU_WEBGPUOPS_TD
