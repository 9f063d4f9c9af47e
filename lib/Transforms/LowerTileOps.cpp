//===- LowerTileOps.cpp - tile-lower-tile-ops -----------------------------===//
//
// Rewrites tile ops into loop nests over elements. Each op's regions are
// described by an Access (offsets and extents per dimension); the non-unit
// dimensions of the two sides pair up in order and become the variables of
// a parallel loop. Global accesses are guarded per element; with
// split-full-tiles the nest is emitted twice, behind a check that the
// whole tile is in range, so the common case runs without guards.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "tile/Transforms/StmtBuilder.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace {

/// How an op reads or writes one region.
struct Access {
  BufferValue *Buf = nullptr;
  /// Per dimension: the offset (null for 0) and extent (null for 1).
  std::vector<const Expr *> Offsets, Extents;
  /// Per dimension: which loop variable indexes it, or -1 for a point.
  std::vector<int> Pos;
  unsigned NumLoopDims = 0;

  bool isGlobal() const { return Buf->getScope() == MemScope::Global; }
};

bool isUnit(const Expr *E) { return !E || ex::isConst(*E, 1); }

Access makeAccess(const Region &R, const Region *Other) {
  Access A;
  A.Buf = R.Buf;
  A.Extents = getRegionExtentExprs(R, Other);
  for (unsigned D = 0; D != R.Buf->getRank(); ++D) {
    A.Offsets.push_back(R.isWholeBuffer() ? nullptr : R.Indices[D].Offset.get());
    A.Pos.push_back(isUnit(A.Extents[D]) ? -1 : int(A.NumLoopDims++));
  }
  return A;
}

class Lowering {
public:
  Lowering(Function &F, const OpRegistry &Ops, RemarkEmitter Remarks,
           bool SkipGemm, bool Split, bool ParallelC)
      : Names(F), Ops(Ops), Remarks(Remarks), SkipGemm(SkipGemm), Split(Split),
        ParallelC(ParallelC) {
    // Loop variables of loops starting at a known non-negative bound are
    // non-negative: their offsets need no lower-bound check.
    walkStmts(F.getBody(), [&](const Stmt &S) {
      if (const auto *Fo = dyn_cast<ForStmt>(&S))
        for (const LoopDim &D : Fo->getDims())
          if (!D.Lo || isNonNegative(*D.Lo))
            NonNeg.insert(D.Var.get());
    });
  }

  void lowerBlock(Block &B) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        lowerBlock(*N);
      auto *Op = dyn_cast<OpStmt>(S.get());
      std::optional<std::vector<StmtPtr>> Lowered;
      if (Op && Op->getInfo().isCommon())
        Lowered = lowerOp(*Op);
      if (!Lowered) {
        Out.push_back(std::move(S));
        continue;
      }
      for (StmtPtr &L : *Lowered)
        Out.push_back(std::move(L));
    }
    B.Stmts = std::move(Out);
  }

