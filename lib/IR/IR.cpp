//===- IR.cpp - The Tile IR -----------------------------------------------===//
//
// Construction, names of enumerations, deep copies and region extents.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <map>
#include <memory>
#include <mutex>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

static const char *const kScopeNames[] = {"global", "shared", "fragment",
                                          "local", "var"};

llvm::StringRef tile::getScopeName(MemScope S) {
  return kScopeNames[static_cast<unsigned>(S)];
}

std::optional<MemScope> tile::parseScope(llvm::StringRef Name) {
  for (unsigned I = 0; I != std::size(kScopeNames); ++I)
    if (Name == kScopeNames[I])
      return static_cast<MemScope>(I);
  return std::nullopt;
}

static const char *const kLoopKindNames[] = {"serial", "parallel", "pipelined",
                                             "unroll"};

llvm::StringRef tile::getLoopKindName(LoopKind K) {
  return kLoopKindNames[static_cast<unsigned>(K)];
}

std::optional<LoopKind> tile::parseLoopKind(llvm::StringRef Name) {
  for (unsigned I = 0; I != std::size(kLoopKindNames); ++I)
    if (Name == kLoopKindNames[I])
      return static_cast<LoopKind>(I);
  return std::nullopt;
}

llvm::StringRef tile::getBinaryOpSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::And: return "&";
  case BinaryOp::Or: return "|";
  case BinaryOp::Xor: return "^";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::LogicalAnd: return "&&";
  case BinaryOp::LogicalOr: return "||";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  }
  llvm_unreachable("unknown binary op");
}

bool tile::isComparison(BinaryOp Op) {
  return Op >= BinaryOp::Eq && Op <= BinaryOp::Ge;
}

namespace {
struct IntrinsicDesc {
  Intrinsic I;
  const char *Name;
  unsigned Arity;
};
constexpr IntrinsicDesc kIntrinsics[] = {
    {Intrinsic::Min, "min", 2},         {Intrinsic::Max, "max", 2},
    {Intrinsic::Abs, "abs", 1},         {Intrinsic::Exp, "exp", 1},
    {Intrinsic::Exp2, "exp2", 1},       {Intrinsic::Log, "log", 1},
    {Intrinsic::Log2, "log2", 1},       {Intrinsic::Sqrt, "sqrt", 1},
    {Intrinsic::Rsqrt, "rsqrt", 1},     {Intrinsic::Tanh, "tanh", 1},
    {Intrinsic::CeilDiv, "ceildiv", 2}, {Intrinsic::FloorDiv, "floordiv", 2},
    {Intrinsic::FloorMod, "floormod", 2}, {Intrinsic::Select, "select", 3},
};
} // namespace

llvm::StringRef tile::getIntrinsicName(Intrinsic I) {
  return kIntrinsics[static_cast<unsigned>(I)].Name;
}

unsigned tile::getIntrinsicArity(Intrinsic I) {
  return kIntrinsics[static_cast<unsigned>(I)].Arity;
}

