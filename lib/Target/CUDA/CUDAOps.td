//===- CUDAOps.td - The cuda dialect -------------------------*- tablegen -*-===//
//
// NVIDIA-specific tile ops that the CUDA and Hopper pipelines lower and no
// other backend accepts: warpgroup MMA, TMA bulk copies, mbarriers,
// ldmatrix and register reallocation. Written `cuda.<op>` in .tile files.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_CUDAOPS_TD
#define TILE_TARGET_CUDA_CUDAOPS_TD

include "tile/Target/DialectBase.td"

def CUDADialect : Dialect<"cuda"> {
  let Summary = "NVIDIA GPU ops, lowered by the CUDA and Hopper backends";
  let CppPrefix = "CUDA";
  let RegisterFn = "registerCUDAOps";
}

class CUDAOp<string mnemonic> : Op<CUDADialect, mnemonic>;

def CUDAWgmmaOp : CUDAOp<"wgmma"> {
  let Summary = "Warpgroup matrix multiply-accumulate: C += A * B (wgmma.mma_async)";
  let Description = [{
    One warpgroup (128 threads) multiplies A (shared memory or a fragment)
    by B (shared memory) into the fragment C. `wait` is the number of wgmma
    groups left in flight after this one is committed (wgmma.wait_group).
  }];
  let Example = "cuda.wgmma %As, %Bs -> %Cf {transpose_b = true}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c,
                   BoolAttr<"false", "A is stored transposed ([K, M])">:$transpose_a,
                   BoolAttr<"false", "B is stored transposed ([N, K])">:$transpose_b,
                   BoolAttr<"false", "zero C before accumulating">:$clear_accum,
                   IntAttr<"0", "wgmma groups left in flight">:$wait);
  let Format = "$a `,` $b `->` $c attr-dict";
  let Verifier = "verifyCUDAWgmmaOp";
}

