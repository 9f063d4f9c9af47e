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

#endif // TILE_TARGET_CUDA_CUDAOPS_TD
