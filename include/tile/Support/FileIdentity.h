//===- FileIdentity.h - Which build of a program a path holds --*- C++ -*-===//
//
// A short identity of the file at a path (its size and modification time),
// for kernels compiled by an external program (ptxas, ld.lld, llc): the
// kernel cache records the identity of every program that made an entry
// and rebuilds the entry when the file at that path is another build.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_FILEIDENTITY_H
#define TILE_SUPPORT_FILEIDENTITY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include <map>
#include <string>

namespace tile {

/// The KernelArtifact note under which code generation records an external
/// program it ran: "toolchain:<path>" -> getFileIdentity(<path>).
constexpr llvm::StringLiteral ToolchainNotePrefix = "toolchain:";

/// "size <bytes> mtime <ns>" of the file at \p Path (links followed), or
/// "missing" when it cannot be read.
inline std::string getFileIdentity(llvm::StringRef Path) {
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(Path, St))
    return "missing";
  return "size " + std::to_string(St.getSize()) + " mtime " +
         std::to_string(St.getLastModificationTime().time_since_epoch().count());
}

/// Records in \p Notes (a KernelArtifact's) that \p Program made the kernel.
inline void recordExternalTool(std::map<std::string, std::string> &Notes,
                               llvm::StringRef Program) {
  Notes[(ToolchainNotePrefix + Program).str()] = getFileIdentity(Program);
}

} // namespace tile

#endif // TILE_SUPPORT_FILEIDENTITY_H