def CUDATmaCopyOp : CUDAOp<"tma_copy"> {
  let Summary = "Bulk tensor copy between global and shared memory through the TMA";
  let Description = [{
    Copies a tile between a global buffer and a shared buffer with one TMA
    instruction issued by a single thread. Completion of a load is signalled
    on the mbarrier `barrier` (expect-tx with the tile's size in bytes).
  }];
  let Example = "cuda.tma_copy %A[%by * 128, %k * 64] -> %As, %bar";
  let Arguments = (ins Region:$src, Region:$dst, Region:$barrier,
                   EnumAttr<["none", "evict_first", "evict_last"], "none",
                            "L2 cache hint">:$cache_hint);
  let Format = "$src `->` $dst `,` $barrier attr-dict";
  let Verifier = "verifyCUDATmaCopyOp";
}

//===----------------------------------------------------------------------===//
// mbarriers and register reallocation: ops of the calling thread (or, for
// setmaxnreg, of its whole warpgroup), written in per-thread code. The
// warp-specialized Hopper GEMM (hopper-warp-specialize-gemm) produces them.
// An mbarrier is one 64-bit element of a shared u64 or i64 buffer.
//===----------------------------------------------------------------------===//

def CUDAMbarrierInitOp : CUDAOp<"mbarrier_init"> {
  let Summary = "Initialize a shared-memory mbarrier with an arrival count (mbarrier.init)";
  let Description = [{
    The calling thread initializes the mbarrier %barrier (phase 0, parity
    0) to complete a phase after `count` arrivals (1 to 2^20 - 1) and the
    transaction bytes announced for it. Other threads may use it after a
    cuda.fence_mbarrier_init and a block barrier.
  }];
  let Example = "cuda.mbarrier_init %bar[0], 1";
  let Arguments = (ins Region:$barrier, Expr:$count);
  let Format = "$barrier `,` $count attr-dict";
  let Verifier = "verifyCUDAMbarrierInitOp";
  let Elementwise = 1;
  let Writes = ["barrier"];
}

def CUDAMbarrierArriveOp : CUDAOp<"mbarrier_arrive"> {
  let Summary = "Arrive on an mbarrier, optionally expecting transaction bytes";
  let Description = [{
    One arrival of the calling thread on the current phase of %barrier
    (mbarrier.arrive); with `tx_bytes` (1 to 2^20 - 1) the phase also
    waits for that many bytes of asynchronous copies
    (mbarrier.arrive.expect_tx), which cuda.tma_load copies complete.
    With `per_warp`, executed by whole warps, only lane 0 arrives: a
    predicated instruction rather than a branch, so that no divergent
    code sits between the wgmma of a pipeline (ptxas would serialize
    them, C7514).
  }];
  let Example = "cuda.mbarrier_arrive %bar[0] {tx_bytes = 16384}";
  let Arguments = (ins Region:$barrier,
                   IntAttr<"0", "bytes the phase also waits for (arrive.expect_tx)">:$tx_bytes,
                   BoolAttr<"false", "one arrival per warp, by lane 0">:$per_warp);
  let Format = "$barrier attr-dict";
  let Verifier = "verifyCUDAMbarrierArriveOp";
  let Elementwise = 1;
  let Writes = ["barrier"];
}

def CUDAMbarrierWaitOp : CUDAOp<"mbarrier_wait"> {
  let Summary = "Wait until an mbarrier completes the given phase parity";
  let Description = [{
    The calling thread waits until the phase of %barrier whose parity is
    `phase` (0 or 1; only its lowest bit counts) has completed
    (mbarrier.try_wait.parity in a loop). A freshly initialized barrier
    counts the phase before its first, of parity 1, as complete. Memory
    that the arrivals and copies of the phase released is visible after
    the wait.
  }];
  let Example = "cuda.mbarrier_wait %bar[0], %k % 2";
  let Arguments = (ins Region:$barrier, Expr:$phase);
  let Format = "$barrier `,` $phase attr-dict";
  let Verifier = "verifyCUDAMbarrierOp";
  let Elementwise = 1;
}

def CUDASetmaxnregOp : CUDAOp<"setmaxnreg"> {
  let Summary = "Raise or lower the registers per thread of the current warpgroup";
  let Description = [{
    Executed by all 128 threads of a warpgroup together
    (setmaxnreg.{inc,dec}.sync.aligned). The kernel must consist of whole
    warpgroups; code generation gives it the register count at entry that
    ptxas needs (launch bounds with one block per multiprocessor), and the
    code of each register budget should sit on its own side of a branch
    on the warpgroup.
  }];
  let Example = "cuda.setmaxnreg inc {count = 240}";
  let Arguments = (ins EnumAttr<["inc", "dec"], "", "raise or lower">:$action,
                   IntAttr<"", "registers per thread, 24 to 256, a multiple of 8">:$count);
  let Format = "$action attr-dict";
  let Verifier = "verifyCUDASetmaxnregOp";
  let Elementwise = 1;
}

def CUDABarSyncOp : CUDAOp<"bar_sync"> {
  let Summary = "Wait at a named barrier of some of the block's warps (bar.sync id, threads)";
  let Description = [{
    The calling warp arrives at hardware barrier %id (1 to 15; 0 is the
    block barrier of `barrier`) and waits until `threads` threads (whole
    warps) have arrived there with cuda.bar_sync or cuda.bar_arrive; then
    the barrier starts over. Memory written before the arrivals is visible
    after the wait. Every thread of a warp executes it together.
  }];
  let Example = "cuda.bar_sync %wg + 1 {threads = 256}";
  let Arguments = (ins Expr:$id,
                   IntAttr<"", "threads that complete the barrier, whole warps">:$threads);
  let Format = "$id attr-dict";
  let Verifier = "verifyCUDANamedBarrierOp";
  let Elementwise = 1;
}

def CUDABarArriveOp : CUDAOp<"bar_arrive"> {
  let Summary = "Arrive at a named barrier without waiting (bar.arrive id, threads)";
  let Description = [{
    As cuda.bar_sync, but the calling warp goes on at once: it counts
    towards the `threads` arrivals that let the waiting warps through.
  }];
  let Example = "cuda.bar_arrive 2 {threads = 256}";
  let Arguments = (ins Expr:$id,
                   IntAttr<"", "threads that complete the barrier, whole warps">:$threads);
  let Format = "$id attr-dict";
  let Verifier = "verifyCUDANamedBarrierOp";
  let Elementwise = 1;
}

def CUDAFenceMbarrierInitOp : CUDAOp<"fence_mbarrier_init"> {
  let Summary = "Make this thread's mbarrier initializations visible to the async proxy and the block (fence.mbarrier_init)";
  let Example = "cuda.fence_mbarrier_init";
  let Format = "attr-dict";
  let Elementwise = 1;
}

def CUDATmaLoadOp : CUDAOp<"tma_load"> {
  let Summary = "One bulk tensor copy of a 2-D box from global to shared memory (cp.async.bulk.tensor)";
  let Description = [{
    Per-thread code, usually one thread of a producer warp. Copies the box
    of `box_rows` x `box_cols` elements of the global tensor %tensor whose
    first element is (%row, %col) (either may be negative or past the
    tensor's end: elements outside it read as zero) to %dst in shared
    memory, rows of `box_cols` elements one after another, with the
    `swizzle`-byte swizzle of the 16-byte chunks (the pattern wgmma's
    matrix descriptors read), and completes box_rows * box_cols * element
    size bytes of transactions on the mbarrier %barrier. %dst must be
    128-byte aligned in shared memory (1024-byte with a swizzle: the
    pattern follows the address). Code generation passes the kernel a
    tensor map of %tensor for each box shape, built by the runtime at
    launch; with `optional`, the kernel tests (cuda.tma_ready) that TMA can
    describe the tensor before it issues this copy. A tensor of rank 3 to 5
    is named with one index per dimension: the leading ones are the box's
    coordinates in those dimensions (the box is one element deep there),
    the last two are 0 (%row and %col give them).
  }];
  let Example = "cuda.tma_load %A, %m0, %k0 -> %As[%stage * 8192], %bar[%s] {box_rows = 128, box_cols = 64, swizzle = 128}";
  let Arguments = (ins Region:$tensor, Expr:$row, Expr:$col, Region:$dst,
                   Region:$barrier,
                   IntAttr<"", "rows of the box, 1 to 256">:$box_rows,
                   IntAttr<"", "elements per box row, 1 to 256, whole 16-byte chunks">:$box_cols,
                   IntAttr<"0", "swizzle span in bytes: 0, 32, 64 or 128">:$swizzle,
                   BoolAttr<"false", "the kernel tests the tensor with cuda.tma_ready first">:$optional);
  let Format = "$tensor `,` $row `,` $col `->` $dst `,` $barrier attr-dict";
  let Verifier = "verifyCUDATmaLoadOp";
  let Elementwise = 1;
  let Writes = ["dst", "barrier"];
}

def CUDATmaReadyOp : CUDAOp<"tma_ready"> {
  let Summary = "Whether TMA can read a global tensor: 16-byte aligned data and rows";
  let Description = [{
    Per-thread code. Writes 1 to the local %dst when the data of the
    global tensor %tensor starts at a multiple of 16 bytes and `pitch`,
    the elements from one of its rows to the next (its row length: a
    contiguous tensor of rank 2 to 5, whose outer strides are all
    multiples of it), is a multiple of 16 bytes, and no dimension of the
    tensor is empty, else 0: the test
    the runtime applies before it builds an optional tensor map
    (tile/Exec/TensorMap.h), so that the kernel uses the map only where it
    was built.
  }];
  let Example = "cuda.tma_ready %A, K -> %ok[0] {specialize = true}";
  let Arguments = (ins Region:$tensor, Expr:$pitch, Region:$dst,
                   BoolAttr<"false", "code generation also emits the kernel specialized for the test passing, which host code, making the test itself, launches where it does (LaunchFlags.h)">:$specialize);
  let Format = "$tensor `,` $pitch `->` $dst attr-dict";
  let Verifier = "verifyCUDATmaReadyOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDAStoreIfOp : CUDAOp<"store_if"> {
  let Summary = "Store one element or a pair where a condition holds: one predicated store, no branch";
  let Description = [{
    Per-thread code. Where %pred is nonzero, converts %src's elements (one,
    or two with an extent of 2) to the dtype of the global tensor %dst and
    stores them at %dst (a pair: there and at the next element) with one
    predicated st.global, a vector store for a pair; elsewhere it stores
    nothing. With `offset`, the elements stored are that many past %dst
    along its last dimension, an immediate offset of the PTX store: the
    stores of an unrolled row share one address register. A pair's
    address must be aligned to the pair's size, which the
    code that emits the op proves (an even element offset in rows of even
    length from a start that cuda.aligned tested). Unlike an `if` around a
    store, the op makes no branch: a fully unrolled guarded epilogue stays
    one basic block, which ptxas compiles in much less time than one
    block per store.
  }];
  let Example = "cuda.store_if %acc[4 : 2] -> %C[%row, %col], %row < M && %col + 8 < N {offset = 8}";
  let Arguments = (ins Region:$src, Region:$dst, Expr:$pred,
                   IntAttr<"0", "elements past %dst along its last dimension, 0 or more">:$offset);
  let Format = "$src `->` $dst `,` $pred attr-dict";
  let Verifier = "verifyCUDAStoreIfOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDAAlignedOp : CUDAOp<"aligned"> {
  let Summary = "Whether a global tensor's data starts at a multiple of some bytes";
  let Description = [{
    Per-thread code. Writes 1 to the local %dst when the data of the
    global tensor %tensor starts at a multiple of `bytes` (a power of two),
    else 0: one test before many accesses whose offsets are known to keep
    that alignment (a pair's cuda.store_if), in place of one test per
    access.
  }];
  let Example = "cuda.aligned %C -> %ok[0] {bytes = 4, specialize = true}";
  let Arguments = (ins Region:$tensor, Region:$dst,
                   IntAttr<"", "the alignment tested, a power of two from 2 to 256">:$bytes,
                   BoolAttr<"false", "code generation also emits the kernel specialized for the test passing, which host code, making the test itself, launches where it does (LaunchFlags.h)">:$specialize);
  let Format = "$tensor `->` $dst attr-dict";
  let Verifier = "verifyCUDAAlignedOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDALaunchedBlocksOp : CUDAOp<"launched_blocks"> {
  let Summary = "The number of blocks the launch runs (%nctaid.x): a persistent kernel's stride";
  let Description = [{
    Per-thread code. Writes to the local %dst the number of blocks of the
    kernel's launch, which has a grid of one dimension. A kernel that uses
    it is persistent: its grid is the count of its work tiles, and host
    code launches only as many blocks as the device runs at once (at most
    the grid; tile_rt_resident_blocks), each looping over the tiles
    blockIdx.x, blockIdx.x + this count, ... (hopper-wgmma-fragments
    makes FlashAttention's warp-specialized kernels persistent).
  }];
  let Example = "cuda.launched_blocks %n[0]";
  let Arguments = (ins Region:$dst);
  let Format = "$dst attr-dict";
  let Verifier = "verifyCUDALaunchedBlocksOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDALdgstsArriveOp : CUDAOp<"ldgsts_arrive"> {
  let Summary = "Arrive on an mbarrier once this thread's cp.async copies land (cp.async.mbarrier.arrive.noinc)";
  let Description = [{
    Per-thread code. The mbarrier %barrier receives one arrival of this
    thread when all of its earlier cuda.ldgsts copies have completed; the
    barrier's arrival count must include it.
  }];
  let Example = "cuda.ldgsts_arrive %bar[0]";
  let Arguments = (ins Region:$barrier);
  let Format = "$barrier attr-dict";
  let Verifier = "verifyCUDAMbarrierOp";
  let Elementwise = 1;
  let Writes = ["barrier"];
}

//===----------------------------------------------------------------------===//
// Per-thread SIMT ops (cuda-register-fragments)
//
// Elementwise ops of per-thread code: each thread of the block executes
// them on its own registers. cuda-register-fragments produces them for
// fragments it keeps in registers; the NVPTX code generator turns them into
// 128-bit global accesses and warp shuffles (NVPTXWarpOps.cpp).
//===----------------------------------------------------------------------===//

def CUDAVecLoadOp : CUDAOp<"vload"> {
  let Summary = "Load `width` consecutive global or shared elements into per-thread registers";
  let Description = [{
    Reads elements src .. src + width - 1 (consecutive along the global or
    shared buffer's last, contiguous dimension) and writes them, converted
    to the destination's element type, to dst .. dst + width - 1 of a local
    array. When the address is aligned to width * element size the load is
    one vector access (ld.global.v4.b32 or ld.shared.v4.b32 for 16 bytes);
    otherwise each element is loaded on its own. The caller guarantees that
    all elements are in range. With `aligned`, the caller also guarantees
    the alignment (a test made once, such as cuda.aligned) and the access
    is one vector access with no test of its own.
  }];
  let Example = "cuda.vload %X[%row, %col] -> %x[%c * 8] {width = 8}";
  let Arguments = (ins Region:$src, Region:$dst,
                   IntAttr<"", "elements per access: 1, 2, 4, 8 or 16, at most 16 bytes">:$width,
                   BoolAttr<"false", "the address is known aligned to the whole access: no run-time test">:$aligned);
  let Format = "$src `->` $dst attr-dict";
  let Verifier = "verifyCUDAVecLoadOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDAVecStoreOp : CUDAOp<"vstore"> {
  let Summary = "Store `width` per-thread register elements to consecutive global or shared elements";
  let Description = [{
    The inverse of cuda.vload: elements src .. src + width - 1 of a local
    array, converted to the global or shared buffer's element type, are
    written to dst .. dst + width - 1 along its last dimension, as one
    vector store when the address is aligned (always, with `aligned`).
  }];
  let Example = "cuda.vstore %x[%c * 8] -> %Y[%row, %col] {width = 8, aligned = true}";
  let Arguments = (ins Region:$src, Region:$dst,
                   IntAttr<"", "elements per access: 1, 2, 4, 8 or 16, at most 16 bytes">:$width,
                   BoolAttr<"false", "the address is known aligned to the whole access: no run-time test">:$aligned);
  let Format = "$src `->` $dst attr-dict";
  let Verifier = "verifyCUDAVecStoreOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDAShflXorOp : CUDAOp<"shfl_xor"> {
  let Summary = "Butterfly warp shuffle: read `value` of lane (lane ^ offset)";
  let Description = [{
    Every lane of the warp contributes `value` and receives, in the local
    element dst, the value of the lane whose index is its own xor `offset`
    (shfl.sync.bfly with a full member mask). All 32 lanes of the warp must
    execute it together. The destination holds at most 32 bits.
  }];
  let Example = "cuda.shfl_xor %p[0] -> %t[0] {offset = 16}";
  let Arguments = (ins Expr:$value, Region:$dst,
                   IntAttr<"", "lane xor mask, 1 to 31">:$offset);
  let Format = "$value `->` $dst attr-dict";
  let Verifier = "verifyCUDAShflXorOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

//===----------------------------------------------------------------------===//
// Warp-level tensor cores and asynchronous copies (sm_80+): the per-thread
// ops cuda-lower-gemm-mma produces. Each is executed by every thread of a
// warp together; its operands are the calling thread's view.
//===----------------------------------------------------------------------===//

def CUDALdmatrixOp : CUDAOp<"ldmatrix"> {
  let Summary = "Load 8x8 b16 matrices from shared memory into a thread's registers (ldmatrix)";
  let Description = [{
    Per-thread code executed by a whole warp. %src is the 16-byte row this
    thread supplies (threads 8i..8i+7 give the rows of matrix i; only
    threads 0..7 matter for x1, 0..15 for x2), 16-byte aligned in shared
    memory. %dst is the thread's local f16 or bf16 array: two elements per
    matrix, row lane/4, columns 2*(lane%4)+{0,1} of each matrix (of its
    transpose with `trans`).
  }];
  let Example = "cuda.ldmatrix %As[%row, %col] -> %af[0 : 8] {num = x4}";
  let Arguments = (ins Region:$src, Region:$dst,
                   EnumAttr<["x1", "x2", "x4"], "x4", "matrices per instruction">:$num,
                   BoolAttr<"false", "transpose each 8x8 matrix">:$trans);
  let Format = "$src `->` $dst attr-dict";
  let Verifier = "verifyCUDALdmatrixOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDAMmaSyncOp : CUDAOp<"mma_sync"> {
  let Summary = "One warp-level MMA, D = A * B + C, as the calling thread sees it (mma.sync)";
  let Description = [{
    Per-thread code executed by a whole warp: mma.sync.aligned.m16n8k16
    .row.col.f32 with f16 or bf16 A and B. %a holds the thread's eight A
    elements, %b its four B elements and %c its four f32 accumulators,
    which are read and overwritten with the result. With g = lane/4 and
    t = lane%4: a[0..1] = A[g][2t..2t+1], a[2..3] = A[g+8][2t..],
    a[4..5] = A[g][2t+8..], a[6..7] = A[g+8][2t+8..];
    b[0..1] = B[2t..2t+1][g], b[2..3] = B[2t+8..2t+9][g];
    c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..2t+1].
  }];
  let Example = "cuda.mma_sync %af[0 : 8], %bf[0 : 4] -> %acc[0 : 4]";
  let Arguments = (ins Region:$a, Region:$b, Region:$c,
                   EnumAttr<["m16n8k16"], "m16n8k16", "instruction shape (MxNxK)">:$shape);
  let Format = "$a `,` $b `->` $c attr-dict";
  let Verifier = "verifyCUDAMmaSyncOp";
  let Elementwise = 1;
  let Writes = ["c"];
}

def CUDACpAsyncOp : CUDAOp<"cp_async"> {
  let Summary = "Asynchronous 16-byte copy from global to shared memory (cp.async.cg)";
  let Description = [{
    Per-thread code. Starts copying 16 bytes from %src (global) to %dst
    (shared, 16-byte aligned); only the first `bytes` bytes (0 to 16) are
    read and the rest of the 16 are zero-filled, so a tile's edge reads
    nothing past the end of the tensor. The copy belongs to the thread's
    next cp_async_commit group. Where %src is not 16-byte aligned at run
    time the bytes are copied element by element, synchronously.
  }];
  let Example = "cuda.cp_async %A[%row, %col] -> %As[0, %r, %c], %bytes";
  let Arguments = (ins Region:$src, Region:$dst, Expr:$bytes);
  let Format = "$src `->` $dst `,` $bytes attr-dict";
  let Verifier = "verifyCUDACpAsyncOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDACpAsyncCommitOp : CUDAOp<"cp_async_commit"> {
  let Summary = "Close the thread's current group of cp.async copies (cp.async.commit_group)";
  let Example = "cuda.cp_async_commit";
  let Format = "attr-dict";
  let Elementwise = 1;
}

def CUDACpAsyncWaitOp : CUDAOp<"cp_async_wait"> {
  let Summary = "Wait until at most `pending` of the thread's cp.async groups are in flight";
  let Description = [{
    Per-thread code (cp.async.wait_group). The copies of the completed
    groups are visible to this thread; a barrier after it makes them
    visible to the block.
  }];
  let Example = "cuda.cp_async_wait {pending = 1}";
  let Arguments = (ins IntAttr<"0", "groups left in flight, 0 to 7">:$pending);
  let Format = "attr-dict";
  let Verifier = "verifyCUDACpAsyncWaitOp";
  let Elementwise = 1;
}

def CUDAStorePairOp : CUDAOp<"store_pair"> {
  let Summary = "Store two consecutive elements with one vector store";
  let Description = [{
    Per-thread code. Converts %src's two elements to %dst's dtype and
    stores them to %dst and the element after it with one 2-element vector
    store (32 bits for f16 and bf16) where %dst is aligned to twice its
    element size, with two element stores elsewhere. A %dst in a local
    array always takes the vector store, so that f32 to f16 or bf16 is one
    packed conversion (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32); so does one in
    shared memory, where the offset must be even (the CUDA emulator checks
    it).
  }];
  let Example = "cuda.store_pair %acc[4 : 2] -> %C[%row, %col]";
  let Arguments = (ins Region:$src, Region:$dst);
  let Format = "$src `->` $dst attr-dict";
  let Verifier = "verifyCUDAStorePairOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

//===----------------------------------------------------------------------===//
// Hopper: per-thread ops that hopper-lower-gemm-wgmma produces. They are
// written in per-thread code (every thread of the block runs them) and map
// one to one onto PTX instructions.
//===----------------------------------------------------------------------===//

def CUDAWgmmaMmaOp : CUDAOp<"wgmma_mma"> {
  let Summary = "One wgmma.mma_async m64nNk16 with A and B in shared memory";
  let Description = [{
    Issued by all 128 threads of a warpgroup together. A and B are shared
    buffers in the swizzled layouts the matrix descriptors describe; the
    descriptors start `a_offset` and `b_offset` bytes into them. %c is the
    thread's n/2 f32 accumulators in the wgmma D layout, read and
    overwritten asynchronously: a cuda.wgmma_commit and cuda.wgmma_wait
    must follow before anything else touches them. `swizzle_*` is the
    swizzle width in bytes (32, 64 or 128), `lbo_*`/`sbo_*` the leading
    and stride byte offsets, `mn_major_*` the transpose mode (A stored
    [K, M], B stored [K, N]).
  }];
  let Example = "cuda.wgmma_mma %As, %Bs -> %acc[0 : 64], %aoff, %boff {n = 128, swizzle_a = 64, sbo_a = 512, mn_major_b = true, swizzle_b = 128, lbo_b = 4096, sbo_b = 1024}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c, Expr:$a_offset, Expr:$b_offset,
                   IntAttr<"", "N of the instruction: a multiple of 8 from 8 to 256">:$n,
                   BoolAttr<"false", "A is MN-major (transposed)">:$mn_major_a,
                   BoolAttr<"false", "B is MN-major (transposed)">:$mn_major_b,
                   IntAttr<"128", "swizzle width of A in bytes">:$swizzle_a,
                   IntAttr<"128", "swizzle width of B in bytes">:$swizzle_b,
                   IntAttr<"16", "leading byte offset of A">:$lbo_a,
                   IntAttr<"1024", "stride byte offset of A">:$sbo_a,
                   IntAttr<"16", "leading byte offset of B">:$lbo_b,
                   IntAttr<"1024", "stride byte offset of B">:$sbo_b,
                   BoolAttr<"false", "overwrite C with A * B (scale-d = 0)">:$zero_c);
  let Format = "$a `,` $b `->` $c `,` $a_offset `,` $b_offset attr-dict";
  let Verifier = "verifyCUDAWgmmaMmaOp";
  let Elementwise = 1;
  let Writes = ["c"];
}

def CUDAWgmmaMmaRsOp : CUDAOp<"wgmma_mma_rs"> {
  let Summary = "One wgmma.mma_async m64nNk16 with A in registers and B in shared memory";
  let Description = [{
    Issued by all 128 threads of a warpgroup together. %a is the thread's
    eight A elements (f16 or bf16, a local array region of 8) in wgmma's
    register layout of A: with warp w of the warpgroup and lane l,
    a[i] = A[16w + l/4 + 8*((i/2)%2)][2*(l%4) + i%2 + 8*(i/4)], which is
    the f32 accumulator layout of the 16 columns of one k-step converted
    element by element. B and the accumulators are as for
    cuda.wgmma_mma; a cuda.wgmma_fence of %a's array must come before it
    when code wrote %a since the last wgmma.
  }];
  let Example = "cuda.wgmma_mma_rs %pf[8 : 8], %Vs -> %acc[0 : 64], %boff {n = 128, mn_major_b = true, lbo_b = 8192}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c, Expr:$b_offset,
                   IntAttr<"", "N of the instruction: a multiple of 8 from 8 to 256">:$n,
                   BoolAttr<"false", "B is MN-major (transposed)">:$mn_major_b,
                   IntAttr<"128", "swizzle width of B in bytes">:$swizzle_b,
                   IntAttr<"16", "leading byte offset of B">:$lbo_b,
                   IntAttr<"1024", "stride byte offset of B">:$sbo_b,
                   BoolAttr<"false", "overwrite C with A * B (scale-d = 0)">:$zero_c);
  let Format = "$a `,` $b `->` $c `,` $b_offset attr-dict";
  let Verifier = "verifyCUDAWgmmaMmaRsOp";
  let Elementwise = 1;
  let Writes = ["c"];
}

def CUDAWgmmaFenceOp : CUDAOp<"wgmma_fence"> {
  let Summary = "Order register accesses before the following wgmma.mma_async (wgmma.fence)";
  let Description = [{
    %acc is a local array the following wgmma.mma_async use (f32
    accumulators, or f16/bf16 A registers of cuda.wgmma_mma_rs): code
    generation completes every write of it before the fence.
  }];
  let Example = "cuda.wgmma_fence %acc";
  let Arguments = (ins Region:$acc);
  let Format = "$acc attr-dict";
  let Verifier = "verifyCUDAWgmmaAccOperand";
  let Elementwise = 1;
}

def CUDAWgmmaCommitOp : CUDAOp<"wgmma_commit"> {
  let Summary = "Close the group of wgmma.mma_async issued so far (wgmma.commit_group)";
  let Example = "cuda.wgmma_commit";
  let Format = "attr-dict";
  let Elementwise = 1;
}

def CUDAWgmmaWaitOp : CUDAOp<"wgmma_wait"> {
  let Summary = "Wait until at most `pending` wgmma groups are in flight (wgmma.wait_group)";
  let Description = [{
    %acc is the local accumulator array the groups write: code generation
    keeps every read of it after the wait (and none in between the
    wgmma.mma_async that writes it and this wait).
  }];
  let Example = "cuda.wgmma_wait %acc {pending = 0}";
  let Arguments = (ins Region:$acc,
                   IntAttr<"0", "groups left in flight, 0 to 7">:$pending);
  let Format = "$acc attr-dict";
  let Verifier = "verifyCUDAWgmmaWaitOp";
  let Elementwise = 1;
}

def CUDALdgstsOp : CUDAOp<"ldgsts"> {
  let Summary = "Asynchronous 16-byte global-to-shared copy with zero fill (cp.async.cg)";
  let Description = [{
    Copies the first `count` elements (0 up to 16 bytes' worth) of the 16
    bytes at %src to %dst and zero-fills the rest of the 16 bytes; with
    count 0 nothing is read. %dst must be 16-byte aligned. When %src is
    not 16-byte aligned the copy is done element by element (synchronous).
    Completion is tracked by cuda.ldgsts_commit / cuda.ldgsts_wait.
    With `full`, the producer promises that all 16 bytes are inside the
    tensor (count is ignored) and that %src is 16 bytes past a multiple of
    16 from the tensor's start: only the start's alignment is tested, a
    test that does not depend on the chunk.
  }];
  let Example = "cuda.ldgsts %A[%row, %col] -> %As[%off], %n";
  let Arguments = (ins Region:$src, Region:$dst, Expr:$count,
                   BoolAttr<"false", "the 16 bytes are inside the tensor, at a multiple of 16 bytes from its start">:$full);
  let Format = "$src `->` $dst `,` $count attr-dict";
  let Verifier = "verifyCUDALdgstsOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDALdgstsCommitOp : CUDAOp<"ldgsts_commit"> {
  let Summary = "Close the group of cuda.ldgsts issued so far (cp.async.commit_group)";
  let Example = "cuda.ldgsts_commit";
  let Format = "attr-dict";
  let Elementwise = 1;
}

def CUDALdgstsWaitOp : CUDAOp<"ldgsts_wait"> {
  let Summary = "Wait until at most `pending` cuda.ldgsts groups are in flight (cp.async.wait_group)";
  let Example = "cuda.ldgsts_wait {pending = 1}";
  let Arguments = (ins IntAttr<"0", "groups left in flight, 0 to 7">:$pending);
  let Format = "attr-dict";
  let Verifier = "verifyCUDAPendingAttr";
  let Elementwise = 1;
}

def CUDAFenceProxyAsyncOp : CUDAOp<"fence_proxy_async"> {
  let Summary = "Make this thread's shared-memory writes visible to the async proxy (wgmma, TMA)";
  let Example = "cuda.fence_proxy_async";
  let Format = "attr-dict";
  let Elementwise = 1;
}

#endif // TILE_TARGET_CUDA_CUDAOPS_TD
