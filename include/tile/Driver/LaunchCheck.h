//===- LaunchCheck.h - Launch sizes checked before anything runs -*- C++ -*-===//
//
// The grid of a kernel is an integer expression of the function's
// symbolic dimensions, scalars and lets; the host code computes it at
// launch in 32-bit arithmetic. Before a tool runs a function it evaluates
// every kernel's grid with the launch's values and reports, at the grid
// expression, a dimension that divides by zero, overflows or is negative,
// instead of a crash (SIGFPE) or a wrapped launch.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_LAUNCHCHECK_H
#define TILE_DRIVER_LAUNCHCHECK_H

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdint>
#include <map>
#include <string>

namespace tile {

class Function;

/// Checks the grid of every kernel of \p F with symbolic dimensions \p Dims
/// and integer scalars \p Scalars; a DiagnosticError (category
/// InvalidLaunch) located at the offending expression. Grid expressions
/// that read anything else are left to the host code.
llvm::Error checkLaunchGrids(const Function &F,
                             const std::map<std::string, int64_t> &Dims,
                             const std::map<std::string, int64_t> &Scalars,
                             const llvm::SourceMgr *SM);

} // namespace tile

#endif // TILE_DRIVER_LAUNCHCHECK_H