std::optional<Intrinsic> tile::parseIntrinsic(llvm::StringRef Name) {
  for (const IntrinsicDesc &D : kIntrinsics)
    if (Name == D.Name)
      return D.I;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Values and expressions
//===----------------------------------------------------------------------===//

BufferValue::BufferValue(llvm::StringRef Name, DType Ty, MemScope Scope,
                         std::vector<ExprPtr> Shape,
                         std::vector<ExprPtr> Strides, bool IsParam,
                         llvm::SMLoc Loc)
    : Value(Kind::Buffer, Name, Ty, Loc), Scope(Scope),
      Shape(std::move(Shape)), Strides(std::move(Strides)), IsParam(IsParam) {}

BufferValue::~BufferValue() = default;

std::optional<std::vector<int64_t>> BufferValue::getConstShape() const {
  std::vector<int64_t> Out;
  for (const ExprPtr &D : Shape) {
    std::optional<int64_t> C = D->getConstInt();
    if (!C)
      return std::nullopt;
    Out.push_back(*C);
  }
  return Out;
}

std::optional<int64_t> Expr::getConstInt() const {
  if (const auto *L = dyn_cast<IntLitExpr>(this))
    return L->getValue();
  return std::nullopt;
}

namespace {
/// Maps values defined in an original tree to their copies.
using ValueMap = llvm::DenseMap<const Value *, Value *>;

Value *remap(Value *V, const ValueMap &Map) {
  auto It = Map.find(V);
  return It == Map.end() ? V : It->second;
}

ExprPtr cloneExpr(const Expr &E, const ValueMap &Map);

std::vector<ExprPtr> cloneExprs(llvm::ArrayRef<ExprPtr> Es,
                                const ValueMap &Map) {
  std::vector<ExprPtr> Out;
  for (const ExprPtr &E : Es)
    Out.push_back(E ? cloneExpr(*E, Map) : nullptr);
  return Out;
}

ExprPtr cloneExpr(const Expr &E, const ValueMap &Map) {
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    const auto &L = cast<IntLitExpr>(E);
    return std::make_unique<IntLitExpr>(L.getValue(), L.getDType(), L.getLoc());
  }
  case Expr::Kind::FloatLit: {
    const auto &L = cast<FloatLitExpr>(E);
    return std::make_unique<FloatLitExpr>(L.getValue(), L.getDType(), L.getLoc());
  }
  case Expr::Kind::Ref: {
    const auto &R = cast<RefExpr>(E);
    return std::make_unique<RefExpr>(remap(R.getValue(), Map), R.getLoc());
  }
  case Expr::Kind::Load: {
    const auto &L = cast<LoadExpr>(E);
    auto *B = cast<BufferValue>(remap(L.getBuffer(), Map));
    return std::make_unique<LoadExpr>(B, cloneExprs(L.getIndices(), Map),
                                      L.getLoc());
  }
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    return std::make_unique<BinaryExpr>(B.getOp(), cloneExpr(*B.getLHS(), Map),
                                        cloneExpr(*B.getRHS(), Map),
                                        B.getDType(), B.getLoc());
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    return std::make_unique<UnaryExpr>(U.getOp(), cloneExpr(*U.getOperand(), Map),
                                       U.getDType(), U.getLoc());
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    return std::make_unique<CallExpr>(C.getIntrinsic(),
                                      cloneExprs(C.getArgs(), Map),
                                      C.getDType(), C.getLoc());
  }
  case Expr::Kind::Cast: {
    const auto &C = cast<CastExpr>(E);
    return std::make_unique<CastExpr>(C.getDType(),
                                      cloneExpr(*C.getOperand(), Map), C.getLoc());
  }
  case Expr::Kind::Inf:
    return std::make_unique<InfExpr>(E.getDType(), E.getLoc());
  }
  llvm_unreachable("unknown expression kind");
}

std::unique_ptr<Value> cloneScalar(const Value &V, ValueMap &Map) {
  auto Copy =
      std::make_unique<Value>(V.getKind(), V.getName(), V.getDType(), V.getLoc());
  Map[&V] = Copy.get();
  return Copy;
}

std::unique_ptr<BufferValue> cloneBuffer(const BufferValue &B, ValueMap &Map) {
  auto Copy = std::make_unique<BufferValue>(
      B.getName(), B.getDType(), B.getScope(), cloneExprs(B.getShape(), Map),
      cloneExprs(B.getStrides(), Map), B.isParam(), B.getLoc());
  Map[&B] = Copy.get();
  return Copy;
}

Region cloneRegion(const Region &R, const ValueMap &Map) {
  Region Out;
  Out.Buf = cast<BufferValue>(remap(R.Buf, Map));
  Out.Loc = R.Loc;
  for (const RegionIndex &I : R.Indices)
    Out.Indices.push_back({cloneExpr(*I.Offset, Map),
                           I.Extent ? cloneExpr(*I.Extent, Map) : nullptr});
  return Out;
}

StmtPtr cloneStmt(const Stmt &S, ValueMap &Map);

