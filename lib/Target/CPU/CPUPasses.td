//===- CPUPasses.td - Passes of the CPU backend ------------*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def CPUPasses : PassGroup<"registerCPUPasses">;

def MaterializeLaunch : Pass<CPUPasses, "cpu-materialize-launch"> {
  let Summary = "Run a block's threads one after another";
  let Description = [{
    On a CPU one task runs a whole block. Statements that depend on the
    thread index are grouped into maximal runs, and each run becomes a
    loop over the block's threads; thread-dependent lets that a later run
    uses are recomputed in it. Barriers separate runs, so they are
    removed, and the kernel no longer binds a thread index. Threads do
    not depend on each other between barriers, so the loop is `parallel`
    (LLVM vectorizes it across threads) unless the run uses a local
    buffer, variable or fragment allocated outside it (one array for all
    threads on the CPU) or an op (an atomic); then it is `serial`, and a
    missed remark says why. A run that computes lets and then does
    everything under one guard that holds for every thread when it holds
    for the first and the last (comparisons of a side monotone in the
    thread with one that does not vary, joined by &&: a bounds check)
    is emitted twice, without the guard for blocks where it holds
    throughout and with it otherwise (a passed remark says so).
  }];
  let Constructor = "createMaterializeLaunchPass";
}

def CPULowerGemm : Pass<CPUPasses, "cpu-lower-gemm"> {
  let Summary = "Lower gemm to register-blocked loops for FMA micro-kernels";
  let Description = [{
    Cuts C into MR x NR blocks. Each block is accumulated in a `local`
    buffer over the whole K extent by a serial loop whose body is an
    unrolled column-outer, row-inner nest of multiply-adds, then written
    back (or, with clear_accum, started from zero). Where NR is a multiple
    of the vector length and the accumulator is f32 or f64, the nest is
    written in vectors: each row of the block is loaded and stored by
    `cpu.copy_lanes`, and each K step is one `cpu.fma` (a broadcast of A
    times a vector load of B) per vector of a row. Otherwise it is scalar
    multiply-adds, which LLVM's SLP vectorizer turns into the same vector
    FMAs at a much higher compile time, with a missed remark saying why.
    After unrolling LLVM keeps the block in vector registers. B is
    packed first into a `local` [K, N] buffer of the accumulator's type
    when its rows are not contiguous in that type (transpose_b, strides,
    a narrower dtype); A is packed only to convert it. Blocks at the
    edges take the remaining rows and columns. By default NR is two
    vector registers of the accumulator's type and MR the most rows (at
    most 8) whose accumulators, broadcasts of A and a vector of B fit the
    vector registers, as LLVM's cost model for the target describes them,
    at the vector width the kernel is compiled for (the widest the CPU has
    unless the kernel computes a math function lane by lane: 8 x 32 for
    f32 with AVX-512); without a target, as for AVX2 (256-bit, 16
    registers: 4 x 16 for f32).

    A gemm of bf16 A and B into f32 on a CPU with AVX512-BF16, in a
    kernel compiled for 512-bit vectors, may run on vdpbf16ps instead.
    With `bf16-dot=auto` (`pass.bf16_dot` per function) it does where
    vdpbf16ps (32 multiply-adds an instruction) retires more multiply-adds
    a cycle than vfmadd231ps on f32 (16) with the accumulators of the
    default register block, as LLVM's scheduling model of the CPU times
    them unless CPU.td records a measured timing (InstrTiming); a tie goes
    to the FMAs (cooperlake, znver4: vdpbf16ps; sapphirerapids,
    emeraldrapids, graniterapids, znver5: FMAs).
    `on` takes vdpbf16ps wherever the CPU has it, `off` never. Otherwise
    A and B are converted to f32 first: rows of A and of a B stored [K, N]
    by `cpu.widen_bf16` (16 elements a vector), a B stored [N, K] on-chip
    by `cpu.transpose_pairs` into pairs of K steps, whose rows
    `cpu.widen_bf16 {pairs = true}` splits into two rows of f32; other
    operands (transposed A, strided or transposed global B) element by
    element, with a missed remark. On vdpbf16ps, B is
    packed as bf16 pairs of K steps ([K/2, N] pairs, N padded with zeros
    to 16 columns, an odd K with a zero step), whole 16 x 16 blocks of
    pairs of a transposed on-chip B by `cpu.transpose_pairs`; A is read
    in place as pairs unless it is transposed, strided or of odd K; each
    K pair of a register block is one `cpu.dpbf16ps` per row and 16
    columns. A passed remark says so; a missed remark says why not
    where the operands are bf16 but the path is not taken. A
    `cpu.dpbf16ps` in the input for a CPU without AVX512-BF16 is a
    located error.

    In a serial or pipelined loop over %v (a K loop) whose body copies
    tiles of global tensors
    indexed by %v into the gemm's A or B before the gemm, the gemm
    prefetches (`cpu.prefetch`, into L2) the tiles those copies read at %v
    + `prefetch-distance`: the lines of each tile are spread evenly over
    the micro-kernels, each starting with its share, so that the next
    step's copies read from the cache instead of waiting for memory.
  }];
  let Options = [
    PassOption<"mr", "int", "0",
               "rows of a register block (0: from the target's vector registers)">,
    PassOption<"nr", "int", "0",
               "columns of a register block (0: two vector registers)">,
    PassOption<"prefetch-distance", "int", "1",
               "iterations ahead whose copied operand tiles the gemm prefetches (0: none)">,
    PassOption<"bf16-dot", "string", "auto",
               "bf16 gemms on vdpbf16ps: auto (where LLVM's scheduling model "
               "says it is faster than f32 FMAs), on (where the CPU has it), "
               "off (converted to f32)", "pass.bf16_dot", ["auto", "on", "off"]>,
  ];
  let Constructor = "createCPULowerGemmPass";
}

