//===- TestHelpers.h - Shared helpers of the Target unit tests -*- C++ -*-===//
//
// Debian ships no LLVMTestingSupport, so llvm::Error and llvm::Expected are
// checked with these. Lists of kinds, backends and execution backends are
// checked for members, never compared whole: adding a backend changes no
// test.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_TARGET_TESTHELPERS_H
#define TILE_UNITTESTS_TARGET_TESTHELPERS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

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

/// The ", "-separated items of \p Text between \p Before and the next
/// \p After (the end of \p Text when \p After is empty); an empty list
/// when \p Before is not in \p Text.
inline std::vector<std::string> listBetween(llvm::StringRef Text,
                                            llvm::StringRef Before,
                                            llvm::StringRef After = "") {
  size_t Start = Text.find(Before);
  if (Start == llvm::StringRef::npos)
    return {};
  llvm::StringRef Rest = Text.drop_front(Start + Before.size());
  if (!After.empty())
    Rest = Rest.take_front(Rest.find(After));
  llvm::SmallVector<llvm::StringRef> Parts;
  Rest.split(Parts, ", ");
  std::vector<std::string> Out;
  for (llvm::StringRef P : Parts)
    Out.push_back(P.str());
  return Out;
}

/// Whether \p List holds every one of \p Members and is sorted.
inline ::testing::AssertionResult
sortedWithMembers(const std::vector<std::string> &List,
                  std::initializer_list<const char *> Members) {
  std::string Shown;
  for (const std::string &S : List)
    Shown += (Shown.empty() ? "" : ", ") + S;
  if (!std::is_sorted(List.begin(), List.end()))
    return ::testing::AssertionFailure() << "not sorted: " << Shown;
  for (const char *M : Members)
    if (!llvm::is_contained(List, M))
      return ::testing::AssertionFailure()
             << "'" << M << "' missing from: " << Shown;
  return ::testing::AssertionSuccess();
}

} // namespace testing
} // namespace tile

#endif // TILE_UNITTESTS_TARGET_TESTHELPERS_H
