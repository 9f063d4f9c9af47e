//===- Builder.cpp - Building Tile IR in C++ ------------------------------===//
//
// The builder applies the parser's rules: literal typing (untyped literals
// take their context's type), loop-variable types, attribute checks and
// declared attribute order for ops, and lexical name scoping. Scope checks
// are computed from the function the insertion point is in, so they hold
// however the insertion point got there; they run when assertions are on.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Builder.h"
#include "LiteralTyping.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>

using namespace tile;
using llvm::dyn_cast;
using llvm::isa;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

ExprArg::ExprArg(ExprPtr X) : K(Kind::Expr), E(std::move(X)) {
  assert(E && "null expression passed as a builder argument");
}

ExprArg::ExprArg(Value *Val) : K(Kind::Value), V(Val) {
  assert(V && "null value passed as a builder argument");
}

ExprArg::ExprArg(const ExprArg &O)
    : K(O.K), E(O.E ? O.E->clone() : nullptr), V(O.V), Int(O.Int),
      Float(O.Float) {}

ExprArg &ExprArg::operator=(const ExprArg &O) {
  if (this != &O)
    *this = ExprArg(O);
  return *this;
}

ExprArg::~ExprArg() = default;

OpArg::OpArg(Value *V) : K(Kind::Expr), R(nullptr), E(V) {
  if (auto *B = dyn_cast<BufferValue>(V)) {
    K = Kind::Buffer;
    R = RegionArg(B);
    E = ExprArg();
  }
}

//===----------------------------------------------------------------------===//
// Literal typing: the parser's coerceLiteral and unify
//===----------------------------------------------------------------------===//

void Builder::coerce(Typed &T, DType Ty) {
  if (!T.Untyped)
    return;
  bool OK = coerceLiteral(T.E, Ty);
  assert(OK && "literal cannot take the type its context asks for");
  (void)OK;
  T.Untyped = false;
}

void Builder::unify(Typed &A, Typed &B) {
  if (A.Untyped && !B.Untyped)
    coerce(A, B.E->getDType());
  else if (B.Untyped && !A.Untyped)
    coerce(B, A.E->getDType());
  else if (A.Untyped && B.Untyped &&
           A.E->getDType() != B.E->getDType()) {
    // One int and one float literal: both float.
    coerceLiteral(A.E, DType::F32);
    coerceLiteral(B.E, DType::F32);
  }
}

Builder::Typed Builder::resolve(ExprArg &&A) {
  switch (A.K) {
  case ExprArg::Kind::None:
    llvm_unreachable("missing expression argument");
  case ExprArg::Kind::Expr:
    return {std::move(A.E), false};
  case ExprArg::Kind::Value:
    return {ref(A.V), false};
  case ExprArg::Kind::IntLit:
    return {std::make_unique<IntLitExpr>(A.Int, DType::I32, Loc), true};
  case ExprArg::Kind::FloatLit:
    assert(std::isfinite(A.Float) &&
           "the textual format has no NaN or infinite literal; use inf(Ty)");
    return {std::make_unique<FloatLitExpr>(A.Float, DType::F32, Loc), true};
  case ExprArg::Kind::BoolLit:
    return {std::make_unique<IntLitExpr>(A.Int, DType::I1, Loc), false};
  }
  llvm_unreachable("unknown argument kind");
}

Builder::Typed Builder::resolveCopy(const ExprArg &A) {
  return resolve(ExprArg(A));
}

ExprPtr Builder::build(ExprArg A, DType Ty) {
  Typed T = resolve(std::move(A));
  coerce(T, Ty);
  return std::move(T.E);
}

ExprPtr Builder::build(ExprArg A) { return resolve(std::move(A)).E; }

//===----------------------------------------------------------------------===//
// Names and scopes
//===----------------------------------------------------------------------===//

/// `%name` and `@name`: what the lexer reads after the sigil.
[[maybe_unused]] static bool isValidValueName(StringRef N) {
  if (N.empty() || !(llvm::isAlpha(N[0]) || N[0] == '_'))
    return false;
  return llvm::all_of(N, [](char C) { return llvm::isAlnum(C) || C == '_'; });
}

/// A bare identifier, as attribute names and dimensions are written.
[[maybe_unused]] static bool isIdentifier(StringRef N) {
  if (N.empty() || !(llvm::isAlpha(N[0]) || N[0] == '_') || N.back() == '.')
    return false;
  return llvm::all_of(
      N, [](char C) { return llvm::isAlnum(C) || C == '_' || C == '.'; });
}

/// An identifier the parser reads as a symbolic dimension.
[[maybe_unused]] static bool isValidDimName(StringRef N) {
  // Expressions read these as something else.
  bool Reserved = N == "true" || N == "false" || N == "cast" || N == "inf" ||
                  parseIntrinsic(N).has_value();
  return isIdentifier(N) && !parseDType(N) && !Reserved;
}

/// The value a statement defines in its enclosing block.
static const Value *getDefinedValue(const Stmt &S) {
  if (const auto *A = dyn_cast<AllocStmt>(&S))
    return A->getBuffer();
  if (const auto *L = dyn_cast<LetStmt>(&S))
    return L->getVar();
  return nullptr;
}

/// The values a statement binds for its body.
static llvm::SmallVector<const Value *, 4> getBoundValues(const Stmt &S) {
  llvm::SmallVector<const Value *, 4> Out;
  if (const auto *F = dyn_cast<ForStmt>(&S)) {
    for (const LoopDim &D : F->getDims())
      Out.push_back(D.Var.get());
  } else if (const auto *K = dyn_cast<KernelStmt>(&S)) {
    for (const auto &V : K->getBlockIndices())
      Out.push_back(V.get());
    if (K->getThreadIndex())
      Out.push_back(K->getThreadIndex());
  }
  return Out;
}

