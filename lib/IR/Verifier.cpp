//===- Verifier.cpp - Semantic checks of Tile IR --------------------------===//
//
// Walks a function with the context each statement needs (inside a kernel,
// inside a parallel loop, under thread-dependent control flow), checks
// expression types, then calls each op's C++ verifier named in TableGen.
// Errors are collected, not fatal: every problem is reported once.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Verifier.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Printer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Shapes and regions
//===----------------------------------------------------------------------===//

namespace {
using Extents = std::vector<std::optional<int64_t>>;

Extents constExtents(const Region &R, const Region *Other) {
  Extents Out;
  for (const Expr *E : getRegionExtentExprs(R, Other))
    Out.push_back(E ? E->getConstInt() : std::optional<int64_t>(1));
  return Out;
}

Extents squeeze(const Extents &E) {
  Extents Out;
  for (const auto &X : E)
    if (X != std::optional<int64_t>(1))
      Out.push_back(X);
  return Out;
}

std::string formatExtents(const Region &R, const Region *Other) {
  std::string S = "[";
  llvm::ListSeparator LS;
  for (const Expr *E : getRegionExtentExprs(R, Other)) {
    S += LS;
    S += E ? toString(*E) : "1";
  }
  return S + "]";
}

bool sameExtents(const Extents &A, const Extents &B) {
  if (A.size() != B.size())
    return false;
  for (auto [X, Y] : llvm::zip(A, B))
    if (X && Y && *X != *Y)
      return false;
  return true;
}

/// A region is indexed partially when it has indices without extents: its
/// shape comes from the other operand.
bool isInferred(const Region &R) {
  return !R.isWholeBuffer() &&
         llvm::none_of(R.Indices, [](const RegionIndex &I) { return I.Extent != nullptr; });
}

std::string bufName(const Region &R) { return "'%" + R.Buf->getName().str() + "'"; }

bool checkScope(const OpStmt &Op, const Region &R, llvm::StringRef Role,
                std::initializer_list<MemScope> Allowed, DiagnosticEngine &D) {
  if (llvm::is_contained(Allowed, R.Buf->getScope()))
    return true;
  std::string Names;
  for (MemScope S : Allowed)
    Names += (Names.empty() ? "" : " or ") + getScopeName(S).str();
  D.error(R.Loc, "'" + Op.getName() + "' " + Role + " " + bufName(R) +
                     " is in " + getScopeName(R.Buf->getScope()) +
                     " memory; expected " + Names);
  return false;
}

/// Shared by copy and atomic: two regions whose shapes must agree.
bool verifyRegionPair(const OpStmt &Op, const Region &Src, const Region &Dst,
                      DiagnosticEngine &D) {
  if (isInferred(Src) && isInferred(Dst)) {
    D.error(Op.getLoc(),
            "'" + Op.getName() +
                "' cannot infer the shape of either region; give one side "
                "explicit extents ('%X[i : n]') or a whole buffer");
    return false;
  }
  Extents S = squeeze(constExtents(Src, &Dst));
  Extents T = squeeze(constExtents(Dst, &Src));
  if (!sameExtents(S, T)) {
    D.error(Op.getLoc(), "'" + Op.getName() + "' shapes do not match: source " +
                             formatExtents(Src, &Dst) + ", destination " +
                             formatExtents(Dst, &Src));
    return false;
  }
  // A whole buffer's symbolic extent opposite a constant one agrees for one
  // size only, and the lowerings copy the constant extent: with a smaller
  // buffer they would read and write past its end.
  for (auto [X, Y] : llvm::zip(S, T)) {
    const Region *Whole = !X && Y && Src.isWholeBuffer()   ? &Src
                          : X && !Y && Dst.isWholeBuffer() ? &Dst
                                                           : nullptr;
    if (!Whole)
      continue;
    const Region &Other = Whole == &Src ? Dst : Src;
    auto Zeros = [](unsigned N) {
      std::string Z;
      for (unsigned I = 0; I != N; ++I)
        Z += I ? ", 0" : "0";
      return Z;
    };
    D.error(Op.getLoc(), "'" + Op.getName() + "' pairs the whole of " +
                             bufName(*Whole) + " " + formatExtents(*Whole, &Other) +
                             " with " + bufName(Other) + " " +
                             formatExtents(Other, Whole) +
                             ", which agree for one size only; give it offsets "
                             "instead (as in %" + Whole->Buf->getName() + "[" +
                             Zeros(Whole->Buf->getRank()) +
                             "]), so that its extents come from the other "
                             "side and accesses past its end are guarded");
    return false;
  }
  return true;
}

/// The 2-D extents of a gemm operand, with leading unit dimensions dropped.
std::optional<std::pair<int64_t, int64_t>>
matrixExtents(const OpStmt &Op, const Region &R, llvm::StringRef Role,
              DiagnosticEngine &D) {
  if (isInferred(R)) {
    D.error(R.Loc, "'gemm' operand " + Role + " " + bufName(R) +
                       " needs explicit extents ('%X[i : n, j : m]') or the "
                       "whole buffer");
    return std::nullopt;
  }
  Extents E = constExtents(R, nullptr);
  while (E.size() > 2 && E.front() == std::optional<int64_t>(1))
    E.erase(E.begin());
  if (E.size() != 2 || !E[0] || !E[1]) {
    D.error(R.Loc, "'gemm' operand " + Role + " " + bufName(R) +
                       " must be a 2-D tile of constant shape, got " +
                       formatExtents(R, nullptr));
    return std::nullopt;
  }
  return std::make_pair(*E[0], *E[1]);
}
} // namespace

