//===- Verifier.h - Semantic checks of Tile IR ------------------*- C++ -*-===//
//
// Checks what the grammar cannot: expression types, buffer scopes and
// shapes for each op (through the op's C++ verifier), index arity, where
// kernels, loops and tile ops may appear, constant on-chip shapes and
// thread-index use. Reports every error found, each at its location.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_VERIFIER_H
#define TILE_IR_VERIFIER_H

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"

namespace tile {

/// Returns true when \p M is valid; otherwise reports each error to \p Diag.
bool verifyModule(const Module &M, DiagnosticEngine &Diag);
bool verifyFunction(const Function &F, DiagnosticEngine &Diag);


} // namespace tile

#endif // TILE_IR_VERIFIER_H
