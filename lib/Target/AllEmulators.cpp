//===- AllEmulators.cpp - registerAllTargetEmulators ----------------------===//
//
// The emulators of the built-in target backends, registered by the
// function tile-tblgen -gen-target-backends generates from their .td.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/AllEmulators.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/Emulator.h"
#include "tile/Target/TargetBackend.h"
#include "tile/Target/TargetRegistry.h"

#define GET_TILE_TARGET_EMULATOR_TABLE
#include "TargetBackends.inc"