//===----------------------------------------------------------------------===//
// Op verifiers named in TileOps.td
//===----------------------------------------------------------------------===//

namespace tile {

static constexpr std::initializer_list<MemScope> kTileScopes = {
    MemScope::Global, MemScope::Shared, MemScope::Fragment, MemScope::Local};

bool verifyCopyOp(const OpStmt &Op, DiagnosticEngine &D) {
  const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
  if (!checkScope(Op, Src, "source", kTileScopes, D) ||
      !checkScope(Op, Dst, "destination", kTileScopes, D))
    return false;
  return verifyRegionPair(Op, Src, Dst, D);
}

bool verifyAtomicOp(const OpStmt &Op, DiagnosticEngine &D) {
  const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
  if (!checkScope(Op, Src, "source", kTileScopes, D) ||
      !checkScope(Op, Dst, "destination", {MemScope::Global, MemScope::Shared},
                  D))
    return false;
  return verifyRegionPair(Op, Src, Dst, D);
}

bool verifyAtomicElemOp(const OpStmt &Op, DiagnosticEngine &D) {
  const Region &Dst = Op.getOperand("dst").R;
  if (!checkScope(Op, Dst, "destination", {MemScope::Global, MemScope::Shared},
                  D))
    return false;
  if (Dst.Indices.size() != Dst.Buf->getRank() ||
      llvm::any_of(Dst.Indices, [](const RegionIndex &I) { return I.Extent != nullptr; })) {
    D.error(Dst.Loc, "'atomic_elem' destination must name one element, like '%" +
                         Dst.Buf->getName() + "[i, j]'");
    return false;
  }
  return true;
}

bool verifyFillOp(const OpStmt &Op, DiagnosticEngine &D) {
  return checkScope(Op, Op.getOperand("dst").R, "destination", kTileScopes, D);
}

bool verifyClearOp(const OpStmt &Op, DiagnosticEngine &D) {
  return checkScope(Op, Op.getOperand("dst").R, "destination", kTileScopes, D);
}

bool verifyGemmOp(const OpStmt &Op, DiagnosticEngine &D) {
  const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
               &C = Op.getOperand("c").R;
  if (!checkScope(Op, A, "operand A", {MemScope::Shared, MemScope::Fragment}, D) ||
      !checkScope(Op, B, "operand B", {MemScope::Shared, MemScope::Fragment}, D) ||
      !checkScope(Op, C, "accumulator C", {MemScope::Fragment, MemScope::Local},
                  D))
    return false;
  auto EA = matrixExtents(Op, A, "A", D), EB = matrixExtents(Op, B, "B", D),
       EC = matrixExtents(Op, C, "C", D);
  if (!EA || !EB || !EC)
    return false;
  bool TA = Op.getAttrOrDefault("transpose_a").getBool();
  bool TB = Op.getAttrOrDefault("transpose_b").getBool();
  int64_t M = TA ? EA->second : EA->first, KA = TA ? EA->first : EA->second;
  int64_t KB = TB ? EB->second : EB->first, N = TB ? EB->first : EB->second;
  auto Shape = [](std::pair<int64_t, int64_t> P) {
    return ("[" + Twine(P.first) + ", " + Twine(P.second) + "]").str();
  };
  if (KA != KB) {
    D.error(Op.getLoc(), "'gemm' reduction dimensions differ: A " + Shape(*EA) +
                             (TA ? " (transposed)" : "") + " has K = " +
                             Twine(KA) + ", B " + Shape(*EB) +
                             (TB ? " (transposed)" : "") + " has K = " +
                             Twine(KB));
    return false;
  }
  if (EC->first != M || EC->second != N) {
    D.error(C.Loc, "'gemm' accumulator " + bufName(C) + " is " + Shape(*EC) +
                       " but A x B is [" + Twine(M) + ", " + Twine(N) + "]");
    return false;
  }
  DType TyA = A.Buf->getDType(), TyB = B.Buf->getDType();
  if (TyA != TyB) {
    D.error(Op.getLoc(), "'gemm' operands A and B have different types: " +
                             getDTypeName(TyA) + " and " + getDTypeName(TyB));
    return false;
  }
  if (isFloat(TyA) != isFloat(C.Buf->getDType())) {
    D.error(C.Loc, "'gemm' accumulator " + bufName(C) + " of type " +
                       getDTypeName(C.Buf->getDType()) +
                       " cannot accumulate products of " + getDTypeName(TyA));
    return false;
  }
  return true;
}

bool verifyReduceOp(const OpStmt &Op, DiagnosticEngine &D) {
  const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
  std::initializer_list<MemScope> OnChip = {MemScope::Shared, MemScope::Fragment,
                                            MemScope::Local};
  if (!checkScope(Op, Src, "source", OnChip, D) ||
      !checkScope(Op, Dst, "destination", OnChip, D))
    return false;
  if (isInferred(Src) || isInferred(Dst)) {
    D.error(Op.getLoc(), "'reduce' regions need explicit extents or whole "
                         "buffers");
    return false;
  }
  Extents S = constExtents(Src, nullptr), T = constExtents(Dst, nullptr);
  int64_t Dim = Op.getAttrOrDefault("dim").getInt();
  if (Dim < 0 || Dim >= int64_t(S.size())) {
    D.error(Op.getAttrs().getNamed("dim")->Loc,
            "'reduce' dim " + Twine(Dim) + " is out of range for source " +
                formatExtents(Src, nullptr) + " of rank " + Twine(S.size()));
    return false;
  }
  Extents Want = S;
  Want.erase(Want.begin() + Dim);
  if (!sameExtents(squeeze(Want), squeeze(T))) {
    std::string Reduced = "[";
    llvm::ListSeparator LS;
    std::vector<const Expr *> SrcExt = getRegionExtentExprs(Src, nullptr);
    for (size_t I = 0; I != SrcExt.size(); ++I)
      if (int64_t(I) != Dim)
        Reduced += (llvm::StringRef(LS) +
                    (SrcExt[I] ? toString(*SrcExt[I]) : std::string("1")))
                       .str();
    Reduced += "]";
    D.error(Dst.Loc, "'reduce' destination " + bufName(Dst) + " is " +
                         formatExtents(Dst, nullptr) + " but reducing " +
                         formatExtents(Src, nullptr) + " along dim " +
                         Twine(Dim) + " gives " + Reduced);
    return false;
  }
  return true;
}

bool verifyCumsumOp(const OpStmt &Op, DiagnosticEngine &D) {
  const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
  if (!checkScope(Op, Src, "source", kTileScopes, D) ||
      !checkScope(Op, Dst, "destination", kTileScopes, D))
    return false;
  if (!verifyRegionPair(Op, Src, Dst, D))
    return false;
  Extents S = constExtents(Src, &Dst);
  int64_t Dim = Op.getAttrOrDefault("dim").getInt();
  if (Dim < 0 || Dim >= int64_t(S.size())) {
    const NamedAttribute *A = Op.getAttrs().getNamed("dim");
    D.error(A ? A->Loc : Op.getLoc(),
            "'cumsum' dim " + Twine(Dim) + " is out of range for rank " +
                Twine(S.size()));
    return false;
  }
  return true;
}

} // namespace tile

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

