//===- ReferenceInterpreter.cpp - Tile IR executed in f64 -----------------===//
//
// A tree-walking interpreter. Scalars and buffer elements are doubles;
// integer results are wrapped to their dtype's width, float results are
// kept in f64. Tile ops are implemented directly from their definitions
// (not through the lowering passes). Blocks of a kernel run one after
// another; within a block, statements that depend on the thread index run
// for each thread in turn, grouped into runs as the language defines.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/ReferenceInterpreter.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <cmath>
#include <deque>
#include <limits>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// A buffer at run time.
struct RtBuffer {
  DType Ty = DType::F32;
  std::vector<int64_t> Shape, Strides;
  double *Data = nullptr;
  bool Global = false;
  std::vector<double> Storage;
  int64_t size() const {
    int64_t N = 1;
    for (int64_t D : Shape)
      N *= D;
    return N;
  }
};

/// Wraps an integer to the width and signedness of \p T.
double wrapInt(int64_t V, DType T) {
  if (isBool(T))
    return V != 0;
  unsigned B = getDTypeBits(T);
  if (B >= 64)
    return isUnsigned(T) ? double(uint64_t(V)) : double(V);
  uint64_t U = uint64_t(V) & ((uint64_t(1) << B) - 1);
  if (isUnsigned(T))
    return double(U);
  if (U >> (B - 1))
    return double(int64_t(U | (~uint64_t(0) << B)));
  return double(int64_t(U));
}

/// The value \p V converted to dtype \p T: floats unchanged (f64 is the
/// reference precision), integers truncated toward zero, saturated, and
/// wrapped; NaN becomes 0 (as LLVM's saturating conversions do).
double convertTo(double V, DType From, DType T) {
  if (isFloat(T))
    return V;
  if (isBool(T))
    return V != 0;
  if (isFloat(From)) {
    if (std::isnan(V))
      return 0;
    double Tr = std::trunc(V);
    unsigned B = getDTypeBits(T);
    double Lo = isUnsigned(T) ? 0 : -std::ldexp(1.0, B - 1);
    double Hi = isUnsigned(T) ? std::ldexp(1.0, B) - 1 : std::ldexp(1.0, B - 1) - 1;
    return std::min(std::max(Tr, Lo), Hi);
  }
  return wrapInt(int64_t(V), T);
}

int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

class Interp {
public:
  explicit Interp(const InterpreterOptions &O) : Opts(O) {}

  llvm::Error run(const Function &F, llvm::ArrayRef<RefArg> Args);

private:
  //===--- Errors ---------------------------------------------------------===//
  bool failed() const { return !Error.empty(); }
  void fail(llvm::SMLoc Loc, const llvm::Twine &Msg) {
    if (failed())
      return;
    std::string Where;
    if (Opts.SM && Loc.isValid()) {
      unsigned ID = Opts.SM->FindBufferContainingLoc(Loc);
      if (ID) {
        auto [Line, Col] = Opts.SM->getLineAndColumn(Loc, ID);
        Where = Opts.SM->getMemoryBuffer(ID)->getBufferIdentifier().str() +
                ":" + std::to_string(Line) + ":" + std::to_string(Col) + ": ";
      }
    }
    Error = Where + "error: " + Msg.str();
  }

  //===--- Values ---------------------------------------------------------===//
  double eval(const Expr &E);
  int64_t evalInt(const Expr &E) { return int64_t(eval(E)); }
  RtBuffer &buffer(const BufferValue *B) { return *Buffers.lookup(B); }
  RtBuffer &bind(const BufferValue *B, std::vector<int64_t> Shape,
                 double *Data, bool Global);
  RtBuffer &allocate(const BufferValue *B, std::vector<int64_t> Shape,
                     bool Global, double Fill);
  /// Linear offset of \p Idx, or -1 when out of range.
  int64_t offset(const RtBuffer &B, llvm::ArrayRef<int64_t> Idx) const {
    int64_t Off = 0;
    for (size_t D = 0; D != Idx.size(); ++D) {
      if (Idx[D] < 0 || Idx[D] >= B.Shape[D])
        return -1;
      Off += Idx[D] * B.Strides[D];
    }
    return Off;
  }
  double load(const BufferValue *BV, llvm::ArrayRef<ExprPtr> Idx, llvm::SMLoc Loc);
  void store(const BufferValue *BV, llvm::ArrayRef<ExprPtr> Idx, double V,
             DType From, llvm::SMLoc Loc);

  //===--- Statements -----------------------------------------------------===//
  void execBlock(const Block &B);
  void execStmt(const Stmt &S);
  void execFor(const ForStmt &F);
  void execKernel(const KernelStmt &K);
  void execOp(const OpStmt &Op);
  void execKernelBlock(const Block &B);
  bool dependsOnThread(const Stmt &S);

