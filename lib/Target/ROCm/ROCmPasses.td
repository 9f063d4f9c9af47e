//===- ROCmPasses.td - Passes of the ROCm backend ----------*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def ROCmPasses : PassGroup<"registerROCmPasses">;

def LowerGemmToMFMA : Pass<ROCmPasses, "rocm-lower-gemm-mfma"> {
  let Summary = "Lower gemm and rocm.mfma to per-lane MFMA instructions";
  let Description = [{
    Runs before tile-lower-tile-ops. A gemm (or rocm.mfma) whose A and B are
    f16 or bf16, whose accumulator is f32 and whose M, N and K are multiples
    of an MFMA shape becomes per-thread code: the block's waves (64 threads
    each) take the MFMA tiles of C in turn; for each tile a lane loads its
    four A and B elements per K step into registers and runs
    rocm.mfma_lane. An accumulator fragment that is only cleared, filled,
    accumulated into by such gemms, copied out whole, read and written by
    elementwise parallel loops over its shape and reduced along its rows
    lives in the lanes' registers in the instruction's layout (the fragment
    layout analysis gives it to the loops, run per lane, and the reduces:
    lane registers, a rocm.lane_xor butterfly, one partial per row and wave
    in LDS and a block-level reduce of those); any other accumulator stays
    a fragment and each tile is loaded from it and stored back. Barriers
    before and after keep the block's shared memory consistent. A gemm that
    does not qualify is left for tile-lower-tile-ops; a rocm.mfma that does
    not qualify is an error. With lds-limit, when the accumulators that
    would stay fragments make the block's LDS (its shared buffers and
    fragments) exceed the limit, the gemms into them are left for
    tile-lower-tile-ops instead (their fragments can then be kept per
    work-item), with a missed remark.
  }];
  let Options = [
    PassOption<"registers", "bool", "true",
               "keep qualifying accumulators in registers">,
    PassOption<"lds-limit", "int", "0",
               "bytes of LDS a block may use (0: no limit)">,
  ];
  let Constructor = "createLowerGemmToMFMAPass";
}
