//===- WarpSpecializedGemm.h - Producer/consumer Hopper GEMM ----*- C++ -*-===//
//
// The second code generator of hopper-lower-gemm-wgmma: a kernel whose
// only work is one planned gemm K loop becomes a warp-specialized kernel
// with one more warpgroup, a producer that fills the operand rings through
// TMA (or cp.async when the tensors' data or rows are not 16-byte
// aligned) while the original warpgroups, the consumers, run wgmma on
// full stages and release them through mbarriers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_WARPSPECIALIZEDGEMM_H
#define TILE_LIB_TARGET_CUDA_WARPSPECIALIZEDGEMM_H

#include "WGMMAGemmPlan.h"
#include <string>

namespace tile {
namespace hopper {

/// Registers per thread of the producer warpgroup after setmaxnreg.dec.
constexpr int64_t ProducerRegisters = 40;

/// Registers per consumer thread after setmaxnreg.inc, at most 240. The
/// block starts with the registers ptxas caps the kernel at (64K over its
/// threads, a multiple of 8, at most 248); setmaxnreg.inc waits until the
/// block's pool has the registers it asks for, and the pool holds only
/// what the producer warpgroup gave back by lowering to \p Producer. A
/// count above that leaves the consumers waiting forever.
inline int64_t consumerRegisters(int64_t ConsumerWarpgroups,
                                 int64_t Producer = ProducerRegisters) {
  int64_t Threads = 128 * (ConsumerWarpgroups + 1);
  int64_t Entry = 65536 / Threads / 8 * 8;
  Entry = Entry < 248 ? Entry : 248;
  int64_t R = (Entry + (Entry - Producer) / ConsumerWarpgroups) / 8 * 8;
  return R < 240 ? R : 240;
}

struct WarpSpecializeOptions {
  /// wgmma groups each consumer iteration leaves in flight (0 or 1) before
  /// it releases the stage of the oldest one.
  int64_t GroupsInFlight = 1;
};

/// Whether kernel \p K, whose only gemm K loop is planned as \p P, has the
/// shape the warp-specialized kernel takes: no per-thread code of its own,
/// room for a producer warpgroup, a top level of allocations, lets, the
/// accumulator's clear or fill, the K loop and whole copies of the
/// accumulator to global memory, and operands copied from rank-2 tensors.
/// False with the reason in \p Why.
bool canWarpSpecialize(const KernelStmt &K, const GemmPlan &P,
                       const CopyDimsMap &CopyDims, std::string &Why);

/// Rewrites \p K (canWarpSpecialize holds) into the warp-specialized
/// kernel: threads + 128 threads, the last warpgroup the producer.
void warpSpecialize(const Function &F, KernelStmt &K, const OpRegistry &Ops,
                    const GemmPlan &P, const CopyDimsMap &CopyDims,
                    const WarpSpecializeOptions &Opts);

} // namespace hopper
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_WARPSPECIALIZEDGEMM_H