namespace {

struct Context {
  const KernelStmt *Kernel = nullptr;
  const ForStmt *Parallel = nullptr;
  /// Set under control flow that depends on the thread index.
  SMLoc ThreadDependentAt;
  bool InLoop = false;
};

class Verifier {
public:
  explicit Verifier(DiagnosticEngine &D) : D(D) {}

  bool run(const Function &F) {
    checkFunctionAttrs(F);
    for (const auto &P : F.getParams())
      if (const auto *B = dyn_cast<BufferValue>(P.get()))
        for (const auto &S : B->getStrides())
          checkIndexExpr(*S, "stride");
    walkBlock(F.getBody(), Context());
    return OK;
  }

private:
  void fail(SMLoc Loc, const Twine &Msg) {
    D.error(Loc, Msg);
    OK = false;
  }

  //===--- Expressions ----------------------------------------------------===//

  bool usesThread(const Expr &E) const {
    switch (E.getKind()) {
    case Expr::Kind::Ref:
      return ThreadValues.count(cast<RefExpr>(E).getValue());
    case Expr::Kind::Load:
      return llvm::any_of(cast<LoadExpr>(E).getIndices(),
                          [&](const ExprPtr &I) { return usesThread(*I); });
    case Expr::Kind::Binary:
      return usesThread(*cast<BinaryExpr>(E).getLHS()) ||
             usesThread(*cast<BinaryExpr>(E).getRHS());
    case Expr::Kind::Unary:
      return usesThread(*cast<UnaryExpr>(E).getOperand());
    case Expr::Kind::Cast:
      return usesThread(*cast<CastExpr>(E).getOperand());
    case Expr::Kind::Call:
      return llvm::any_of(cast<CallExpr>(E).getArgs(),
                          [&](const ExprPtr &I) { return usesThread(*I); });
    default:
      return false;
    }
  }

  void checkIndexExpr(const Expr &E, llvm::StringRef What) {
    checkExpr(E);
    if (!isInteger(E.getDType()) || isBool(E.getDType()))
      fail(E.getLoc(), What + " must be an integer, got " +
                           getDTypeName(E.getDType()));
  }

  void checkIndices(const BufferValue &B, llvm::ArrayRef<ExprPtr> Indices,
                    SMLoc Loc) {
    if (B.getScope() != MemScope::Var && Indices.size() != B.getRank()) {
      fail(Loc, "'%" + B.getName() + "' has rank " + Twine(B.getRank()) +
                    " but " + Twine(Indices.size()) + " ind" +
                    (Indices.size() == 1 ? "ex was" : "ices were") + " given");
      return;
    }
    for (const ExprPtr &I : Indices)
      checkIndexExpr(*I, "index");
  }

