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
//  - the compilation of what both lower the same way: a kernel's thread
//    count, a region's offsets, the buffer a store names.
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
// Compilation
//===----------------------------------------------------------------------===//

/// Makes a located compile-time error: (Loc, Msg) -> llvm::Error.
using MakeErrorFn =
    llvm::function_ref<llvm::Error(llvm::SMLoc, const llvm::Twine &)>;
/// Compiles an expression to a node id.
using CompileExprFn = llvm::function_ref<llvm::Expected<uint32_t>(const Expr &)>;

/// The thread count of kernel \p K, a positive integer constant.
llvm::Expected<int64_t> getKernelThreads(const KernelStmt &K,
                                         MakeErrorFn MakeError);

/// Compiles each of \p Exprs and appends its node id to \p Ids.
llvm::Error compileExprs(llvm::ArrayRef<ExprPtr> Exprs, CompileExprFn Compile,
                         llvm::SmallVectorImpl<uint32_t> &Ids);

/// The id \p BufferOf gives \p B, which \p Use (a statement or an op's
/// region at \p Loc) names: an error when it is not allocated yet.
llvm::Expected<uint32_t>
lookupBuffer(const llvm::DenseMap<const Value *, uint32_t> &BufferOf,
             const BufferValue &B, llvm::SMLoc Loc, llvm::StringRef Use,
             MakeErrorFn MakeError);

/// Compiles the offsets of region \p R (one per index) into \p Off.
llvm::Error compileRegionOffsets(const Region &R, CompileExprFn Compile,
                                 llvm::SmallVectorImpl<uint32_t> &Off);

/// Compiles the operands of \p Op in order: its expressions into \p Exprs,
/// its regions through \p CompileRegion(const Region &, unsigned RegionNo),
/// which returns an llvm::Error.
template <typename RegionFn>
llvm::Error compileOpOperands(const OpStmt &Op, CompileExprFn Compile,
                              llvm::SmallVectorImpl<uint32_t> &Exprs,
                              RegionFn CompileRegion) {
  unsigned RegionNo = 0;
  for (const OpOperand &O : Op.getOperands()) {
    if (O.Kind == OperandKind::Expr) {
      llvm::Expected<uint32_t> Id = Compile(*O.E);
      if (!Id)
        return Id.takeError();
      Exprs.push_back(*Id);
      continue;
    }
    if (llvm::Error E = CompileRegion(O.R, RegionNo++))
      return E;
  }
  return llvm::Error::success();
}

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

/// What an evaluator compiles a function into and runs it with: flattened
/// expression nodes (NodeT derives from scalar::ExprNode), the slot of
/// every scalar value (SlotRefT has a Base) and the id of every buffer, the
/// slots' values, and the first run-time fault, which unwinds the run.
template <typename NodeT, typename SlotRefT> class CompiledFunction {
public:
  const NodeT &getNode(uint32_t Id) const { return Nodes[Id]; }
  const uint32_t *getOperandIds(const NodeT &N) const {
    return ArgIds.data() + N.FirstArg;
  }
  bool hasFailed() const { return Failed; }

protected:
  /// The slot of a value bound once (a symbol, a scalar parameter).
  Scalar &scalarOf(const Value &V) { return Slots[SlotOf.lookup(&V).Base]; }

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