Block cloneBlock(const Block &B, ValueMap &Map) {
  Block Out;
  Out.LBrace = B.LBrace;
  Out.RBrace = B.RBrace;
  for (const StmtPtr &S : B.Stmts)
    Out.Stmts.push_back(cloneStmt(*S, Map));
  return Out;
}

StmtPtr cloneStmt(const Stmt &S, ValueMap &Map) {
  switch (S.getKind()) {
  case Stmt::Kind::Alloc: {
    const auto &A = cast<AllocStmt>(S);
    return std::make_unique<AllocStmt>(cloneBuffer(*A.getBuffer(), Map),
                                       A.getAttrs(), A.getLoc());
  }
  case Stmt::Kind::Let: {
    const auto &L = cast<LetStmt>(S);
    ExprPtr Init = cloneExpr(*L.getInit(), Map);
    return std::make_unique<LetStmt>(cloneScalar(*L.getVar(), Map),
                                     std::move(Init), L.getLoc());
  }
  case Stmt::Kind::Store: {
    const auto &St = cast<StoreStmt>(S);
    return std::make_unique<StoreStmt>(
        cast<BufferValue>(remap(St.getBuffer(), Map)),
        cloneExprs(St.getIndices(), Map), cloneExpr(*St.getValue(), Map),
        St.getLoc());
  }
  case Stmt::Kind::For: {
    const auto &F = cast<ForStmt>(S);
    std::vector<LoopDim> Dims;
    for (const LoopDim &D : F.getDims()) {
      LoopDim C;
      C.Lo = D.Lo ? cloneExpr(*D.Lo, Map) : nullptr;
      C.Hi = cloneExpr(*D.Hi, Map);
      Dims.push_back(std::move(C));
    }
    ExprPtr Step = F.getStep() ? cloneExpr(*F.getStep(), Map) : nullptr;
    for (auto [D, Orig] : llvm::zip(Dims, F.getDims()))
      D.Var = cloneScalar(*Orig.Var, Map);
    return std::make_unique<ForStmt>(F.getLoopKind(), std::move(Dims),
                                     std::move(Step), F.getAttrs(),
                                     cloneBlock(F.getBody(), Map), F.getLoc());
  }
  case Stmt::Kind::If: {
    const auto &I = cast<IfStmt>(S);
    std::optional<Block> Else;
    ExprPtr Cond = cloneExpr(*I.getCond(), Map);
    Block Then = cloneBlock(I.getThen(), Map);
    if (I.hasElse())
      Else = cloneBlock(I.getElse(), Map);
    return std::make_unique<IfStmt>(std::move(Cond), std::move(Then),
                                    std::move(Else), I.getLoc());
  }
  case Stmt::Kind::Kernel: {
    const auto &K = cast<KernelStmt>(S);
    std::vector<ExprPtr> Grid = cloneExprs(K.getGrid(), Map);
    ExprPtr Threads = cloneExpr(*K.getThreads(), Map);
    std::vector<std::unique_ptr<Value>> Idx;
    for (const auto &V : K.getBlockIndices())
      Idx.push_back(cloneScalar(*V, Map));
    std::unique_ptr<Value> Tid;
    if (K.getThreadIndex())
      Tid = cloneScalar(*K.getThreadIndex(), Map);
    return std::make_unique<KernelStmt>(
        std::move(Grid), std::move(Threads), std::move(Idx), std::move(Tid),
        K.getAttrs(), cloneBlock(K.getBody(), Map), K.getLoc());
  }
  case Stmt::Kind::Op: {
    const auto &O = cast<OpStmt>(S);
    std::vector<OpOperand> Ops;
    for (const OpOperand &Opnd : O.getOperands()) {
      OpOperand C;
      C.Kind = Opnd.Kind;
      if (Opnd.Kind == OperandKind::Region)
        C.R = cloneRegion(Opnd.R, Map);
      else
        C.E = cloneExpr(*Opnd.E, Map);
      Ops.push_back(std::move(C));
    }
    return std::make_unique<OpStmt>(&O.getInfo(), std::move(Ops), O.getAttrs(),
                                    O.getLoc());
  }
  }
  llvm_unreachable("unknown statement kind");
}
} // namespace

