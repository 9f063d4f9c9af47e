//===- DebugLocations.h - .tile locations as LLVM debug locations -*- C++ -*-===//
//
// The debug locations that place LLVM's remarks at .tile statements
// (tile/CodeGen/LLVMDiagnostics.h): a compile unit that emits no debug
// information, a DISubprogram per emitted function and a DILocation per
// statement. Made only while remarks are enabled (wantsLLVMRemarkLocations).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_DEBUGLOCATIONS_H
#define TILE_LIB_CODEGEN_DEBUGLOCATIONS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/Support/SMLoc.h"
#include <memory>

namespace llvm {
class SourceMgr;
}

namespace tile {

class TileContext;

class DebugLocations {
public:
  /// Null unless \p TC wants LLVM's remarks located.
  static std::unique_ptr<DebugLocations> create(TileContext &TC, llvm::Module &LM);
  /// Finalizes the debug information.
  ~DebugLocations();

  /// Gives \p F a subprogram at \p Loc.
  llvm::DISubprogram *addFunction(llvm::Function &F, llvm::SMLoc Loc);
  /// \p Loc in \p SP; null for an invalid location.
  llvm::DILocation *get(llvm::SMLoc Loc, llvm::DISubprogram *SP);

private:
  DebugLocations(llvm::SourceMgr &SM, llvm::Module &LM);
  llvm::DIFile *getFile(llvm::SMLoc Loc);

  llvm::SourceMgr &SM;
  llvm::Module &LM;
  llvm::DIBuilder DIB;
  llvm::DICompileUnit *CU = nullptr;
  llvm::DenseMap<unsigned, llvm::DIFile *> Files;
};

} // namespace tile

#endif // TILE_LIB_CODEGEN_DEBUGLOCATIONS_H
