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

def CUDAMbarrierInitOp : CUDAOp<"mbarrier_init"> {
  let Summary = "Initialize a shared-memory mbarrier with an arrival count";
  let Example = "cuda.mbarrier_init %bar, 1";
  let Arguments = (ins Region:$barrier, Expr:$count);
  let Format = "$barrier `,` $count attr-dict";
  let Verifier = "verifyCUDAMbarrierOp";
}

def CUDAMbarrierArriveOp : CUDAOp<"mbarrier_arrive"> {
  let Summary = "Arrive on an mbarrier, optionally expecting transaction bytes";
  let Example = "cuda.mbarrier_arrive %bar {tx_bytes = 16384}";
  let Arguments = (ins Region:$barrier,
                   IntAttr<"0", "bytes the phase also waits for (arrive.expect_tx)">:$tx_bytes);
  let Format = "$barrier attr-dict";
  let Verifier = "verifyCUDAMbarrierOp";
}

def CUDAMbarrierWaitOp : CUDAOp<"mbarrier_wait"> {
  let Summary = "Wait until an mbarrier completes the given phase parity";
  let Example = "cuda.mbarrier_wait %bar, %k % 2";
  let Arguments = (ins Region:$barrier, Expr:$phase);
  let Format = "$barrier `,` $phase attr-dict";
  let Verifier = "verifyCUDAMbarrierOp";
}

def CUDALdmatrixOp : CUDAOp<"ldmatrix"> {
  let Summary = "Load 8x8 matrices from shared memory into a fragment (ldmatrix)";
  let Example = "cuda.ldmatrix %As[0, %k * 16] -> %Af {num = x4}";
  let Arguments = (ins Region:$src, Region:$dst,
                   EnumAttr<["x1", "x2", "x4"], "x4", "matrices per instruction">:$num,
                   BoolAttr<"false", "transpose each 8x8 matrix">:$trans);
  let Format = "$src `->` $dst attr-dict";
}

def CUDASetmaxnregOp : CUDAOp<"setmaxnreg"> {
  let Summary = "Raise or lower the registers per thread of the current warpgroup";
  let Example = "cuda.setmaxnreg inc {count = 240}";
  let Arguments = (ins EnumAttr<["inc", "dec"], "", "raise or lower">:$action,
                   IntAttr<"", "registers per thread, 24 to 256, a multiple of 8">:$count);
  let Format = "$action attr-dict";
  let Verifier = "verifyCUDASetmaxnregOp";
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
  let Summary = "Load `width` consecutive global elements into per-thread registers";
  let Description = [{
    Reads elements src .. src + width - 1 (consecutive along the global
    buffer's last, contiguous dimension) and writes them, converted to the
    destination's element type, to dst .. dst + width - 1 of a local array.
    When the global address is aligned to width * element size the load is
    one vector access (ld.global.v4.b32 for 16 bytes); otherwise each
    element is loaded on its own. The caller guarantees that all elements
    are in range.
  }];
  let Example = "cuda.vload %X[%row, %col] -> %x[%c * 8] {width = 8}";
  let Arguments = (ins Region:$src, Region:$dst,
                   IntAttr<"", "elements per access: 1, 2, 4, 8 or 16, at most 16 bytes">:$width);
  let Format = "$src `->` $dst attr-dict";
  let Verifier = "verifyCUDAVecLoadOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def CUDAVecStoreOp : CUDAOp<"vstore"> {
  let Summary = "Store `width` per-thread register elements to consecutive global elements";
  let Description = [{
    The inverse of cuda.vload: elements src .. src + width - 1 of a local
    array, converted to the global buffer's element type, are written to
    dst .. dst + width - 1 along its last dimension, as one vector store
    when the address is aligned.
  }];
  let Example = "cuda.vstore %x[%c * 8] -> %Y[%row, %col] {width = 8}";
  let Arguments = (ins Region:$src, Region:$dst,
                   IntAttr<"", "elements per access: 1, 2, 4, 8 or 16, at most 16 bytes">:$width);
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

#endif // TILE_TARGET_CUDA_CUDAOPS_TD
