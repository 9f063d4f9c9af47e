//===- LLVMEmitter.h - Tile expressions and statements to LLVM --*- C++ -*-===//
//
// The part of LLVM codegen shared by host and device: expressions, buffer
// addressing, loads and stores, and (for device code) statements.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_LLVMEMITTER_H
#define TILE_LIB_CODEGEN_LLVMEMITTER_H

#include "DebugLocations.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"

namespace tile {

/// Where a buffer's elements are: a base pointer and a stride (in
/// elements, i64) per dimension.
struct BufferBinding {
  llvm::Value *Base = nullptr;
  llvm::Type *ElemTy = nullptr;
  std::vector<llvm::Value *> Strides;
  /// Accesses are tagged with the access groups of the parallel loops that
  /// enclose the allocation's use but not the allocation itself.
  unsigned ParallelDepthAtAlloc = 0;
};

class LLVMEmitter {
public:
  LLVMEmitter(llvm::IRBuilder<> &B, LLVMDeviceTarget *Target)
      : B(B), C(B.getContext()), Target(Target) {}

  llvm::Value *emit(const Expr &E);
  /// Converts \p V of \p From to \p To with the language's rules.
  llvm::Value *convert(llvm::Value *V, DType From, DType To);

  void bindScalar(const Value *V, llvm::Value *L) { Scalars[V] = L; }
  llvm::Value *lookupScalar(const Value *V) const {
    return Scalars.lookup(V);
  }
  /// Binds \p Buf to \p Base with strides from its declaration (or
  /// row-major from its shape), computed at the current insertion point.
  void bindBuffer(const BufferValue *Buf, llvm::Value *Base);
  const BufferBinding *lookupBuffer(const BufferValue *Buf) const {
    auto It = Buffers.find(Buf);
    return It == Buffers.end() ? nullptr : &It->second;
  }

  llvm::Value *address(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx);
  llvm::Value *load(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx);
  void store(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx,
             llvm::Value *V);

  /// Device statements. Errors (an op left unlowered) are returned.
  llvm::Error emitBlock(const Block &Blk, KernelEmission &K);
  /// The location of the statement around the next emitBlock (a kernel's),
  /// for loops made by statements without a location of their own.
  void setEnclosingLoc(llvm::SMLoc Loc);
  /// Gives the instructions emitted from here on the locations of their
  /// statements, in \p SP (for LLVM's remarks); \p DL may be null.
  void setDebugScope(DebugLocations *DL, llvm::DISubprogram *SP) {
    DebugLocs = DL;
    Scope = SP;
  }

private:
  llvm::Error emitStmt(const Stmt &S, KernelEmission &K);
  llvm::Error emitFor(const ForStmt &F, KernelEmission &K);
  llvm::Error emitIf(const IfStmt &I, KernelEmission &K);
  llvm::Error emitOp(const OpStmt &Op, KernelEmission &K);
  void tagAccess(llvm::Instruction *I, const BufferValue *Buf);
  llvm::Value *emitIntrinsic(const CallExpr &Call);

  llvm::IRBuilder<> &B;
  llvm::LLVMContext &C;
  LLVMDeviceTarget *Target;
  llvm::DenseMap<const Value *, llvm::Value *> Scalars;
  llvm::DenseMap<const BufferValue *, BufferBinding> Buffers;
  /// An enclosing parallel loop's access group, and the buffers whose
  /// accesses stay out of it: those an iteration accesses again after
  /// storing to them (getReaccessedAfterStore).
  struct ParallelAccesses {
    llvm::MDNode *Group;
    llvm::SmallPtrSet<const BufferValue *, 4> Excluded;
  };
  /// The enclosing parallel loops, outermost first.
  std::vector<ParallelAccesses> AccessGroups;
  /// The innermost statement being emitted that has a location (a loop a
  /// lowering made takes the location of what it was made for).
  llvm::SMLoc StmtLoc;
  DebugLocations *DebugLocs = nullptr;
  llvm::DISubprogram *Scope = nullptr;
};

} // namespace tile

#endif // TILE_LIB_CODEGEN_LLVMEMITTER_H
