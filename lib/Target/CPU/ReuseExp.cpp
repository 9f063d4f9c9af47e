//===- ReuseExp.cpp - cpu-reuse-exp ---------------------------------------===//
//
// Softmax reads each row twice: a first serial loop over tiles of the row
// computes exp(x - a_t) for the row's running sum (a_t: the running maximum
// at tile t), a second computes exp(x - b) of the same elements again for
// the output (b: the row's maximum). On a CPU the exp is most of the work
// (a conversion, one FMA, vreduceps, four FMAs and vscalefps per 16
// elements), and the second is exp(x - a_t) * exp(a_t - b). This pass keeps
// the first loop's values of the last R tiles in a local array and lets the
// second loop read them:
//
//   for %t in serial(..) {            // the first loop
//     ... for %j ... { %v = cast<f32>(%X[r, %t * T + j]); e = exp(%v - a) ... }
//   }
//   for %t in serial(..) {            // the second loop
//     ... for %j ... { ... exp(cast<f32>(%X[r, %t * T + j]) - b) / s ... }
//   }
// becomes
//   for %i in serial(0, R) { %X_tile[%i] = lowest }
//   for %t in serial(..) {
//     ... %X_shift[%t mod R] = a; %X_tile[%t mod R] = %t
//         for %j ... { ...; %X_exp[(%t mod R) * T + j] = e ... }
//   }
//   for %t in serial(..) {
//     ... if %X_tile[%t mod R] == %t && -inf < %X_shift[%t mod R] <= b < inf {
//           for %j ... { ... %X_exp[(%t mod R) * T + j] * (exp(%X_shift[%t mod R] - b) / s) ... }
//         } else { the nest as it was }
//   }
//
// with R = max-elements / T. The first loop's nest must compute the exp for
// every element of its tile (loops from 0 to constants whose variables
// index the tile in mixed radix, exp a statement of the innermost body),
// so that a slot marked with %t holds tile %t whole; the second loop's
// column must lie in its tile. The test before each nest of the second
// loop takes the array only when the slot holds this tile of this pass and
// a <= b (finite), where exp(x - a) loses nothing that exp(x - b) keeps:
// softmax's running maximum never exceeds the row's. Otherwise, and for the
// tiles that a longer row evicted from the array, the exp is computed again.
// %X must be a global tensor that the kernel never writes. The product
// rounds twice where the exp rounded once, far below the f16 and bf16
// outputs that take the fast exp (2^-18).
//
// A passed remark marks each exp read from the array; a missed remark says
// why an exp of a tensor's element in a serial loop that follows another
// is computed again.
//
//===----------------------------------------------------------------------===//

#include "CPUPassUtils.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include <utility>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

/// An integer expression as sum of Coef * value + Const.
struct Linear {
  llvm::SmallVector<std::pair<const Value *, int64_t>, 4> Terms;
  int64_t Const = 0;

  int64_t coef(const Value *V) const {
    for (const auto &[W, C] : Terms)
      if (W == V)
        return C;
    return 0;
  }
  void add(const Value *V, int64_t C) {
    for (auto &[W, D] : Terms)
      if (W == V) {
        D += C;
        return;
      }
    Terms.push_back({V, C});
  }
};

/// Adds \p Scale times \p E to \p Out; false where E is not linear in
/// referenced values.
bool linearize(const Expr &E, int64_t Scale, Linear &Out) {
  if (std::optional<int64_t> C = E.getConstInt()) {
    Out.Const += Scale * *C;
    return true;
  }
  if (const auto *R = dyn_cast<RefExpr>(&E)) {
    Out.add(R->getValue(), Scale);
    return true;
  }
  if (const auto *C = dyn_cast<CastExpr>(&E))
    return isInteger(C->getDType()) && isInteger(C->getOperand()->getDType()) &&
           linearize(*C->getOperand(), Scale, Out);
  const auto *B = dyn_cast<BinaryExpr>(&E);
  if (!B)
    return false;
  switch (B->getOp()) {
  case BinaryOp::Add:
    return linearize(*B->getLHS(), Scale, Out) && linearize(*B->getRHS(), Scale, Out);
  case BinaryOp::Sub:
    return linearize(*B->getLHS(), Scale, Out) && linearize(*B->getRHS(), -Scale, Out);
  case BinaryOp::Mul:
    if (std::optional<int64_t> C = B->getRHS()->getConstInt())
      return linearize(*B->getLHS(), Scale * *C, Out);
    if (std::optional<int64_t> C = B->getLHS()->getConstInt())
      return linearize(*B->getRHS(), Scale * *C, Out);
    return false;
  default:
    return false;
  }
}