namespace {
struct PathStep {
  Block *Blk;
  size_t Index;
};
} // namespace

/// The chain of (block, statement index) from \p Cur down to \p Target.
static bool findPath(Block &Cur, const Block *Target,
                     llvm::SmallVectorImpl<PathStep> &Path) {
  if (&Cur == Target)
    return true;
  for (size_t I = 0, E = Cur.Stmts.size(); I != E; ++I)
    for (Block *N : getNestedBlocks(*Cur.Stmts[I])) {
      Path.push_back({&Cur, I});
      if (findPath(*N, Target, Path))
        return true;
      Path.pop_back();
    }
  return false;
}

static bool containsBlock(Function &F, const Block &B) {
  llvm::SmallVector<PathStep, 8> Path;
  return findPath(F.getBodyMutable(), &B, Path);
}

Function *Builder::findFunctionOf(const Block &B) const {
  if (IP.Func && containsBlock(*IP.Func, B))
    return IP.Func;
  for (const auto &F : M.getFunctions())
    if (containsBlock(*F, B))
      return F.get();
  return nullptr;
}

struct Builder::Scope {
  llvm::SmallPtrSet<const Value *, 32> Visible;
  llvm::StringSet<> Names;
  /// Names defined after the insertion point in its block (and in blocks
  /// nested there): a definition here would be redefined by them.
  llvm::StringSet<> LaterNames;
  /// The insertion block is not in a function of the module: uses are not
  /// checked.
  bool Detached = false;
};

Builder::Scope Builder::computeScope() const {
  assert(IP.Blk && "no insertion point");
  Scope S;
  auto Add = [&](const Value *V) {
    S.Visible.insert(V);
    S.Names.insert(V->getName());
  };
  if (IP.Func)
    for (const auto &P : IP.Func->getParams())
      Add(P.get());
  llvm::SmallVector<PathStep, 8> Path;
  S.Detached = !IP.Func || !findPath(IP.Func->getBodyMutable(), IP.Blk, Path);
  for (const PathStep &P : Path) {
    for (size_t I = 0; I != P.Index; ++I)
      if (const Value *V = getDefinedValue(*P.Blk->Stmts[I]))
        Add(V);
    for (const Value *V : getBoundValues(*P.Blk->Stmts[P.Index]))
      Add(V);
  }
  size_t End = getInsertionIndex();
  for (size_t I = 0; I != End; ++I)
    if (const Value *V = getDefinedValue(*IP.Blk->Stmts[I]))
      Add(V);
  for (size_t I = End, E = IP.Blk->Stmts.size(); I != E; ++I) {
    auto Visit = [&](const Stmt &St) {
      if (const Value *V = getDefinedValue(St))
        S.LaterNames.insert(V->getName());
      for (const Value *V : getBoundValues(St))
        S.LaterNames.insert(V->getName());
    };
    Visit(*IP.Blk->Stmts[I]);
    for (Block *N : getNestedBlocks(*IP.Blk->Stmts[I]))
      walkStmts(*N, [&](Stmt &St) { Visit(St); });
  }
  return S;
}

void Builder::checkNewName(const Scope &S, StringRef Name, bool Nested) const {
  assert(isValidValueName(Name) &&
         "value names are [A-Za-z_][A-Za-z0-9_]* (without the '%')");
  assert(!S.Names.contains(Name) &&
         "redefinition of a value still in scope (the parser rejects it)");
  assert((Nested || !S.LaterNames.contains(Name)) &&
         "a statement after the insertion point defines the same name");
  (void)S;
  (void)Name;
  (void)Nested;
}

void Builder::checkUses(const Scope &Sc, Stmt &S) const {
  if (Sc.Detached)
    return;
  auto Check = [&](const Value *V) {
    bool IsDim = V->getKind() == Value::Kind::Dim && IP.Func &&
                 IP.Func->lookupDim(V->getName()) == V;
    assert((IsDim || Sc.Visible.count(V)) &&
           "use of a value that is not in scope at the insertion point");
    (void)IsDim;
  };
  forEachDirectUse(S, Check);
}

//===----------------------------------------------------------------------===//
// Insertion point
//===----------------------------------------------------------------------===//

size_t Builder::getInsertionIndex() const {
  const std::vector<StmtPtr> &Stmts = IP.Blk->Stmts;
  if (!IP.Before)
    return Stmts.size();
  for (size_t I = 0, E = Stmts.size(); I != E; ++I)
    if (Stmts[I].get() == IP.Before)
      return I;
  llvm_unreachable("the insertion point's statement left its block");
}

void Builder::setInsertionPoint(Block &B, size_t Index) {
  assert(Index <= B.Stmts.size() && "insertion index past the end of the block");
  if (Function *F = findFunctionOf(B))
    IP.Func = F;
  IP.Blk = &B;
  IP.Before = Index < B.Stmts.size() ? B.Stmts[Index].get() : nullptr;
}

void Builder::setInsertionPointToEnd(Block &B) {
  setInsertionPoint(B, B.Stmts.size());
}

void Builder::setInsertionPointToStart(Block &B) { setInsertionPoint(B, 0); }

/// Finds the block holding \p S, searching \p B recursively.
static bool findStmt(Block &B, const Stmt *S, Block *&Out, size_t &Index) {
  for (size_t I = 0, E = B.Stmts.size(); I != E; ++I) {
    if (B.Stmts[I].get() == S) {
      Out = &B;
      Index = I;
      return true;
    }
    for (Block *N : getNestedBlocks(*B.Stmts[I]))
      if (findStmt(*N, S, Out, Index))
        return true;
  }
  return false;
}

