//===- TestHostBackend.h - The testhost unit-test backend -------*- C++ -*-===//

#ifndef TILE_UNITTESTS_TARGET_TESTHOSTBACKEND_H
#define TILE_UNITTESTS_TARGET_TESTHOSTBACKEND_H

#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Generated from TestHost.td: registers the `testhost-object` format and
/// the `testhost-orc` execution backend with libTileExec, then the TestHost
/// backend with \p R.
llvm::Error registerTestHostTargetBackends(TargetRegistry &R);

} // namespace tile

#endif // TILE_UNITTESTS_TARGET_TESTHOSTBACKEND_H