/// A loop from 0 to a constant with a unit step: its extent, else nullopt.
std::optional<int64_t> constTrip(const ForStmt &F) {
  if (F.getDims().size() != 1 || F.getStep())
    return std::nullopt;
  const LoopDim &D = F.getDims()[0];
  if (D.Lo && !ex::isConst(*D.Lo, 0))
    return std::nullopt;
  std::optional<int64_t> N = D.Hi->getConstInt();
  if (!N || *N < 1)
    return std::nullopt;
  return N;
}

/// An exp of a global tensor's element less a shift, `exp(x - s)` with x
/// the element (converted to a wider float or not).
struct Site {
  /// The statement whose value holds the exp: a statement of Body.
  StoreStmt *St = nullptr;
  Block *Body = nullptr;
  CallExpr *Exp = nullptr;
  const LoadExpr *Elem = nullptr;
  const Expr *Shift = nullptr;
  /// The loops from the outermost one that no `if` separates from the exp
  /// down to the innermost; Chain[0] is a statement of Parent.
  std::vector<ForStmt *> Chain;
  Block *Parent = nullptr;
  /// Why Chain does not reach the exp from its top (a loop with other bounds).
  std::string ChainWhy;
};

/// Buffers the statements under \p B store to or name as written operands.
llvm::DenseSet<const BufferValue *> writtenIn(const Block &B) {
  llvm::DenseSet<const BufferValue *> Out;
  walkStmts(B, [&](const Stmt &S) {
    if (const auto *St = dyn_cast<StoreStmt>(&S))
      Out.insert(St->getBuffer());
    else if (const auto *Op = dyn_cast<OpStmt>(&S))
      for (size_t I = 0; I != Op->getOperands().size(); ++I) {
        const OpOperand &O = Op->getOperands()[I];
        llvm::ArrayRef<OpOperandInfo> Info = Op->getInfo().operands();
        if (O.Kind == OperandKind::Region && (I >= Info.size() || Info[I].Written))
          Out.insert(O.R.Buf);
      }
  });
  return Out;
}

/// The element that \p E is (a load of a global float tensor, converted to
/// a wider float or not), where the vars named in \p Tracked hold such
/// elements.
const LoadExpr *elementOf(const Expr &E,
                          const llvm::DenseMap<const BufferValue *, const LoadExpr *> &Tracked) {
  const Expr *X = &E;
  // select(true, x, y): cpu-fuse-elementwise's column test of a whole tile,
  // which tile-simplify folds later.
  if (const auto *S = dyn_cast<CallExpr>(X); S && S->getIntrinsic() == Intrinsic::Select)
    if (std::optional<int64_t> C = S->getArgs()[0]->getConstInt())
      return elementOf(*S->getArgs()[*C ? 1 : 2], Tracked);
  if (const auto *C = dyn_cast<CastExpr>(X)) {
    if (!isFloat(C->getDType()) || !isFloat(C->getOperand()->getDType()) ||
        getDTypeBytes(C->getOperand()->getDType()) > getDTypeBytes(C->getDType()))
      return nullptr;
    X = C->getOperand();
  }
  const auto *Ld = dyn_cast<LoadExpr>(X);
  if (!Ld)
    return nullptr;
  const BufferValue *B = Ld->getBuffer();
  if (B->getScope() == MemScope::Var && X == &E)
    return Tracked.lookup(B);
  if (B->getScope() == MemScope::Global && isFloat(B->getDType()) && B->getRank() >= 1)
    return Ld;
  return nullptr;
}