  /// An integer literal must fit its type. 64-bit literals hold any bit
  /// pattern (a u64 above 2^63 is stored negative), as constant folding
  /// leaves them.
  void checkIntLiteral(const IntLitExpr &L) {
    DType T = L.getDType();
    unsigned Bits = getDTypeBits(T);
    if (!isInteger(T) || isBool(T) || Bits >= 64)
      return;
    int64_t V = L.getValue();
    bool Fits = isUnsigned(T) ? llvm::isUIntN(Bits, uint64_t(V)) && V >= 0
                              : llvm::isIntN(Bits, V);
    if (!Fits)
      fail(L.getLoc(), "integer " + Twine(V) + " is out of range for " +
                           getDTypeName(T));
  }

  void checkSameType(const Expr &A, const Expr &B, llvm::StringRef Op,
                     SMLoc Loc) {
    if (A.getDType() != B.getDType())
      fail(Loc, "operands of '" + Op + "' have different types: " +
                    getDTypeName(A.getDType()) + " and " +
                    getDTypeName(B.getDType()) + "; convert one with cast<T>(...)");
  }

  void checkExpr(const Expr &E) {
    switch (E.getKind()) {
    case Expr::Kind::IntLit:
      checkIntLiteral(cast<IntLitExpr>(E));
      return;
    case Expr::Kind::FloatLit:
    case Expr::Kind::Ref:
      return;
    case Expr::Kind::Inf:
      if (!isFloat(E.getDType()))
        fail(E.getLoc(), "inf<T>() needs a float type, got " +
                             getDTypeName(E.getDType()));
      return;
    case Expr::Kind::Load: {
      const auto &L = cast<LoadExpr>(E);
      checkIndices(*L.getBuffer(), L.getIndices(), L.getLoc());
      return;
    }
    case Expr::Kind::Cast:
      checkExpr(*cast<CastExpr>(E).getOperand());
      return;
    case Expr::Kind::Unary: {
      const auto &U = cast<UnaryExpr>(E);
      checkExpr(*U.getOperand());
      DType T = U.getOperand()->getDType();
      if (U.getOp() == UnaryOp::Neg && isBool(T))
        fail(E.getLoc(), "'-' needs a number, got i1");
      if (U.getOp() == UnaryOp::Not && !isBool(T))
        fail(E.getLoc(), "'!' needs an i1 operand, got " + getDTypeName(T));
      return;
    }
    case Expr::Kind::Binary: {
      const auto &B = cast<BinaryExpr>(E);
      checkExpr(*B.getLHS());
      checkExpr(*B.getRHS());
      llvm::StringRef Sp = getBinaryOpSpelling(B.getOp());
      DType L = B.getLHS()->getDType(), R = B.getRHS()->getDType();
      switch (B.getOp()) {
      case BinaryOp::LogicalAnd:
      case BinaryOp::LogicalOr:
        if (!isBool(L) || !isBool(R))
          fail(E.getLoc(), "operands of '" + Sp + "' must be i1, got " +
                               getDTypeName(L) + " and " + getDTypeName(R));
        return;
      case BinaryOp::And:
      case BinaryOp::Or:
      case BinaryOp::Xor:
      case BinaryOp::Shl:
      case BinaryOp::Shr:
        checkSameType(*B.getLHS(), *B.getRHS(), Sp, E.getLoc());
        if (!isInteger(L) ||
            (isBool(L) && (B.getOp() == BinaryOp::Shl || B.getOp() == BinaryOp::Shr)))
          fail(E.getLoc(), "'" + Sp + "' needs integer operands, got " +
                               getDTypeName(L));
        return;
      default:
        checkSameType(*B.getLHS(), *B.getRHS(), Sp, E.getLoc());
        if (isBool(L) && !isComparison(B.getOp()))
          fail(E.getLoc(), "'" + Sp + "' needs numeric operands, got i1");
        if ((B.getOp() == BinaryOp::Div || B.getOp() == BinaryOp::Rem) &&
            isInteger(R))
          checkNonZeroDivisor(*B.getRHS(), Sp);
        return;
      }
    }
    case Expr::Kind::Call: {
      const auto &C = cast<CallExpr>(E);
      for (const ExprPtr &A : C.getArgs())
        checkExpr(*A);
      llvm::StringRef Name = getIntrinsicName(C.getIntrinsic());
      llvm::ArrayRef<ExprPtr> Args = C.getArgs();
      switch (C.getIntrinsic()) {
      case Intrinsic::Select:
        if (!isBool(Args[0]->getDType()))
          fail(Args[0]->getLoc(), "select condition must be i1, got " +
                                      getDTypeName(Args[0]->getDType()));
        checkSameType(*Args[1], *Args[2], Name, E.getLoc());
        return;
      case Intrinsic::Min:
      case Intrinsic::Max:
        checkSameType(*Args[0], *Args[1], Name, E.getLoc());
        return;
      case Intrinsic::CeilDiv:
      case Intrinsic::FloorDiv:
      case Intrinsic::FloorMod:
        checkSameType(*Args[0], *Args[1], Name, E.getLoc());
        if (!isInteger(Args[0]->getDType()) || isBool(Args[0]->getDType()))
          fail(E.getLoc(), "'" + Name + "' needs integer operands, got " +
                               getDTypeName(Args[0]->getDType()));
        else
          checkNonZeroDivisor(*Args[1], Name);
        return;
      case Intrinsic::Abs:
        if (isBool(Args[0]->getDType()))
          fail(E.getLoc(), "'abs' needs a number, got i1");
        return;
      default:
        if (!isFloat(Args[0]->getDType()))
          fail(E.getLoc(), "'" + Name + "' needs a float operand, got " +
                               getDTypeName(Args[0]->getDType()) +
                               "; convert it with cast<f32>(...)");
        return;
      }
    }
    }
  }

