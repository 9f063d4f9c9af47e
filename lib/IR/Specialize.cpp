//===- Specialize.cpp - Choosing values for tunable parameters ------------===//

#include "tile/IR/Specialize.h"
#include "tile/IR/ScalarSemantics.h"
#include "tile/IR/Verifier.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using namespace tile::scalar;

std::string tile::formatConfig(const TunableConfig &C) {
  if (C.empty())
    return "default";
  std::string S;
  for (const auto &[K, V] : C)
    S += (S.empty() ? "" : " ") + K + "=" + std::to_string(V);
  return S;
}

llvm::Expected<TunableConfig>
tile::parseParamAssignments(llvm::ArrayRef<std::string> Assignments) {
  TunableConfig C;
  for (const std::string &A : Assignments) {
    auto [K, V] = llvm::StringRef(A).split('=');
    int64_t X;
    if (!llvm::StringRef(A).contains('=') || K.empty() ||
        V.getAsInteger(0, X))
      return llvm::createStringError("--param takes NAME=INTEGER, got '" + A +
                                     "'");
    if (C.count(K.str()))
      return llvm::createStringError("--param " + K + " is given twice");
    C[K.str()] = X;
  }
  return C;
}

TunableConfig tile::getFullConfig(const Function &F, const TunableConfig &C) {
  TunableConfig Full;
  for (const TunableDecl &T : F.getTunables()) {
    auto It = C.find(T.getName().str());
    Full[T.getName().str()] = It != C.end() ? It->second : T.Default;
  }
  return Full;
}

std::vector<TunableConfig> tile::enumerateConfigs(const Function &F,
                                                  size_t Limit) {
  std::vector<TunableConfig> Out = {TunableConfig()};
  for (const TunableDecl &T : F.getTunables()) {
    std::vector<int64_t> Vals = T.Candidates;
    if (Vals.empty())
      Vals.push_back(T.Default);
    std::vector<TunableConfig> Next;
    for (const TunableConfig &C : Out)
      for (int64_t V : Vals) {
        if (Next.size() == Limit)
          break;
        TunableConfig D = C;
        D[T.getName().str()] = V;
        Next.push_back(std::move(D));
      }
    Out = std::move(Next);
  }
  return Out;
}

/// Folds integer arithmetic whose operands are literals (what remains of a
/// shape like `[BK / 2]` once BK has a value). Operations that would fault
/// (division by zero) are left for the verifier to report.
static ExprPtr foldConstants(ExprPtr E) {
  auto Lit = [](const ExprPtr &X) -> const IntLitExpr * {
    const auto *L = dyn_cast<IntLitExpr>(X.get());
    return L && isInteger(L->getDType()) ? L : nullptr;
  };
  bool Faulted = false;
  auto Fault = [&](const llvm::Twine &) { Faulted = true; };
  if (auto *B = dyn_cast<BinaryExpr>(E.get())) {
    const IntLitExpr *L = Lit(B->getLHSMutable()), *R = Lit(B->getRHSMutable());
    if (!L || !R || L->getDType() != R->getDType() ||
        B->getDType() != L->getDType())
      return E;
    Scalar V = applyBinary(B->getOp(), L->getDType(), intScalar(L->getValue()),
                           intScalar(R->getValue()), Fault);
    if (Faulted)
      return E;
    return std::make_unique<IntLitExpr>(V.I, B->getDType(), B->getLoc());
  }
  if (auto *C = dyn_cast<CallExpr>(E.get())) {
    auto &Args = C->getArgsMutable();
    if (Args.empty() || Args.size() > 2 || C->getIntrinsic() == Intrinsic::Select)
      return E;
    const IntLitExpr *X = Lit(Args[0]);
    const IntLitExpr *Y = Args.size() == 2 ? Lit(Args[1]) : X;
    if (!X || !Y || X->getDType() != Y->getDType() ||
        C->getDType() != X->getDType())
      return E;
    Scalar V = applyIntrinsic(C->getIntrinsic(), X->getDType(),
                              intScalar(X->getValue()),
                              intScalar(Y->getValue()), Fault);
    if (Faulted)
      return E;
    return std::make_unique<IntLitExpr>(V.I, C->getDType(), C->getLoc());
  }
  if (auto *U = dyn_cast<UnaryExpr>(E.get()))
    if (const IntLitExpr *X = Lit(U->getOperandMutable());
        X && U->getOp() == UnaryOp::Neg && U->getDType() == X->getDType())
      return std::make_unique<IntLitExpr>(
          applyUnary(UnaryOp::Neg, X->getDType(), intScalar(X->getValue())).I,
          U->getDType(), U->getLoc());
  return E;
}

/// \p A with bare identifiers naming a tunable replaced by its value.
static Attribute substitute(const Attribute &A, const TunableConfig &C) {
  switch (A.getKind()) {
  case Attribute::Kind::Ident:
    if (auto It = C.find(A.getStr().str()); It != C.end())
      return Attribute::getInt(It->second);
    return A;
  case Attribute::Kind::List: {
    std::vector<Attribute> Elems;
    for (const Attribute &E : A.getElements())
      Elems.push_back(substitute(E, C));
    return Attribute::getList(std::move(Elems));
  }
  case Attribute::Kind::Call: {
    std::vector<Attribute> Args;
    for (const Attribute &E : A.getElements())
      Args.push_back(substitute(E, C));
    return Attribute::getCall(A.getStr(), std::move(Args));
  }
  default:
    return A;
  }
}

