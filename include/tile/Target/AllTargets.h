//===- AllTargets.h - The built-in target backends --------------*- C++ -*-===//
//
// registerAllTargetBackends() is generated from the .td of every folder
// under lib/Target and defined in libTileAllTargets, which links every
// backend library. A program that wants the built-in backends calls it on
// its TargetRegistry; nothing registers itself.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_ALLTARGETS_H
#define TILE_TARGET_ALLTARGETS_H

#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Registers every built-in target backend into \p R, in name order.
llvm::Error registerAllTargetBackends(TargetRegistry &R);

} // namespace tile

#endif // TILE_TARGET_ALLTARGETS_H
