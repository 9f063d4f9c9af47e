//===- EmitterUtils.h - Helpers shared by tile-tblgen's emitters -*- C++ -*-===//

#ifndef TILE_UTILS_TABLEGEN_EMITTERUTILS_H
#define TILE_UTILS_TABLEGEN_EMITTERUTILS_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
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

} // namespace tile::tblgen

#endif // TILE_UTILS_TABLEGEN_EMITTERUTILS_H