private:
  using Stmts = std::vector<StmtPtr>;
  using BodyFn = llvm::function_ref<Stmts(llvm::ArrayRef<Value *>, bool)>;

  bool isNonNegative(const Expr &E) const {
    if (std::optional<int64_t> C = E.getConstInt())
      return *C >= 0;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      Value::Kind K = R->getValue()->getKind();
      return K == Value::Kind::Dim || K == Value::Kind::BlockIdx ||
             K == Value::Kind::ThreadIdx || NonNeg.count(R->getValue());
    }
    if (const auto *B = dyn_cast<BinaryExpr>(&E))
      return (B->getOp() == BinaryOp::Add || B->getOp() == BinaryOp::Mul) &&
             isNonNegative(*B->getLHS()) && isNonNegative(*B->getRHS());
    if (const auto *C = dyn_cast<CallExpr>(&E)) {
      switch (C->getIntrinsic()) {
      case Intrinsic::Min:
      case Intrinsic::Max:
      case Intrinsic::CeilDiv:
      case Intrinsic::FloorDiv:
        return isNonNegative(*C->getArgs()[0]) && isNonNegative(*C->getArgs()[1]);
      default:
        return false;
      }
    }
    return false;
  }

  static ExprPtr cloneOr(const Expr *E, int64_t Default) {
    return E ? E->clone() : ex::intLit(Default);
  }

  /// The index expressions of \p A for loop variables \p Vars.
  std::vector<ExprPtr> indices(const Access &A, llvm::ArrayRef<Value *> Vars) {
    std::vector<ExprPtr> Idx;
    for (unsigned D = 0; D != A.Offsets.size(); ++D) {
      ExprPtr I = cloneOr(A.Offsets[D], 0);
      if (A.Pos[D] >= 0)
        I = ex::add(std::move(I), ex::ref(Vars[A.Pos[D]]));
      Idx.push_back(std::move(I));
    }
    return Idx;
  }

  /// `idx in range` for every dimension of a global access.
  ExprPtr inRange(const Access &A, llvm::ArrayRef<ExprPtr> Idx) {
    ExprPtr C;
    for (unsigned D = 0; D != Idx.size(); ++D) {
      if (!isNonNegative(*Idx[D]))
        C = ex::land(std::move(C), ex::ge(Idx[D]->clone(), ex::intLit(0)));
      C = ex::land(std::move(C),
                   ex::lt(Idx[D]->clone(), A.Buf->getShape()[D]->clone()));
    }
    return C ? std::move(C) : ex::boolLit(true);
  }

  /// Whether the whole tile of a global access is in range.
  ExprPtr tileInRange(const Access &A) {
    ExprPtr C;
    for (unsigned D = 0; D != A.Offsets.size(); ++D) {
      ExprPtr Off = cloneOr(A.Offsets[D], 0);
      if (!isNonNegative(*Off))
        C = ex::land(std::move(C), ex::ge(Off->clone(), ex::intLit(0)));
      ExprPtr End = ex::add(std::move(Off), cloneOr(A.Extents[D], 1));
      C = ex::land(std::move(C),
                   ex::le(std::move(End), A.Buf->getShape()[D]->clone()));
    }
    return C ? std::move(C) : ex::boolLit(true);
  }

  static StmtPtr store(BufferValue *B, std::vector<ExprPtr> Idx, ExprPtr V) {
    V = ex::castTo(std::move(V), B->getDType());
    return std::make_unique<StoreStmt>(B, std::move(Idx), std::move(V));
  }

  /// `%name = alloc var Ty`.
  StmtPtr allocVar(llvm::StringRef Name, DType Ty, BufferValue *&Out) {
    auto B = std::make_unique<BufferValue>(Names.fresh(Name), Ty, MemScope::Var,
                                           std::vector<ExprPtr>(),
                                           std::vector<ExprPtr>(), false,
                                           llvm::SMLoc());
    Out = B.get();
    return std::make_unique<AllocStmt>(std::move(B), AttributeList());
  }

  std::unique_ptr<Value> loopVar(llvm::StringRef Base) {
    return std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh(Base),
                                   DType::I32, llvm::SMLoc());
  }

  /// A parallel nest over \p Extents whose body is \p Body(vars).
  Stmts parallelNest(const std::vector<const Expr *> &Extents,
                     llvm::function_ref<Stmts(llvm::ArrayRef<Value *>)> Body) {
    if (Extents.empty())
      return Body({});
    static const char *const VarNames[] = {"i", "j", "k", "l"};
    std::vector<LoopDim> Dims;
    std::vector<Value *> Vars;
    for (unsigned P = 0; P != Extents.size(); ++P) {
      LoopDim D;
      D.Var = loopVar(VarNames[std::min<unsigned>(P, 3)]);
      D.Hi = Extents[P]->clone();
      Vars.push_back(D.Var.get());
      NonNeg.insert(D.Var.get());
      Dims.push_back(std::move(D));
    }
    Block B = stmt::block(Body(Vars));
    Stmts Out;
    Out.push_back(std::make_unique<ForStmt>(LoopKind::Parallel, std::move(Dims),
                                            nullptr, AttributeList(),
                                            std::move(B)));
    return Out;
  }

  StmtPtr serialLoop(Value *&Var, llvm::StringRef Base, ExprPtr Hi, Stmts Body) {
    LoopDim D;
    D.Var = loopVar(Base);
    D.Lo = ex::intLit(0, Hi->getDType());
    D.Hi = std::move(Hi);
    Var = D.Var.get();
    NonNeg.insert(Var);
    std::vector<LoopDim> Dims;
    Dims.push_back(std::move(D));
    return std::make_unique<ForStmt>(LoopKind::Serial, std::move(Dims), nullptr,
                                     AttributeList(), stmt::block(std::move(Body)));
  }

  /// The loop extents shared by the accesses: per position, a constant
  /// extent when one side has it.
  static std::vector<const Expr *> loopExtents(llvm::ArrayRef<const Access *> As) {
    std::vector<const Expr *> Out(As.front()->NumLoopDims, nullptr);
    for (const Access *A : As)
      for (unsigned D = 0; D != A->Pos.size(); ++D) {
        int P = A->Pos[D];
        if (P < 0 || P >= int(Out.size()))
          continue;
        if (!Out[P] || (!Out[P]->getConstInt() && A->Extents[D]->getConstInt()))
          Out[P] = A->Extents[D];
      }
    return Out;
  }

  /// Emits the element nest for accesses \p As, guarded when any is global.
  Stmts guardedNest(llvm::ArrayRef<const Access *> As, BodyFn Body) {
    std::vector<const Expr *> Ext = loopExtents(As);
    bool AnyGlobal = llvm::any_of(As, [](const Access *A) { return A->isGlobal(); });
    auto Nest = [&](bool Guarded) {
      return parallelNest(Ext, [&](llvm::ArrayRef<Value *> Vars) {
        return Body(Vars, Guarded);
      });
    };
    if (!AnyGlobal)
      return Nest(false);
    if (!Split)
      return Nest(true);
    ExprPtr Full;
    for (const Access *A : As)
      if (A->isGlobal())
        Full = ex::land(std::move(Full), tileInRange(*A));
    Stmts Out;
    Out.push_back(stmt::ifThen(std::move(Full), Nest(false), Nest(true)));
    return Out;
  }

  /// Wraps \p S in `if (dst in range)` when guarding a global destination.
  Stmts guardDst(const Access &Dst, const std::vector<ExprPtr> &Idx,
                 bool Guarded, Stmts S) {
    if (!Guarded || !Dst.isGlobal())
      return S;
    Stmts Out;
    Out.push_back(stmt::ifThen(inRange(Dst, Idx), std::move(S)));
    return Out;
  }

  //===--- Ops ------------------------------------------------------------===//

  std::optional<Stmts> lowerOp(const OpStmt &Op) {
    llvm::StringRef N = Op.getName();
    if (N == "copy")
      return lowerCopy(Op);
    if (N == "fill" || N == "clear")
      return lowerFill(Op);
    if (N == "gemm") {
      if (SkipGemm)
        return std::nullopt;
      Remarks.missed(Op.getLoc(),
                     "gemm lowered to loops of scalar multiply-adds: no pass "
                     "before this one mapped it to a matrix instruction");
      return lowerGemm(Op);
    }
    if (N == "reduce")
      return lowerReduce(Op);
    if (N == "cumsum")
      return lowerCumsum(Op);
    if (N == "atomic")
      return lowerAtomic(Op);
    return std::nullopt;
  }

  Stmts lowerCopy(const OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    Access Src = makeAccess(SR, &DR), Dst = makeAccess(DR, &SR);
    return guardedNest({&Src, &Dst}, [&](llvm::ArrayRef<Value *> Vars, bool G) {
      std::vector<ExprPtr> SI = indices(Src, Vars), DI = indices(Dst, Vars);
      Stmts Body;
      if (G && Src.isGlobal()) {
        Stmts Then, Else;
        Then.push_back(store(Dst.Buf, cloneAll(DI), ex::load(Src.Buf, cloneAll(SI))));
        Else.push_back(store(Dst.Buf, cloneAll(DI), ex::zero(Dst.Buf->getDType())));
        Body.push_back(stmt::ifThen(inRange(Src, SI), std::move(Then), std::move(Else)));
      } else {
        Body.push_back(store(Dst.Buf, cloneAll(DI), ex::load(Src.Buf, std::move(SI))));
      }
      return guardDst(Dst, DI, G, std::move(Body));
    });
  }

  Stmts lowerFill(const OpStmt &Op) {
    const Region &DR = Op.getOperand("dst").R;
    Access Dst = makeAccess(DR, nullptr);
    const Expr *V = Op.getName() == "fill" ? Op.getOperand("value").E.get() : nullptr;
    return guardedNest({&Dst}, [&](llvm::ArrayRef<Value *> Vars, bool G) {
      std::vector<ExprPtr> DI = indices(Dst, Vars);
      Stmts Body;
      Body.push_back(store(Dst.Buf, cloneAll(DI),
                           V ? V->clone() : ex::zero(Dst.Buf->getDType())));
      return guardDst(Dst, DI, G, std::move(Body));
    });
  }

  Stmts lowerGemm(const OpStmt &Op) {
    Access A = makeAccess(Op.getOperand("a").R, nullptr),
           B = makeAccess(Op.getOperand("b").R, nullptr),
           C = makeAccess(Op.getOperand("c").R, nullptr);
    bool TA = Op.getAttrOrDefault("transpose_a").getBool();
    bool TB = Op.getAttrOrDefault("transpose_b").getBool();
    bool Clear = Op.getAttrOrDefault("clear_accum").getBool();
    DType Acc = C.Buf->getDType();
    auto Last2 = [](const Access &X) {
      unsigned R = X.Extents.size();
      return std::make_pair(X.Extents[R - 2], X.Extents[R - 1]);
    };
    const Expr *M = TA ? Last2(A).second : Last2(A).first;
    const Expr *K = TA ? Last2(A).first : Last2(A).second;
    const Expr *Nn = TB ? Last2(B).first : Last2(B).second;
    // Index of a matrix operand: leading offsets, then two loop variables.
    auto Index = [](const Access &X, Value *Row, Value *Col) {
      std::vector<ExprPtr> Idx;
      unsigned R = X.Offsets.size();
      for (unsigned D = 0; D != R; ++D) {
        ExprPtr I = cloneOr(X.Offsets[D], 0);
        if (D == R - 2)
          I = ex::add(std::move(I), ex::ref(Row));
        else if (D == R - 1)
          I = ex::add(std::move(I), ex::ref(Col));
        Idx.push_back(std::move(I));
      }
      return Idx;
    };
    auto Product = [&](Value *I, Value *J, Value *Kv) {
      ExprPtr LA = ex::castTo(ex::load(A.Buf, TA ? Index(A, Kv, I) : Index(A, I, Kv)), Acc);
      ExprPtr LB = ex::castTo(ex::load(B.Buf, TB ? Index(B, J, Kv) : Index(B, Kv, J)), Acc);
      return ex::mul(std::move(LA), std::move(LB));
    };
    Stmts Out;
    if (Clear) {
      Stmts Z = parallelNest({M, Nn}, [&](llvm::ArrayRef<Value *> V) {
        Stmts S;
        S.push_back(store(C.Buf, Index(C, V[0], V[1]), ex::zero(Acc)));
        return S;
      });
      for (StmtPtr &S : Z)
        Out.push_back(std::move(S));
    }
    if (!TB && !ParallelC) {
      // for i { for k { for j in parallel { C[i, j] += A[i, k] * B[k, j] } } }
      Value *I, *Kv;
      auto IVar = loopVar("i"), KVar = loopVar("k");
      I = IVar.get();
      Kv = KVar.get();
      NonNeg.insert(I);
      NonNeg.insert(Kv);
      Stmts Inner = parallelNest({Nn}, [&](llvm::ArrayRef<Value *> V) {
        Stmts S;
        S.push_back(store(C.Buf, Index(C, I, V[0]),
                          ex::add(ex::load(C.Buf, Index(C, I, V[0])),
                                  Product(I, V[0], Kv))));
        return S;
      });
      Out.push_back(serialLoopWith(std::move(IVar), M->clone(),
                                   single(serialLoopWith(std::move(KVar),
                                                         K->clone(),
                                                         std::move(Inner)))));
      return Out;
    }
    // B transposed (or gemm-parallel-c): for i, j in parallel { acc = C[i, j]; for k { acc += ... } }
    Stmts Nest = parallelNest({M, Nn}, [&](llvm::ArrayRef<Value *> V) {
      Stmts S;
      BufferValue *AccVar;
      S.push_back(allocVar("acc", Acc, AccVar));
      S.push_back(store(AccVar, {}, ex::load(C.Buf, Index(C, V[0], V[1]))));
      Value *Kv;
      Stmts Body;
      auto KVar = loopVar("k");
      Kv = KVar.get();
      NonNeg.insert(Kv);
      Body.push_back(store(AccVar, {},
                           ex::add(ex::load(AccVar, {}), Product(V[0], V[1], Kv))));
      S.push_back(serialLoopWith(std::move(KVar), K->clone(), std::move(Body)));
      S.push_back(store(C.Buf, Index(C, V[0], V[1]), ex::load(AccVar, {})));
      return S;
    });
    for (StmtPtr &S : Nest)
      Out.push_back(std::move(S));
    return Out;
  }

  static Stmts single(StmtPtr S) {
    Stmts Out;
    Out.push_back(std::move(S));
    return Out;
  }

  StmtPtr serialLoopWith(std::unique_ptr<Value> Var, ExprPtr Hi, Stmts Body) {
    LoopDim D;
    D.Var = std::move(Var);
    D.Lo = ex::intLit(0, Hi->getDType());
    D.Hi = std::move(Hi);
    std::vector<LoopDim> Dims;
    Dims.push_back(std::move(D));
    return std::make_unique<ForStmt>(LoopKind::Serial, std::move(Dims), nullptr,
                                     AttributeList(), stmt::block(std::move(Body)));
  }

  Stmts lowerReduce(const OpStmt &Op) {
    Access Src = makeAccess(Op.getOperand("src").R, nullptr);
    Access Dst = makeAccess(Op.getOperand("dst").R, nullptr);
    std::string Kind = Op.getAttrOrDefault("kind").getStr().str();
    unsigned Dim = Op.getAttrOrDefault("dim").getInt();
    bool Clear = Op.getAttrOrDefault("clear").getBool();
    DType Ty = Dst.Buf->getDType();
    bool Abs = llvm::StringRef(Kind).starts_with("abs");
    // Outer loop dimensions: the source's non-unit dimensions except Dim.
    std::vector<const Expr *> Outer;
    std::vector<int> SrcPos(Src.Extents.size(), -1);
    for (unsigned D = 0; D != Src.Extents.size(); ++D)
      if (D != Dim && !isUnit(Src.Extents[D])) {
        SrcPos[D] = Outer.size();
        Outer.push_back(Src.Extents[D]);
      }
    return parallelNest(Outer, [&](llvm::ArrayRef<Value *> Vars) {
      Stmts S;
      BufferValue *AccVar;
      S.push_back(allocVar("acc", Ty, AccVar));
      std::vector<ExprPtr> DI = indices(Dst, Vars);
      ExprPtr Init;
      if (!Clear)
        Init = ex::load(Dst.Buf, cloneAll(DI));
      else if (Kind == "sum" || Kind == "abssum" || Kind == "absmax")
        Init = ex::zero(Ty);
      else
        Init = Kind == "max" ? ex::lowest(Ty) : ex::highest(Ty);
      S.push_back(store(AccVar, {}, std::move(Init)));
      Value *R;
      auto RVar = loopVar("r");
      R = RVar.get();
      NonNeg.insert(R);
      std::vector<ExprPtr> SI;
      for (unsigned D = 0; D != Src.Extents.size(); ++D) {
        ExprPtr I = cloneOr(Src.Offsets[D], 0);
        if (D == Dim)
          I = ex::add(std::move(I), ex::ref(R));
        else if (SrcPos[D] >= 0)
          I = ex::add(std::move(I), ex::ref(Vars[SrcPos[D]]));
        SI.push_back(std::move(I));
      }
      ExprPtr X = ex::castTo(ex::load(Src.Buf, std::move(SI)), Ty);
      if (Abs)
        X = ex::call(Intrinsic::Abs, vec(std::move(X)));
      ExprPtr Cur = ex::load(AccVar, {});
      ExprPtr Comb = ex::reduceCombine(Kind, std::move(Cur), std::move(X));
      Stmts Body;
      Body.push_back(store(AccVar, {}, std::move(Comb)));
      S.push_back(serialLoopWith(std::move(RVar), cloneOr(Src.Extents[Dim], 1),
                                 std::move(Body)));
      S.push_back(store(Dst.Buf, std::move(DI), ex::load(AccVar, {})));
      return S;
    });
  }

  Stmts lowerCumsum(const OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    Access Src = makeAccess(SR, &DR), Dst = makeAccess(DR, &SR);
    unsigned Dim = Op.getAttrOrDefault("dim").getInt();
    bool Reverse = Op.getAttrOrDefault("reverse").getBool();
    DType Ty = Dst.Buf->getDType();
    int ScanPos = Src.Pos[Dim];
    if (ScanPos < 0) // a scan along a unit dimension is a copy
      return lowerCopy(Op);
    std::vector<const Expr *> All = loopExtents({&Src, &Dst});
    std::vector<const Expr *> Outer;
    for (unsigned P = 0; P != All.size(); ++P)
      if (int(P) != ScanPos)
        Outer.push_back(All[P]);
    return parallelNest(Outer, [&](llvm::ArrayRef<Value *> OuterVars) {
      Stmts S;
      BufferValue *AccVar;
      S.push_back(allocVar("acc", Ty, AccVar));
      S.push_back(store(AccVar, {}, ex::zero(Ty)));
      auto RVar = loopVar("r");
      Value *R = RVar.get();
      NonNeg.insert(R);
      // The scanned position's variable is a let: r or extent-1-r.
      auto SVar = std::make_unique<Value>(Value::Kind::Let, Names.fresh("s"),
                                          DType::I32, llvm::SMLoc());
      Value *SV = SVar.get();
      NonNeg.insert(SV);
      ExprPtr SInit = Reverse ? ex::sub(ex::sub(All[ScanPos]->clone(), ex::intLit(1)),
                                        ex::ref(R))
                              : ex::ref(R);
      std::vector<Value *> Vars;
      for (unsigned P = 0, O = 0; P != All.size(); ++P)
        Vars.push_back(int(P) == ScanPos ? SV : OuterVars[O++]);
      std::vector<ExprPtr> SI = indices(Src, Vars), DI = indices(Dst, Vars);
      Stmts Body;
      Body.push_back(std::make_unique<LetStmt>(std::move(SVar), std::move(SInit)));
      Stmts Acc;
      Acc.push_back(store(AccVar, {},
                          ex::add(ex::load(AccVar, {}),
                                  ex::castTo(ex::load(Src.Buf, cloneAll(SI)), Ty))));
      if (Src.isGlobal())
        Body.push_back(stmt::ifThen(inRange(Src, SI), std::move(Acc)));
      else
        for (StmtPtr &A : Acc)
          Body.push_back(std::move(A));
      Stmts W;
      W.push_back(store(Dst.Buf, cloneAll(DI), ex::load(AccVar, {})));
      for (StmtPtr &X : guardDst(Dst, DI, true, std::move(W)))
        Body.push_back(std::move(X));
      S.push_back(serialLoopWith(std::move(RVar), All[ScanPos]->clone(),
                                 std::move(Body)));
      return S;
    });
  }

  Stmts lowerAtomic(const OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    Access Src = makeAccess(SR, &DR), Dst = makeAccess(DR, &SR);
    const OpInfo *Elem = Ops.lookup("atomic_elem");
    Attribute Kind = Op.getAttrOrDefault("kind");
    return guardedNest({&Src, &Dst}, [&](llvm::ArrayRef<Value *> Vars, bool G) {
      std::vector<ExprPtr> SI = indices(Src, Vars), DI = indices(Dst, Vars);
      std::vector<OpOperand> Operands(2);
      Operands[0].Kind = OperandKind::Region;
      Operands[0].R.Buf = Dst.Buf;
      for (ExprPtr &I : DI)
        Operands[0].R.Indices.push_back({I->clone(), nullptr});
      Operands[1].Kind = OperandKind::Expr;
      Operands[1].E = ex::castTo(ex::load(Src.Buf, cloneAll(SI)), Dst.Buf->getDType());
      AttributeList Attrs;
      Attrs.set("kind", Kind);
      Stmts Upd;
      Upd.push_back(std::make_unique<OpStmt>(Elem, std::move(Operands),
                                             std::move(Attrs), Op.getLoc()));
      Stmts Body;
      if (G && Src.isGlobal())
        Body.push_back(stmt::ifThen(inRange(Src, SI), std::move(Upd)));
      else
        Body = std::move(Upd);
      return guardDst(Dst, DI, G, std::move(Body));
    });
  }

  static std::vector<ExprPtr> cloneAll(const std::vector<ExprPtr> &V) {
    std::vector<ExprPtr> Out;
    for (const ExprPtr &E : V)
      Out.push_back(E->clone());
    return Out;
  }

  template <typename... T> static std::vector<ExprPtr> vec(T &&...Es) {
    std::vector<ExprPtr> Out;
    (Out.push_back(std::forward<T>(Es)), ...);
    return Out;
  }

  NameGenerator Names;
  const OpRegistry &Ops;
  RemarkEmitter Remarks;
  bool SkipGemm, Split, ParallelC;
  llvm::DenseSet<const Value *> NonNeg;
};

class LowerTileOpsPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    for (const auto &F : M.getFunctions()) {
      Lowering L(*F, M.getContext().getOpRegistry(), getRemarks(M),
                 getBoolOption("skip-gemm"),
                 getBoolOption("split-full-tiles"),
                 getBoolOption("gemm-parallel-c"));
      L.lowerBlock(F->getBodyMutable());
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerTileOpsPass() {
  return std::make_unique<LowerTileOpsPass>(getLowerTileOpsPassInfo());
}
