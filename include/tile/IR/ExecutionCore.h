//===- ExecutionCore.h - What Tile's evaluators share ----------*- C++ -*-===//
//
// The execution core of the two programs that run Tile IR on the host: the
// reference interpreter (lib/IR/Interpreter.cpp, block-level, f64) and the
// CUDA emulator (lib/Target/CUDA/Emulator, per-thread SIMT code under a
// scheduler). Both compile a function into flattened expressions
// (tile/IR/ScalarSemantics.h) and a tree of statements, bind the arguments,
// then walk the tree; what they do the same way lives here, once:
//
//  - binding the arguments: symbols from the tensors' shapes and strides,
//    every check of a tensor or scalar against its parameter, with located
//    errors (bindArguments);
//  - evaluating an expression to one scalar: the tree walk, the lazy `&&`,
//    `||` and `select`, the operators' semantics and their faults
//    (ScalarEvaluator), with the evaluator supplying where values and
//    buffer elements live;
//  - element addressing with bounds checks and the fault that names the
//    access (elementOffset, describeOutOfRange);
//  - the run-time rules of statements: a loop counter's next value, a
//    positive step, a non-negative grid or dimension (the fault texts);
//  - the compilation of what both lower the same way: expressions into
//    nodes, a store, an if, a kernel's grid and thread count, an op's
//    operands and a region's buffer and offsets (CompiledFunction).
//
// What differs stays with each evaluator: storage (doubles per block, or
// bytes of shared memory and registers per thread), rounding, thread
// scheduling and synchronization, and the ops each runs.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_EXECUTIONCORE_H
#define TILE_IR_EXECUTIONCORE_H

#include "tile/IR/IR.h"
#include "tile/IR/Interpreter.h"
#include "tile/IR/ScalarSemantics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
}

