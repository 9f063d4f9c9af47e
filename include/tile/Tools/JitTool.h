//===- JitTool.h - The logic of tile-jit ------------------------*- C++ -*-===//
//
// tile-jit compiles a .tile function for a target, makes or loads its
// inputs, runs it through the resolved execution backend (or, with
// --emulate, the target backend's emulator), writes outputs,
// and optionally checks every written tensor against the f64 reference
// interpreter and times repeated runs. The tool's main only fills
// JitOptions; tests drive runJit directly.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_JITTOOL_H
#define TILE_TOOLS_JITTOOL_H

#include "tile/IR/Remarks.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace tile {

class TargetRegistry;

struct JitOptions {
  std::string InputFile;
  std::string Target = "cpu";
  std::string HostTarget;
  std::string ExecBackend = "auto";
  /// Function to run; may be omitted when the file has one.
  std::string Entry;
  /// `M=4096`: values of symbolic dimensions.
  std::vector<std::string> Dims;
  /// `A=a.npy`: tensors read from files.
  std::vector<std::string> Inputs;
  /// `C=c.npy`: tensors written to files after the run.
  std::vector<std::string> Outputs;
  /// `alpha=0.5`: scalar parameters.
  std::vector<std::string> Scalars;
  /// Make the inputs that were not given: random tensors and scalars.
  bool Random = false;
  uint64_t Seed = 0;
  /// Compare every written tensor with the reference interpreter.
  bool Check = false;
  /// Timed runs after warm-up (0: none).
  unsigned Bench = 0;
  /// Worker threads of host execution backends (0: all hardware threads).
  unsigned Threads = 0;
  /// Print compile time by stage.
  bool PrintCompileTime = false;
  /// Bytes each tensor's data starts past the start of its allocation
  /// (DLPack byte_offset), to run the paths for data that is not 16-byte
  /// aligned.
  unsigned DataOffset = 0;
  /// Run the function as the target's pipeline leaves it in the backend's
  /// emulator on the host, instead of code generation and the execution
  /// backend.
  bool Emulate = false;
  /// With Emulate: the blocks the emulated device runs at once
  /// (EmulatorOptions::ResidentBlocks).
  unsigned EmulateResidentBlocks = 132;
  /// Which optimization remarks of the pipeline and codegen to print (to
  /// the error stream).
  RemarkFilter Remarks;
  /// `BM=64`: values of the function's tunable parameters (the others
  /// keep their defaults).
  std::vector<std::string> Params;
  /// Compile without the kernel cache (TILE_CACHE_DIR, KernelCache.h).
  bool NoCache = false;
  /// The kernel cache's directory (empty: KernelCache::getDefaultDirectory);
  /// tuning records live in its `tuning` folder.
  std::string CacheDir;
  /// Compile every config of the function's tunable parameters (those not
  /// given with --param), time each, run and record the fastest.
  bool Autotune = false;
  /// For tests: Tile's build as the cache's keys see it (empty: this one).
  std::string CacheToolVersion;
};

/// Runs tile-jit; returns the process exit code. Results go to \p Out,
/// errors (`tile-jit: error: ...`) to \p Err.
int runJit(const JitOptions &Opts, const TargetRegistry &Registry,
           llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace tile

#endif // TILE_TOOLS_JITTOOL_H
