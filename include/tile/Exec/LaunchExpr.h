//===- LaunchExpr.h - Grid sizes an execution backend computes --*- C++ -*-===//
//
// Kernels of source targets (WGSL, MSL) are launched without generated host
// code, so the artifact carries their grid sizes as small expressions over
// the entry's symbolic dimensions and integer scalars, which the execution
// backend evaluates once the arguments are known. The syntax is the integer
// part of Tile's expression syntax, with bare names:
//
//   expr := expr ('+' | '-' | '*' | '/' | '%') expr | '-' expr | '(' expr ')'
//         | integer | name | fn '(' expr ',' expr ')'
//   fn   := min | max | ceildiv | floordiv | floormod
//
// with the usual precedence; `/` and `%` truncate toward zero as in C.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_LAUNCHEXPR_H
#define TILE_EXEC_LAUNCHEXPR_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>

namespace tile {

/// Evaluates \p Text in 64-bit integers; \p Lookup gives the value of a
/// name. Errors name the expression and what is wrong with it (a syntax
/// error, an unknown name, a division by zero, an overflow).
llvm::Expected<int64_t>
evaluateLaunchExpr(llvm::StringRef Text,
                   llvm::function_ref<std::optional<int64_t>(llvm::StringRef)> Lookup);

} // namespace tile

#endif // TILE_EXEC_LAUNCHEXPR_H