namespace tile {
namespace execution {

using scalar::Scalar;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// A run-time error at \p Loc (category Runtime), rendered with the source
/// line when \p SM holds \p Loc.
llvm::Error makeRuntimeError(const llvm::SourceMgr *SM, llvm::SMLoc Loc,
                             const llvm::Twine &Msg);
/// The error of a run stopped by a fault whose rendered message is \p Msg.
llvm::Error makeFaultError(const std::string &Msg);

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// How an evaluator receives the arguments bindArguments has checked.
struct ArgumentSink {
  /// Where the value of a symbol or a scalar parameter lives.
  llvm::function_ref<Scalar &(const Value &)> ScalarOf;
  /// Called for each tensor argument once it is checked, with the strides
  /// in use and the number of elements its shape and strides span;
  /// \p Desc names the argument for the evaluator's own checks.
  llvm::function_ref<llvm::Error(const BufferValue &Param, TensorArg &T,
                                 std::vector<int64_t> Strides, int64_t Needed,
                                 const std::string &Desc)>
      BindTensor;
};

/// Checks \p Args (in parameter order) against the parameters of \p F and
/// binds them: symbolic dimensions and stride symbols from the tensors,
/// checked against literals and earlier bindings; integer tensors must hold
/// values of their dtype (NaN: not written yet); scalars must be values of
/// their type. Float scalars are rounded to their type when
/// \p RoundFloatScalars. Errors are located at the parameter or symbol.
llvm::Error bindArguments(const Function &F, llvm::ArrayRef<ArgValue> Args,
                          const llvm::SourceMgr *SM, bool RoundFloatScalars,
                          const ArgumentSink &Sink);

//===----------------------------------------------------------------------===//
// Element addressing
//===----------------------------------------------------------------------===//

/// The offset of element \p Idx of a buffer of \p Shape and \p Strides, or
/// std::nullopt when an index is out of range or the rank differs.
std::optional<int64_t> elementOffset(llvm::ArrayRef<int64_t> Shape,
                                     llvm::ArrayRef<int64_t> Strides,
                                     llvm::ArrayRef<int64_t> Idx);

/// "What '%Name[i, j]' is out of range of its shape [m, n]".
std::string describeOutOfRange(llvm::StringRef What, llvm::StringRef Name,
                               llvm::ArrayRef<int64_t> Idx,
                               llvm::ArrayRef<int64_t> Shape);

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// The value after \p I in a loop over \p Ty with step \p Step, or
/// std::nullopt where it would leave the type's range (the loop ends).
std::optional<int64_t> nextLoopValue(int64_t I, int64_t Step, DType Ty);

/// The fault of a loop whose step is not positive, or std::nullopt.
std::optional<std::string> checkLoopStep(int64_t Step);

/// The fault of a kernel's grid dimension \p D of \p Extent, or
/// std::nullopt when it is not negative.
std::optional<std::string> checkGridDim(unsigned D, int64_t Extent);

/// The fault of an allocation of \p B with dimension \p Extent, or
/// std::nullopt when it is not negative.
std::optional<std::string> checkAllocDim(const BufferValue &B, int64_t Extent);

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// A buffer element of type \p From (as the double a buffer holds)
/// converted to type \p To, through \p Cast(Scalar, From, To) and
/// \p ToStored(Scalar, To), the evaluator's rounding. NaN in an integer
/// buffer marks an unwritten element and stays NaN.
template <typename CastFn, typename StoreFn>
double convertElement(double V, DType From, DType To, CastFn Cast,
                      StoreFn ToStored) {
  if (From == To)
    return V;
  if (std::isnan(V) && !isFloat(From))
    return V;
  Scalar S = isFloat(From) ? scalar::floatScalar(V)
                           : scalar::intScalar(scalar::doubleToIntBits(V));
  return ToStored(Cast(S, From, To), To);
}

//===----------------------------------------------------------------------===//
// The compiled function
//===----------------------------------------------------------------------===//

/// What an evaluator compiles a function into and runs it with, and the
/// compilation both evaluators do the same way. The compiled function is
/// flattened expression nodes (NodeT derives from scalar::ExprNode), the
/// slot of every scalar value (SlotRefT has a Base) and the id of every
/// buffer, the slots' values, and the first run-time fault, which unwinds
/// the run. The compilation helpers fill in an evaluator's statements and
/// regions (XStmtT with Exprs, Buf, Threads, Body, Else, HasElse and
/// Regions; XRegionT with Loc, Buf and Off) where the two lower a statement
/// alike. The evaluator \p Derived provides:
///
///   /// A located compile-time error.
///   llvm::Error makeError(llvm::SMLoc Loc, const llvm::Twine &Msg) const;
///   /// Where Slot node \p N reads its value, Load node \p N its buffer.
///   void resolveSlot(NodeT &N, const SlotRefT &Slot);
///   void resolveBuffer(NodeT &N, uint32_t Buf);
///   /// Operand \p Operand of node \p N is compiled.
///   void addOperand(NodeT &N, const NodeT &Operand);
template <typename Derived, typename NodeT, typename SlotRefT>
class CompiledFunction {
public:
  const NodeT &getNode(uint32_t Id) const { return Nodes[Id]; }
  const uint32_t *getOperandIds(const NodeT &N) const {
    return ArgIds.data() + N.FirstArg;
  }
  bool hasFailed() const { return Failed; }

protected:
  /// The slot of a value bound once (a symbol, a scalar parameter).
  Scalar &scalarOf(const Value &V) { return Slots[SlotOf.lookup(&V).Base]; }

  //===--- Compilation ----------------------------------------------------===//

  /// Compiles \p E into nodes: its node's id. A reference must name a
  /// bound value, a load an allocated buffer.
  llvm::Expected<uint32_t> compileExpr(const Expr &E) {
    Derived &D = derived();
    auto Resolve = [&](const Expr &E, NodeT &N) -> llvm::Error {
      return scalar::resolveStorage(
          E, N, SlotOf, BufferOf,
          [&](llvm::SMLoc Loc, const llvm::Twine &Msg) {
            return D.makeError(Loc, Msg);
          },
          [&](NodeT &N, const SlotRefT &Slot) { D.resolveSlot(N, Slot); },
          [&](NodeT &N, uint32_t Buf) { D.resolveBuffer(N, Buf); });
    };
    return scalar::flattenExpr(
        E, Nodes, ArgIds, Resolve,
        [&](NodeT &N, const NodeT &Operand) { D.addOperand(N, Operand); });
  }

  /// Compiles \p E and appends its node's id to \p Ids.
  llvm::Error compileExprInto(const Expr &E,
                              llvm::SmallVectorImpl<uint32_t> &Ids) {
    llvm::Expected<uint32_t> Id = compileExpr(E);
    if (!Id)
      return Id.takeError();
    Ids.push_back(*Id);
    return llvm::Error::success();
  }