ExprPtr Expr::clone() const { return cloneExpr(*this, ValueMap()); }

StmtPtr Stmt::clone() const {
  ValueMap Map;
  return cloneStmt(*this, Map);
}

Block::Block() = default;
Block::Block(Block &&) = default;
Block &Block::operator=(Block &&) = default;
Block::~Block() = default;

Block Block::clone() const {
  ValueMap Map;
  return cloneBlock(*this, Map);
}

Region Region::clone() const { return cloneRegion(*this, ValueMap()); }

OpOperand OpOperand::clone() const {
  OpOperand C;
  C.Kind = Kind;
  if (Kind == OperandKind::Region)
    C.R = R.clone();
  else
    C.E = E->clone();
  return C;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

ForStmt::ForStmt(LoopKind LK, std::vector<LoopDim> Dims, ExprPtr Step,
                 AttributeList Attrs, Block Body, llvm::SMLoc Loc)
    : Stmt(Kind::For, Loc), LK(LK), Dims(std::move(Dims)),
      Step(std::move(Step)), Attrs(std::move(Attrs)), Body(std::move(Body)) {}

IfStmt::IfStmt(ExprPtr Cond, Block Then, std::optional<Block> Else,
               llvm::SMLoc Loc)
    : Stmt(Kind::If, Loc), Cond(std::move(Cond)), Then(std::move(Then)),
      Else(std::move(Else)) {}

KernelStmt::KernelStmt(std::vector<ExprPtr> Grid, ExprPtr Threads,
                       std::vector<std::unique_ptr<Value>> BlockIdx,
                       std::unique_ptr<Value> ThreadIdx, AttributeList Attrs,
                       Block Body, llvm::SMLoc Loc)
    : Stmt(Kind::Kernel, Loc), Grid(std::move(Grid)),
      Threads(std::move(Threads)), BlockIdx(std::move(BlockIdx)),
      ThreadIdx(std::move(ThreadIdx)), Attrs(std::move(Attrs)),
      Body(std::move(Body)) {}

const OpOperand &OpStmt::getOperand(llvm::StringRef Name) const {
  int I = Info->findOperand(Name);
  assert(I >= 0 && "op has no operand of that name");
  return Operands[I];
}

/// Reads the canonical text of a declared default value.
static Attribute parseDefaultText(llvm::StringRef T, AttrKind K) {
  T = T.trim();
  if (T == "true" || T == "false")
    return Attribute::getBool(T == "true");
  if (K == AttrKind::IntList || T.starts_with("[")) {
    std::vector<Attribute> Elems;
    llvm::SmallVector<llvm::StringRef> Parts;
    T.drop_front().drop_back().split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts)
      Elems.push_back(parseDefaultText(P, AttrKind::Any));
    return Attribute::getList(std::move(Elems));
  }
  int64_t I;
  if (!T.getAsInteger(10, I))
    return Attribute::getInt(I);
  double D;
  if (!T.getAsDouble(D))
    return Attribute::getFloat(D);
  if (T.size() >= 2 && T.front() == '"')
    return Attribute::getString(T.drop_front().drop_back());
  return Attribute::getIdent(T);
}

const Attribute &OpStmt::getAttrOrDefault(llvm::StringRef Name) const {
  if (const Attribute *A = Attrs.get(Name))
    return *A;
  const OpAttrInfo *Info = this->Info->findAttr(Name);
  assert(Info && Info->Default && "no such attribute, or it is required");
  return getDefaultValue(*Info);
}

