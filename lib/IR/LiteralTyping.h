//===- LiteralTyping.h - Typing untyped literals from context ---*- C++ -*-===//
//
// Literals written without a type take the type of their context, in the
// parser and in the builder alike (docs/Architecture.md, Parser).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_IR_LITERALTYPING_H
#define TILE_LIB_IR_LITERALTYPING_H

#include "tile/IR/IR.h"

namespace tile {

/// Gives literal \p E the type \p Ty (any other expression is left alone).
/// Returns false when it cannot take it: a float literal as an integer, an
/// integer other than 0 or 1 as i1.
bool coerceLiteral(ExprPtr &E, DType Ty);

} // namespace tile

#endif // TILE_LIB_IR_LITERALTYPING_H
