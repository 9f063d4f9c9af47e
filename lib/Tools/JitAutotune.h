//===- JitAutotune.h - tile-jit --autotune ----------------------*- C++ -*-===//
//
// Private to libTileTools. tile-jit's autotuner: the configs of a
// function's tunable parameters compiled in parallel (Driver/Autotune.h),
// each timed on the execution backend with the tensors tile-jit made, the
// table printed, the best recorded for later runs and returned loaded.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TOOLS_JITAUTOTUNE_H
#define TILE_LIB_TOOLS_JITAUTOTUNE_H

#include "tile/Driver/Autotune.h"
#include "tile/Exec/Executor.h"

namespace tile {

/// The median seconds of \p Runs calls of \p Entry after one warm-up, on
/// the device's clock where \p Ex has one, else the host's around the call
/// and the wait. \p DeviceClock tells which.
llvm::Expected<double> timeRuns(Executor &Ex, LoadedArtifact &L,
                                llvm::StringRef Entry,
                                llvm::ArrayRef<TileArg> Args, unsigned Runs,
                                bool *DeviceClock = nullptr);

struct JitTuneRequest {
  const Function *Generic = nullptr;
  /// The function the tensors were made for.
  const Function *Reference = nullptr;
  /// Values given with --param: held fixed.
  TunableConfig Fixed;
  const TargetRegistry *Registry = nullptr;
  const BackendContext *Ctx = nullptr;
  llvm::SourceMgr *SM = nullptr;
  Executor *Ex = nullptr;
  llvm::ArrayRef<TileArg> Args;
  std::optional<double> Flops;
  double Bytes = 0;
  std::map<std::string, int64_t> Dims;
  unsigned Runs = 10;
  /// Where records go: <dir>/tuning.
  std::string CacheDir;
};

/// Tunes, prints the table to \p Out, records the best config and returns
/// it loaded, with its config in \p Best.
llvm::Expected<std::unique_ptr<LoadedArtifact>>
autotuneJit(const JitTuneRequest &R, TunableConfig &Best,
            llvm::raw_ostream &Out);

/// The records' file for \p Generic on \p Ctx with dimensions \p Dims.
std::string getTuningRecordPath(const Function &Generic,
                                const BackendContext &Ctx,
                                const std::map<std::string, int64_t> &Dims,
                                llvm::StringRef CacheDir);

} // namespace tile

#endif // TILE_LIB_TOOLS_JITAUTOTUNE_H