  /// Integer division by a constant zero is undefined in generated code
  /// (and an error in the interpreter): reject it here, for every target.
  void checkNonZeroDivisor(const Expr &Divisor, llvm::StringRef Op) {
    if (std::optional<int64_t> V = Divisor.getConstInt(); V && *V == 0)
      fail(Divisor.getLoc(), "integer division by zero: the divisor of '" +
                                 Op + "' is the constant 0");
  }

  //===--- Statements -----------------------------------------------------===//

  void walkBlock(const Block &B, const Context &C) {
    for (const StmtPtr &S : B.Stmts)
      walk(*S, C);
  }

  void checkRegion(const Region &R) {
    if (R.isWholeBuffer())
      return;
    if (R.Indices.size() != R.Buf->getRank()) {
      fail(R.Loc, "'%" + R.Buf->getName() + "' has rank " +
                      Twine(R.Buf->getRank()) + " but the region gives " +
                      Twine(R.Indices.size()) + " ind" +
                      (R.Indices.size() == 1 ? "ex" : "ices"));
      return;
    }
    for (const RegionIndex &I : R.Indices) {
      checkIndexExpr(*I.Offset, "region offset");
      if (I.Extent) {
        checkIndexExpr(*I.Extent, "region extent");
        std::optional<int64_t> C = I.Extent->getConstInt();
        if (C && *C <= 0)
          fail(I.Extent->getLoc(), "region extent must be positive, got " +
                                       Twine(*C));
      }
    }
  }

  void walk(const Stmt &S, const Context &C) {
    switch (S.getKind()) {
    case Stmt::Kind::Alloc:
      return walkAlloc(cast<AllocStmt>(S), C);
    case Stmt::Kind::Let: {
      const auto &L = cast<LetStmt>(S);
      checkExpr(*L.getInit());
      if (usesThread(*L.getInit()))
        ThreadValues.insert(L.getVar());
      return;
    }
    case Stmt::Kind::Store: {
      const auto &St = cast<StoreStmt>(S);
      const BufferValue *B = St.getBuffer();
      checkIndices(*B, St.getIndices(), St.getLoc());
      checkExpr(*St.getValue());
      if (St.getValue()->getDType() != B->getDType())
        fail(St.getValue()->getLoc(),
             "cannot store a value of type " +
                 getDTypeName(St.getValue()->getDType()) + " into '%" +
                 B->getName() + "' of type " + getDTypeName(B->getDType()) +
                 "; convert it with cast<" + getDTypeName(B->getDType()) +
                 ">(...)");
      if (!C.Kernel)
        fail(St.getLoc(), "stores must be inside a kernel");
      return;
    }
    case Stmt::Kind::For:
      return walkFor(cast<ForStmt>(S), C);
    case Stmt::Kind::If: {
      const auto &I = cast<IfStmt>(S);
      checkExpr(*I.getCond());
      if (I.getCond()->getDType() != DType::I1)
        fail(I.getCond()->getLoc(), "if condition must be i1, got " +
                                        getDTypeName(I.getCond()->getDType()));
      Context Inner = C;
      if (usesThread(*I.getCond()) && !Inner.ThreadDependentAt.isValid())
        Inner.ThreadDependentAt = I.getLoc();
      walkBlock(I.getThen(), Inner);
      if (I.hasElse())
        walkBlock(I.getElse(), Inner);
      return;
    }
    case Stmt::Kind::Kernel:
      return walkKernel(cast<KernelStmt>(S), C);
    case Stmt::Kind::Op:
      return walkOp(cast<OpStmt>(S), C);
    }
  }

