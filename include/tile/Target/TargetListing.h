//===- TargetListing.h - Human-readable target tables ----------*- C++ -*-===//
//
// The listing behind `tile-llc -print-targets`: kinds with their aliases and
// attributes, backends with features, dialects, outputs and execution
// backends in auto order, and every execution backend with its
// availability on this machine. Sorted by name, so it can be checked.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGETLISTING_H
#define TILE_TARGET_TARGETLISTING_H

#include "llvm/Support/raw_ostream.h"

namespace tile {

class TargetRegistry;

/// Prints the registry. With \p ProbeAvailability, each execution backend's
/// probe runs and its answer is shown.
void printTargets(const TargetRegistry &R, llvm::raw_ostream &OS,
                  bool ProbeAvailability = true);

} // namespace tile

#endif // TILE_TARGET_TARGETLISTING_H
