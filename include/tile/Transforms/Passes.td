//===- Passes.td - Shared passes of lib/Transforms ---------*- tablegen -*-===//
//
// Passes any backend's pipeline may use. A pass used by one backend only is
// declared in that backend's folder instead.
//
//===----------------------------------------------------------------------===//

include "tile/Transforms/PassBase.td"

def TransformsPasses : PassGroup<"registerTransformsPasses">;

def Simplify : Pass<TransformsPasses, "tile-simplify"> {
  let Summary = "Fold constants and simplify expressions and control flow";
  let Description = [{
    Folds integer and boolean arithmetic on literals, applies identities
    (x + 0, x * 1, x * 0 for integers, min/max/ceildiv of constants, select
    on a constant condition), removes `if` statements with a constant
    condition when the taken branch defines no names, removes loops that
    run zero times, and deletes `let` bindings nobody uses.
  }];
  let Constructor = "createSimplifyPass";
}

def LowerPipelined : Pass<TransformsPasses, "tile-lower-pipelined"> {
  let Summary = "Turn pipelined loops into serial loops";
  let Description = [{
    For backends without asynchronous copies: a pipelined loop runs its
    iterations in order, so it becomes a serial loop and its schedule
    options are dropped.
  }];
  let Constructor = "createLowerPipelinedPass";
}

def LowerTileOps : Pass<TransformsPasses, "tile-lower-tile-ops"> {
  let Summary = "Lower tile ops to loops over elements";
  let Description = [{
    Rewrites copy, fill, clear, gemm, reduce, cumsum and atomic into loop
    nests of element loads and stores: parallel loops over the elements of
    a region, serial loops along reduced dimensions. Global-memory accesses
    are guarded as the language requires (out-of-range source elements
    read as zero, out-of-range destination elements are not written); each
    guarded nest is preceded by a check that the whole tile is in range,
    which selects a copy of the nest without guards. gemm becomes an i-k-j
    nest (i-j-k when B is transposed) accumulating in the accumulator's
    dtype; with gemm-parallel-c, an i-j-k nest always.
  }];
  let Options = [
    PassOption<"skip-gemm", "bool", "false",
               "leave gemm for a backend-specific lowering">,
    PassOption<"gemm-parallel-c", "bool", "false",
               "lower every gemm to one parallel loop over C's elements, each "
               "accumulating along K in a variable (the i-j-k nest), so that "
               "the thread that owns an element of C computes it">,
    PassOption<"split-full-tiles", "bool", "true",
               "emit an unguarded copy of each guarded nest for tiles fully in range">,
  ];
  let Constructor = "createLowerTileOpsPass";
}

def LowerReduceToSubgroups : Pass<TransformsPasses, "tile-lower-reduce-subgroups"> {
  let Summary = "Spread the rows of few-row reduces over the block's subgroups";
  let Description = [{
    Runs before tile-lower-tile-ops. A reduce along the last dimension of a
    whole fragment or shared buffer of rank 1 or 2 with few rows (at most
    one per subgroup-size threads; one when the device picks the subgroup
    size), accumulating in f32, i32 or u32, becomes per-thread code: each
    thread combines the elements of a row at its index plus multiples of
    the thread count, the target's subgroup-reduce op (reduce-op: an op
    `value -> dst[0] {kind}` that combines the value over the subgroup)
    combines the subgroup's partials, one value per subgroup goes to a
    [rows, slots] fragment, and after a barrier the original reduce
    combines that fragment into its destination. With subgroup-size 0
    the op gets first_only = true (the result on the subgroup's first
    invocation, the identity elsewhere) and every thread writes a slot.
    Reduces that do not qualify keep the plain lowering with a missed
    remark; without a reduce-op, the remark gives `unavailable` as the
    reason.
  }];
  let Options = [
    PassOption<"reduce-op", "string", "",
               "the target op that reduces a value over a subgroup (empty: none)">,
    PassOption<"subgroup-size", "int", "0",
               "threads per subgroup, fixed at compile time (0: the device picks it)">,
    PassOption<"unavailable", "string", "",
               "why the target has no reduce-op, for the missed remark">,
  ];
  let Constructor = "createLowerReduceToSubgroupsPass";
}