static void substitute(AttributeList &L, const TunableConfig &C) {
  for (const NamedAttribute &A : AttributeList(L))
    L.set(A.Name, substitute(A.Value, C), A.Loc);
}

llvm::Expected<std::unique_ptr<Function>>
tile::specializeFunction(const Function &F, const TunableConfig &C,
                         bool Strict) {
  if (Strict)
    for (const auto &[K, V] : C)
      if (!F.lookupTunable(K)) {
        std::string Names;
        for (const TunableDecl &T : F.getTunables())
          Names += (Names.empty() ? "" : ", ") + T.getName().str();
        return llvm::createStringError(
            "'@" + F.getName() + "' has no tunable parameter '" + K +
            "'; its tunable parameters are: " +
            (Names.empty() ? std::string("none") : Names));
      }
  TunableConfig Full = getFullConfig(F, C);
  for (const TunableDecl &T : F.getTunables()) {
    int64_t V = Full[T.getName().str()];
    DType Ty = T.Var->getDType();
    if (wrapInt(uint64_t(V), Ty) != V || (isUnsigned(Ty) && V < 0))
      return llvm::createStringError(
          "--param " + T.getName() + "=" + llvm::Twine(V) +
          ": the value does not fit the type " + getDTypeName(Ty) +
          " of tunable parameter '" + T.getName() + "' of '@" + F.getName() +
          "'");
  }
  std::unique_ptr<Function> S = F.clone();
  // The tunables' values, by the clone's values.
  llvm::DenseMap<const Value *, std::pair<int64_t, DType>> ValueOf;
  for (const TunableDecl &T : S->getTunables())
    ValueOf[T.Var.get()] = {Full[T.getName().str()], T.Var->getDType()};
  auto Rewrite = [&](ExprPtr &Slot) {
    rewriteExpr(Slot, [&](ExprPtr E) -> ExprPtr {
      if (const auto *R = dyn_cast<RefExpr>(E.get()))
        if (auto It = ValueOf.find(R->getValue()); It != ValueOf.end())
          return std::make_unique<IntLitExpr>(It->second.first,
                                              It->second.second, R->getLoc());
      return foldConstants(std::move(E));
    });
  };
  for (const auto &P : S->getParams())
    if (auto *B = dyn_cast<BufferValue>(P.get())) {
      for (ExprPtr &D : B->getShapeMutable())
        Rewrite(D);
      for (ExprPtr &D : B->getStridesMutable())
        Rewrite(D);
    }
  substitute(S->getAttrsMutable(), Full);
  walkStmts(S->getBodyMutable(), [&](Stmt &St) {
    forEachExprSlot(St, Rewrite);
    if (auto *A = dyn_cast<AllocStmt>(&St))
      substitute(A->getAttrsMutable(), Full);
    else if (auto *Fo = dyn_cast<ForStmt>(&St))
      substitute(Fo->getAttrsMutable(), Full);
    else if (auto *K = dyn_cast<KernelStmt>(&St))
      substitute(K->getAttrsMutable(), Full);
    else if (auto *O = dyn_cast<OpStmt>(&St))
      substitute(O->getAttrsMutable(), Full);
  });
  S->clearTunables();
  return S;
}

llvm::Error tile::specializeModule(Module &M, const TunableConfig &C) {
  llvm::StringSet<> Used;
  for (const auto &F : M.getFunctions())
    for (const TunableDecl &T : F->getTunables())
      Used.insert(T.getName());
  for (const auto &[K, V] : C)
    if (!Used.contains(K)) {
      std::string Names;
      for (const auto &F : M.getFunctions())
        for (const TunableDecl &T : F->getTunables())
          Names += (Names.empty() ? "" : ", ") + T.getName().str();
      return llvm::createStringError(
          "--param " + K + ": no function has a tunable parameter '" + K +
          "'; the tunable parameters are: " +
          (Names.empty() ? std::string("none") : Names));
    }
  std::vector<const Function *> Generic;
  for (const auto &F : M.getFunctions())
    if (!F->getTunables().empty())
      Generic.push_back(F.get());
  for (const Function *F : Generic) {
    auto S = specializeFunction(*F, C, /*Strict=*/false);
    if (!S)
      return S.takeError();
    M.replaceFunction(F, std::move(*S));
  }
  return llvm::Error::success();
}

llvm::Error tile::specializeAndVerifyModule(Module &M, const TunableConfig &C,
                                            DiagnosticEngine &Diag) {
  std::vector<std::string> Generic;
  for (const auto &F : M.getFunctions())
    if (!F->getTunables().empty())
      Generic.push_back(F->getName().str());
  if (llvm::Error E = specializeModule(M, C))
    return E;
  for (const std::string &Name : Generic) {
    const Function &F = *M.lookupFunction(Name);
    if (verifyFunction(F, Diag))
      continue;
    Diag.note(F.getLoc(), "in '@" + Name + "' specialized for " +
                              formatConfig(C));
    return llvm::createStringError("'@" + Name + "' is not valid for " +
                                   formatConfig(C));
  }
  return llvm::Error::success();
}

bool tile::hasTunables(const Module &M) {
  for (const auto &F : M.getFunctions())
    if (!F->getTunables().empty())
      return true;
  return false;
}