void Builder::setInsertionPointBefore(Stmt &S) {
  Block *Blk = nullptr;
  size_t Index = 0;
  bool Found = IP.Func && findStmt(IP.Func->getBodyMutable(), &S, Blk, Index);
  for (const auto &F : M.getFunctions())
    if (!Found && findStmt(F->getBodyMutable(), &S, Blk, Index)) {
      Found = true;
      IP.Func = F.get();
    }
  assert(Found && "statement is not in a function of the module");
  IP.Blk = Blk;
  IP.Before = &S;
}

void Builder::setInsertionPointAfter(Stmt &S) {
  setInsertionPointBefore(S);
  size_t Next = getInsertionIndex() + 1;
  IP.Before = Next < IP.Blk->Stmts.size() ? IP.Blk->Stmts[Next].get() : nullptr;
}

void Builder::buildIn(Block &B, llvm::function_ref<void()> Fn) {
  InsertionGuard G(*this);
  setInsertionPointToEnd(B);
  Fn();
}

Stmt *Builder::insertUnchecked(StmtPtr S) {
  assert(IP.Blk && "no insertion point");
  Stmt *Raw = S.get();
  std::vector<StmtPtr> &Stmts = IP.Blk->Stmts;
  Stmts.insert(Stmts.begin() + getInsertionIndex(), std::move(S));
  return Raw;
}

Stmt *Builder::insert(StmtPtr S) {
#ifndef NDEBUG
  Scope Sc = computeScope();
  if (const Value *V = getDefinedValue(*S))
    checkNewName(Sc, V->getName(), /*Nested=*/false);
  for (const Value *V : getBoundValues(*S))
    checkNewName(Sc, V->getName(), /*Nested=*/true);
  checkUses(Sc, *S);
#endif
  return insertUnchecked(std::move(S));
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

AttributeList Builder::makeAttrs(llvm::ArrayRef<NamedAttribute> Attrs) const {
  AttributeList L;
  for (const NamedAttribute &A : Attrs) {
    assert(!L.get(A.Name) && "duplicate attribute");
    assert(isIdentifier(A.Name) &&
           "attribute names are identifiers ([A-Za-z_][A-Za-z0-9_.]*)");
    L.set(A.Name, A.Value, A.Loc.isValid() ? A.Loc : Loc);
  }
  return L;
}

Function *Builder::createFunction(StringRef Name,
                                  llvm::ArrayRef<NamedAttribute> Attrs) {
  assert(isValidValueName(Name) && "function names are [A-Za-z_][A-Za-z0-9_]*");
  assert(!M.lookupFunction(Name) && "redefinition of a function");
  auto F = std::make_unique<Function>(Name, Loc);
  F->getAttrsMutable() = makeAttrs(Attrs);
  Function *Raw = M.addFunction(std::move(F));
  IP = {Raw, &Raw->getBodyMutable(), nullptr};
  return Raw;
}

/// Asserts \p Name is not yet a parameter or defined anywhere in \p F.
[[maybe_unused]] static bool isFreeInFunction(const Function &F,
                                              StringRef Name) {
  for (const auto &P : F.getParams())
    if (P->getName() == Name)
      return false;
  bool Free = true;
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (const Value *V = getDefinedValue(S))
      Free &= V->getName() != Name;
    for (const Value *V : getBoundValues(S))
      Free &= V->getName() != Name;
  });
  return Free;
}

BufferValue *Builder::addBufferParam(StringRef Name, DType Ty,
                                     llvm::ArrayRef<DimArg> Shape,
                                     llvm::ArrayRef<DimArg> Strides) {
  Function *F = IP.Func;
  assert(F && "no current function: call createFunction first");
  assert(isValidValueName(Name) && "value names are [A-Za-z_][A-Za-z0-9_]*");
  assert(isFreeInFunction(*F, Name) && "redefinition of a parameter");
  assert((Strides.empty() || Strides.size() == Shape.size()) &&
         "a buffer has as many strides as dimensions");
  auto MakeDims = [&](llvm::ArrayRef<DimArg> Dims) {
    std::vector<ExprPtr> Out;
    for (const DimArg &D : Dims) {
      if (!D.IsSymbol) {
        Out.push_back(std::make_unique<IntLitExpr>(D.Const, DType::I32, Loc));
        continue;
      }
      assert(isValidDimName(D.Name) &&
             "a symbolic dimension is an identifier, not a type name or a "
             "reserved word");
      Out.push_back(
          std::make_unique<RefExpr>(F->getOrCreateDim(D.Name, Loc), Loc));
    }
    return Out;
  };
  std::vector<ExprPtr> ShapeE = MakeDims(Shape);
  std::vector<ExprPtr> StridesE = MakeDims(Strides);
  auto B = std::make_unique<BufferValue>(Name, Ty, MemScope::Global,
                                         std::move(ShapeE), std::move(StridesE),
                                         /*IsParam=*/true, Loc);
  BufferValue *Raw = B.get();
  F->addParam(std::move(B));
  return Raw;
}

Value *Builder::addScalarParam(StringRef Name, DType Ty) {
  Function *F = IP.Func;
  assert(F && "no current function: call createFunction first");
  assert(isValidValueName(Name) && "value names are [A-Za-z_][A-Za-z0-9_]*");
  assert(isFreeInFunction(*F, Name) && "redefinition of a parameter");
  auto P = std::make_unique<Value>(Value::Kind::Param, Name, Ty, Loc);
  Value *Raw = P.get();
  F->addParam(std::move(P));
  return Raw;
}

