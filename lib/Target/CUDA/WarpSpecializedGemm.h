//===- WarpSpecializedGemm.h - Producer/consumer Hopper GEMM ----*- C++ -*-===//
//
// The second code generator of hopper-lower-gemm-wgmma: a kernel whose
// only work is one planned gemm K loop becomes a warp-specialized kernel
// with one more warpgroup, a producer that fills the operand rings through
// TMA (or cp.async when the tensors' data or rows are not 16-byte
// aligned) while the original warpgroups, the consumers, run wgmma on
// full stages and release them through mbarriers, then the epilogues over
// the accumulator on its registers and the copies out.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_WARPSPECIALIZEDGEMM_H
#define TILE_LIB_TARGET_CUDA_WARPSPECIALIZEDGEMM_H

#include "WGMMAGemmPlan.h"
#include "tile/Analysis/LinearLayout.h"
#include "tile/IR/Remarks.h"
#include "llvm/ADT/DenseSet.h"
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
  /// Stage the first copy out through an operand ring, spent after the K
  /// loop (WGMMABuilder::lowerStagedCopyOut), where it can hold the tile.
  bool StageCopyOut = true;
  /// Where the staging decision is remarked (null: not remarked).
  const RemarkEmitter *Remarks = nullptr;
};

/// The elementwise code over the accumulator that hopper-lower-gemm-wgmma
/// runs on its registers (GemmLowering.h's epilogues and companions).
struct AccumulatorEpilogues {
  /// Parallel loops over the accumulator and its companions.
  llvm::DenseSet<const ForStmt *> Loops;
  /// Fragments of the accumulator's shape kept in its layout (written in
  /// the epilogues, copied out whole).
  llvm::DenseSet<const BufferValue *> Companions;
  /// The accumulator's register layout; set when Loops is not empty.
  const LinearLayout *Layout = nullptr;
};

/// Whether kernel \p K, whose only gemm K loop is planned as \p P, has the
/// shape the warp-specialized kernel takes: no per-thread code of its own,
/// room for a producer warpgroup, operands copied from rank-2 tensors, and
/// a top level of allocations, lets, the clears or fills of the
/// accumulator and its companions, the K loop, then the epilogues \p Epi
/// and whole copies of the accumulator or a companion to global memory.
/// The epilogues' inputs (a buffer they only read, filled once from global
/// memory or by a fill, and used nowhere else) may be set up anywhere on
/// the top level: every thread does that before the roles split. False
/// with the reason in \p Why.
bool canWarpSpecialize(const KernelStmt &K, const GemmPlan &P,
                       const CopyDimsMap &CopyDims,
                       const AccumulatorEpilogues &Epi, std::string &Why);

/// Rewrites \p K (canWarpSpecialize holds) into the warp-specialized
/// kernel: threads + 128 threads, the last warpgroup the producer.
void warpSpecialize(const Function &F, KernelStmt &K, const OpRegistry &Ops,
                    const GemmPlan &P, const CopyDimsMap &CopyDims,
                    const AccumulatorEpilogues &Epi,
                    const WarpSpecializeOptions &Opts);

} // namespace hopper
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_WARPSPECIALIZEDGEMM_H