/// Finds the exp sites under \p B (a loop's body or a nested block).
class SiteFinder {
public:
  explicit SiteFinder(std::vector<Site> &Out) : Out(Out) {}

  void visit(Block &B, Block *Parent, std::vector<ForStmt *> Chain, std::string Why) {
    bool Innermost = true;
    for (StmtPtr &S : B.Stmts) {
      if (auto *F = dyn_cast<ForStmt>(S.get())) {
        Innermost = false;
        std::vector<ForStmt *> C = Chain;
        std::string W = Why;
        Block *P = Parent;
        if (C.empty())
          P = &B;
        if (!constTrip(*F) && W.empty())
          W = "a loop around it does not run from 0 to a constant";
        C.push_back(F);
        visit(F->getBodyMutable(), P, std::move(C), std::move(W));
      } else if (auto *If = dyn_cast<IfStmt>(S.get())) {
        Innermost = false;
        visit(If->getThenMutable(), nullptr, {}, "");
        if (If->hasElse())
          visit(If->getElseMutable(), nullptr, {}, "");
      }
    }
    if (Innermost && !Chain.empty())
      scan(B, Parent, Chain, Why);
  }

private:
  void scan(Block &B, Block *Parent, const std::vector<ForStmt *> &Chain,
            const std::string &Why) {
    llvm::DenseMap<const BufferValue *, const LoadExpr *> Tracked;
    for (StmtPtr &S : B.Stmts) {
      auto *St = dyn_cast<StoreStmt>(S.get());
      if (!St) {
        if (auto *A = dyn_cast<AllocStmt>(S.get()))
          Tracked.erase(A->getBuffer());
        continue;
      }
      std::function<void(ExprPtr &)> Find = [&](ExprPtr &E) {
        forEachChild(*E, Find);
        auto *C = dyn_cast<CallExpr>(E.get());
        if (!C || C->getIntrinsic() != Intrinsic::Exp || !isFloat(C->getDType()))
          return;
        const auto *Sub = dyn_cast<BinaryExpr>(C->getArgs()[0].get());
        if (!Sub || Sub->getOp() != BinaryOp::Sub)
          return;
        const LoadExpr *Elem = elementOf(*Sub->getLHS(), Tracked);
        if (!Elem)
          return;
        Site X;
        X.St = St;
        X.Body = &B;
        X.Exp = C;
        X.Elem = Elem;
        X.Shift = Sub->getRHS();
        X.Chain = Chain;
        X.Parent = Parent;
        X.ChainWhy = Why;
        Out.push_back(std::move(X));
      };
      Find(St->getValueMutable());
      const BufferValue *Dst = St->getBuffer();
      if (Dst->getScope() == MemScope::Var) {
        if (const LoadExpr *E = elementOf(*St->getValue(), Tracked))
          Tracked[Dst] = E;
        else
          Tracked.erase(Dst);
      }
    }
  }

  std::vector<Site> &Out;
};

/// Where a remark about \p S points.
llvm::SMLoc locOf(const Site &S) {
  for (llvm::SMLoc L : {S.Exp->getLoc(), S.St->getLoc(), S.Elem->getLoc()})
    if (L.isValid())
      return L;
  return S.Chain.empty() ? llvm::SMLoc() : S.Chain[0]->getLoc();
}

/// A site's place in the tiles of its serial loop over %t: its column is
/// %t * T + Inner, Inner a linear form of the chain's loop variables.
struct Placement {
  int64_t T = 0;
  Linear Inner;
};

class Reuser {
public:
  Reuser(Function &F, KernelStmt &K, int64_t Cap, const RemarkEmitter &Remarks)
      : Names(F), K(K), Cap(Cap), Remarks(Remarks) {}