  /// Compiles each of \p Exprs and appends its node's id to \p Ids.
  llvm::Error compileExprs(llvm::ArrayRef<ExprPtr> Exprs,
                           llvm::SmallVectorImpl<uint32_t> &Ids) {
    for (const ExprPtr &E : Exprs)
      if (llvm::Error Err = compileExprInto(*E, Ids))
        return Err;
    return llvm::Error::success();
  }

  /// The id of \p B, which \p Use (a statement or an op's region at
  /// \p Loc) names: an error when it is not allocated yet.
  llvm::Expected<uint32_t> lookupBuffer(const BufferValue &B, llvm::SMLoc Loc,
                                        llvm::StringRef Use) const {
    auto It = BufferOf.find(&B);
    if (It == BufferOf.end())
      return derived().makeError(Loc, "'%" + B.getName() + "' is " + Use +
                                          " before it is allocated");
    return It->second;
  }

  /// A store: its buffer into X.Buf, its indices then its value into
  /// X.Exprs.
  template <typename XStmtT>
  llvm::Error compileStore(const StoreStmt &S, XStmtT &X) {
    llvm::Expected<uint32_t> Buf =
        lookupBuffer(*S.getBuffer(), S.getLoc(), "stored to");
    if (!Buf)
      return Buf.takeError();
    X.Buf = *Buf;
    if (llvm::Error E = compileExprs(S.getIndices(), X.Exprs))
      return E;
    return compileExprInto(*S.getValue(), X.Exprs);
  }

  /// An if: its condition into X.Exprs, its blocks into X.Body and X.Else
  /// through \p CompileBlock(const Block &, std::vector<XStmtT> &), which
  /// returns an llvm::Error.
  template <typename XStmtT, typename BlockFn>
  llvm::Error compileIf(const IfStmt &S, XStmtT &X, BlockFn CompileBlock) {
    if (llvm::Error E = compileExprInto(*S.getCond(), X.Exprs))
      return E;
    if (llvm::Error E = CompileBlock(S.getThen(), X.Body))
      return E;
    X.HasElse = S.hasElse();
    if (X.HasElse)
      return CompileBlock(S.getElse(), X.Else);
    return llvm::Error::success();
  }

  /// A kernel's launch: its grid into X.Exprs, its thread count (a
  /// positive integer constant) into X.Threads.
  template <typename XStmtT>
  llvm::Error compileLaunch(const KernelStmt &K, XStmtT &X) {
    if (llvm::Error E = compileExprs(K.getGrid(), X.Exprs))
      return E;
    std::optional<int64_t> T = K.getThreads()->getConstInt();
    if (!T || *T <= 0)
      return derived().makeError(
          K.getThreads()->getLoc(),
          "thread count must be a positive integer constant");
    X.Threads = *T;
    return llvm::Error::success();
  }

  /// An op's region: its location, its buffer and the offsets of its
  /// first element (one per index; none for a whole buffer) into \p X.
  template <typename XRegionT>
  llvm::Error compileRegion(const Region &R, XRegionT &X) {
    X.Loc = R.Loc;
    llvm::Expected<uint32_t> Buf = lookupBuffer(*R.Buf, R.Loc, "used");
    if (!Buf)
      return Buf.takeError();
    X.Buf = *Buf;
    for (const RegionIndex &I : R.Indices)
      if (llvm::Error E = compileExprInto(*I.Offset, X.Off))
        return E;
    return llvm::Error::success();
  }

  /// The operands of \p Op in order: its expressions into X.Exprs, its
  /// regions into X.Regions through \p CompileRegion(const Region &,
  /// unsigned RegionNo), which returns an llvm::Expected of X's region.
  template <typename XStmtT, typename RegionFn>
  llvm::Error compileOpOperands(const OpStmt &Op, XStmtT &X,
                                RegionFn CompileRegion) {
    unsigned RegionNo = 0;
    for (const OpOperand &O : Op.getOperands()) {
      if (O.Kind == OperandKind::Expr) {
        if (llvm::Error E = compileExprInto(*O.E, X.Exprs))
          return E;
        continue;
      }
      auto R = CompileRegion(O.R, RegionNo++);
      if (!R)
        return R.takeError();
      X.Regions.push_back(std::move(*R));
    }
    return llvm::Error::success();
  }

