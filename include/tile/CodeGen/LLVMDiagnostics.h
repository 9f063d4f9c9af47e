//===- LLVMDiagnostics.h - What LLVM reports, as Tile reports it -*- C++ -*-===//
//
// Every backend that hands a module to LLVM (CPU, CUDA's NVPTX, ROCm's
// AMDGPU, Level Zero's SPIR-V, and the host entry points) installs one
// LLVMDiagnosticHandler on its LLVMContext. It takes what LLVM's passes and
// code generators report:
//
//  - errors (a resource limit exceeded, an operation the target cannot
//    select), which LLVM's default handler prints before exiting the
//    process, are collected and returned by takeError;
//  - optimization remarks of LLVM's own passes (loop-vectorize,
//    slp-vectorizer, licm, gvn, regalloc, ...) go to the Tile context's
//    RemarkEngine under the LLVM pass's name, located at the .tile
//    statement the instruction came from, so -pass-remarks*=<regex> prints
//    them as it prints Tile's own, with the source line and a caret;
//  - failures of transformations the emitted IR asked for (`loop not
//    vectorized`) become missed remarks of the backend's code generation
//    stage (`cpu-codegen`, `cuda-codegen`, ...), instead of unlocated
//    warnings.
//
// The locations travel as LLVM debug locations (see
// wantsLLVMRemarkLocations): the shared emitter gives each function a
// DISubprogram of a compile unit that emits no debug information (clang's
// "location tracking only", as for -Rpass without -g) and each instruction
// the location of the statement that made it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_LLVMDIAGNOSTICS_H
#define TILE_CODEGEN_LLVMDIAGNOSTICS_H

#include "tile/IR/Remarks.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace llvm {
class DiagnosticInfo;
class LLVMContext;
class Value;
} // namespace llvm

namespace tile {

class TileContext;

/// Whether modules emitted for \p TC carry the debug locations that place
/// LLVM's remarks: only while some remark is enabled and the IR came from
/// text, so that code generation without remarks is untouched.
bool wantsLLVMRemarkLocations(TileContext &TC);

class LLVMDiagnosticHandler {
public:
  /// Installs itself as \p C's diagnostic handler until destroyed (declare
  /// it after \p C). \p Stage names the missed remarks of transformations
  /// the IR asked for and LLVM could not make ("cuda-codegen").
  LLVMDiagnosticHandler(llvm::LLVMContext &C, TileContext &TC,
                        llvm::StringRef Stage);
  ~LLVMDiagnosticHandler();
  LLVMDiagnosticHandler(const LLVMDiagnosticHandler &) = delete;
  LLVMDiagnosticHandler &operator=(const LLVMDiagnosticHandler &) = delete;

  /// Where the IR at \p Region (a basic block or an instruction) came
  /// from, for a target that tags its IR in its own way; consulted before
  /// the debug location. An invalid SMLoc: the target does not know.
  using Locator = std::function<llvm::SMLoc(const llvm::Value *Region)>;
  void setLocator(Locator L) { Locate = std::move(L); }

  /// Success when LLVM reported no error; otherwise one error with every
  /// message, after \p What ("AMDGPU code generation for gfx942 failed:").
  llvm::Error takeError(llvm::StringRef What);

  /// The handler's entry points (called by the LLVMContext).
  bool handle(const llvm::DiagnosticInfo &DI);
  bool isEnabled(RemarkKind K, llvm::StringRef PassName) const;
  bool isAnyEnabled() const;

private:
  llvm::SMLoc findLoc(llvm::StringRef File, unsigned Line, unsigned Col);

  llvm::LLVMContext &C;
  TileContext &TC;
  std::string Stage;
  Locator Locate;
  std::vector<std::string> Errors;
  /// The SourceMgr buffer of each file name seen.
  llvm::StringMap<unsigned> Buffers;
  /// Remarks already reported (an unrolled loop repeats each of its
  /// statements' remarks once per copy): kind, pass, location, message.
  std::set<std::tuple<int, std::string, const char *, std::string>> Seen;
};

} // namespace tile

#endif // TILE_CODEGEN_LLVMDIAGNOSTICS_H
