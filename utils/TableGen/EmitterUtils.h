//===- EmitterUtils.h - Helpers shared by tile-tblgen's emitters -*- C++ -*-===//

#ifndef TILE_UTILS_TABLEGEN_EMITTERUTILS_H
#define TILE_UTILS_TABLEGEN_EMITTERUTILS_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace tile::tblgen {

/// "gemm_op" -> "GemmOp": a C++ identifier from a record's name.
inline std::string cppIdent(llvm::StringRef S) {
  std::string Out;
  bool Upper = true;
  for (char C : S) {
    if (!llvm::isAlnum(C)) {
      Upper = true;
      continue;
    }
    Out += Upper ? llvm::toUpper(C) : C;
    Upper = false;
  }
  return Out;
}

/// \p S as a C++ string literal.
inline std::string quote(llvm::StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C == '\n') {
      Out += "\\n";
      continue;
    }
    Out += C;
  }
  return Out + "\"";
}

/// The start of a generated document's entry: a heading naming \p Name,
/// the one-line \p Summary as a sentence, then \p Description (from a
/// .td code block: each line trimmed) as a paragraph when it is not empty.
inline void emitDocEntryHeader(llvm::raw_ostream &OS, llvm::StringRef Name,
                               llvm::StringRef Summary,
                               llvm::StringRef Description) {
  OS << "## `" << Name << "`\n\n" << Summary << ".\n\n";
  llvm::StringRef Desc = Description.trim();
  if (Desc.empty())
    return;
  llvm::SmallVector<llvm::StringRef> Lines;
  Desc.split(Lines, '\n');
  for (llvm::StringRef L : Lines)
    OS << L.trim() << "\n";
  OS << "\n";
}

} // namespace tile::tblgen

#endif // TILE_UTILS_TABLEGEN_EMITTERUTILS_H