  void walkAlloc(const AllocStmt &A, const Context &C) {
    const BufferValue *B = A.getBuffer();
    MemScope Sc = B->getScope();
    if (Sc == MemScope::Global) {
      if (C.Kernel)
        fail(A.getLoc(), "global workspace '%" + B->getName() +
                             "' must be allocated outside the kernel");
    } else if (!C.Kernel) {
      fail(A.getLoc(), getScopeName(Sc) + " buffer '%" + B->getName() +
                           "' must be allocated inside a kernel");
      return;
    }
    if (C.Parallel && (Sc == MemScope::Shared || Sc == MemScope::Fragment))
      fail(A.getLoc(), getScopeName(Sc) + " buffer '%" + B->getName() +
                           "' cannot be allocated inside a parallel loop");
    if (Sc != MemScope::Var && B->getRank() == 0)
      fail(A.getLoc(), getScopeName(Sc) + " buffer '%" + B->getName() +
                           "' needs at least one dimension; use 'alloc var' "
                           "for a scalar");
    checkAllocAttrs(A);
    for (const ExprPtr &Dim : B->getShape()) {
      checkIndexExpr(*Dim, "shape dimension");
      std::optional<int64_t> V = Dim->getConstInt();
      if (Sc != MemScope::Global && !V)
        fail(Dim->getLoc(), getScopeName(Sc) + " buffer '%" + B->getName() +
                                "' needs a constant shape");
      else if (V && *V <= 0)
        fail(Dim->getLoc(), "shape dimension of '%" + B->getName() +
                                "' must be positive, got " + Twine(*V));
    }
  }

  void walkFor(const ForStmt &F, const Context &C) {
    bool DependsOnThread = false;
    const Expr *FirstBound = nullptr;
    for (const LoopDim &Dim : F.getDims()) {
      for (const Expr *E : {Dim.Lo.get(), Dim.Hi.get()}) {
        if (!E)
          continue;
        checkIndexExpr(*E, "loop bound");
        DependsOnThread |= usesThread(*E);
        if (!FirstBound)
          FirstBound = E;
        else if (F.getLoopKind() != LoopKind::Parallel &&
                 E->getDType() != FirstBound->getDType() &&
                 isInteger(E->getDType()) && isInteger(FirstBound->getDType()))
          fail(E->getLoc(), "loop bounds have different types: " +
                                getDTypeName(FirstBound->getDType()) + " and " +
                                getDTypeName(E->getDType()));
      }
    }
    if (const Expr *Step = F.getStep()) {
      checkIndexExpr(*Step, "loop step");
      if (FirstBound && Step->getDType() != FirstBound->getDType() &&
          isInteger(Step->getDType()) && isInteger(FirstBound->getDType()))
        fail(Step->getLoc(), "loop step has type " +
                                 getDTypeName(Step->getDType()) +
                                 " but the bounds have type " +
                                 getDTypeName(FirstBound->getDType()));
      std::optional<int64_t> V = Step->getConstInt();
      if (V && *V <= 0)
        fail(Step->getLoc(), "loop step must be positive, got " + Twine(*V));
    }
    llvm::StringRef KindName = getLoopKindName(F.getLoopKind());
    bool NeedsKernel = F.getLoopKind() == LoopKind::Parallel ||
                       F.getLoopKind() == LoopKind::Pipelined;
    if (NeedsKernel && !C.Kernel)
      fail(F.getLoc(), KindName + " loops must be inside a kernel");
    if (C.Parallel && F.getLoopKind() != LoopKind::Serial &&
        F.getLoopKind() != LoopKind::Unroll)
      fail(F.getLoc(), KindName + " loop cannot be nested in a parallel loop");
    if (C.ThreadDependentAt.isValid() && NeedsKernel)
      fail(F.getLoc(), KindName + " loop cannot be under control flow that "
                                  "depends on the thread index");
    checkLoopOptions(F);
    Context Inner = C;
    Inner.InLoop = true;
    if (F.getLoopKind() == LoopKind::Parallel)
      Inner.Parallel = &F;
    if (DependsOnThread && !Inner.ThreadDependentAt.isValid())
      Inner.ThreadDependentAt = F.getLoc();
    if (DependsOnThread)
      for (const LoopDim &Dim : F.getDims())
        ThreadValues.insert(Dim.Var.get());
    walkBlock(F.getBody(), Inner);
  }