def LowerToSIMT : Pass<TransformsPasses, "tile-lower-to-simt"> {
  let Summary = "Make a block-level kernel run as per-thread (SIMT) code";
  let Description = [{
    For GPU-style targets, after tile ops are lowered to loops: parallel
    loops are distributed over the block's threads (thread %tx takes
    iterations %tx, %tx + T, ...), block-level stores and element atomics
    are done by thread 0, and a barrier follows every block-level statement
    that touches shared memory. With private-fragments, a fragment that
    only its owner thread touches under this partition (the loops that
    index it share out the dimensions it is owned by and run the others
    on each thread) becomes a per-thread local array, and a missed remark
    names each fragment that cannot and why. With fragments-in-shared, the
    other fragments move to shared memory so that every thread can read any
    element; backends that infer register layouts keep them instead. With
    shared-memory-limit, a block whose shared buffers would exceed the
    limit reads its largest shared tiles from global memory instead of
    staging them, while that is needed and possible: a tile written by one
    parallel loop (or a full-tile test choosing between two) as a function
    of its indices, of values and of tensors the kernel does not write,
    and read only after that in the same block. Each read becomes that
    function at the read's indices; a missed remark names each such tile.
  }];
  let Options = [
    PassOption<"fragments-in-shared", "bool", "true",
               "place fragments in shared memory">,
    PassOption<"private-fragments", "bool", "false",
               "keep fragments only their owner thread touches in per-thread memory">,
    PassOption<"shared-memory-limit", "int", "0",
               "bytes of shared memory a block may use (0: no limit); over it, "
               "shared tiles filled from read-only global memory are read from there">,
    PassOption<"wide-16bit-floats", "bool", "false",
               "f16 and bf16 take 4 bytes in shared memory (held as f32)">,
  ];
  let Constructor = "createLowerToSIMTPass";
}

def RasterizeGrid : Pass<TransformsPasses, "tile-rasterize-grid"> {
  let Summary = "Launch the blocks of raster_swizzle kernels in panels of rows";
  let Description = [{
    Implements the kernel attribute `raster_swizzle = P`: the blocks of a
    grid(gx, gy[, gz]) are taken in panels of P rows of blocks, column by
    column within a panel (the last panel holds the gy % P rows left), so
    that the blocks running at one time share their A and B tiles in L2.
    The grid becomes grid(gx * gy[, gz]) with one block index %bid, and lets
    at the top of the kernel recompute %bx and %by from it:
    panel_blocks = min(P, gy) * gx, panel = bid / panel_blocks,
    rows = min(P, gy - panel * P), in = bid % panel_blocks,
    by = panel * P + in % rows, bx = in / rows. With
    flatten=false the grid keeps its dimensions and the kernel computes
    %bid = %by * gx + %bx first, for targets that cap each grid dimension.
    The attribute is removed; kernels without it are left alone, and a
    1-D grid or P = 1 is already in panel order (only the attribute goes).
    With gemm-panel=P > 1, a kernel without the attribute whose grid has
    two or more dimensions and which issues a gemm is taken in panels of P
    rows as if it said raster_swizzle = P (a passed remark says so).
  }];
  let Options = [
    PassOption<"flatten", "bool", "true",
               "launch gx * gy blocks in one grid dimension (false: keep the grid's dimensions)">,
    PassOption<"gemm-panel", "int", "1",
               "panel height for kernels with a gemm and no raster_swizzle (1: launch order)">,
  ];
  let Constructor = "createRasterizeGridPass";
}

def PlanSharedMemory : Pass<TransformsPasses, "tile-plan-shared-memory"> {
  let Summary = "Let shared buffers whose uses a barrier separates share bytes";
  let Description = [{
    The last pass of a GPU pipeline: places every shared buffer of a kernel
    (`offset = N` on its allocation, bytes into the block's shared memory)
    so that buffers share bytes when a `barrier` at the kernel's top level
    lies between the last top-level statement (a loop or an `if` is one)
    that touches one and the first that touches the other. Buffers that a
    target-dialect op touches (asynchronous copies, wgmma, TMA, mbarriers,
    ...) keep the offsets they have without a plan and share with nothing;
    the others are placed in allocation order at the lowest 16-byte
    aligned offset free of every buffer they may not share with, which is
    never above their offset without a plan. Kernels whose shared
    allocations have offsets already are left alone. An analysis remark
    per buffer (-pass-remarks-analysis=tile-plan-shared-memory) gives its
    bytes and why it shares them or not.
  }];
  let Constructor = "createPlanSharedMemoryPass";
}
