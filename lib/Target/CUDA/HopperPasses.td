//===- HopperPasses.td - Passes of the Hopper backend ------*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def HopperPasses : PassGroup<"registerHopperPasses">;

def LowerGemmToWGMMA : Pass<HopperPasses, "hopper-lower-gemm-wgmma"> {
  let Summary = "Lower pipelined f16/bf16 gemm K loops to cp.async rings and wgmma";
  let Description = [{
    Runs first in the Hopper pipeline. It takes a gemm (or cuda.wgmma)
    with f16 or bf16 A and B in shared memory and an f32 fragment
    accumulator, sitting last in a pipelined or serial K loop whose other
    statements are the two copies from global memory that fill A and B,
    when the accumulator is otherwise only cleared, filled and copied out
    whole. The loop becomes per-thread code: A and B become rings of
    `stages` (at least 2) buffers in the swizzled layouts wgmma's matrix
    descriptors describe, filled by 16-byte cuda.ldgsts copies with zero
    fill outside the global tensors (prologue of stages - 1 tiles, then
    one tile ahead per iteration); each iteration waits for its tile,
    fences the copies into the async proxy, synchronizes the block, and
    each warpgroup (128 threads) issues cuda.wgmma_mma m64nNk16 on its
    64-row slices, then waits for them. The accumulator becomes a
    per-thread local array in the wgmma D layout; clears, fills and copies
    out are rewritten to match (copies to global memory guarded at the
    edges). A gemm that does not qualify is left to the SIMT path (with
    `remarks`, a note says why); a cuda.wgmma that does not qualify is an
    error.
  }];
  let Options = [
    PassOption<"remarks", "bool", "false",
               "note, for each gemm left to the SIMT path, why">,
  ];
  let Constructor = "createLowerGemmToWGMMAPass";
}