  void run() {
    Written = writtenIn(K.getBody());
    std::vector<Block *> Blocks;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      for (Block *B : getNestedBlocks(S))
        Blocks.push_back(B);
    });
    Blocks.push_back(&K.getBodyMutable());
    for (Block *B : Blocks)
      visitBlock(*B);
    std::vector<StmtPtr> &Top = K.getBodyMutable().Stmts;
    std::vector<StmtPtr> Out = std::move(NewAllocs);
    for (StmtPtr &S : Top)
      Out.push_back(std::move(S));
    Top = std::move(Out);
  }

private:
  static ForStmt *serialLoop(Stmt *S) {
    auto *F = dyn_cast<ForStmt>(S);
    if (!F || F->getLoopKind() != LoopKind::Serial || F->getDims().size() != 1 ||
        F->getStep())
      return nullptr;
    return F;
  }

  /// The site's tile size and offset in its tile, or why it has none.
  std::optional<Placement> place(const Site &S, const ForStmt &L, std::string &Why) {
    const Value *TV = L.getDims()[0].Var.get();
    Linear Col;
    if (!linearize(*S.Elem->getIndices().back(), 1, Col)) {
      Why = "its column is not linear in loop variables";
      return std::nullopt;
    }
    Placement P;
    P.T = Col.coef(TV);
    if (P.T < 1) {
      Why = "its column is not %" + TV->getName().str() + " times a tile size plus an offset";
      return std::nullopt;
    }
    for (const auto &[V, C] : Col.Terms)
      if (V != TV && C != 0)
        P.Inner.add(V, C);
    P.Inner.Const = Col.Const;
    if (P.T > Cap) {
      Why = "its tiles of " + std::to_string(P.T) + " elements exceed max-elements=" +
            std::to_string(Cap);
      return std::nullopt;
    }
    return P;
  }

  /// Whether the first loop's site \p S computes the exp of every element
  /// of its tile: its chain's variables index the tile in mixed radix.
  bool covers(const Site &S, const Placement &P, std::string &Why) {
    if (!S.ChainWhy.empty()) {
      Why = S.ChainWhy;
      return false;
    }
    std::vector<std::pair<int64_t, int64_t>> Digits; // coefficient, extent
    for (const ForStmt *F : S.Chain) {
      int64_t C = P.Inner.coef(F->getDims()[0].Var.get());
      if (C < 1) {
        Why = "its column does not step with %" + F->getDims()[0].Var->getName().str();
        return false;
      }
      Digits.push_back({C, *constTrip(*F)});
    }
    if (P.Inner.Terms.size() != S.Chain.size() || P.Inner.Const != 0) {
      Why = "its offset in the tile is not the nest's loop variables alone";
      return false;
    }
    llvm::sort(Digits);
    int64_t Next = 1;
    for (const auto &[C, N] : Digits) {
      if (C != Next) {
        Why = "the nest's loops do not cover the tile once each";
        return false;
      }
      Next = C * N;
    }
    if (Next != P.T) {
      Why = "the nest covers " + std::to_string(Next) + " elements of a tile of " +
            std::to_string(P.T);
      return false;
    }
    return true;
  }

  /// Whether the second loop's site \p S reads only columns of its tile.
  bool within(const Site &S, const Placement &P, std::string &Why) {
    int64_t Lo = P.Inner.Const, Hi = P.Inner.Const;
    for (const auto &[V, C] : P.Inner.Terms) {
      const ForStmt *Of = nullptr;
      for (const ForStmt *F : S.Chain)
        if (F->getDims()[0].Var.get() == V)
          Of = F;
      std::optional<int64_t> N = Of ? constTrip(*Of) : std::nullopt;
      if (!N) {
        Why = "its offset in the tile uses %" + V->getName().str() +
              ", not a loop from 0 to a constant around it";
        return false;
      }
      (C > 0 ? Hi : Lo) += C * (*N - 1);
    }
    if (Lo < 0 || Hi >= P.T) {
      Why = "its offset in the tile may leave the tile";
      return false;
    }
    return true;
  }

  /// Whether \p E is the same wherever the nest under \p Top runs: no value
  /// defined in it, no buffer it writes.
  static bool invariantIn(const Expr &E, ForStmt &Top) {
    llvm::SetVector<const Value *> Defs = definedIn(Top.getBodyMutable());
    Defs.insert(Top.getDims()[0].Var.get());
    llvm::DenseSet<const BufferValue *> W = writtenIn(Top.getBody());
    bool Ok = true;
    forEachUse(E, [&](const Value *V) {
      if (Defs.count(V))
        Ok = false;
      if (const auto *B = dyn_cast<BufferValue>(V); B && W.count(B))
        Ok = false;
    });
    return Ok;
  }

  /// Whether the rows of \p E are the same in both loops: indices other
  /// than the column that load nothing and use no value either loop defines.
  static bool rowsFixed(const LoadExpr &E, ForStmt &L1, ForStmt &L2) {
    llvm::SetVector<const Value *> Defs = definedIn(L1.getBodyMutable());
    for (const Value *V : definedIn(L2.getBodyMutable()))
      Defs.insert(V);
    Defs.insert(L1.getDims()[0].Var.get());
    Defs.insert(L2.getDims()[0].Var.get());
    bool Ok = true;
    llvm::ArrayRef<ExprPtr> Idx = E.getIndices();
    for (size_t I = 0; I + 1 < Idx.size(); ++I)
      forEachUse(*Idx[I], [&](const Value *V) {
        if (Defs.count(V) || V->isBuffer())
          Ok = false;
      });
    return Ok;
  }

  void visitBlock(Block &B) {
    bool After = false; // a serial loop comes before
    for (size_t J = 0; J < B.Stmts.size(); ++J) {
      ForStmt *L2 = serialLoop(B.Stmts[J].get());
      if (!L2)
        continue;
      if (!std::exchange(After, true))
        continue;
      std::vector<Site> Consumers;
      SiteFinder(Consumers).visit(L2->getBodyMutable(), nullptr, {}, "");
      for (Site &C : Consumers)
        pair(B, J, *L2, C);
    }
    for (Group &G : Groups)
      apply(G);
    Groups.clear();
  }

  /// What the array of one tensor's exp values holds and who fills it.
  struct Group {
    Block *B;
    ForStmt *L1;
    const LoadExpr *Elem;
    int64_t T;
    std::vector<std::pair<Site, Placement>> Producers;
    std::vector<std::tuple<Site, Placement, ForStmt *>> Consumers;
  };

  void pair(Block &B, size_t J, ForStmt &L2, Site &C) {
    const BufferValue *X = C.Elem->getBuffer();
    std::string Why;
    auto Missed = [&](const std::string &W) {
      Remarks.missed(locOf(C), "exp of %" + X->getName().str() +
                                   " is computed again in this loop: " + W);
    };
    if (Written.count(X))
      return Missed("the kernel writes %" + X->getName().str());
    std::optional<Placement> PC = place(C, L2, Why);
    if (!PC)
      return Missed(Why);
    if (!C.ChainWhy.empty())
      return Missed(C.ChainWhy);
    if (!within(C, *PC, Why))
      return Missed(Why);
    if (!invariantIn(*C.Shift, *C.Chain[0]))
      return Missed("the value it subtracts changes in its nest");
    std::string Last = "no earlier loop in this block computes exp of %" + X->getName().str() +
                       " less a value, at the same rows and tiles";
    for (size_t I = J; I-- > 0;) {
      ForStmt *L1 = serialLoop(B.Stmts[I].get());
      if (!L1)
        continue;
      std::vector<Site> Found;
      SiteFinder(Found).visit(L1->getBodyMutable(), nullptr, {}, "");
      std::vector<std::pair<Site, Placement>> Producers;
      for (Site &P : Found) {
        if (P.Elem->getBuffer() != X || P.Exp->getDType() != C.Exp->getDType() ||
            P.Elem->getIndices().size() != C.Elem->getIndices().size())
          continue;
        bool SameRows = true;
        for (size_t K = 0; K + 1 < P.Elem->getIndices().size(); ++K)
          SameRows &= isSameExpr(*P.Elem->getIndices()[K], *C.Elem->getIndices()[K]);
        if (!SameRows || !rowsFixed(*C.Elem, *L1, L2))
          continue;
        std::string W;
        std::optional<Placement> PP = place(P, *L1, W);
        if (PP && PP->T != PC->T)
          W = "the earlier loop's tiles have " + std::to_string(PP->T) + " elements, not " +
              std::to_string(PC->T);
        if (PP && W.empty() && !covers(P, *PP, W))
          W = "the earlier loop's exp: " + W;
        if (PP && W.empty() && !invariantIn(*P.Shift, *P.Chain[0]))
          W = "the value the earlier loop's exp subtracts changes in its nest";
        if (!W.empty()) {
          Last = W;
          continue;
        }
        // One site per nest: the nest marks its tile once.
        bool Dup = false;
        for (auto &[Q, QP] : Producers)
          Dup |= Q.Chain[0] == P.Chain[0];
        if (!Dup)
          Producers.push_back({P, *PP});
      }
      if (Producers.empty())
        continue;
      for (Group &G : Groups)
        if (G.L1 == L1 && G.Elem->getBuffer() == X && G.T == PC->T &&
            isSameExpr(*G.Elem, *Producers[0].first.Elem)) {
          G.Consumers.push_back({C, *PC, &L2});
          return;
        }
      Group G{&B, L1, Producers[0].first.Elem, PC->T, std::move(Producers), {}};
      G.Consumers.push_back({C, *PC, &L2});
      Groups.push_back(std::move(G));
      return;
    }
    Missed(Last);
  }

  /// Sum of the linear form's terms as an expression of \p Ty.
  static ExprPtr build(const Linear &L, DType Ty) {
    ExprPtr Out = ex::intLit(L.Const, Ty);
    for (const auto &[V, C] : L.Terms)
      Out = ex::add(std::move(Out), ex::mul(ex::ref(const_cast<Value *>(V)), ex::intLit(C, Ty)));
    return Out;
  }

  /// Inserts \p New before (or after) the statement \p At of \p B.
  static void insert(Block &B, const Stmt *At, std::vector<StmtPtr> New, bool After) {
    auto It = llvm::find_if(B.Stmts, [&](const StmtPtr &S) { return S.get() == At; });
    assert(It != B.Stmts.end() && "the statement is in its block");
    if (After)
      ++It;
    B.Stmts.insert(It, std::make_move_iterator(New.begin()), std::make_move_iterator(New.end()));
  }

  std::unique_ptr<BufferValue> array(llvm::StringRef Name, DType Ty, int64_t N,
                                     llvm::SMLoc Loc) {
    std::vector<ExprPtr> Shape;
    Shape.push_back(ex::intLit(N));
    return std::make_unique<BufferValue>(Names.fresh(Name), Ty, MemScope::Local,
                                         std::move(Shape), std::vector<ExprPtr>(), false, Loc);
  }

  void apply(Group &G) {
    const BufferValue *X = G.Elem->getBuffer();
    DType ETy = G.Producers[0].first.Exp->getDType();
    DType TTy = G.L1->getDims()[0].Var->getDType();
    int64_t R = Cap / G.T;
    auto Cache = array(X->getName().str() + "_exp", ETy, R * G.T, X->getLoc());
    auto Shift = array(X->getName().str() + "_shift", ETy, R, X->getLoc());
    auto Tile = array(X->getName().str() + "_tile", TTy, R, X->getLoc());
    BufferValue *CacheB = Cache.get(), *ShiftB = Shift.get(), *TileB = Tile.get();
    NewAllocs.push_back(std::make_unique<AllocStmt>(std::move(Cache), AttributeList()));
    NewAllocs.push_back(std::make_unique<AllocStmt>(std::move(Shift), AttributeList()));
    NewAllocs.push_back(std::make_unique<AllocStmt>(std::move(Tile), AttributeList()));
    auto Slot = [&](const Value *T) -> ExprPtr {
      if (R == 1)
        return ex::intLit(0, TTy);
      std::vector<ExprPtr> Args;
      Args.push_back(ex::ref(const_cast<Value *>(T)));
      Args.push_back(ex::intLit(R, TTy));
      return ex::call(Intrinsic::FloorMod, std::move(Args));
    };
    auto At = [](BufferValue *B, ExprPtr I) {
      std::vector<ExprPtr> Idx;
      Idx.push_back(std::move(I));
      return Idx;
    };

    // Before the first loop: no slot holds a tile of this pass.
    {
      auto I = std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh("i"), TTy,
                                       llvm::SMLoc());
      Block Body;
      Body.Stmts.push_back(std::make_unique<StoreStmt>(TileB, At(TileB, ex::ref(I.get())),
                                                       ex::lowest(TTy)));
      LoopDim D;
      D.Var = std::move(I);
      D.Lo = ex::intLit(0, TTy);
      D.Hi = ex::intLit(R, TTy);
      std::vector<LoopDim> Dims;
      Dims.push_back(std::move(D));
      std::vector<StmtPtr> New;
      New.push_back(std::make_unique<ForStmt>(LoopKind::Serial, std::move(Dims), nullptr,
                                              AttributeList(), std::move(Body)));
      insert(*G.B, G.L1, std::move(New), /*After=*/false);
    }

    // The first loop fills the slot of its tile.
    const Value *T1 = G.L1->getDims()[0].Var.get();
    for (auto &[P, PP] : G.Producers) {
      std::vector<StmtPtr> Mark;
      Mark.push_back(std::make_unique<StoreStmt>(ShiftB, At(ShiftB, Slot(T1)), P.Shift->clone()));
      Mark.push_back(std::make_unique<StoreStmt>(TileB, At(TileB, Slot(T1)),
                                                 ex::ref(const_cast<Value *>(T1))));
      insert(*P.Parent, P.Chain[0], std::move(Mark), /*After=*/false);
      ExprPtr Idx = ex::add(ex::mul(Slot(T1), ex::intLit(G.T, TTy)), build(PP.Inner, TTy));
      std::vector<StmtPtr> Keep;
      bool WholeVar = P.St->getBuffer()->getScope() == MemScope::Var && P.St->getValue() == P.Exp;
      Keep.push_back(std::make_unique<StoreStmt>(
          CacheB, At(CacheB, std::move(Idx)),
          WholeVar ? ex::load(P.St->getBuffer(), {}) : P.Exp->clone()));
      insert(*P.Body, P.St, std::move(Keep), /*After=*/WholeVar);
      Remarks.passed(locOf(P), "exp of %" + X->getName() + " is kept in a local array of " +
                                   std::to_string(R * G.T) + " " + getDTypeName(ETy).str() +
                                   " (the last " + std::to_string(R) + " tiles of " +
                                   std::to_string(G.T) + ") for a later loop");
    }

    // The second loop's nests read the slot of their tile when it holds
    // this tile and its shift is at most theirs.
    llvm::MapVector<ForStmt *, std::vector<std::pair<Site *, Placement *>>> ByNest;
    for (auto &[C, PC, L2] : G.Consumers)
      ByNest[C.Chain[0]].push_back({&C, &PC});
    for (auto &Entry : ByNest) {
      ForStmt *Top = Entry.first;
      auto &Sites = Entry.second;
      const Value *T2 = nullptr;
      for (auto &[C, PC, L2] : G.Consumers)
        if (C.Chain[0] == Top)
          T2 = L2->getDims()[0].Var.get();
      Block *Parent = Sites[0].first->Parent;
      auto It = llvm::find_if(Parent->Stmts, [&](const StmtPtr &S) { return S.get() == Top; });
      if (It == Parent->Stmts.end())
        continue; // another tensor's arrays took this nest
      ExprPtr Cond = ex::binary(BinaryOp::Eq, ex::load(TileB, At(TileB, Slot(T2))),
                                ex::ref(const_cast<Value *>(T2)));
      for (auto &[C, PC] : Sites) {
        ExprPtr S = ex::load(ShiftB, At(ShiftB, Slot(T2)));
        ExprPtr B = C->Shift->clone();
        Cond = ex::land(std::move(Cond), ex::lt(ex::lowest(ETy), S->clone()));
        Cond = ex::land(std::move(Cond), ex::le(std::move(S), B->clone()));
        Cond = ex::land(std::move(Cond), ex::lt(std::move(B), ex::highest(ETy)));
      }
      StmtPtr Orig = Top->clone();
      renameLoopCopy(*Orig, Names);
      for (auto &[C, PC] : Sites) {
        ExprPtr Idx = ex::add(ex::mul(Slot(T2), ex::intLit(G.T, TTy)), build(PC->Inner, TTy));
        ExprPtr Kept = ex::load(CacheB, At(CacheB, std::move(Idx)));
        ExprPtr Diff = ex::sub(ex::load(ShiftB, At(ShiftB, Slot(T2))), C->Shift->clone());
        std::vector<ExprPtr> Args;
        Args.push_back(std::move(Diff));
        ExprPtr Factor = ex::call(Intrinsic::Exp, std::move(Args));
        replace(C->St->getValueMutable(), *C, std::move(Kept), std::move(Factor));
        Remarks.passed(locOf(*C), "exp of %" + X->getName() +
                                      " is read from the local array of an earlier loop "
                                      "(times exp of the difference of the values "
                                      "subtracted) where it holds the tile");
      }
      Block Then, Else;
      Then.Stmts.push_back(std::move(*It));
      Else.Stmts.push_back(std::move(Orig));
      *It = std::make_unique<IfStmt>(std::move(Cond), std::move(Then), std::move(Else));
    }
  }

  /// Replaces the site's exp in \p Slot by Kept * Factor, and a quotient or
  /// product of it by a value the nest does not change by Kept * (Factor
  /// op that value): one multiply per element.
  void replace(ExprPtr &Slot, Site &C, ExprPtr Kept, ExprPtr Factor) {
    std::function<bool(ExprPtr &)> Walk = [&](ExprPtr &E) -> bool {
      if (auto *B = dyn_cast<BinaryExpr>(E.get());
          B && (B->getOp() == BinaryOp::Div || B->getOp() == BinaryOp::Mul) &&
          B->getLHS() == C.Exp && invariantIn(*B->getRHS(), *C.Chain[0])) {
        ExprPtr Scale = ex::binary(B->getOp(), std::move(Factor), B->getRHS()->clone());
        E = ex::mul(std::move(Kept), std::move(Scale));
        return true;
      }
      if (E.get() == C.Exp) {
        E = ex::mul(std::move(Kept), std::move(Factor));
        return true;
      }
      bool Done = false;
      forEachChild(*E, [&](ExprPtr &Ch) { Done = Done || Walk(Ch); });
      return Done;
    };
    [[maybe_unused]] bool Done = Walk(Slot);
    assert(Done && "the site's exp is in its statement");
  }

  NameGenerator Names;
  KernelStmt &K;
  int64_t Cap;
  const RemarkEmitter &Remarks;
  llvm::DenseSet<const BufferValue *> Written;
  std::vector<Group> Groups;
  std::vector<StmtPtr> NewAllocs;
};

class ReuseExpPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    int64_t Cap = getIntOption("max-elements");
    if (Cap < 1) {
      S.Diag.error(llvm::SMLoc(), "cpu-reuse-exp: max-elements must be at least 1, got " +
                                      std::to_string(Cap));
      return false;
    }
    RemarkEmitter Remarks = getRemarks(M);
    forEachKernel(M, [&](Function &F, KernelStmt &K) { Reuser(F, K, Cap, Remarks).run(); });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createCPUReuseExpPass() {
  return std::make_unique<ReuseExpPass>(getCPUReuseExpPassInfo());
}