  //===--- Tile ops -------------------------------------------------------===//
  struct Access {
    RtBuffer *B;
    std::vector<int64_t> Offsets, Extents;
    /// Per dimension: position among the non-unit dimensions, or -1.
    std::vector<int> Pos;
    unsigned NonUnit = 0;
  };
  bool access(const Region &R, const Region *Other, Access &A);
  /// The element of \p A at squeezed position \p P (nullopt when a global
  /// element is out of range; an error when an on-chip one is).
  std::optional<int64_t> element(const Access &A, llvm::ArrayRef<int64_t> P,
                                 llvm::SMLoc Loc);
  /// Calls \p Fn on every squeezed position of \p Ext, row-major.
  template <typename FnT> void forEach(llvm::ArrayRef<int64_t> Ext, FnT Fn) {
    int64_t N = 1;
    for (int64_t E : Ext)
      N *= std::max<int64_t>(E, 0);
    std::vector<int64_t> P(Ext.size(), 0);
    for (int64_t I = 0; I < N && !failed(); ++I) {
      Fn(llvm::ArrayRef<int64_t>(P));
      for (size_t D = Ext.size(); D-- > 0;) {
        if (++P[D] < Ext[D])
          break;
        P[D] = 0;
      }
    }
  }
  void execGemm(const OpStmt &Op);
  void execReduce(const OpStmt &Op);
  void execCumsum(const OpStmt &Op);

  const InterpreterOptions &Opts;
  std::string Error;
  llvm::DenseMap<const Value *, double> Scalars;
  llvm::DenseMap<const BufferValue *, RtBuffer *> Buffers;
  std::deque<RtBuffer> Storage;
  /// Values that depend on the thread index in the current kernel.
  llvm::DenseSet<const Value *> ThreadDep;
  const KernelStmt *CurKernel = nullptr;
  /// Per thread, the thread-dependent lets of earlier runs.
  std::vector<llvm::DenseMap<const Value *, double>> ThreadEnv;
};

} // namespace

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

RtBuffer &Interp::bind(const BufferValue *B, std::vector<int64_t> Shape,
                       double *Data, bool Global) {
  Storage.emplace_back();
  RtBuffer &R = Storage.back();
  R.Ty = B->getDType();
  R.Shape = std::move(Shape);
  R.Strides.assign(R.Shape.size(), 1);
  for (size_t D = R.Shape.size(); D-- > 1;)
    R.Strides[D - 1] = R.Strides[D] * R.Shape[D];
  R.Data = Data;
  R.Global = Global;
  Buffers[B] = &R;
  return R;
}

RtBuffer &Interp::allocate(const BufferValue *B, std::vector<int64_t> Shape,
                           bool Global, double Fill) {
  int64_t N = 1;
  for (int64_t D : Shape)
    N *= D;
  RtBuffer &R = bind(B, std::move(Shape), nullptr, Global);
  R.Storage.assign(size_t(std::max<int64_t>(N, 1)), Fill);
  R.Data = R.Storage.data();
  return R;
}

double Interp::load(const BufferValue *BV, llvm::ArrayRef<ExprPtr> Idx,
                    llvm::SMLoc Loc) {
  RtBuffer &B = buffer(BV);
  if (BV->getScope() == MemScope::Var)
    return B.Data[0];
  llvm::SmallVector<int64_t, 4> I;
  for (const ExprPtr &E : Idx)
    I.push_back(evalInt(*E));
  int64_t Off = offset(B, I);
  if (Off < 0) {
    std::string S;
    for (int64_t X : I)
      S += (S.empty() ? "" : ", ") + std::to_string(X);
    fail(Loc, "read of '%" + BV->getName() + "[" + S + "]' is out of range");
    return 0;
  }
  return B.Data[Off];
}

