//===- TestHelpers.h - Shared helpers of the Target unit tests -*- C++ -*-===//
//
// Debian ships no LLVMTestingSupport, so llvm::Error and llvm::Expected are
// checked with these.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_TARGET_TESTHELPERS_H
#define TILE_UNITTESTS_TARGET_TESTHELPERS_H

#include "llvm/Support/Error.h"
#include <string>

namespace tile {
namespace testing {

/// The message of \p E, or "success".
inline std::string errorText(llvm::Error E) {
  if (!E)
    return "success";
  return llvm::toString(std::move(E));
}

/// The error message of \p V, or "success" (the value is kept).
template <typename T> std::string errorText(llvm::Expected<T> &V) {
  if (V)
    return "success";
  return llvm::toString(V.takeError());
}

} // namespace testing
} // namespace tile

#endif // TILE_UNITTESTS_TARGET_TESTHELPERS_H
