//===- Autotune.h - Choosing a config of a kernel's tunables ----*- C++ -*-===//
//
// The autotuner's parts that do not run kernels: compiling the configs of
// a function's tunable parameters in parallel (each specialized, verified
// and compiled like any function; a config that fails is pruned with the
// first error as the reason), the results table, and the records of the
// best config found, keyed by kernel, resolved target, device and shape
// bucket, that later runs use without tuning. tile-jit --autotune times
// the compiled configs on the execution backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_AUTOTUNE_H
#define TILE_DRIVER_AUTOTUNE_H

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/IR.h"
#include "tile/IR/Specialize.h"
#include "tile/Target/BackendContext.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
}

namespace tile {

class TargetRegistry;

/// One config of a tuning run.
struct TuneResult {
  /// Every tunable's value.
  TunableConfig Config;
  /// The compiled kernel; empty when pruned.
  std::optional<KernelArtifact> Artifact;
  /// Why the config was not timed (empty when it was).
  std::string Pruned;
  double CompileSeconds = 0;
  /// Median seconds of one run; 0 until timed.
  double Seconds = 0;
};

/// Specializes \p Generic for each of \p Configs, verifies it and compiles
/// it for \p Ctx, on \p Threads threads (0: every hardware thread). A
/// config whose specialization does not verify, whose parameters' shapes
/// differ from those of \p Reference (the function tensors were made
/// for), or that the backend refuses is pruned with the reason. \p SM
/// holds the source, for the located reasons.
std::vector<TuneResult> compileConfigs(const Function &Generic,
                                       const Function &Reference,
                                       llvm::ArrayRef<TunableConfig> Configs,
                                       const TargetRegistry &Registry,
                                       const BackendContext &Ctx,
                                       llvm::SourceMgr *SM,
                                       unsigned Threads = 0);

/// The timed configs fastest first, then the pruned ones with their
/// reasons. \p Flops (per run) gives TFLOP/s, \p Bytes (per run) GB/s.
void printTuneTable(llvm::ArrayRef<TuneResult> Results,
                    std::optional<double> Flops, double Bytes,
                    llvm::raw_ostream &OS);

/// The best config found for a kernel, on disk: one file per kernel (the
/// generic function's text), resolved target context and shape bucket, a
/// line per device.
class TuningRecords {
public:
  /// Records under \p Dir (<kernel cache directory>/tuning).
  explicit TuningRecords(llvm::StringRef Dir) : Dir(Dir.str()) {}

  /// Each dimension rounded up to a power of two: "K=4096 M=1024 N=4096".
  static std::string getShapeBucket(const std::map<std::string, int64_t> &Dims);

  /// The file for \p Generic on \p Ctx in \p Bucket.
  std::string getPath(const Function &Generic, const BackendContext &Ctx,
                      llvm::StringRef Bucket) const;

  /// The config recorded in \p Path for \p Device, if any.
  static std::optional<TunableConfig> lookup(llvm::StringRef Path,
                                             llvm::StringRef Device);

  /// Records \p C (its run took \p Seconds) for \p Device in \p Path,
  /// replacing that device's line: written to a temporary file, then
  /// renamed. \p Describe heads the file.
  static llvm::Error record(llvm::StringRef Path, llvm::StringRef Device,
                            const TunableConfig &C, double Seconds,
                            llvm::StringRef Describe);

private:
  std::string Dir;
};

} // namespace tile

#endif // TILE_DRIVER_AUTOTUNE_H