def CPUFuseElementwise : Pass<CPUPasses, "cpu-fuse-elementwise"> {
  let Summary = "Fuse element-wise runs over fragments into loops over global memory";
  let Description = [{
    A run is a sequence of consecutive statements over one element domain:
    copies between a whole fragment and a global region, fills, parallel
    loops that store to fragments at the loop's own index, and reductions
    of a fragment along its innermost dimension; a statement of another
    domain that the run neither depends on nor affects, followed by one
    that joins the run, moves before the run (a GEMV's copy of x between
    the copy of A's tile and the products). When every use of a
    fragment lies in such runs and each run writes an element of it before
    reading it, the fragment becomes one scalar per element and the run one
    loop nest that reads and writes global memory directly, emitted twice:
    unguarded when the whole tile is in range, and with copy's guards
    (out-of-range reads are zero, out-of-range writes are dropped)
    otherwise. Reductions accumulate into `lanes` partial results combined
    after the nest, so that they vectorize without reassociation; those of
    a reduction that accumulates into its destination (clear = false) in
    every iteration of the serial loop whose body is its run, and whose
    destination nothing else in the loop uses, live across the loop and
    are combined once after it (a passed remark; a missed one says why
    not). A
    fragment that stays an array gets a missed remark at the statement
    that keeps it (-pass-remarks-missed=cpu-fuse-elementwise). In a run
    of rows (a reduction along each, rows walked by a serial loop) inside
    a serial loop over %v whose copies read a global tensor at a
    %v-dependent offset, each row of the unguarded nest first prefetches
    (`cpu.prefetch`, into L2) the lines the same row reads at %v + 1: a
    GEMV's rows lie a row of A apart, more streams than the hardware
    prefetchers follow. Max and min of partial results, which are never
    NaN, are a compare and select (one vmaxps); those of f16 values
    (an f16 tensor read into an f32 fragment) are kept in f16 where the
    CPU computes on f16 vectors (AVX512-FP16: one vmaxph per 32 elements,
    the same result), with a remark either way. Runs
    that do not qualify are left to tile-lower-tile-ops, except their
    reductions of a whole on-chip buffer along its innermost dimension
    into a whole buffer (softmax's max and sum over its running tile),
    which walk each row in vectors of partial results the same way.
  }];
  let Options = [
    PassOption<"lanes", "int", "0",
               "partial results per reduction (0: four vector registers of the target)">,
  ];
  let Constructor = "createCPUFuseElementwisePass";
}

def CPUCoarsenGrid : Pass<CPUPasses, "cpu-coarsen-grid"> {
  let Summary = "Give each CPU task a contiguous range of blocks";
  let Description = [{
    Divides the grid's first dimension into at most `tasks` contiguous
    ranges: the kernel's first block index then counts ranges, and a
    serial loop inside runs the range's blocks one after another (the
    kernel's allocations stay at its top). Fewer, larger tasks take fewer
    trips through the thread pool, and each core reads long runs of
    consecutive memory that its prefetchers follow. Kernels that still
    bind a thread index are left alone.
  }];
  let Options = [
    PassOption<"tasks", "int", "256",
               "most tasks per launch along the grid's first dimension">,
  ];
  let Constructor = "createCPUCoarsenGridPass";
}

def CPUHoistRowInvariant : Pass<CPUPasses, "cpu-hoist-row-invariant"> {
  let Summary = "Widen a vector that every block of a task reads once per task";
  let Description = [{
    In a serial loop over %v at the top of a kernel (after
    cpu-coarsen-grid, the loop over a task's blocks), loads of a
    one-dimensional global tensor of a narrow float type (f16, bf16) that
    the kernel never writes, converted to a wider float type at an index
    without %v (loop variables of the loop's own nests, symbolic
    dimensions and scalar parameters only), read a local array of
    `max-elements` elements instead, filled once per task: RMSNorm's and
    LayerNorm's weight and bias, converted again for every row otherwise.
    The loop is versioned: the rewritten one runs when every such tensor
    fits the array and the task runs at least two iterations, the original
    otherwise. A passed remark names each tensor converted once per task,
    a missed remark says why a widening load at a %v-free index is not.
    The default array (4096 f32, 16 KiB) leaves room in a 32 KiB L1 for
    the row: one of 8192 f32 made RMSNorm of 8192 columns slower on one
    thread of an AMD EPYC, while 1024 and 4096 columns ran faster.
  }];
  let Options = [
    PassOption<"max-elements", "int", "4096",
               "elements of each local array (the longest tensor widened once per task)">,
  ];
  let Constructor = "createCPUHoistRowInvariantPass";
}

def CPUPrefetchNextBlock : Pass<CPUPasses, "cpu-prefetch-next-block"> {
  let Summary = "Prefetch the next block's input while a block reads it again";
  let Description = [{
    In a serial loop over %v (after cpu-coarsen-grid, the loop over a
    task's blocks) whose body reads a global tensor at a %v-dependent index
    in two or more of its statements (a first pass streams it from memory,
    a later one reads it again from the cache, as RMSNorm's and softmax's
    passes do), each innermost parallel loop of the later statements that
    walks the tensor's innermost dimension prefetches (`cpu.prefetch`) the
    same elements for iteration %v + `distance`: a long loop is cut into
    chunks of `lines` cache lines of the narrowest such tensor, each
    starting with the prefetches of its lines; a loop of at most one chunk
    is preceded by those of its lines. The later pass then keeps memory
    reads going while it computes and writes, and the next iteration's
    first pass reads from the cache. A loop longer than a chunk whose
    extent is not a multiple of one is left alone. The line size is the
    target's (LLVM's cost model; 64 bytes without a target). The defaults
    (one iteration ahead, into L2, 8 lines per chunk) were the fastest for
    RMSNorm on a Xeon with AVX-512 (docs/Performance.md).
  }];
  let Options = [
    PassOption<"distance", "int", "1",
               "iterations of the serial loop to prefetch ahead">,
    PassOption<"locality", "int", "2",
               "temporal locality of the prefetches, 0 (none) to 3 (all cache levels)">,
    PassOption<"lines", "int", "8",
               "cache lines per chunk of a long parallel loop">,
  ];
  let Constructor = "createCPUPrefetchNextBlockPass";
}

def CPUReuseExp : Pass<CPUPasses, "cpu-reuse-exp"> {
  let Summary = "Read a later pass's exp from the values an earlier pass computed";
  let Description = [{
    Where a serial loop over tiles %t computes exp(x - a) of every element
    x of a global tensor's tile (x at column %t * T + an offset that the
    loops of its nest, from 0 to constants, walk once each; a one value
    for the nest), and a later serial loop of the same block computes
    exp(x - b) of elements of the same rows and tiles (b one value for its
    nest), the first loop keeps its values in a local array of
    `max-elements` elements (the last max-elements / T tiles of the pass,
    each slot marked with its tile and its a) and the later loop reads
    exp(x - a) * exp(a - b) from it, in a copy of its nest taken where the
    slot holds the tile and a <= b (both finite), a quotient or product by
    a value of the nest folded into the scale: softmax's output pass no
    longer computes an exp per element. Otherwise the nest as it was runs.
    The tensor must be one the kernel never writes. A passed remark marks
    each exp kept and each exp read from the array; a missed remark says
    why an exp of a tensor's element, in a serial loop that another serial
    loop precedes, is computed again.
  }];
  let Options = [
    PassOption<"max-elements", "int", "4096",
               "elements of the local array of each tensor's exp values">,
  ];
  let Constructor = "createCPUReuseExpPass";
}
