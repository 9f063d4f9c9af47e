//===- MetalDialect.cpp - The metal dialect's op table --------------------===//

#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"

#define GET_TILE_OP_TABLE
#include "MetalOps.inc"