  void checkLoopOptions(const ForStmt &F) {
    llvm::ArrayRef<const char *> Allowed;
    static const char *const PipelinedOpts[] = {"stages", "order", "stage"};
    if (F.getLoopKind() == LoopKind::Pipelined)
      Allowed = PipelinedOpts;
    for (const NamedAttribute &A : F.getAttrs()) {
      if (!llvm::is_contained(Allowed, A.Name)) {
        fail(A.Loc, "unknown option '" + A.Name + "' for a " +
                        getLoopKindName(F.getLoopKind()) + " loop" +
                        (Allowed.empty()
                             ? Twine(" (it takes none)")
                             : Twine("; it takes: stages, order, stage")));
        continue;
      }
    }
    if (F.getLoopKind() != LoopKind::Pipelined)
      return;
    const NamedAttribute *Stages = F.getAttrs().getNamed("stages");
    if (!Stages) {
      fail(F.getLoc(), "pipelined loop needs 'stages = N'");
    } else if (Stages->Value.getKind() != Attribute::Kind::Int ||
               Stages->Value.getInt() < 1) {
      fail(Stages->Loc, "'stages' must be a positive integer, got '" +
                            Stages->Value.str() + "'");
    }
    size_t NumStmts = F.getBody().Stmts.size();
    const NamedAttribute *Order = F.getAttrs().getNamed("order");
    const NamedAttribute *Stage = F.getAttrs().getNamed("stage");
    if (bool(Order) != bool(Stage)) {
      fail((Order ? Order : Stage)->Loc,
           "pipelined loop needs both 'order' and 'stage', or neither");
      return;
    }
    // One error per list: its form, then its length, then (for 'order')
    // whether it is a permutation.
    bool OrderOK = Order != nullptr;
    for (const NamedAttribute *A : {Order, Stage}) {
      if (!A)
        continue;
      bool Ints = A->Value.getKind() == Attribute::Kind::List &&
                  llvm::all_of(A->Value.getElements(), [](const Attribute &E) {
                    return E.getKind() == Attribute::Kind::Int &&
                           E.getInt() >= 0;
                  });
      size_t N = Ints ? A->Value.getElements().size() : 0;
      if (!Ints)
        fail(A->Loc,
             "'" + A->Name + "' must be a list of non-negative integers");
      else if (N != NumStmts)
        fail(A->Loc, "'" + A->Name + "' has " + Twine(N) +
                         (N == 1 ? " entry" : " entries") +
                         " but the loop body has " + Twine(NumStmts) +
                         (NumStmts == 1 ? " statement" : " statements"));
      if ((!Ints || N != NumStmts) && A == Order)
        OrderOK = false;
    }
    if (OrderOK) {
      // NumStmts entries, each a non-negative integer.
      std::vector<bool> Seen(NumStmts, false);
      for (const Attribute &E : Order->Value.getElements()) {
        int64_t V = E.getInt();
        if (V >= int64_t(NumStmts) || Seen[V]) {
          fail(Order->Loc, "'order' must be a permutation of 0.." +
                               Twine(NumStmts - 1));
          break;
        }
        Seen[V] = true;
      }
    }
    if (Stage && Stages && Stages->Value.getKind() == Attribute::Kind::Int &&
        Stage->Value.getKind() == Attribute::Kind::List)
      for (const Attribute &E : Stage->Value.getElements())
        if (E.getKind() == Attribute::Kind::Int &&
            E.getInt() >= Stages->Value.getInt()) {
          fail(Stage->Loc, "'stage' entry " + Twine(E.getInt()) +
                               " is not below 'stages' (" +
                               Twine(Stages->Value.getInt()) + ")");
          break;
        }
  }

  //===--- Annotations ----------------------------------------------------===//

  /// Function attributes configure passes: `pass.<name> = value`. Their
  /// values belong to the pass that reads them.
  void checkFunctionAttrs(const Function &F) {
    for (const NamedAttribute &A : F.getAttrs()) {
      llvm::StringRef Name = A.Name;
      if (!Name.starts_with("pass.") || Name.size() == 5)
        fail(A.Loc, "function attribute '" + Name +
                        "' must be named 'pass.<name>': function attributes "
                        "configure passes");
    }
  }

  /// `raster_swizzle = N` rasterizes blocks in panels of N for L2 reuse.
  void checkKernelAttrs(const KernelStmt &K) {
    for (const NamedAttribute &A : K.getAttrs()) {
      if (A.Name != "raster_swizzle") {
        fail(A.Loc, "unknown kernel attribute '" + A.Name +
                        "'; kernels take: raster_swizzle");
        continue;
      }
      if (A.Value.getKind() != Attribute::Kind::Int || A.Value.getInt() < 1)
        fail(A.Loc, "kernel attribute 'raster_swizzle' must be a positive "
                    "integer, got '" + A.Value.str() + "'");
    }
  }

  /// `layout = swizzle(32|64|128) | padded(N > 0) | row_major` fixes the
  /// layout of a shared buffer, which the layout passes then honour. Only
  /// shared buffers take one: a fragment's layout spreads the tile over the
  /// threads and is always inferred from the ops that use it, and global,
  /// local and var buffers are plain row-major memory.
  void checkAllocAttrs(const AllocStmt &Alloc) {
    const BufferValue *B = Alloc.getBuffer();
    for (const NamedAttribute &A : Alloc.getAttrs()) {
      if (A.Name == "offset") {
        checkOffsetAttr(*B, A);
        continue;
      }
      if (A.Name != "layout") {
        fail(A.Loc, "unknown allocation attribute '" + A.Name +
                        "'; allocations take: layout, offset");
        continue;
      }
      if (B->getScope() != MemScope::Shared) {
        fail(A.Loc, "only shared buffers take a layout; '%" + B->getName() +
                        "' is in " + getScopeName(B->getScope()) + " memory" +
                        (B->getScope() == MemScope::Fragment
                             ? " (fragment layouts are inferred)"
                             : ""));
        continue;
      }
      if (!isValidLayout(A.Value))
        fail(A.Loc, "invalid layout '" + A.Value.str() +
                        "'; expected swizzle(32), swizzle(64), swizzle(128), "
                        "padded(N) with N > 0, or row_major");
    }
  }