void Interp::store(const BufferValue *BV, llvm::ArrayRef<ExprPtr> Idx, double V,
                   DType From, llvm::SMLoc Loc) {
  RtBuffer &B = buffer(BV);
  V = convertTo(V, From, B.Ty);
  if (BV->getScope() == MemScope::Var) {
    B.Data[0] = V;
    return;
  }
  llvm::SmallVector<int64_t, 4> I;
  for (const ExprPtr &E : Idx)
    I.push_back(evalInt(*E));
  int64_t Off = offset(B, I);
  if (Off < 0) {
    std::string S;
    for (int64_t X : I)
      S += (S.empty() ? "" : ", ") + std::to_string(X);
    fail(Loc, "write of '%" + BV->getName() + "[" + S + "]' is out of range");
    return;
  }
  B.Data[Off] = V;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

double Interp::eval(const Expr &E) {
  DType Ty = E.getDType();
  switch (E.getKind()) {
  case Expr::Kind::IntLit:
    return wrapInt(cast<IntLitExpr>(E).getValue(), Ty);
  case Expr::Kind::FloatLit:
    return cast<FloatLitExpr>(E).getValue();
  case Expr::Kind::Inf:
    return std::numeric_limits<double>::infinity();
  case Expr::Kind::Ref: {
    auto It = Scalars.find(cast<RefExpr>(E).getValue());
    if (It == Scalars.end()) {
      fail(E.getLoc(), "'" + cast<RefExpr>(E).getValue()->getName() +
                           "' has no value here");
      return 0;
    }
    return It->second;
  }
  case Expr::Kind::Load: {
    const auto &L = cast<LoadExpr>(E);
    return load(L.getBuffer(), L.getIndices(), L.getLoc());
  }
  case Expr::Kind::Cast: {
    const auto &C = cast<CastExpr>(E);
    return convertTo(eval(*C.getOperand()), C.getOperand()->getDType(), Ty);
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    double X = eval(*U.getOperand());
    if (U.getOp() == UnaryOp::Not)
      return X == 0;
    return isFloat(Ty) ? -X : wrapInt(-int64_t(X), Ty);
  }
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    double L = eval(*B.getLHS()), R = eval(*B.getRHS());
    DType OT = B.getLHS()->getDType();
    bool F = isFloat(OT), U = isUnsigned(OT);
    auto IL = int64_t(L), IR = int64_t(R);
    uint64_t UL = uint64_t(IL), UR = uint64_t(IR);
    if (U) {
      UL = uint64_t(L);
      UR = uint64_t(R);
    }
    switch (B.getOp()) {
    case BinaryOp::Add: return F ? L + R : wrapInt(int64_t(UL + UR), Ty);
    case BinaryOp::Sub: return F ? L - R : wrapInt(int64_t(UL - UR), Ty);
    case BinaryOp::Mul: return F ? L * R : wrapInt(int64_t(UL * UR), Ty);
    case BinaryOp::Div:
      if (F)
        return L / R;
      if (R == 0) {
        fail(E.getLoc(), "integer division by zero");
        return 0;
      }
      return U ? wrapInt(int64_t(UL / UR), Ty) : wrapInt(IL / IR, Ty);
    case BinaryOp::Rem:
      if (F)
        return std::fmod(L, R);
      if (R == 0) {
        fail(E.getLoc(), "integer remainder by zero");
        return 0;
      }
      return U ? wrapInt(int64_t(UL % UR), Ty) : wrapInt(IL % IR, Ty);
    case BinaryOp::And: return wrapInt(int64_t(UL & UR), Ty);
    case BinaryOp::Or: return wrapInt(int64_t(UL | UR), Ty);
    case BinaryOp::Xor: return wrapInt(int64_t(UL ^ UR), Ty);
    case BinaryOp::Shl:
      return IR < 0 || IR >= 64 ? 0 : wrapInt(int64_t(UL << IR), Ty);
    case BinaryOp::Shr:
      if (IR < 0 || IR >= 64)
        return 0;
      return U ? wrapInt(int64_t(UL >> IR), Ty) : wrapInt(IL >> IR, Ty);
    case BinaryOp::LogicalAnd: return L != 0 && R != 0;
    case BinaryOp::LogicalOr: return L != 0 || R != 0;
    case BinaryOp::Eq: return L == R;
    case BinaryOp::Ne: return L != R;
    case BinaryOp::Lt: return L < R;
    case BinaryOp::Le: return L <= R;
    case BinaryOp::Gt: return L > R;
    case BinaryOp::Ge: return L >= R;
    }
    return 0;
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    llvm::ArrayRef<ExprPtr> A = C.getArgs();
    if (C.getIntrinsic() == Intrinsic::Select)
      return eval(*A[0]) != 0 ? eval(*A[1]) : eval(*A[2]);
    double X = eval(*A[0]);
    bool F = isFloat(A[0]->getDType());
    switch (C.getIntrinsic()) {
    case Intrinsic::Min: {
      double Y = eval(*A[1]);
      return F ? std::fmin(X, Y) : std::min(X, Y);
    }
    case Intrinsic::Max: {
      double Y = eval(*A[1]);
      return F ? std::fmax(X, Y) : std::max(X, Y);
    }
    case Intrinsic::Abs: return F ? std::fabs(X) : wrapInt(std::llabs(int64_t(X)), Ty);
    case Intrinsic::Exp: return std::exp(X);
    case Intrinsic::Exp2: return std::exp2(X);
    case Intrinsic::Log: return std::log(X);
    case Intrinsic::Log2: return std::log2(X);
    case Intrinsic::Sqrt: return std::sqrt(X);
    case Intrinsic::Rsqrt: return 1.0 / std::sqrt(X);
    case Intrinsic::Tanh: return std::tanh(X);
    case Intrinsic::CeilDiv:
    case Intrinsic::FloorDiv:
    case Intrinsic::FloorMod: {
      int64_t P = int64_t(X), Q = int64_t(eval(*A[1]));
      if (Q == 0) {
        fail(E.getLoc(), "'" + getIntrinsicName(C.getIntrinsic()) +
                             "' by zero");
        return 0;
      }
      if (C.getIntrinsic() == Intrinsic::FloorDiv)
        return wrapInt(floorDiv(P, Q), Ty);
      if (C.getIntrinsic() == Intrinsic::FloorMod)
        return wrapInt(P - floorDiv(P, Q) * Q, Ty);
      return wrapInt(-floorDiv(-P, Q), Ty);
    }
    case Intrinsic::Select:
      break;
    }
    return 0;
  }
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Interp::execBlock(const Block &B) {
  for (const StmtPtr &S : B.Stmts) {
    if (failed())
      return;
    execStmt(*S);
  }
}

void Interp::execStmt(const Stmt &S) {
  switch (S.getKind()) {
  case Stmt::Kind::Alloc: {
    const BufferValue *B = cast<AllocStmt>(S).getBuffer();
    std::vector<int64_t> Shape;
    for (const ExprPtr &D : B->getShape())
      Shape.push_back(evalInt(*D));
    bool Global = B->getScope() == MemScope::Global;
    double Fill = Global || !Opts.PoisonOnChip || !isFloat(B->getDType())
                      ? 0.0
                      : std::numeric_limits<double>::quiet_NaN();
    allocate(B, std::move(Shape), Global, Fill);
    return;
  }
  case Stmt::Kind::Let: {
    const auto &L = cast<LetStmt>(S);
    Scalars[L.getVar()] = eval(*L.getInit());
    return;
  }
  case Stmt::Kind::Store: {
    const auto &St = cast<StoreStmt>(S);
    double V = eval(*St.getValue());
    store(St.getBuffer(), St.getIndices(), V, St.getValue()->getDType(),
          St.getLoc());
    return;
  }
  case Stmt::Kind::For:
    return execFor(cast<ForStmt>(S));
  case Stmt::Kind::If: {
    const auto &I = cast<IfStmt>(S);
    if (eval(*I.getCond()) != 0)
      execBlock(I.getThen());
    else if (I.hasElse())
      execBlock(I.getElse());
    return;
  }
  case Stmt::Kind::Kernel:
    return execKernel(cast<KernelStmt>(S));
  case Stmt::Kind::Op:
    return execOp(cast<OpStmt>(S));
  }
}

void Interp::execFor(const ForStmt &F) {
  if (F.getLoopKind() == LoopKind::Parallel) {
    std::vector<int64_t> Ext;
    for (const LoopDim &D : F.getDims())
      Ext.push_back(evalInt(*D.Hi));
    forEach(Ext, [&](llvm::ArrayRef<int64_t> P) {
      for (size_t I = 0; I != P.size(); ++I)
        Scalars[F.getDims()[I].Var.get()] = double(P[I]);
      execBlock(F.getBody());
    });
    return;
  }
  const LoopDim &D = F.getDims().front();
  int64_t Lo = evalInt(*D.Lo), Hi = evalInt(*D.Hi);
  int64_t Step = F.getStep() ? evalInt(*F.getStep()) : 1;
  if (Step <= 0) {
    fail(F.getLoc(), "loop step must be positive, got " + std::to_string(Step));
    return;
  }
  for (int64_t I = Lo; I < Hi && !failed(); I += Step) {
    Scalars[D.Var.get()] = double(I);
    execBlock(F.getBody());
  }
}

bool Interp::dependsOnThread(const Stmt &CS) {
  Stmt &S = const_cast<Stmt &>(CS);
  bool Found = false;
  forEachExprSlot(S, [&](ExprPtr &E) {
    forEachUse(*E, [&](const Value *V) { Found |= ThreadDep.count(V) > 0; });
  });
  return Found;
}

/// Statements of a kernel body: those whose own expressions depend on the
/// thread index run once per thread, in runs of consecutive such
/// statements; the others run once, entering compound statements.
void Interp::execKernelBlock(const Block &B) {
  const Value *Tid = CurKernel->getThreadIndex();
  int64_t T = *CurKernel->getThreads()->getConstInt();
  size_t I = 0, N = B.Stmts.size();
  while (I < N && !failed()) {
    const Stmt &S = *B.Stmts[I];
    if (!Tid || !dependsOnThread(S)) {
      // Enter compound statements so that nested per-thread code runs per
      // thread; everything else once.
      if (const auto *F = dyn_cast<ForStmt>(&S);
          Tid && F && F->getLoopKind() != LoopKind::Parallel) {
        const LoopDim &D = F->getDims().front();
        int64_t Lo = evalInt(*D.Lo), Hi = evalInt(*D.Hi);
        int64_t Step = F->getStep() ? evalInt(*F->getStep()) : 1;
        for (int64_t X = Lo; X < Hi && !failed(); X += std::max<int64_t>(Step, 1)) {
          Scalars[D.Var.get()] = double(X);
          execKernelBlock(F->getBody());
        }
      } else if (const auto *If = dyn_cast<IfStmt>(&S); Tid && If) {
        if (eval(*If->getCond()) != 0)
          execKernelBlock(If->getThen());
        else if (If->hasElse())
          execKernelBlock(If->getElse());
      } else {
        execStmt(S);
      }
      ++I;
      continue;
    }
    // A run of thread-dependent statements.
    size_t J = I;
    while (J < N && dependsOnThread(*B.Stmts[J])) {
      if (const auto *L = dyn_cast<LetStmt>(B.Stmts[J].get()))
        ThreadDep.insert(L->getVar());
      if (const auto *F = dyn_cast<ForStmt>(B.Stmts[J].get()))
        for (const LoopDim &D : F->getDims())
          ThreadDep.insert(D.Var.get());
      ++J;
    }
    for (int64_t X = 0; X < T && !failed(); ++X) {
      Scalars[Tid] = double(X);
      for (auto &[V, Val] : ThreadEnv[X])
        Scalars[V] = Val;
      for (size_t K = I; K < J && !failed(); ++K) {
        execStmt(*B.Stmts[K]);
        if (const auto *L = dyn_cast<LetStmt>(B.Stmts[K].get()))
          ThreadEnv[X][L->getVar()] = Scalars[L->getVar()];
      }
    }
    I = J;
  }
}

void Interp::execKernel(const KernelStmt &K) {
  std::vector<int64_t> G;
  for (const ExprPtr &E : K.getGrid())
    G.push_back(evalInt(*E));
  G.resize(3, 1);
  CurKernel = &K;
  int64_t T = *K.getThreads()->getConstInt();
  for (int64_t Z = 0; Z < G[2] && !failed(); ++Z)
    for (int64_t Y = 0; Y < G[1] && !failed(); ++Y)
      for (int64_t X = 0; X < G[0] && !failed(); ++X) {
        int64_t Idx[3] = {X, Y, Z};
        for (size_t D = 0; D != K.getBlockIndices().size(); ++D)
          Scalars[K.getBlockIndices()[D].get()] = double(Idx[D]);
        ThreadDep.clear();
        if (K.getThreadIndex())
          ThreadDep.insert(K.getThreadIndex());
        ThreadEnv.clear();
        ThreadEnv.resize(size_t(T));
        execKernelBlock(K.getBody());
      }
  CurKernel = nullptr;
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

bool Interp::access(const Region &R, const Region *Other, Access &A) {
  A.B = &buffer(R.Buf);
  std::vector<const Expr *> Ext = getRegionExtentExprs(R, Other);
  for (unsigned D = 0; D != R.Buf->getRank(); ++D) {
    A.Extents.push_back(Ext[D] ? evalInt(*Ext[D]) : 1);
    A.Offsets.push_back(R.isWholeBuffer() ? 0 : evalInt(*R.Indices[D].Offset));
    // Unit dimensions are decided statically (an absent or literal-1
    // extent), so that both sides pair up the same way for any sizes.
    bool Unit = !Ext[D] || Ext[D]->getConstInt() == std::optional<int64_t>(1);
    A.Pos.push_back(Unit ? -1 : int(A.NonUnit++));
  }
  return !failed();
}

std::optional<int64_t> Interp::element(const Access &A,
                                       llvm::ArrayRef<int64_t> P,
                                       llvm::SMLoc Loc) {
  llvm::SmallVector<int64_t, 4> Idx;
  for (size_t D = 0; D != A.Offsets.size(); ++D)
    Idx.push_back(A.Offsets[D] + (A.Pos[D] >= 0 ? P[A.Pos[D]] : 0));
  int64_t Off = offset(*A.B, Idx);
  if (Off >= 0)
    return Off;
  if (!A.B->Global) {
    std::string S;
    for (int64_t X : Idx)
      S += (S.empty() ? "" : ", ") + std::to_string(X);
    fail(Loc, "element [" + S + "] is outside an on-chip buffer of shape [" +
                  llvm::join(llvm::map_range(A.B->Shape,
                                             [](int64_t V) { return std::to_string(V); }),
                             ", ") +
                  "]");
  }
  return std::nullopt;
}

void Interp::execOp(const OpStmt &Op) {
  llvm::StringRef N = Op.getName();
  if (!Op.getInfo().isCommon()) {
    fail(Op.getLoc(), "the reference interpreter cannot run '" + N +
                          "', an op of dialect '" + Op.getInfo().Dialect + "'");
    return;
  }
  llvm::SMLoc Loc = Op.getLoc();
  if (N == "barrier")
    return;
  if (N == "gemm")
    return execGemm(Op);
  if (N == "reduce")
    return execReduce(Op);
  if (N == "cumsum")
    return execCumsum(Op);
  if (N == "fill" || N == "clear") {
    Access D;
    if (!access(Op.getOperand("dst").R, nullptr, D))
      return;
    double V = 0;
    DType From = D.B->Ty;
    if (N == "fill") {
      const Expr &E = *Op.getOperand("value").E;
      V = eval(E);
      From = E.getDType();
    }
    V = convertTo(V, From, D.B->Ty);
    std::vector<int64_t> Ext;
    for (size_t I = 0; I != D.Extents.size(); ++I)
      if (D.Pos[I] >= 0)
        Ext.push_back(D.Extents[I]);
    forEach(Ext, [&](llvm::ArrayRef<int64_t> P) {
      if (auto O = element(D, P, Loc))
        D.B->Data[*O] = V;
    });
    return;
  }
  if (N == "atomic_elem") {
    const Region &R = Op.getOperand("dst").R;
    RtBuffer &B = buffer(R.Buf);
    llvm::SmallVector<int64_t, 4> Idx;
    for (const RegionIndex &I : R.Indices)
      Idx.push_back(evalInt(*I.Offset));
    const Expr &E = *Op.getOperand("value").E;
    double V = convertTo(eval(E), E.getDType(), B.Ty);
    int64_t Off = offset(B, Idx);
    if (Off < 0) {
      if (!B.Global)
        fail(Loc, "'atomic_elem' destination is outside its buffer");
      return;
    }
    std::string K = Op.getAttrOrDefault("kind").getStr().str();
    double &X = B.Data[Off];
    X = K == "add" ? convertTo(X + V, B.Ty, B.Ty)
        : K == "max" ? std::fmax(X, V)
                     : std::fmin(X, V);
    return;
  }
  // copy and atomic: two regions paired element by element.
  const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
  Access S, D;
  if (!access(SR, &DR, S) || !access(DR, &SR, D))
    return;
  std::vector<int64_t> Ext;
  for (size_t I = 0; I != S.Extents.size(); ++I)
    if (S.Pos[I] >= 0)
      Ext.push_back(S.Extents[I]);
  std::string Kind =
      N == "atomic" ? Op.getAttrOrDefault("kind").getStr().str() : std::string();
  forEach(Ext, [&](llvm::ArrayRef<int64_t> P) {
    std::optional<int64_t> SO = element(S, P, Loc);
    if (failed())
      return;
    double V = SO ? S.B->Data[*SO] : 0.0;
    std::optional<int64_t> DO = element(D, P, Loc);
    if (!DO)
      return;
    V = convertTo(V, S.B->Ty, D.B->Ty);
    double &X = D.B->Data[*DO];
    if (Kind.empty())
      X = V;
    else if (!SO)
      return; // nothing to combine from outside the source
    else
      X = Kind == "add" ? convertTo(X + V, D.B->Ty, D.B->Ty)
          : Kind == "max" ? std::fmax(X, V)
                          : std::fmin(X, V);
  });
}

void Interp::execGemm(const OpStmt &Op) {
  Access A, B, C;
  if (!access(Op.getOperand("a").R, nullptr, A) ||
      !access(Op.getOperand("b").R, nullptr, B) ||
      !access(Op.getOperand("c").R, nullptr, C))
    return;
  bool TA = Op.getAttrOrDefault("transpose_a").getBool();
  bool TB = Op.getAttrOrDefault("transpose_b").getBool();
  size_t RA = A.Extents.size(), RB = B.Extents.size(), RC = C.Extents.size();
  int64_t M = TA ? A.Extents[RA - 1] : A.Extents[RA - 2];
  int64_t K = TA ? A.Extents[RA - 2] : A.Extents[RA - 1];
  int64_t N = TB ? B.Extents[RB - 2] : B.Extents[RB - 1];
  // Each operand as base + row * RowStride + col * ColStride, checked to lie
  // inside its buffer once.
  struct Matrix {
    const double *Base;
    int64_t RowStride, ColStride;
  };
  auto Layout = [&](const Access &X, size_t R, int64_t Rows, int64_t Cols,
                    const char *Name) -> std::optional<Matrix> {
    llvm::SmallVector<int64_t, 4> First(X.Offsets.begin(), X.Offsets.end());
    llvm::SmallVector<int64_t, 4> Last = First;
    Last[R - 2] += Rows - 1;
    Last[R - 1] += Cols - 1;
    int64_t F0 = offset(*X.B, First), L0 = offset(*X.B, Last);
    if (Rows > 0 && Cols > 0 && (F0 < 0 || L0 < 0)) {
      fail(Op.getLoc(), "'gemm' operand " + llvm::Twine(Name) +
                            " reaches outside its buffer");
      return std::nullopt;
    }
    return Matrix{X.B->Data + std::max<int64_t>(F0, 0), X.B->Strides[R - 2],
                  X.B->Strides[R - 1]};
  };
  std::optional<Matrix> MA = TA ? Layout(A, RA, K, M, "A") : Layout(A, RA, M, K, "A");
  std::optional<Matrix> MB = TB ? Layout(B, RB, N, K, "B") : Layout(B, RB, K, N, "B");
  std::optional<Matrix> MC = Layout(C, RC, M, N, "C");
  if (!MA || !MB || !MC)
    return;
  // Element (i, k) of op(A) and (k, j) of op(B).
  int64_t AI = TA ? MA->ColStride : MA->RowStride, AK = TA ? MA->RowStride : MA->ColStride;
  int64_t BK = TB ? MB->ColStride : MB->RowStride, BJ = TB ? MB->RowStride : MB->ColStride;
  bool Clear = Op.getAttrOrDefault("clear_accum").getBool();
  DType CT = C.B->Ty;
  bool Exact = isFloat(CT) || (!isFloat(A.B->Ty) && !isFloat(B.B->Ty));
  double *CBase = const_cast<double *>(MC->Base);
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < N; ++J) {
      double &Cij = CBase[I * MC->RowStride + J * MC->ColStride];
      double Acc = Clear ? 0.0 : Cij;
      const double *PA = MA->Base + I * AI;
      const double *PB = MB->Base + J * BJ;
      if (Exact)
        for (int64_t Kk = 0; Kk < K; ++Kk)
          Acc += PA[Kk * AK] * PB[Kk * BK];
      else
        for (int64_t Kk = 0; Kk < K; ++Kk)
          Acc += convertTo(PA[Kk * AK], A.B->Ty, CT) *
                 convertTo(PB[Kk * BK], B.B->Ty, CT);
      Cij = convertTo(Acc, CT, CT);
    }
}

void Interp::execReduce(const OpStmt &Op) {
  Access S, D;
  if (!access(Op.getOperand("src").R, nullptr, S) ||
      !access(Op.getOperand("dst").R, nullptr, D))
    return;
  std::string Kind = Op.getAttrOrDefault("kind").getStr().str();
  size_t Dim = Op.getAttrOrDefault("dim").getInt();
  bool Clear = Op.getAttrOrDefault("clear").getBool();
  // Outer positions: the source's non-unit dimensions other than Dim,
  // paired in order with the destination's non-unit dimensions.
  std::vector<int64_t> Outer;
  std::vector<int> OuterOf(S.Extents.size(), -1);
  for (size_t I = 0; I != S.Extents.size(); ++I)
    if (I != Dim && S.Extents[I] != 1) {
      OuterOf[I] = Outer.size();
      Outer.push_back(S.Extents[I]);
    }
  bool Abs = llvm::StringRef(Kind).starts_with("abs");
  bool IsSum = Kind == "sum" || Kind == "abssum";
  forEach(Outer, [&](llvm::ArrayRef<int64_t> P) {
    std::optional<int64_t> DO = element(D, P, Op.getLoc());
    if (!DO)
      return;
    double Acc;
    if (!Clear)
      Acc = D.B->Data[*DO];
    else if (IsSum || Kind == "absmax")
      Acc = 0;
    else
      Acc = Kind == "max" ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
    if (!isFloat(D.B->Ty) && Clear && !IsSum && Kind != "absmax")
      Acc = Kind == "max" ? -9.3e18 : 9.3e18;
    llvm::SmallVector<int64_t, 4> Idx(S.Offsets.begin(), S.Offsets.end());
    for (size_t I = 0; I != Idx.size(); ++I)
      if (OuterOf[I] >= 0)
        Idx[I] += P[OuterOf[I]];
    for (int64_t R = 0; R < S.Extents[Dim] && !failed(); ++R) {
      llvm::SmallVector<int64_t, 4> J = Idx;
      J[Dim] += R;
      int64_t O = offset(*S.B, J);
      if (O < 0) {
        fail(Op.getLoc(), "'reduce' source element is outside its buffer");
        return;
      }
      double X = convertTo(S.B->Data[O], S.B->Ty, D.B->Ty);
      if (Abs)
        X = std::fabs(X);
      Acc = IsSum ? Acc + X : Kind == "min" ? std::fmin(Acc, X) : std::fmax(Acc, X);
    }
    D.B->Data[*DO] = convertTo(Acc, D.B->Ty, D.B->Ty);
  });
}

void Interp::execCumsum(const OpStmt &Op) {
  const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
  Access S, D;
  if (!access(SR, &DR, S) || !access(DR, &SR, D))
    return;
  size_t Dim = Op.getAttrOrDefault("dim").getInt();
  bool Reverse = Op.getAttrOrDefault("reverse").getBool();
  std::vector<int64_t> Ext;
  for (size_t I = 0; I != S.Extents.size(); ++I)
    if (S.Pos[I] >= 0)
      Ext.push_back(S.Extents[I]);
  int ScanPos = S.Pos[Dim];
  // Iterate over the other positions; scan along ScanPos.
  std::vector<int64_t> Outer = Ext;
  if (ScanPos >= 0)
    Outer[ScanPos] = 1;
  int64_t Len = ScanPos >= 0 ? Ext[ScanPos] : 1;
  forEach(Outer, [&](llvm::ArrayRef<int64_t> P0) {
    double Acc = 0;
    llvm::SmallVector<int64_t, 4> P(P0.begin(), P0.end());
    for (int64_t R = 0; R < Len && !failed(); ++R) {
      if (ScanPos >= 0)
        P[ScanPos] = Reverse ? Len - 1 - R : R;
      std::optional<int64_t> SO = element(S, P, Op.getLoc());
      if (failed())
        return;
      if (SO)
        Acc += convertTo(S.B->Data[*SO], S.B->Ty, D.B->Ty);
      if (std::optional<int64_t> DO = element(D, P, Op.getLoc()))
        D.B->Data[*DO] = convertTo(Acc, D.B->Ty, D.B->Ty);
    }
  });
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

llvm::Error Interp::run(const Function &F, llvm::ArrayRef<RefArg> Args) {
  if (Args.size() != F.getParams().size())
    return llvm::createStringError(
        "'@" + F.getName() + "' takes " + llvm::Twine(F.getParams().size()) +
        " arguments, got " + llvm::Twine(Args.size()));
  llvm::DenseMap<const Value *, std::pair<int64_t, std::string>> DimBound;
  for (size_t I = 0; I != Args.size(); ++I) {
    const Value *P = F.getParams()[I].get();
    std::string Desc = "argument '" + P->getName().str() + "' (#" +
                       std::to_string(I) + ")";
    const auto *B = dyn_cast<BufferValue>(P);
    if (!B) {
      if (Args[I].Tensor)
        return llvm::createStringError(Desc + " must be a scalar");
      Scalars[P] = convertTo(Args[I].Scalar, DType::F64, P->getDType());
      continue;
    }
    RefTensor *T = Args[I].Tensor;
    if (!T)
      return llvm::createStringError(Desc + " must be a tensor");
    if (T->Shape.size() != B->getRank())
      return llvm::createStringError(Desc + ": expected rank " +
                                     llvm::Twine(B->getRank()) + ", got rank " +
                                     llvm::Twine(T->Shape.size()));
    int64_t N = 1;
    for (unsigned D = 0; D != B->getRank(); ++D) {
      int64_t S = T->Shape[D];
      N *= S;
      const Expr &DE = *B->getShape()[D];
      if (std::optional<int64_t> C = DE.getConstInt()) {
        if (*C != S)
          return llvm::createStringError(
              Desc + " dimension " + llvm::Twine(D) + " is " + llvm::Twine(S) +
              ", expected " + llvm::Twine(*C));
        continue;
      }
      const Value *Sym = cast<RefExpr>(DE).getValue();
      auto [It, New] = DimBound.try_emplace(
          Sym, S, Desc + " dimension " + std::to_string(D));
      if (!New && It->second.first != S)
        return llvm::createStringError(
            Desc + " dimension " + llvm::Twine(D) + " (" + Sym->getName() +
            ") is " + llvm::Twine(S) + ", but " + It->second.second + " set " +
            Sym->getName() + " = " + llvm::Twine(It->second.first));
      Scalars[Sym] = double(S);
    }
    if (int64_t(T->Data.size()) != N)
      return llvm::createStringError(Desc + " holds " +
                                     llvm::Twine(T->Data.size()) +
                                     " values for a shape of " + llvm::Twine(N));
    // Declared strides are a layout of the caller's memory; the reference
    // works on row-major copies, and binds stride symbols row-major.
    RtBuffer &R = bind(B, T->Shape, T->Data.data(), /*Global=*/true);
    for (unsigned D = 0; D != B->getStrides().size(); ++D)
      if (const auto *Ref = dyn_cast<RefExpr>(B->getStrides()[D].get()))
        Scalars.try_emplace(Ref->getValue(), double(R.Strides[D]));
  }
  for (const auto &D : F.getDims())
    if (!Scalars.count(D.get()))
      return llvm::createStringError("symbolic dimension '" + D->getName() +
                                     "' is not bound by any tensor");
  execBlock(F.getBody());
  if (failed())
    return llvm::createStringError(Error);
  return llvm::Error::success();
}

llvm::Error tile::interpretFunction(const Function &F,
                                    llvm::ArrayRef<RefArg> Args,
                                    const InterpreterOptions &Opts) {
  return Interp(Opts).run(F, Args);
}
