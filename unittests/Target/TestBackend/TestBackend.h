//===- TestBackend.h - The unit-test target backend -------------*- C++ -*-===//

#ifndef TILE_UNITTESTS_TARGET_TESTBACKEND_H
#define TILE_UNITTESTS_TARGET_TESTBACKEND_H

#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Generated from TestBackend.td: registers the TestDev backend.
llvm::Error registerTestTargetBackends(TargetRegistry &R);

} // namespace tile

#endif // TILE_UNITTESTS_TARGET_TESTBACKEND_H