const Attribute &tile::getDefaultValue(const OpAttrInfo &AI) {
  assert(AI.Default && "attribute is required and has no default");
  // Each declared default is parsed once and kept, so that callers get a
  // reference (a StringRef into a default that was returned by value died
  // at the end of the caller's statement). Tables are shared by threads.
  static std::mutex Lock;
  static std::map<const OpAttrInfo *, std::unique_ptr<Attribute>> Parsed;
  std::lock_guard<std::mutex> G(Lock);
  std::unique_ptr<Attribute> &Slot = Parsed[&AI];
  if (!Slot)
    Slot = std::make_unique<Attribute>(parseDefaultText(AI.Default, AI.Kind));
  return *Slot;
}

//===----------------------------------------------------------------------===//
// Functions and modules
//===----------------------------------------------------------------------===//

Value *Function::getOrCreateDim(llvm::StringRef Name, llvm::SMLoc Loc) {
  if (Value *V = lookupDim(Name))
    return V;
  Dims.push_back(std::make_unique<Value>(Value::Kind::Dim, Name, DType::I32, Loc));
  return Dims.back().get();
}

Value *Function::lookupDim(llvm::StringRef Name) const {
  for (const auto &D : Dims)
    if (D->getName() == Name)
      return D.get();
  return nullptr;
}

const TunableDecl *Function::lookupTunable(llvm::StringRef Name) const {
  for (const TunableDecl &T : Tunables)
    if (T.getName() == Name)
      return &T;
  return nullptr;
}

std::unique_ptr<Function> Function::clone() const {
  auto F = std::make_unique<Function>(Name, Loc);
  ValueMap Map;
  for (const TunableDecl &T : Tunables)
    F->Tunables.push_back({cloneScalar(*T.Var, Map), T.Default, T.Candidates});
  for (const auto &D : Dims)
    F->Dims.push_back(cloneScalar(*D, Map));
  for (const auto &P : Params) {
    if (const auto *B = dyn_cast<BufferValue>(P.get()))
      F->Params.push_back(cloneBuffer(*B, Map));
    else
      F->Params.push_back(cloneScalar(*P, Map));
  }
  F->Attrs = Attrs;
  F->Body = cloneBlock(Body, Map);
  return F;
}

Function *Module::addFunction(std::unique_ptr<Function> F) {
  Funcs.push_back(std::move(F));
  return Funcs.back().get();
}

Function *Module::replaceFunction(const Function *Old,
                                  std::unique_ptr<Function> New) {
  for (auto &F : Funcs)
    if (F.get() == Old) {
      F = std::move(New);
      return F.get();
    }
  llvm_unreachable("not a function of this module");
}

Function *Module::lookupFunction(llvm::StringRef Name) const {
  for (const auto &F : Funcs)
    if (F->getName() == Name)
      return F.get();
  return nullptr;
}

std::unique_ptr<Module> Module::clone() const {
  auto M = std::make_unique<Module>(*Ctx);
  for (const auto &F : Funcs)
    M->addFunction(F->clone());
  return M;
}

TileContext::TileContext() { registerCommonOps(Ops); }

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

std::vector<const Expr *> tile::getRegionExtentExprs(const Region &R,
                                                     const Region *Other) {
  std::vector<const Expr *> Out;
  if (R.isWholeBuffer()) {
    for (const ExprPtr &D : R.Buf->getShape())
      Out.push_back(D.get());
    return Out;
  }
  bool AnyExplicit = llvm::any_of(
      R.Indices, [](const RegionIndex &I) { return I.Extent != nullptr; });
  if (AnyExplicit || !Other) {
    for (const RegionIndex &I : R.Indices)
      Out.push_back(I.Extent.get());
    return Out;
  }
  // Infer from the other side's non-unit extents, right-aligned.
  std::vector<const Expr *> OtherExt;
  for (const Expr *E : getRegionExtentExprs(*Other, nullptr))
    if (E && E->getConstInt() != std::optional<int64_t>(1))
      OtherExt.push_back(E);
  Out.assign(R.Indices.size(), nullptr);
  size_t J = OtherExt.size();
  for (size_t I = R.Indices.size(); I-- > 0 && J > 0;)
    Out[I] = OtherExt[--J];
  return Out;
}
