//===- DialectBase.td - OpBase.td, included once -------------*- tablegen -*-===//
//
// Backend dialects and backend descriptors both need the op base classes,
// and several of them meet in one TableGen run (the combined target list).
// TableGen rejects a class defined twice, so every .td outside lib/IR
// includes OpBase.td through this guard.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_DIALECTBASE_TD
#define TILE_TARGET_DIALECTBASE_TD
include "tile/IR/OpBase.td"
#endif // TILE_TARGET_DIALECTBASE_TD
