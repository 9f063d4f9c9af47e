//===- Passes.cpp - The registry table of lib/Transforms' passes ----------===//

#include "tile/Transforms/Pass.h"

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"
#define GET_TILE_PASS_TABLE
#include "tile/Transforms/Passes.inc"
