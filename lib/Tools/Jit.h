//===- Jit.h - tile-jit's stages --------------------------------*- C++ -*-===//
//
// The state of one tile-jit run and its stages, in order: parse (and
// specialize the function's tunable parameters for --param), prepare
// inputs, resolve the BackendContext, compile (through the kernel cache,
// in a config --autotune recorded if there is one; the executor starts
// meanwhile), load, launch (arguments up, --autotune's timed configs, the
// call, results down), write outputs, check against the reference
// interpreter, bench. --emulate
// replaces compile, load and launch with the backend's pipeline and its
// emulator. Each stage returns false after reporting its error; device
// buffers, the loaded artifact and the executor are members freed in that
// order when the run ends.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TOOLS_JIT_H
#define TILE_LIB_TOOLS_JIT_H

#include "tile/Driver/CompileModule.h"
#include "tile/Driver/HostTensor.h"
#include "tile/Driver/KernelCache.h"
#include "tile/Driver/Reference.h"
#include "tile/Exec/Executor.h"
#include "tile/IR/IR.h"
#include "tile/IR/Specialize.h"
#include "tile/Target/BackendContext.h"
#include "tile/Tools/JitTool.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/SourceMgr.h"
#include <dlpack/dlpack.h>
#include <map>
#include <optional>
#include <thread>

namespace tile {

/// Floating-point operations of one call of \p Fn (2*M*N*K per gemm, times
/// the grid and the trip counts around it) for the dimension values
/// \p Dims; nothing when a count depends on something unknown.
std::optional<double>
countGemmFlops(const Function &Fn, const std::map<std::string, int64_t> &Dims);

class Jit {
public:
  Jit(const JitOptions &O, const TargetRegistry &R, llvm::raw_ostream &Out,
      llvm::raw_ostream &Err)
      : Opts(O), Registry(R), Out(Out), Err(Err), Diag(&SM, &Err) {}

  /// Every stage in order; the process exit code.
  int run();

private:
  /// Reports `tile-jit: error: Msg`; returns false.
  bool fail(const llvm::Twine &Msg);
  /// Reports an error of the pipeline, code generation or the emulator
  /// (reportToolError: typed diagnostics print as rendered); returns false.
  bool failWith(llvm::Error E, const llvm::Twine &Prefix = "");

  // Stages (JitInputs.cpp).
  /// Reads, parses and verifies the input; chooses the function.
  bool parse();
  /// --dim, --input, --output and --scalar, then random inputs and
  /// poisoned outputs for the rest.
  bool prepareInputs();

  // Stages (JitTool.cpp).
  bool resolve();
  /// --emulate: the backend's pipeline, then its emulator on the tensors;
  /// fills Results.
  bool emulate();
  /// The module's compilation, while the executor starts on its own thread.
  bool compile();
  bool load();
  /// Device copies of the tensors, the call, and the written tensors back
  /// into Results.
  bool launch();
  /// Calls the entry point and waits for it.
  llvm::Error call();
  /// Timed runs after two warm-up ones.
  bool bench();
  /// --autotune, once the arguments are on the device: every config of the
  /// tunables compiled, timed and the fastest recorded; Loaded becomes it.
  bool autotune();
  /// Before the compile: the config a --autotune run recorded for this
  /// kernel, target, device and shape bucket, if any, replaces the defaults
  /// (joins \p Starter: records are per device).
  bool useTuningRecord(
      std::thread &Starter,
      std::optional<llvm::Expected<std::unique_ptr<Executor>>> &Started);

  // Stages (JitReport.cpp).
  /// The `ran` line and the --output files.
  bool writeOutputs(const std::string &RanOn);
  /// Compares every written tensor with the reference interpreter: 0, 1
  /// when results differ, nothing after an error.
  std::optional<int> check();
  /// --check: runs the reference interpreter on the inputs (before any
  /// output is written, so that a run it cannot check writes nothing).
  bool reference();

  // Helpers (JitInputs.cpp).
  /// `NAME=VALUE` lists: the pairs, or an error naming the option.
  bool splitPairs(const std::vector<std::string> &L, llvm::StringRef Opt,
                  std::vector<std::pair<std::string, std::string>> &Pairs);
  const Value *findParam(llvm::StringRef Name) const;
  std::string listParams(bool Tensors) const;
  void analyzeAccess();
  std::optional<std::vector<int64_t>> shapeOf(const BufferValue &B);
  /// Bytes of the tensors read plus those written, per call.
  double countTensorBytes();

  const JitOptions &Opts;
  const TargetRegistry &Registry;
  llvm::raw_ostream &Out, &Err;

  // Parsed input.
  TileContext TC;
  llvm::SourceMgr SM;
  DiagnosticEngine Diag;
  double ParseSeconds = 0;
  std::unique_ptr<Module> Parsed;
  /// The chosen function alone, compiled in place by the pipeline.
  std::unique_ptr<Module> Single;
  /// A pristine copy of it, for the reference interpreter.
  std::unique_ptr<Module> Pristine;
  /// The chosen function as parsed, tunable parameters unresolved.
  const Function *Generic = nullptr;
  /// The tunable parameters' values from --param.
  TunableConfig Config;
  const Function *F = nullptr;
  const Function *RefF = nullptr;
  llvm::DenseSet<const Value *> Read, Written;

  // Inputs.
  std::map<std::string, int64_t> DimValues;
  /// Inputs whose rank differs from their declaration (they bind nothing).
  std::vector<std::string> RankMismatch;
  std::vector<std::pair<std::string, std::string>> OutArgs;
  std::map<std::string, HostTensor> Tensors;
  std::map<std::string, double> ScalarValues;
  /// Integer scalars from the command line, exact beyond 2^53.
  std::map<std::string, int64_t> IntScalars;

  // Compilation and execution, freed in reverse order.
  std::optional<BackendContext> Ctx;
  CompileTimings Timings;
  /// The kernel cache's directory (tuning records in its `tuning` folder)
  /// and what the cache did, for --print-compile-time.
  std::string CacheDir, CacheSummary;
  /// A compiled entry's link and publication, overlapping the load and the
  /// first run; waited for before anything is timed.
  CachePublication Publishing;
  std::optional<KernelArtifact> Artifact;
  std::unique_ptr<Executor> Ex;
  std::unique_ptr<LoadedArtifact> Loaded;
  struct DeviceTensor {
    DeviceBuffer Mem;
    std::vector<int64_t> Shape;
    DLTensor DL;
  };
  std::vector<DeviceTensor> Dev;
  std::vector<TileArg> Args;

  /// The tensors the function writes, after the run.
  std::map<std::string, HostTensor> Results;
  /// The reference interpreter's results (--check).
  std::map<std::string, ReferenceResult> Ref;
};

} // namespace tile

#endif // TILE_LIB_TOOLS_JIT_H
