//===- CUDAPasses.td - Passes of the CUDA and Hopper backends -*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def CUDAPasses : PassGroup<"registerCUDAPasses">;

def InferLayouts : Pass<CUDAPasses, "cuda-infer-layouts"> {
  let Summary = "Infer every fragment's layout for the target's matrix instruction";
  let Description = [{
    Runs the shared fragment layout analysis (lib/Analysis) on each kernel
    with the accumulator layouts of the target's matrix instruction (wgmma
    m64nNk16 on sm_90a, mma.sync m16n8k16 otherwise; the `matrix` option
    overrides), prints every fragment's layout when asked
    (-print-layouts in tile-opt and tile-llc) and reports the layout
    conversions the kernel needs as analysis remarks
    (-pass-remarks-analysis=cuda-infer-layouts). The IR is unchanged.
  }];
  let Options = [
    PassOption<"matrix", "string", "auto",
               "matrix instruction layouts: auto, mma, wgmma or none">,
  ];
  let Constructor = "createInferLayoutsPass";
}

def LowerGemmToMMA : Pass<CUDAPasses, "cuda-lower-gemm-mma"> {
  let Summary = "Lower gemm to warp-level mma.sync with ldmatrix, and pipelined copies to cp.async";
  let Description = [{
    Runs before tile-lower-pipelined. A gemm whose A and B are whole f16 or
    bf16 shared buffers, whose accumulator is a whole f32 fragment used
    only by clears, fills, such gemms and whole copies out, and whose
    shape splits over the block's warps in 16x16 pieces becomes per-thread
    code: each warp owns a sub-tile of C held in its threads' registers in
    the mma.sync m16n8k16 accumulator layout, loads A and B with
    ldmatrix.x4 and runs cuda.mma_sync; clears and copies out of the
    accumulator are rewritten to match (packed two-element stores where
    alignment allows, guarded at the tensor's edges).

    A `pipelined(..., stages = S)` loop (S >= 2) whose body is copies from
    global memory into whole shared buffers that only its gemms read,
    followed by those gemms, becomes a software pipeline: the buffers get
    S stages (with the 16-byte chunks XOR-swizzled by row so cp.async and
    ldmatrix are free of bank conflicts), a prologue issues S-1 stages of
    cp.async, and each iteration waits for its stage, synchronises the
    block, issues the copies S-1 iterations ahead and computes. Chunks past
    the tensor's edge are zero-filled; where a row of the source is not
    16-byte aligned, element loads replace cp.async.

    Anything else is left for the generic passes; a missed remark
    (-pass-remarks-missed=cuda-lower-gemm-mma) at the op or loop says why.
  }];
  let Options = [
    PassOption<"max-shared", "int", "101376",
               "shared memory bytes a block may use for pipeline stages">,
  ];
  let Constructor = "createLowerGemmToMMAPass";
}

def RegisterFragments : Pass<CUDAPasses, "cuda-register-fragments"> {
  let Summary = "Keep the fragments of memory-bound kernels in registers";
  let Description = [{
    Runs before tile-lower-tile-ops on the CUDA and Hopper pipelines. In a
    kernel whose fragments are only copied to and from global memory,
    filled, reduced along their last dimension and read and written
    elementwise by parallel loops, each fragment becomes a per-thread local
    array: a large one distributed over the threads (thread t holds
    elements t * V .. t * V + V - 1 of every T * V chunk, V elements being
    vector-bytes of the global type), a small one (a reduce result)
    replicated in every thread, and a vector broadcast over a larger
    tile or a reduce result whose rows span part of a chunk sliced: the
    projection of the tile's layout, each thread holding its rows or
    columns once. Copies become cuda.vload / cuda.vstore for
    whole tiles and guarded element code for partial ones; parallel loops
    become unrolled loops over the thread's elements; reduces become a
    per-thread partial, warp shuffles (cuda.shfl_xor) and one exchange
    through shared memory between warps (for a sliced result, shuffles over
    the lanes that share a row and the exchange only where warps do). Kernels that do not qualify
    (gemm on a fragment, fragments exchanged with shared memory or read by
    other threads, shapes that do not share out evenly) are left for the
    generic SIMT path.
  }];
  let Options = [
    PassOption<"warp-size", "int", "32", "threads per warp">,
    PassOption<"vector-bytes", "int", "16", "bytes per global vector access">,
    PassOption<"max-elements-per-thread", "int", "128",
               "largest fragment share a thread keeps in registers">,
  ];
  let Constructor = "createRegisterFragmentsPass";
}

def LowerGemmToWGMMA : Pass<CUDAPasses, "hopper-lower-gemm-wgmma"> {
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
    edges). A gemm that does not qualify is left to the SIMT path (a
    missed remark, -pass-remarks-missed=hopper-lower-gemm-wgmma, says
    why); a cuda.wgmma that does not qualify is an error.

    A kernel whose only work is such a loop (no per-thread code of its
    own; at its top level allocations, lets, the accumulator's clear, the
    loop and copies of the accumulator to global memory; operands copied
    from rank-2 tensors; 1 to 3 warpgroups) is warp-specialized instead:
    it gets one more warpgroup, the producer (setmaxnreg.dec to 40), whose
    first thread fills the rings with cuda.tma_load boxes through tensor
    maps the runtime builds at launch, completing full[stage] mbarriers,
    while the kernel's own warpgroups (setmaxnreg.inc) wait on them, run
    wgmma, and release each stage on an empty[stage] mbarrier once its
    wgmma group has completed. Where TMA cannot read a tensor (data or
    rows not 16-byte aligned, tested at run time by cuda.tma_ready) the
    producer's 128 threads fill the stages with cuda.ldgsts instead.
    `warp-specialize=false`, or `pass.warp_specialize = false` on the
    function, keeps the cp.async ring. The warp-specialized kernel's first
    copy out goes through shared memory, laid over the spent B (or A) ring
    after a barrier of all consumers, where a ring of C's element type holds
    the tile: hopper-wgmma-fragments' staged copy (`pass.stage_copy_out =
    false` keeps the pairs).
  }];
  let Options = [
    PassOption<"warp-specialize", "bool", "true",
               "give kernels that qualify a TMA producer warpgroup",
               "pass.warp_specialize">,
    PassOption<"wgmma-groups-in-flight", "int", "-1",
               "wgmma groups left running while the next stage loads (0 or "
               "1; 1 needs 3 stages); -1: 1 from 4 stages, else 0",
               "pass.wgmma_groups_in_flight">,
    PassOption<"stage-copy-out", "bool", "true",
               "stage the warp-specialized GEMM's copy out through the spent "
               "operand ring in 16-byte chunks of whole rows, not 4-byte pairs",
               "pass.stage_copy_out">,
  ];
  let Constructor = "createLowerGemmToWGMMAPass";
}

def WGMMAFragments : Pass<CUDAPasses, "hopper-wgmma-fragments"> {
  let Summary = "Lower gemm chains whose fragments share the wgmma accumulator layout (FlashAttention) to wgmma";
  let Description = [{
    Runs after hopper-lower-gemm-wgmma. A kernel of whole warpgroups whose
    fragments are all [R, C] or [R], R the rows of its gemms' f32
    accumulators (a multiple of 64 per warpgroup), keeps every fragment in
    registers in the wgmma accumulator layout: gemms become wgmma.mma_async
    (A from a shared tile, or from a 16-bit fragment in registers with
    cuda.wgmma_mma_rs; clear_accum as scale-d = 0 on the first k-step),
    parallel loops over (R, C) or (R) become unrolled per-thread code on
    the thread's elements, reduces along dimension 1 a per-thread partial
    and two quad shuffles, copies between fragments per-thread conversions,
    copies out guarded paired stores, or, where a tile filled once and read
    only as the gemms' A operand (Q) is spent and of the right shape, staged
    through it: each warpgroup writes its rows there, waits on its own
    named barrier and stores them as 16-byte chunks of whole rows
    (pass.stage_copy_out = false keeps the pairs). Shared tiles the gemms read are
    filled by 16-byte cp.async copies in the swizzled layouts of the
    descriptors: once (wait and barrier at the copy), or, when copied in a
    serial or pipelined loop, as rings of `stages` buffers with a prologue
    and a wait, proxy fence, barrier and prefetch S - 1 iterations ahead
    before the first gemm that reads each tile; the loop's last gemm (P * V)
    is rotated behind the next iteration's first so that it overlaps the
    code between them (pass.wgmma_overlap = false keeps it in place).
    Kernels whose ring loop, tiles and statements allow it are
    warp-specialized: a producer warpgroup fills every tile (TMA, or
    cp.async where the tensors are not 16-byte aligned) on full/empty
    mbarriers while the kernel's warpgroups compute, with setmaxnreg on
    both roles (pass.warp_specialize = false keeps the cp.async rings).
    With pass.persistent = true a warp-specialized kernel is made
    persistent: its grid becomes the count of its tiles, host code
    launches as many blocks as the device runs at once, and each block
    loops over the tiles (the producer running ahead into the next tile's
    once tiles and ring while the consumers finish the current one). It is
    off by default: measured on an H100 (FlashAttention, S2048 and S8192)
    it was no faster than a block per tile. Kernels whose tiles differ in work (the ring loop's
    trip count depends on a block index: causal attention) keep a block
    per tile unless pass.persistent_uneven = true, which takes their tiles
    longest first. Kernels that do not qualify are left to the SIMT path; a missed
    remark (-pass-remarks-missed=hopper-wgmma-fragments) says why.
  }];
  let Options = [
    PassOption<"warp-specialize", "bool", "true",
               "warp-specialize kernels that qualify", "pass.warp_specialize">,
    PassOption<"wgmma-overlap", "bool", "true",
               "rotate the loop's last gemm behind the next iteration's first",
               "pass.wgmma_overlap">,
    PassOption<"warpgroup-pingpong", "bool", "false",
               "alternate the two consumer warpgroups' softmax and wgmma on "
               "named barriers", "pass.warpgroup_pingpong">,
    PassOption<"guard-masks", "bool", "true",
               "run a mask's parallel loop (stores of select(c, x, v) keeping "
               "x where c holds) only on the tiles where c can be false",
               "pass.guard_masks">,
    PassOption<"persistent", "bool", "false",
               "make warp-specialized kernels persistent: as many blocks as "
               "run at once, each looping over the grid's tiles (off: no "
               "faster on an H100)",
               "pass.persistent">,
    PassOption<"persistent-uneven", "bool", "false",
               "also make persistent the kernels whose tiles differ in work "
               "(causal attention), taking them longest first",
               "pass.persistent_uneven">,
    PassOption<"stage-copy-out", "bool", "true",
               "store a fragment to global memory through a spent operand "
               "tile in 16-byte chunks of whole rows, not 4-byte pairs",
               "pass.stage_copy_out">,
    PassOption<"double-buffer-once", "bool", "true",
               "give a persistent kernel's tiles filled once per tile (Q) two "
               "buffers where shared memory holds them, so that the producer "
               "loads the next tile's while the consumers read the current one's",
               "pass.double_buffer_once">,
  ];
  let Constructor = "createWGMMAFragmentsPass";
}

def MMAFragments : Pass<CUDAPasses, "cuda-mma-fragments"> {
  let Summary = "Lower gemm chains whose fragments share the mma.sync accumulator layout (FlashAttention) to mma.sync";
  let Description = [{
    The sm_80 form of hopper-wgmma-fragments (one implementation,
    WGMMAFragments.cpp), run after cuda-lower-gemm-mma on the gemms it
    leaves. The wgmma accumulator layout of a warpgroup's 64-row slice is,
    per warp, the mma.sync m16n8k16 accumulator layout of its 16 rows (n8
    tile j: locals 4j .. 4j + 3), and of a 16-bit fragment the A operand of
    its k-steps, so the same kernels qualify and keep every fragment in
    those registers: gemms become per-warp cuda.mma_sync with the shared
    operands read by ldmatrix.x4 (.trans for MN-major tiles) from the same
    swizzled stored tiles, an A fragment used in place; parallel loops,
    row reductions and copies are lowered as on Hopper; the tiles are
    filled by cp.async (rings in pipelined loops, no producer warpgroup, no
    proxy fences, no rotation: mma.sync is synchronous). Kernels that do
    not qualify are left to the SIMT path; a missed remark
    (-pass-remarks-missed=cuda-mma-fragments) says why. Copies out are
    staged through a spent operand tile as on Hopper.
  }];
  let Options = [
    PassOption<"stage-copy-out", "bool", "true",
               "store a fragment to global memory through a spent operand "
               "tile in 16-byte chunks of whole rows, not 4-byte pairs",
               "pass.stage_copy_out">,
  ];
  let Constructor = "createMMAFragmentsPass";
}