  /// `offset = N` places a shared buffer N bytes into the block's shared
  /// memory (tile-plan-shared-memory writes it). The code generators slice
  /// shared memory in 16-byte aligned pieces, and buffers of other scopes
  /// are not in it.
  void checkOffsetAttr(const BufferValue &B, const NamedAttribute &A) {
    if (B.getScope() != MemScope::Shared) {
      fail(A.Loc, "only shared buffers take an offset; '%" + B.getName() +
                      "' is in " + getScopeName(B.getScope()) + " memory");
      return;
    }
    if (A.Value.getKind() != Attribute::Kind::Int || A.Value.getInt() < 0 ||
        A.Value.getInt() % 16 != 0)
      fail(A.Loc, "allocation attribute 'offset' must be a non-negative "
                  "multiple of 16 (bytes into the block's shared memory), "
                  "got '" + A.Value.str() + "'");
  }

  static bool isValidLayout(const Attribute &V) {
    if (V.getKind() == Attribute::Kind::Ident)
      return V.getStr() == "row_major";
    if (V.getKind() != Attribute::Kind::Call || V.getElements().size() != 1 ||
        V.getElements()[0].getKind() != Attribute::Kind::Int)
      return false;
    int64_t N = V.getElements()[0].getInt();
    if (V.getStr() == "swizzle")
      return N == 32 || N == 64 || N == 128;
    return V.getStr() == "padded" && N > 0;
  }

  void walkKernel(const KernelStmt &K, const Context &C) {
    if (C.Kernel) {
      fail(K.getLoc(), "kernels cannot be nested");
      return;
    }
    if (C.InLoop || C.ThreadDependentAt.isValid())
      fail(K.getLoc(), "a kernel must be at function level, not inside a loop");
    for (const ExprPtr &G : K.getGrid())
      checkIndexExpr(*G, "grid dimension");
    checkIndexExpr(*K.getThreads(), "thread count");
    std::optional<int64_t> T = K.getThreads()->getConstInt();
    if (!T || *T <= 0)
      fail(K.getThreads()->getLoc(),
           "thread count must be a positive integer constant");
    checkKernelAttrs(K);
    if (K.getThreadIndex())
      ThreadValues.insert(K.getThreadIndex());
    Context Inner;
    Inner.Kernel = &K;
    walkBlock(K.getBody(), Inner);
  }

  void walkOp(const OpStmt &Op, const Context &C) {
    llvm::StringRef Name = Op.getName();
    if (!C.Kernel) {
      fail(Op.getLoc(), "'" + Name + "' must be inside a kernel");
      return;
    }
    bool Elementwise = Op.getInfo().Elementwise;
    if (C.Parallel && !Elementwise) {
      fail(Op.getLoc(), "'" + Name + "' cannot be inside a parallel loop; "
                                     "parallel loops hold elementwise code");
      return;
    }
    if (C.ThreadDependentAt.isValid() && !Elementwise) {
      fail(Op.getLoc(), "'" + Name + "' is executed by the whole block and "
                                     "cannot be under control flow that "
                                     "depends on the thread index");
      D.note(C.ThreadDependentAt, "thread-dependent control flow is here");
      return;
    }
    bool OperandsOK = true;
    for (const OpOperand &O : Op.getOperands()) {
      unsigned Before = D.getNumErrors();
      if (O.Kind == OperandKind::Region) {
        checkRegion(O.R);
        if (O.R.Buf->getScope() == MemScope::Var) {
          fail(O.R.Loc, "'" + Name + "' operand '%" + O.R.Buf->getName() +
                            "' is a var; tile ops take buffers");
        }
      } else {
        checkExpr(*O.E);
        if (usesThread(*O.E) && !Elementwise)
          fail(O.E->getLoc(), "'" + Name + "' operand depends on the thread "
                                          "index, but the op runs once per "
                                          "block");
      }
      if (O.Kind == OperandKind::Region && !Elementwise)
        for (const RegionIndex &I : O.R.Indices)
          if (usesThread(*I.Offset) || (I.Extent && usesThread(*I.Extent)))
            fail(O.R.Loc, "'" + Name + "' region depends on the thread "
                                       "index, but the op runs once per block");
      OperandsOK &= D.getNumErrors() == Before;
    }
    if (!OperandsOK)
      return;
    if (Op.getInfo().Verify && !Op.getInfo().Verify(Op, D))
      OK = false;
  }

  DiagnosticEngine &D;
  bool OK = true;
  llvm::SmallPtrSet<const Value *, 8> ThreadValues;
};

} // namespace

bool tile::verifyFunction(const Function &F, DiagnosticEngine &D) {
  if (F.getTunables().empty())
    return Verifier(D).run(F);
  // A function with tunable parameters is valid when its default config
  // is; other configs are verified when they are specialized.
  llvm::Expected<std::unique_ptr<Function>> S = specializeFunction(F, {});
  if (!S) {
    D.error(F.getLoc(), llvm::toString(S.takeError()));
    return false;
  }
  return Verifier(D).run(**S);
}

bool tile::verifyModule(const Module &M, DiagnosticEngine &D) {
  bool OK = true;
  for (const auto &F : M.getFunctions())
    OK &= verifyFunction(*F, D);
  return OK;
}