Value *Builder::dim(StringRef Name) const {
  assert(IP.Func && "no current function");
  Value *D = IP.Func->lookupDim(Name);
  assert(D && "unknown symbolic dimension (dimensions are introduced by "
              "parameter shapes)");
  return D;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

KernelStmt *Builder::createKernelImpl(llvm::ArrayRef<ExprArg> Grid,
                                      ExprArg Threads,
                                      llvm::ArrayRef<StringRef> BlockIdx,
                                      StringRef ThreadIdx,
                                      llvm::ArrayRef<NamedAttribute> Attrs) {
  assert(!Grid.empty() && Grid.size() <= 3 &&
         "a kernel grid has 1 to 3 dimensions");
  assert(BlockIdx.size() == Grid.size() &&
         "a kernel binds one block index per grid dimension");
  std::vector<ExprPtr> G;
  for (const ExprArg &A : Grid) {
    Typed T = resolveCopy(A);
    coerce(T, DType::I32);
    G.push_back(std::move(T.E));
  }
  ExprPtr Th = build(std::move(Threads), DType::I32);
  std::vector<std::unique_ptr<Value>> Idx;
  for (StringRef N : BlockIdx) {
    assert(llvm::none_of(Idx, [&](const auto &V) { return V->getName() == N; }) &&
           "block indices must have distinct names");
    Idx.push_back(
        std::make_unique<Value>(Value::Kind::BlockIdx, N, DType::I32, Loc));
  }
  std::unique_ptr<Value> Tid;
  if (!ThreadIdx.empty()) {
    assert(!llvm::is_contained(BlockIdx, ThreadIdx) &&
           "the thread index must not reuse a block index name");
    Tid = std::make_unique<Value>(Value::Kind::ThreadIdx, ThreadIdx, DType::I32,
                                  Loc);
  }
  auto K = std::make_unique<KernelStmt>(std::move(G), std::move(Th),
                                        std::move(Idx), std::move(Tid),
                                        makeAttrs(Attrs), Block(), Loc);
  return llvm::cast<KernelStmt>(insert(std::move(K)));
}

KernelStmt *Builder::createKernel(llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
                                  llvm::ArrayRef<StringRef> BlockIdx,
                                  StringRef ThreadIdx,
                                  llvm::ArrayRef<NamedAttribute> Attrs) {
  return createKernelImpl(Grid, std::move(Threads), BlockIdx, ThreadIdx, Attrs);
}

static llvm::SmallVector<Value *, 3> getBlockIndexValues(KernelStmt &K) {
  llvm::SmallVector<Value *, 3> Out;
  for (const auto &V : K.getBlockIndices())
    Out.push_back(V.get());
  return Out;
}

KernelStmt *Builder::createKernel(
    llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
    llvm::ArrayRef<StringRef> BlockIdx,
    llvm::function_ref<void(llvm::ArrayRef<Value *>)> Body) {
  KernelStmt *K = createKernelImpl(Grid, std::move(Threads), BlockIdx, {}, {});
  InsertionGuard G(*this);
  setInsertionPointToEndOfNested(K->getBodyMutable());
  Body(getBlockIndexValues(*K));
  return K;
}

KernelStmt *Builder::createKernel(
    llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
    llvm::ArrayRef<StringRef> BlockIdx, StringRef ThreadIdx,
    llvm::function_ref<void(llvm::ArrayRef<Value *>, Value *)> Body) {
  assert(!ThreadIdx.empty() && "name the thread index");
  KernelStmt *K =
      createKernelImpl(Grid, std::move(Threads), BlockIdx, ThreadIdx, {});
  InsertionGuard G(*this);
  setInsertionPointToEndOfNested(K->getBodyMutable());
  Body(getBlockIndexValues(*K), K->getThreadIndex());
  return K;
}

/// The type of a loop variable: its bound's, when that is a (non-i1)
/// integer type; the verifier reports other bounds.
static DType getLoopVarType(const Expr &Hi) {
  DType Ty = Hi.getDType();
  return isInteger(Ty) && !isBool(Ty) ? Ty : DType::I32;
}

ForStmt *Builder::createForImpl(LoopKind Kind, StringRef Var, ExprArg Lo,
                                ExprArg Hi, ExprArg Step,
                                llvm::ArrayRef<NamedAttribute> Attrs) {
  assert(Kind != LoopKind::Parallel &&
         "parallel loops have extents, not bounds: use createParallel");
  assert(llvm::none_of(Attrs,
                       [](const NamedAttribute &A) { return A.Name == "step"; }) &&
         "pass the step as an expression, not as an attribute");
  // As the parser: a literal bound takes the other bound's type (counting
  // from 0 to an i64 counts in i64), else i32; the step takes the bounds'.
  Typed L = resolve(std::move(Lo)), H = resolve(std::move(Hi));
  unify(L, H);
  coerce(L, DType::I32);
  coerce(H, DType::I32);
  LoopDim D;
  D.Lo = std::move(L.E);
  D.Hi = std::move(H.E);
  D.Var = std::make_unique<Value>(Value::Kind::LoopVar, Var,
                                  getLoopVarType(*D.Hi), Loc);
  ExprPtr S;
  if (!Step.isNull())
    S = build(std::move(Step), getLoopVarType(*D.Hi));
  std::vector<LoopDim> Dims;
  Dims.push_back(std::move(D));
  auto F = std::make_unique<ForStmt>(Kind, std::move(Dims), std::move(S),
                                     makeAttrs(Attrs), Block(), Loc);
  return llvm::cast<ForStmt>(insert(std::move(F)));
}

ForStmt *Builder::createFor(LoopKind Kind, StringRef Var, ExprArg Lo, ExprArg Hi,
                            llvm::ArrayRef<NamedAttribute> Attrs) {
  return createForImpl(Kind, Var, std::move(Lo), std::move(Hi), ExprArg(),
                       Attrs);
}

ForStmt *Builder::createFor(LoopKind Kind, StringRef Var, ExprArg Lo, ExprArg Hi,
                            ExprArg Step, llvm::ArrayRef<NamedAttribute> Attrs) {
  return createForImpl(Kind, Var, std::move(Lo), std::move(Hi),
                       std::move(Step), Attrs);
}

ForStmt *Builder::createFor(LoopKind Kind, StringRef Var, ExprArg Lo, ExprArg Hi,
                            llvm::function_ref<void(Value *)> Body) {
  return createFor(Kind, Var, std::move(Lo), std::move(Hi), ExprArg(), {},
                   Body);
}

ForStmt *Builder::createFor(LoopKind Kind, StringRef Var, ExprArg Lo, ExprArg Hi,
                            llvm::ArrayRef<NamedAttribute> Attrs,
                            llvm::function_ref<void(Value *)> Body) {
  return createFor(Kind, Var, std::move(Lo), std::move(Hi), ExprArg(), Attrs,
                   Body);
}

ForStmt *Builder::createFor(LoopKind Kind, StringRef Var, ExprArg Lo, ExprArg Hi,
                            ExprArg Step, llvm::ArrayRef<NamedAttribute> Attrs,
                            llvm::function_ref<void(Value *)> Body) {
  ForStmt *F = createForImpl(Kind, Var, std::move(Lo), std::move(Hi),
                             std::move(Step), Attrs);
  InsertionGuard G(*this);
  setInsertionPointToEndOfNested(F->getBodyMutable());
  Body(F->getDims()[0].Var.get());
  return F;
}

ForStmt *Builder::createParallel(llvm::ArrayRef<StringRef> Vars,
                                 llvm::ArrayRef<ExprArg> Extents) {
  assert(!Vars.empty() && Vars.size() == Extents.size() &&
         "a parallel loop has one extent per variable");
  std::vector<LoopDim> Dims;
  for (size_t I = 0, E = Vars.size(); I != E; ++I) {
    StringRef Name = Vars[I];
    assert(llvm::none_of(Dims,
                         [&](const LoopDim &D) {
                           return D.Var->getName() == Name;
                         }) &&
           "loop variables must have distinct names");
    LoopDim D;
    Typed T = resolveCopy(Extents[I]);
    coerce(T, DType::I32);
    D.Hi = std::move(T.E);
    D.Var = std::make_unique<Value>(Value::Kind::LoopVar, Name,
                                    getLoopVarType(*D.Hi), Loc);
    Dims.push_back(std::move(D));
  }
  auto F = std::make_unique<ForStmt>(LoopKind::Parallel, std::move(Dims),
                                     nullptr, AttributeList(), Block(), Loc);
  return llvm::cast<ForStmt>(insert(std::move(F)));
}

ForStmt *Builder::createParallel(
    llvm::ArrayRef<StringRef> Vars, llvm::ArrayRef<ExprArg> Extents,
    llvm::function_ref<void(llvm::ArrayRef<Value *>)> Body) {
  ForStmt *F = createParallel(Vars, Extents);
  llvm::SmallVector<Value *, 3> VarValues;
  for (const LoopDim &D : F->getDims())
    VarValues.push_back(D.Var.get());
  InsertionGuard G(*this);
  setInsertionPointToEndOfNested(F->getBodyMutable());
  Body(VarValues);
  return F;
}

ForStmt *Builder::createParallel(StringRef Var, ExprArg Extent,
                                 llvm::function_ref<void(Value *)> Body) {
  ExprArg Extents[] = {std::move(Extent)};
  return createParallel(
      llvm::ArrayRef<StringRef>(Var), llvm::ArrayRef<ExprArg>(Extents),
      llvm::function_ref<void(llvm::ArrayRef<Value *>)>(
          [&](llvm::ArrayRef<Value *> Vs) { Body(Vs[0]); }));
}

BufferValue *Builder::createAlloc(StringRef Name, MemScope Scope, DType Ty,
                                  llvm::ArrayRef<ExprArg> Shape,
                                  llvm::ArrayRef<NamedAttribute> Attrs) {
  assert((Scope != MemScope::Var || Shape.empty()) &&
         "a var is a scalar and takes no shape");
  std::vector<ExprPtr> S;
  for (const ExprArg &A : Shape) {
    Typed T = resolveCopy(A);
    coerce(T, DType::I32);
    S.push_back(std::move(T.E));
  }
  auto Buf = std::make_unique<BufferValue>(Name, Ty, Scope, std::move(S),
                                           std::vector<ExprPtr>(),
                                           /*IsParam=*/false, Loc);
  BufferValue *Raw = Buf.get();
  insert(std::make_unique<AllocStmt>(std::move(Buf), makeAttrs(Attrs), Loc));
  return Raw;
}

Value *Builder::createLet(StringRef Name, ExprArg Init) {
  ExprPtr E = build(std::move(Init));
  auto V = std::make_unique<Value>(Value::Kind::Let, Name, E->getDType(), Loc);
  Value *Raw = V.get();
  insert(std::make_unique<LetStmt>(std::move(V), std::move(E), Loc));
  return Raw;
}

StoreStmt *Builder::createStore(BufferValue *Buf,
                                llvm::ArrayRef<ExprArg> Indices, ExprArg Val) {
  assert(Buf && "store to a null buffer");
  assert((Buf->getScope() == MemScope::Var
              ? Indices.empty()
              : Indices.size() == Buf->getRank()) &&
         "a store gives one index per dimension (none for a var)");
  std::vector<ExprPtr> Idx;
  for (const ExprArg &A : Indices) {
    Typed T = resolveCopy(A);
    coerce(T, DType::I32);
    Idx.push_back(std::move(T.E));
  }
  ExprPtr V = build(std::move(Val), Buf->getDType());
  return llvm::cast<StoreStmt>(insert(
      std::make_unique<StoreStmt>(Buf, std::move(Idx), std::move(V), Loc)));
}

StoreStmt *Builder::createAssign(BufferValue *Var, ExprArg Val) {
  return createStore(Var, {}, std::move(Val));
}

IfStmt *Builder::createIf(ExprArg Cond) {
  ExprPtr C = build(std::move(Cond), DType::I1);
  return llvm::cast<IfStmt>(insert(
      std::make_unique<IfStmt>(std::move(C), Block(), std::nullopt, Loc)));
}

IfStmt *Builder::createIfElse(ExprArg Cond) {
  ExprPtr C = build(std::move(Cond), DType::I1);
  return llvm::cast<IfStmt>(
      insert(std::make_unique<IfStmt>(std::move(C), Block(), Block(), Loc)));
}

IfStmt *Builder::createIf(ExprArg Cond, llvm::function_ref<void()> Then) {
  IfStmt *I = createIf(std::move(Cond));
  InsertionGuard G(*this);
  setInsertionPointToEndOfNested(I->getThenMutable());
  Then();
  return I;
}

IfStmt *Builder::createIf(ExprArg Cond, llvm::function_ref<void()> Then,
                          llvm::function_ref<void()> Else) {
  IfStmt *I = createIfElse(std::move(Cond));
  InsertionGuard G(*this);
  setInsertionPointToEndOfNested(I->getThenMutable());
  Then();
  setInsertionPointToEndOfNested(I->getElseMutable());
  Else();
  return I;
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

Region Builder::buildRegion(const RegionArg &RA) {
  assert(RA.Buf && "region of a null buffer");
  assert((RA.Offsets.empty() || RA.Offsets.size() == RA.Buf->getRank()) &&
         "a region gives one offset per dimension, or none for the whole "
         "buffer");
  assert((RA.Extents.empty() || RA.Extents.size() == RA.Offsets.size()) &&
         "a region gives one extent per offset, or none");
  Region R;
  R.Buf = RA.Buf;
  R.Loc = Loc;
  for (size_t I = 0, E = RA.Offsets.size(); I != E; ++I) {
    RegionIndex Idx;
    Typed T = resolveCopy(RA.Offsets[I]);
    coerce(T, DType::I32);
    Idx.Offset = std::move(T.E);
    if (!RA.Extents.empty() && !RA.Extents[I].isNull()) {
      Typed X = resolveCopy(RA.Extents[I]);
      coerce(X, DType::I32);
      Idx.Extent = std::move(X.E);
    }
    R.Indices.push_back(std::move(Idx));
  }
  return R;
}

/// Whether \p V is a value an attribute of kind \p AI accepts, by the
/// parser's rules.
[[maybe_unused]] static bool isValidAttrValue(const OpAttrInfo &AI,
                                              const Attribute &V) {
  switch (AI.Kind) {
  case AttrKind::Int:
    return V.getKind() == Attribute::Kind::Int;
  case AttrKind::Float:
    return V.getKind() == Attribute::Kind::Float ||
           V.getKind() == Attribute::Kind::Int;
  case AttrKind::Bool:
    return V.getKind() == Attribute::Kind::Bool;
  case AttrKind::String:
    return V.getKind() == Attribute::Kind::String;
  case AttrKind::IntList:
    return V.getKind() == Attribute::Kind::List &&
           llvm::all_of(V.getElements(), [](const Attribute &E) {
             return E.getKind() == Attribute::Kind::Int;
           });
  case AttrKind::Enum:
    return V.getKind() == Attribute::Kind::Ident &&
           llvm::is_contained(AI.enumValues(), V.getStr());
  case AttrKind::Any:
    return true;
  }
  return false;
}

OpStmt *Builder::createOpImpl(const OpInfo &Info, std::vector<OpArg> Operands,
                              llvm::ArrayRef<NamedAttribute> Attrs) {
  assert(Operands.size() == Info.NumOperands &&
         "wrong number of operands for the op");
  std::vector<OpOperand> Ops(Info.NumOperands);
  for (unsigned I = 0; I != Info.NumOperands; ++I) {
    OpArg &A = Operands[I];
    OpOperand &O = Ops[I];
    O.Kind = Info.Operands[I].Kind;
    if (O.Kind == OperandKind::Region) {
      assert(A.K != OpArg::Kind::Expr && "the op wants a region here");
      O.R = buildRegion(A.R);
      continue;
    }
    if (A.K == OpArg::Kind::Expr) {
      O.E = build(std::move(A.E));
      continue;
    }
    // A var buffer read as a scalar.
    assert(A.K == OpArg::Kind::Buffer &&
           A.R.Buf->getScope() == MemScope::Var &&
           "the op wants an expression here (a var stands for its value)");
    O.E = ref(A.R.Buf);
  }
  AttributeList Given = makeAttrs(Attrs);
  for (const NamedAttribute &A : Given) {
    const OpAttrInfo *AI = Info.findAttr(A.Name);
    assert(AI && "the op has no attribute of that name");
    assert(isValidAttrValue(*AI, A.Value) &&
           "attribute value of the wrong kind for the op");
    (void)AI;
  }
  // Canonical attribute order: as declared.
  AttributeList Ordered;
  for (const OpAttrInfo &AI : Info.attrs()) {
    const NamedAttribute *A = Given.getNamed(AI.Name);
    assert((A || AI.Default) && "the op requires an attribute not given");
    if (A)
      Ordered.set(A->Name, A->Value, A->Loc);
  }
  return llvm::cast<OpStmt>(insert(
      std::make_unique<OpStmt>(&Info, std::move(Ops), std::move(Ordered), Loc)));
}

OpStmt *Builder::createOp(StringRef Name, llvm::ArrayRef<OpArg> Operands,
                          llvm::ArrayRef<NamedAttribute> Attrs) {
  const OpInfo *Info = getContext().getOpRegistry().lookup(Name);
  assert(Info && "unknown op (is its dialect registered in the context?)");
  return createOpImpl(*Info, std::vector<OpArg>(Operands.begin(), Operands.end()),
                      Attrs);
}

OpStmt *Builder::createCommonOp(StringRef Name, std::vector<OpArg> Operands,
                                std::vector<NamedAttribute> Attrs) {
  const OpInfo *Info = getContext().getOpRegistry().lookup(Name);
  assert(Info && "common op missing from the registry");
  // Leave out what equals the declared default, as unwritten text would.
  llvm::erase_if(Attrs, [&](const NamedAttribute &A) {
    const OpAttrInfo *AI = Info->findAttr(A.Name);
    return AI && AI->Default && getDefaultValue(*AI) == A.Value;
  });
  return createOpImpl(*Info, std::move(Operands), Attrs);
}

static std::vector<OpArg> makeOperands(std::initializer_list<OpArg> L) {
  return std::vector<OpArg>(L);
}

OpStmt *Builder::createCopy(RegionArg Src, RegionArg Dst) {
  return createCommonOp("copy", makeOperands({std::move(Src), std::move(Dst)}),
                        {});
}

OpStmt *Builder::createGemm(RegionArg A, RegionArg B, RegionArg C,
                            const GemmOptions &Opts) {
  std::vector<NamedAttribute> Attrs = {
      {"transpose_a", Attribute::getBool(Opts.TransposeA), {}},
      {"transpose_b", Attribute::getBool(Opts.TransposeB), {}},
      {"clear_accum", Attribute::getBool(Opts.ClearAccum), {}}};
  if (!Opts.Policy.empty())
    Attrs.push_back({"policy", Attribute::getIdent(Opts.Policy), {}});
  return createCommonOp(
      "gemm", makeOperands({std::move(A), std::move(B), std::move(C)}),
      std::move(Attrs));
}

OpStmt *Builder::createFill(RegionArg Dst, ExprArg Value) {
  return createCommonOp("fill", makeOperands({std::move(Dst), std::move(Value)}),
                        {});
}

OpStmt *Builder::createClear(RegionArg Dst) {
  return createCommonOp("clear", makeOperands({std::move(Dst)}), {});
}

OpStmt *Builder::createReduce(StringRef Kind, RegionArg Src, RegionArg Dst,
                              int64_t Dim, bool Clear) {
  return createCommonOp("reduce",
                        makeOperands({std::move(Src), std::move(Dst)}),
                        {{"kind", Attribute::getIdent(Kind), {}},
                         {"dim", Attribute::getInt(Dim), {}},
                         {"clear", Attribute::getBool(Clear), {}}});
}

OpStmt *Builder::createCumsum(RegionArg Src, RegionArg Dst, int64_t Dim,
                              bool Reverse) {
  return createCommonOp("cumsum",
                        makeOperands({std::move(Src), std::move(Dst)}),
                        {{"dim", Attribute::getInt(Dim), {}},
                         {"reverse", Attribute::getBool(Reverse), {}}});
}

OpStmt *Builder::createAtomic(StringRef Kind, RegionArg Src, RegionArg Dst) {
  return createCommonOp("atomic",
                        makeOperands({std::move(Src), std::move(Dst)}),
                        {{"kind", Attribute::getIdent(Kind), {}}});
}

OpStmt *Builder::createAtomicElem(StringRef Kind, RegionArg Dst,
                                  ExprArg Value) {
  return createCommonOp("atomic_elem",
                        makeOperands({std::move(Dst), std::move(Value)}),
                        {{"kind", Attribute::getIdent(Kind), {}}});
}

OpStmt *Builder::createBarrier() { return createCommonOp("barrier", {}, {}); }

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Builder::getInt(int64_t V, DType Ty) {
  assert(isInteger(Ty) && "an integer literal needs an integer type");
  assert((!isBool(Ty) || V == 0 || V == 1) && "an i1 literal is 0 or 1");
  return std::make_unique<IntLitExpr>(V, Ty, Loc);
}

ExprPtr Builder::getFloat(double V, DType Ty) {
  assert(isFloat(Ty) && "a float literal needs a float type");
  assert(std::isfinite(V) &&
         "the textual format has no NaN or infinite literal; use inf(Ty)");
  return std::make_unique<FloatLitExpr>(V, Ty, Loc);
}

ExprPtr Builder::getBool(bool V) {
  return std::make_unique<IntLitExpr>(V, DType::I1, Loc);
}

ExprPtr Builder::inf(DType Ty) {
  assert(isFloat(Ty) && "inf<T>() needs a float type");
  return std::make_unique<InfExpr>(Ty, Loc);
}

ExprPtr Builder::ref(Value *V) {
  assert(V && "reference to a null value");
  if (auto *B = dyn_cast<BufferValue>(V)) {
    assert(B->getScope() == MemScope::Var &&
           "a buffer is read element by element: use load(Buf, {indices})");
    return std::make_unique<LoadExpr>(B, std::vector<ExprPtr>(), Loc);
  }
  return std::make_unique<RefExpr>(V, Loc);
}

ExprPtr Builder::load(BufferValue *Buf, llvm::ArrayRef<ExprArg> Indices) {
  assert(Buf && "load from a null buffer");
  assert((Buf->getScope() == MemScope::Var ? Indices.empty()
                                           : Indices.size() == Buf->getRank()) &&
         "a load gives one index per dimension (none for a var)");
  std::vector<ExprPtr> Idx;
  for (const ExprArg &A : Indices) {
    Typed T = resolveCopy(A);
    coerce(T, DType::I32);
    Idx.push_back(std::move(T.E));
  }
  return std::make_unique<LoadExpr>(Buf, std::move(Idx), Loc);
}

ExprPtr Builder::binary(BinaryOp Op, ExprArg L, ExprArg R) {
  Typed A = resolve(std::move(L)), B = resolve(std::move(R));
  unify(A, B);
  DType Ty = A.E->getDType();
  if (isComparison(Op) || Op == BinaryOp::LogicalAnd ||
      Op == BinaryOp::LogicalOr)
    Ty = DType::I1;
  return std::make_unique<BinaryExpr>(Op, std::move(A.E), std::move(B.E), Ty,
                                      Loc);
}

ExprPtr Builder::neg(ExprArg X) {
  ExprPtr E = build(std::move(X));
  DType Ty = E->getDType();
  return std::make_unique<UnaryExpr>(UnaryOp::Neg, std::move(E), Ty, Loc);
}

ExprPtr Builder::logicalNot(ExprArg X) {
  return std::make_unique<UnaryExpr>(
      UnaryOp::Not, build(std::move(X), DType::I1), DType::I1, Loc);
}

ExprPtr Builder::callImpl(Intrinsic Fn, std::vector<Typed> Args) {
  assert(Args.size() == getIntrinsicArity(Fn) &&
         "wrong number of intrinsic arguments");
  DType Ty;
  if (Fn == Intrinsic::Select) {
    coerce(Args[0], DType::I1);
    unify(Args[1], Args[2]);
    Ty = Args[1].E->getDType();
  } else if (Args.size() == 2) {
    unify(Args[0], Args[1]);
    Ty = Args[0].E->getDType();
  } else {
    if (Args[0].Untyped && Fn != Intrinsic::Abs)
      coerce(Args[0], DType::F32);
    Ty = Args[0].E->getDType();
  }
  std::vector<ExprPtr> Es;
  for (Typed &A : Args)
    Es.push_back(std::move(A.E));
  return std::make_unique<CallExpr>(Fn, std::move(Es), Ty, Loc);
}

ExprPtr Builder::call(Intrinsic Fn, llvm::ArrayRef<ExprArg> Args) {
  std::vector<Typed> Ts;
  for (const ExprArg &A : Args)
    Ts.push_back(resolveCopy(A));
  return callImpl(Fn, std::move(Ts));
}

#define TILE_UNARY_INTRINSIC(NAME, FN)                                         \
  ExprPtr Builder::NAME(ExprArg X) {                                           \
    std::vector<Typed> Ts;                                                     \
    Ts.push_back(resolve(std::move(X)));                                       \
    return callImpl(Intrinsic::FN, std::move(Ts));                             \
  }
#define TILE_BINARY_INTRINSIC(NAME, FN)                                        \
  ExprPtr Builder::NAME(ExprArg A, ExprArg B) {                                \
    std::vector<Typed> Ts;                                                     \
    Ts.push_back(resolve(std::move(A)));                                       \
    Ts.push_back(resolve(std::move(B)));                                       \
    return callImpl(Intrinsic::FN, std::move(Ts));                             \
  }
TILE_BINARY_INTRINSIC(min, Min)
TILE_BINARY_INTRINSIC(max, Max)
TILE_BINARY_INTRINSIC(ceildiv, CeilDiv)
TILE_BINARY_INTRINSIC(floordiv, FloorDiv)
TILE_BINARY_INTRINSIC(floormod, FloorMod)
TILE_UNARY_INTRINSIC(abs, Abs)
TILE_UNARY_INTRINSIC(exp, Exp)
TILE_UNARY_INTRINSIC(exp2, Exp2)
TILE_UNARY_INTRINSIC(log, Log)
TILE_UNARY_INTRINSIC(log2, Log2)
TILE_UNARY_INTRINSIC(sqrt, Sqrt)
TILE_UNARY_INTRINSIC(rsqrt, Rsqrt)
TILE_UNARY_INTRINSIC(tanh, Tanh)
#undef TILE_UNARY_INTRINSIC
#undef TILE_BINARY_INTRINSIC

ExprPtr Builder::select(ExprArg Cond, ExprArg T, ExprArg F) {
  std::vector<Typed> Ts;
  Ts.push_back(resolve(std::move(Cond)));
  Ts.push_back(resolve(std::move(T)));
  Ts.push_back(resolve(std::move(F)));
  return callImpl(Intrinsic::Select, std::move(Ts));
}

ExprPtr Builder::cast(DType To, ExprArg X) {
  Typed T = resolve(std::move(X));
  if (T.Untyped) {
    // As the parser: an integer literal cast to an integer type is typed
    // as the target; otherwise it keeps its own type.
    DType Own = T.E->getDType();
    coerceLiteral(T.E, isFloat(Own) || isFloat(To) ? Own : To);
  }
  return std::make_unique<CastExpr>(To, std::move(T.E), Loc);
}
