//===- AllEmulators.h - The built-in backends' emulators --------*- C++ -*-===//
//
// registerAllTargetEmulators() is generated from the same .td list as
// registerAllTargetBackends() and defined in libTileAllEmulators, which
// links each backend's emulator library. A program that emulates (tile-jit
// --emulate) calls it after registering the backends; the others neither
// call it nor link the emulators.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_ALLEMULATORS_H
#define TILE_TARGET_ALLEMULATORS_H

#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Registers the emulator of every built-in backend that declares one into
/// \p R, which must hold those backends already.
llvm::Error registerAllTargetEmulators(TargetRegistry &R);

} // namespace tile

#endif // TILE_TARGET_ALLEMULATORS_H
