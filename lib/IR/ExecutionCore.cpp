//===- ExecutionCore.cpp - What Tile's evaluators share ------------------===//
//
// The parts of tile/IR/ExecutionCore.h that are not templates: argument
// binding, element addressing and the run-time rules of statements that the
// reference interpreter and the CUDA emulator share.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/ExecutionCore.h"
#include "tile/IR/Attribute.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/Printer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <cmath>
#include <limits>

using namespace tile;
using namespace tile::execution;
using namespace tile::scalar;
using llvm::dyn_cast;
using llvm::SMLoc;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

llvm::Error execution::makeRuntimeError(const llvm::SourceMgr *SM, SMLoc Loc,
                                        const Twine &Msg) {
  return llvm::make_error<DiagnosticError>(
      ErrorCategory::Runtime,
      std::vector<Diagnostic>{{Severity::Error, Loc, Msg.str()}},
      renderLocatedMessage(SM, Loc, Msg));
}

llvm::Error execution::makeFaultError(const std::string &Msg) {
  return llvm::make_error<DiagnosticError>(ErrorCategory::Runtime,
                                           std::vector<Diagnostic>(), Msg);
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

namespace {

/// Whether \p V is a value of the integer (or i1) type \p Ty.
bool isIntegerValue(double V, DType Ty) {
  int W = int(getDTypeBits(Ty));
  double Lo = isSignedInteger(Ty) ? -std::ldexp(1.0, W - 1) : 0;
  double End =
      isSignedInteger(Ty) ? std::ldexp(1.0, W - 1) : std::ldexp(1.0, W);
  return V == std::trunc(V) && V >= Lo && V < End;
}

std::string formatShape(const BufferValue &B) {
  std::string S = getDTypeName(B.getDType()).str() + "[";
  llvm::ListSeparator LS;
  for (const ExprPtr &D : B.getShape())
    S += (llvm::StringRef(LS) + toString(*D)).str();
  return S + "]";
}

class ArgumentBinder {
public:
  ArgumentBinder(const Function &F, const llvm::SourceMgr *SM,
                 bool RoundFloatScalars, const ArgumentSink &Sink)
      : F(F), SM(SM), RoundFloatScalars(RoundFloatScalars), Sink(Sink) {}

  llvm::Error bind(llvm::ArrayRef<ArgValue> Args);

private:
  llvm::Error makeError(SMLoc Loc, const Twine &Msg) const {
    return makeRuntimeError(SM, Loc, Msg);
  }
  llvm::Error bindDim(const Expr &E, int64_t Actual, const Twine &What,
                      const Twine &ArgDesc, const Value &Param);
  llvm::Error checkIntegerData(const TensorArg &T, const BufferValue &P,
                               const Twine &ArgDesc);
  llvm::Error bindTensor(const BufferValue &B, TensorArg &T, std::string Desc);
  llvm::Error bindScalar(const Value &P, const ArgValue &A, std::string Desc);

  const Function &F;
  const llvm::SourceMgr *SM;
  bool RoundFloatScalars;
  const ArgumentSink &Sink;
  /// The symbols bound so far, and what bound them.
  llvm::DenseMap<const Value *, std::string> BoundBy;
};

} // namespace

/// Binds a symbol in a parameter's shape or strides, or checks it against
/// a literal or an earlier binding.
llvm::Error ArgumentBinder::bindDim(const Expr &E, int64_t Actual,
                                    const Twine &What, const Twine &ArgDesc,
                                    const Value &Param) {
  if (std::optional<int64_t> C = E.getConstInt()) {
    if (*C != Actual)
      return makeError(E.getLoc(), ArgDesc + ": " + What + " must be " +
                                       Twine(*C) + ", got " + Twine(Actual));
    return llvm::Error::success();
  }
  const auto *R = dyn_cast<RefExpr>(&E);
  if (!R || R->getValue()->getKind() != Value::Kind::Dim)
    return makeError(E.getLoc(), ArgDesc + ": " + What +
                                     " is neither an integer nor a symbol");
  const Value *D = R->getValue();
  Scalar &S = Sink.ScalarOf(*D);
  auto It = BoundBy.find(D);
  if (It != BoundBy.end()) {
    int64_t Bound = S.I;
    if (Bound != Actual)
      return makeError(E.getLoc(),
                       ArgDesc + ": " + What + " is " + D->getName() + " = " +
                           Twine(Bound) + " (bound by " + It->second +
                           "), but the tensor has " + Twine(Actual));
    return llvm::Error::success();
  }
  if (Actual > std::numeric_limits<int32_t>::max())
    return makeError(E.getLoc(), ArgDesc + ": " + What + " " + D->getName() +
                                     " = " + Twine(Actual) +
                                     " does not fit the symbol's type i32");
  S = intScalar(Actual);
  BoundBy[D] = What.str() + " of '%" + Param.getName().str() + "'";
  return llvm::Error::success();
}

llvm::Error ArgumentBinder::checkIntegerData(const TensorArg &T,
                                             const BufferValue &P,
                                             const Twine &ArgDesc) {
  DType Ty = P.getDType();
  std::vector<int64_t> Strides = T.getEffectiveStrides();
  size_t Rank = T.Shape.size();
  std::vector<int64_t> Idx(Rank, 0);
  for (int64_t K = 0, N = T.getNumElements(); K != N; ++K) {
    int64_t Off = 0;
    for (size_t D = 0; D != Rank; ++D)
      Off += Idx[D] * Strides[D];
    double V = T.Data[size_t(Off)];
    // NaN marks an element not yet written (a poisoned output).
    if (!std::isnan(V) && !isIntegerValue(V, Ty))
      return makeError(P.getLoc(), ArgDesc + ": element " + formatList(Idx) +
                                       " is " + formatFloat(V) +
                                       ", which is not a value of " +
                                       getDTypeName(Ty));
    for (size_t D = Rank; D-- > 0;) {
      if (++Idx[D] < T.Shape[D])
        break;
      Idx[D] = 0;
    }
  }
  return llvm::Error::success();
}

llvm::Error ArgumentBinder::bindTensor(const BufferValue &B, TensorArg &T,
                                       std::string Desc) {
  Desc += ": " + formatShape(B) + ")";
  if (T.Shape.size() != B.getRank())
    return makeError(B.getLoc(),
                     Desc + ": expected rank " + Twine(B.getRank()) +
                         ", got a tensor of rank " + Twine(T.Shape.size()) +
                         " and shape " + formatList(T.Shape));
  if (!T.Strides.empty() && T.Strides.size() != T.Shape.size())
    return makeError(B.getLoc(), Desc + ": the tensor has " +
                                     Twine(T.Shape.size()) +
                                     " dimensions but " +
                                     Twine(T.Strides.size()) + " strides");
  for (unsigned D = 0; D != B.getRank(); ++D) {
    if (T.Shape[D] < 0)
      return makeError(B.getLoc(), Desc + ": dimension " + Twine(D) +
                                       " of the tensor is negative");
    if (llvm::Error E = bindDim(*B.getShape()[D], T.Shape[D],
                                "dimension " + Twine(D), Desc, B))
      return E;
  }
  std::vector<int64_t> Strides = T.getEffectiveStrides();
  if (!B.getStrides().empty()) {
    for (unsigned D = 0; D != B.getRank(); ++D)
      if (llvm::Error E = bindDim(*B.getStrides()[D], Strides[D],
                                  "stride " + Twine(D), Desc, B))
        return E;
  } else if (!T.Strides.empty()) {
    TensorArg RowMajor;
    RowMajor.Shape = T.Shape;
    if (RowMajor.getEffectiveStrides() != T.Strides)
      return makeError(B.getLoc(), Desc +
                                       ": the parameter is row-major and "
                                       "contiguous but the tensor has "
                                       "strides " +
                                       formatList(T.Strides) +
                                       "; declare them with strides(...)");
  }
  int64_t Needed = T.getNumElements() == 0 ? 0 : 1;
  for (unsigned D = 0; D != B.getRank() && Needed; ++D)
    Needed += (T.Shape[D] - 1) * Strides[D];
  if (int64_t(T.Data.size()) < Needed)
    return makeError(B.getLoc(), Desc +
                                     ": the tensor's shape and strides "
                                     "need " +
                                     Twine(Needed) +
                                     " elements of data, it has " +
                                     Twine(T.Data.size()));
  if (!isFloat(B.getDType()))
    if (llvm::Error E = checkIntegerData(T, B, Desc))
      return E;
  return Sink.BindTensor(B, T, std::move(Strides), Needed, Desc);
}

llvm::Error ArgumentBinder::bindScalar(const Value &P, const ArgValue &A,
                                       std::string Desc) {
  DType Ty = P.getDType();
  Desc += ": " + getDTypeName(Ty).str() + ")";
  if (A.getKind() == ArgValue::Kind::Tensor)
    return makeError(P.getLoc(), Desc + ": expected a scalar, got a tensor");
  Scalar &S = Sink.ScalarOf(P);
  if (isFloat(Ty)) {
    double V =
        A.getKind() == ArgValue::Kind::Int ? double(A.getInt()) : A.getFloat();
    S = floatScalar(RoundFloatScalars ? roundToDType(V, Ty) : V);
    return llvm::Error::success();
  }
  if (A.getKind() == ArgValue::Kind::Int) {
    int64_t V = A.getInt();
    unsigned W = getDTypeBits(Ty);
    bool Fits = isBool(Ty)       ? (V == 0 || V == 1)
                : isUnsigned(Ty) ? V >= 0 && (W >= 64 || V < (int64_t(1) << W))
                : W >= 64        ? true
                                 : llvm::isIntN(W, V);
    if (!Fits)
      return makeError(P.getLoc(), Desc + ": " + Twine(V) +
                                       " is not a value of " +
                                       getDTypeName(Ty));
    S = intScalar(V);
    return llvm::Error::success();
  }
  double V = A.getFloat();
  if (!isIntegerValue(V, Ty))
    return makeError(P.getLoc(), Desc + ": " + formatFloat(V) +
                                     " is not a value of " + getDTypeName(Ty));
  S = intScalar(doubleToIntBits(V));
  return llvm::Error::success();
}

llvm::Error ArgumentBinder::bind(llvm::ArrayRef<ArgValue> Args) {
  llvm::ArrayRef<std::unique_ptr<Value>> Params = F.getParams();
  if (Args.size() != Params.size()) {
    std::string Names;
    llvm::ListSeparator LS;
    for (const auto &P : Params)
      Names += (llvm::StringRef(LS) + "%" + P->getName()).str();
    return makeError(
        F.getLoc(),
        "@" + F.getName() + " takes " + Twine(Params.size()) + " argument" +
            (Params.size() == 1 ? "" : "s") + " (" + Names + ") but " +
            Twine(Args.size()) + (Args.size() == 1 ? " was" : " were") +
            " given" +
            (Args.size() < Params.size()
                 ? "; no argument for '%" + Params[Args.size()]->getName() + "'"
                 : ""));
  }
  for (size_t I = 0; I != Params.size(); ++I) {
    const Value *P = Params[I].get();
    const ArgValue &A = Args[I];
    std::string Desc =
        ("argument " + Twine(I + 1) + " ('%" + P->getName() + "'").str();
    const auto *B = dyn_cast<BufferValue>(P);
    if (!B) {
      if (llvm::Error E = bindScalar(*P, A, std::move(Desc)))
        return E;
      continue;
    }
    if (A.getKind() != ArgValue::Kind::Tensor)
      return makeError(P->getLoc(), Desc + ": " + formatShape(*B) +
                                        "): expected a tensor, got a scalar");
    if (llvm::Error E = bindTensor(*B, *A.getTensor(), std::move(Desc)))
      return E;
  }
  for (const auto &D : F.getDims())
    if (!BoundBy.count(D.get()))
      return makeError(D->getLoc(), "symbol " + D->getName() +
                                        " is not bound by any tensor's shape "
                                        "or strides");
  return llvm::Error::success();
}

llvm::Error execution::bindArguments(const Function &F,
                                     llvm::ArrayRef<ArgValue> Args,
                                     const llvm::SourceMgr *SM,
                                     bool RoundFloatScalars,
                                     const ArgumentSink &Sink) {
  return ArgumentBinder(F, SM, RoundFloatScalars, Sink).bind(Args);
}

//===----------------------------------------------------------------------===//
// Element addressing
//===----------------------------------------------------------------------===//

std::optional<int64_t> execution::elementOffset(llvm::ArrayRef<int64_t> Shape,
                                                llvm::ArrayRef<int64_t> Strides,
                                                llvm::ArrayRef<int64_t> Idx) {
  if (Idx.size() != Shape.size())
    return std::nullopt;
  int64_t Off = 0;
  for (size_t D = 0; D != Idx.size(); ++D) {
    if (Idx[D] < 0 || Idx[D] >= Shape[D])
      return std::nullopt;
    Off += Idx[D] * Strides[D];
  }
  return Off;
}

std::string execution::describeOutOfRange(llvm::StringRef What,
                                          llvm::StringRef Name,
                                          llvm::ArrayRef<int64_t> Idx,
                                          llvm::ArrayRef<int64_t> Shape) {
  return (What + " '%" + Name + formatList(Idx) +
          "' is out of range of its shape " + formatList(Shape))
      .str();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

std::optional<int64_t> execution::nextLoopValue(int64_t I, int64_t Step,
                                                DType Ty) {
  int64_t Next = wrapInt(uint64_t(I) + uint64_t(Step), Ty);
  if (lessThan(Next, I, Ty))
    return std::nullopt;
  return Next;
}

std::optional<std::string> execution::checkLoopStep(int64_t Step) {
  if (Step > 0)
    return std::nullopt;
  return ("loop step must be positive, got " + Twine(Step)).str();
}

std::optional<std::string> execution::checkGridDim(unsigned D, int64_t Extent) {
  if (Extent >= 0)
    return std::nullopt;
  return ("grid dimension " + Twine(D) + " is negative, " + Twine(Extent))
      .str();
}

std::optional<std::string> execution::checkAllocDim(const BufferValue &B,
                                                    int64_t Extent) {
  if (Extent >= 0)
    return std::nullopt;
  return ("'%" + B.getName() + "' would have a negative dimension, " +
          Twine(Extent))
      .str();
}
