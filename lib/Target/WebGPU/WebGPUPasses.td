//===- WebGPUPasses.td - Passes of the WebGPU backend ------*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def WebGPUPasses : PassGroup<"registerWebGPUPasses">;

def WebGPUCheckTypes : Pass<WebGPUPasses, "webgpu-check-types"> {
  let Summary = "Reject dtypes WGSL cannot express, at the op that uses them";
  let Description = [{
    WGSL has i32, u32, f32 and bool, f16 only with the shader-f16 extension
    (target attribute `-f16`), and no 8- or 16-bit integers, i64/u64, f64,
    bfloat16 or fp8; bool cannot be stored in a buffer the host shares.
    f16 without `-f16` and bf16 are computed in f32 and stored packed two
    to a u32 word in buffers, so only scalar parameters of those dtypes
    (which travel in the uniform block of 32-bit fields) are refused.
    Every statement or op of the original program that uses such a dtype is
    a located error naming the dtype, the op and the target, before any
    lowering hides where it came from.
  }];
  let Constructor = "createWebGPUCheckTypesPass";
}