  // Compilation state.
  llvm::DenseMap<const Value *, SlotRefT> SlotOf;
  llvm::DenseMap<const Value *, uint32_t> BufferOf;
  uint32_t NumSlots = 0;

  // The program's expressions: node I's operands are
  // ArgIds[Nodes[I].FirstArg, + NumArgs).
  std::vector<NodeT> Nodes;
  std::vector<uint32_t> ArgIds;

  // Run-time state.
  std::vector<Scalar> Slots;
  bool Failed = false;
  /// The first fault, rendered.
  std::string FailMsg;

private:
  Derived &derived() { return static_cast<Derived &>(*this); }
  const Derived &derived() const { return static_cast<const Derived &>(*this); }
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Evaluates flattened expressions to one scalar: the walk over the nodes,
/// the lazy `&&`, `||` and `select` (only what decides the result is
/// evaluated, so a guarded load is not a fault), and the operators of
/// tile/IR/ScalarSemantics.h. \p Thread, passed through the walk, is the
/// thread evaluating (-1: none in particular); the evaluator \p Derived
/// gives it a meaning. Derived provides (getNode, getOperandIds and
/// hasFailed come with CompiledFunction):
///
///   const NodeT &getNode(uint32_t Id) const;
///   const uint32_t *getOperandIds(const NodeT &N) const;
///   bool hasFailed() const;
///   /// The value of a Slot node.
///   Scalar slotValue(const NodeT &N, int64_t Thread);
///   /// A Load node's element at \p Idx (its indices, evaluated).
///   Scalar loadValue(const NodeT &N, llvm::ArrayRef<int64_t> Idx,
///                    int64_t Thread);
///   /// cast<To>(V) as this evaluator rounds.
///   Scalar castValue(Scalar V, DType From, DType To);
///   /// Records a fault of node N (the first one stops the run).
///   void fault(const NodeT &N, const llvm::Twine &Msg, int64_t Thread);
template <typename Derived, typename NodeT> class ScalarEvaluator {
protected:
  Scalar evalScalar(uint32_t Id, int64_t Thread) {
    using scalar::intScalar;
    using scalar::NodeKind;
    Derived &D = static_cast<Derived &>(*this);
    const NodeT &N = D.getNode(Id);
    const uint32_t *A = D.getOperandIds(N);
    switch (N.K) {
    case NodeKind::Const:
      return N.C;
    case NodeKind::Slot:
      return D.slotValue(N, Thread);
    case NodeKind::Load: {
      llvm::SmallVector<int64_t, 4> Idx;
      for (unsigned I = 0; I != N.NumArgs; ++I)
        Idx.push_back(evalScalar(A[I], Thread).I);
      if (D.hasFailed())
        return intScalar(0);
      return D.loadValue(N, Idx, Thread);
    }
    case NodeKind::Unary:
      return scalar::applyUnary(UnaryOp(N.Op), N.Ty, evalScalar(A[0], Thread));
    case NodeKind::Binary: {
      auto Op = BinaryOp(N.Op);
      if (Op == BinaryOp::LogicalAnd || Op == BinaryOp::LogicalOr) {
        bool L = evalScalar(A[0], Thread).I != 0;
        if (L == (Op == BinaryOp::LogicalOr))
          return intScalar(L);
        return intScalar(evalScalar(A[1], Thread).I != 0);
      }
      Scalar L = evalScalar(A[0], Thread), R = evalScalar(A[1], Thread);
      return scalar::applyBinary(
          Op, N.ArgTy, L, R,
          [&](const llvm::Twine &Msg) { D.fault(N, Msg, Thread); });
    }
    case NodeKind::Call: {
      auto Fn = Intrinsic(N.Op);
      if (Fn == Intrinsic::Select)
        return evalScalar(evalScalar(A[0], Thread).I ? A[1] : A[2], Thread);
      Scalar X = evalScalar(A[0], Thread);
      Scalar Y = N.NumArgs > 1 ? evalScalar(A[1], Thread) : intScalar(0);
      return scalar::applyIntrinsic(
          Fn, N.ArgTy, X, Y,
          [&](const llvm::Twine &Msg) { D.fault(N, Msg, Thread); });
    }
    case NodeKind::Cast:
      return D.castValue(evalScalar(A[0], Thread), N.ArgTy, N.Ty);
    }
    llvm_unreachable("unknown node");
  }
};

} // namespace execution
} // namespace tile

#endif // TILE_IR_EXECUTIONCORE_H
