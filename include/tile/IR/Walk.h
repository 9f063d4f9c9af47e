//===- Walk.h - Traversing and rewriting Tile IR ----------------*- C++ -*-===//
//
// Generic traversals used by passes, the interpreter and codegen: visiting
// statements recursively, visiting the expression slots a statement owns,
// and rewriting expression trees bottom-up.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_WALK_H
#define TILE_IR_WALK_H

#include "tile/IR/IR.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"

namespace tile {

/// Visits every statement of \p B and of the blocks nested in it,
/// parents before children.
void walkStmts(Block &B, llvm::function_ref<void(Stmt &)> Fn);
void walkStmts(const Block &B, llvm::function_ref<void(const Stmt &)> Fn);

/// Calls \p Fn with each kernel statement of \p M (wherever it stands in
/// its function) and the function holding it: what a pass that rewrites
/// kernels one at a time walks.
void forEachKernel(Module &M,
                   llvm::function_ref<void(Function &, KernelStmt &)> Fn);

/// The blocks directly nested in \p S (a loop body, then/else, a kernel body).
llvm::SmallVector<Block *, 2> getNestedBlocks(Stmt &S);

/// Visits each expression slot owned directly by \p S (not those of nested
/// statements): shapes, initialisers, indices, values, bounds, steps,
/// conditions, grid and thread counts, op operands' offsets and extents.
void forEachExprSlot(Stmt &S, llvm::function_ref<void(ExprPtr &)> Fn);

/// Visits the direct children of \p E.
void forEachChild(Expr &E, llvm::function_ref<void(ExprPtr &)> Fn);
void forEachChild(const Expr &E, llvm::function_ref<void(const Expr &)> Fn);

/// Whether \p A and \p B are the same expression: the same values
/// referenced or loaded (not only the same names), literals, operations
/// and types.
bool isSameExpr(const Expr &A, const Expr &B);

/// Rewrites the tree in \p Slot bottom-up: children first, then \p Fn on
/// the node (which may return its argument unchanged or a replacement).
void rewriteExpr(ExprPtr &Slot, llvm::function_ref<ExprPtr(ExprPtr)> Fn);

/// Makes every reference (RefExpr) to a key of \p Map in the expressions
/// of \p S and of the statements nested in it refer to the key's value.
void remapValueRefs(Stmt &S, const llvm::DenseMap<const Value *, Value *> &Map);

/// Visits every value \p S uses itself (referenced or loaded in its
/// expressions, stored to, named as an op's region), not those of the
/// statements nested in it.
void forEachDirectUse(Stmt &S, llvm::function_ref<void(const Value *)> Fn);

/// Visits every value used (referenced, loaded, stored, named as a region)
/// anywhere under \p B, or by \p S and the statements nested in it.
void forEachUse(const Block &B, llvm::function_ref<void(const Value *)> Fn);
void forEachUse(const Stmt &S, llvm::function_ref<void(const Value *)> Fn);
void forEachUse(const Expr &E, llvm::function_ref<void(const Value *)> Fn);

/// Produces names not yet used in a function, for values passes create.
class NameGenerator {
public:
  explicit NameGenerator(const Function &F);
  /// "acc" -> "acc" if free, else "acc_1", "acc_2", ...
  std::string fresh(llvm::StringRef Base);

private:
  llvm::StringSet<> Used;
};

} // namespace tile

#endif // TILE_IR_WALK_H
