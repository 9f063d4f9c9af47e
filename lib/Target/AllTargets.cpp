//===- AllTargets.cpp - registerAllTargetBackends -------------------------===//
//
// The descriptors of every built-in target backend and their registration
// function, generated from lib/Target/*/<B>.td by tile-tblgen
// -gen-target-backends. The tables are constexpr: no static constructor.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/AllTargets.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/TargetBackend.h"
#include "tile/Target/TargetRegistry.h"

#define GET_TILE_TARGET_BACKEND_TABLE
#include "TargetBackends.inc"
