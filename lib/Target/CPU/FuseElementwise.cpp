//===- FuseElementwise.cpp - cpu-fuse-elementwise -------------------------===//
//
// Fuses runs of element-wise tile code over fragments into one loop nest
// that reads and writes global memory directly. A run is a sequence of
// consecutive statements over the same element domain: copies between a
// whole fragment and a global region, fills, parallel loops whose bodies
// store to fragments at the loop's own index, and reductions of a fragment
// along its innermost dimension (a statement of another domain that the
// run does not depend on, followed by one that joins the run, moves before
// the run). When every use of a fragment is in such
// runs and each run writes an element before reading it, the fragment's
// value never crosses elements or runs: it becomes one scalar per element,
// and the run becomes
//
//   if (every global access is in range) { nest } else { guarded nest }
//
// where the nest executes the run's statements element by element (the
// guarded one reads out-of-range global elements as zero and does not write
// them, as copy does). Reductions accumulate into `lanes` partial results
// that are combined pairwise after the nest, so that LLVM can vectorize them
// without reassociating floating-point adds. On a CPU this removes the
// stack round trip of every fragment and the per-element guards of whole
// tiles: the run streams from memory once.
//
//===----------------------------------------------------------------------===//

#include "CPUTargetInfo.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "tile/Transforms/StmtBuilder.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

using Stmts = std::vector<StmtPtr>;

bool isUnit(const Expr *E) { return !E || ex::isConst(*E, 1); }

/// One statement of a run.
struct Member {
  enum KindTy { CopyIn, CopyOut, Fill, Loop, Reduce } Kind;
  Stmt *S = nullptr;
  /// The element domain: the non-unit extents, outermost first.
  std::vector<int64_t> Domain;
  /// CopyIn, CopyOut, Fill, Reduce: the fragment.
  BufferValue *Frag = nullptr;
  /// Copies: the global side, its offsets (null for 0) and, per dimension,
  /// the domain position it walks or -1.
  BufferValue *Global = nullptr;
  std::vector<const Expr *> GOffsets;
  std::vector<int> GPos;
  /// Loop: per loop dimension, its domain position or -1 (unit extent).
  std::vector<int> VarPos;
  /// Reduce: the destination and its per-dimension domain positions.
  BufferValue *Dst = nullptr;
  std::vector<int> DstPos;
  /// Reads and writes of run-local fragments in element order.
  std::vector<std::pair<BufferValue *, bool>> Events;
  /// Other buffers read and written.
  llvm::SmallVector<BufferValue *, 4> Reads, Writes;
  /// Candidates this member uses other than per element.
  llvm::SmallVector<BufferValue *, 2> Disqualify;
};

struct Run {
  std::vector<Member> Members;
  Block *B = nullptr;
  /// The statement whose body B is (null for the kernel's).
  const Stmt *Owner = nullptr;
  /// Index of the first member in B.
  size_t First = 0;
};

class Fuser {
public:
  Fuser(Function &F, KernelStmt &K, RemarkEmitter Remarks, int64_t Lanes,
        unsigned VectorBits, unsigned LineBytes, bool F16Arith, const OpInfo *Prefetch)
      : Names(F), K(K), Remarks(Remarks), Lanes(Lanes), VectorBits(VectorBits),
        LineBytes(LineBytes), F16Arith(F16Arith), Prefetch(Prefetch) {
    walkStmts(F.getBody(), [&](const Stmt &S) {
      if (const auto *Fo = dyn_cast<ForStmt>(&S))
        for (const LoopDim &D : Fo->getDims())
          if (!D.Lo || isNonNegative(*D.Lo))
            NonNeg.insert(D.Var.get());
    });
  }

  void run() {
    // Candidate fragments: on-chip buffers of constant shape.
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      if (auto *A = dyn_cast<AllocStmt>(&S)) {
        BufferValue *B = A->getBuffer();
        if ((B->getScope() == MemScope::Fragment ||
             B->getScope() == MemScope::Local) &&
            B->getRank() > 0 && B->getConstShape() && B->getStrides().empty())
          Local.insert(B);
      }
    });
    // Drop candidates used outside runs, or read before written in one,
    // until the runs no longer change.
    std::vector<Run> Runs;
    for (bool Changed = true; Changed;) {
      Runs.clear();
      collectRuns(K.getBodyMutable(), Runs);
      Changed = pruneLocals(Runs);
      // Once nothing else is dropped, the runs that read a fragment an
      // earlier run computed start by computing it again; then the runs
      // are collected anew.
      if (!Changed && !Plans.empty()) {
        applyPlans(Runs);
        Changed = true;
      }
    }
    remarkDropped();
    // Rewrite the runs back to front so that indices stay valid.
    for (auto It = Runs.rbegin(); It != Runs.rend(); ++It)
      fuse(*It);
    if (!Runs.empty())
      removeAllocs(K.getBodyMutable());
    lowerReductions(K.getBodyMutable());
  }

private:
  //===--- Analysis -------------------------------------------------------===//

  bool isNonNegative(const Expr &E) const {
    if (std::optional<int64_t> C = E.getConstInt())
      return *C >= 0;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      Value::Kind VK = R->getValue()->getKind();
      return VK == Value::Kind::Dim || VK == Value::Kind::BlockIdx ||
             NonNeg.count(R->getValue());
    }
    if (const auto *B = dyn_cast<BinaryExpr>(&E))
      return (B->getOp() == BinaryOp::Add || B->getOp() == BinaryOp::Mul) &&
             isNonNegative(*B->getLHS()) && isNonNegative(*B->getRHS());
    if (const auto *C = dyn_cast<CallExpr>(&E)) {
      Intrinsic I = C->getIntrinsic();
      if (I == Intrinsic::Min || I == Intrinsic::Max || I == Intrinsic::CeilDiv ||
          I == Intrinsic::FloorDiv)
        return isNonNegative(*C->getArgs()[0]) && isNonNegative(*C->getArgs()[1]);
    }
    return false;
  }

  bool isLocal(const BufferValue *B) const {
    return Local.count(const_cast<BufferValue *>(B));
  }

  /// The domain of a candidate fragment and its dimensions' positions.
  static std::vector<int64_t> fragDomain(const BufferValue *F,
                                         std::vector<int> *Pos = nullptr) {
    std::vector<int64_t> D;
    std::vector<int64_t> Shape = *F->getConstShape();
    for (int64_t E : Shape) {
      if (Pos)
        Pos->push_back(E == 1 ? -1 : int(D.size()));
      if (E != 1)
        D.push_back(E);
    }
    return D;
  }

  bool usesThread(Stmt &S) {
    bool Found = false;
    auto Check = [&](const Value *V) {
      Found |= V->getKind() == Value::Kind::ThreadIdx;
    };
    forEachUse(S, Check);
    return Found;
  }

  /// Collects the buffers loaded in \p E into M's reads; candidates read
  /// there are not read per element and cannot stay candidates.
  void loadsOf(const Expr &E, Member &M) {
    forEachUse(E, [&](const Value *V) {
      if (const auto *B = dyn_cast<BufferValue>(V)) {
        M.Reads.push_back(const_cast<BufferValue *>(B));
        if (isLocal(B))
          M.Disqualify.push_back(const_cast<BufferValue *>(B));
      }
    });
  }

  std::optional<Member> analyzeCopy(OpStmt &Op) {
    const Region &SR = Op.getOperands()[0].R, &DR = Op.getOperands()[1].R;
    Member M;
    M.S = &Op;
    const Region *G, *Fr;
    if (isLocal(DR.Buf) && DR.isWholeBuffer() &&
        SR.Buf->getScope() == MemScope::Global) {
      M.Kind = Member::CopyIn;
      G = &SR;
      Fr = &DR;
    } else if (isLocal(SR.Buf) && SR.isWholeBuffer() &&
               DR.Buf->getScope() == MemScope::Global) {
      M.Kind = Member::CopyOut;
      G = &DR;
      Fr = &SR;
    } else {
      return std::nullopt;
    }
    M.Frag = Fr->Buf;
    M.Global = G->Buf;
    M.Domain = fragDomain(M.Frag);
    std::vector<const Expr *> Ext = getRegionExtentExprs(*G, Fr);
    unsigned P = 0;
    for (unsigned D = 0; D != G->Buf->getRank(); ++D) {
      const Expr *Off = G->isWholeBuffer() ? nullptr : G->Indices[D].Offset.get();
      M.GOffsets.push_back(Off);
      if (Off)
        loadsOf(*Off, M);
      if (isUnit(Ext[D])) {
        M.GPos.push_back(-1);
        continue;
      }
      std::optional<int64_t> C = Ext[D]->getConstInt();
      if (!C || P >= M.Domain.size() || *C != M.Domain[P])
        return std::nullopt;
      M.GPos.push_back(int(P++));
    }
    if (P != M.Domain.size())
      return std::nullopt;
    if (M.Kind == Member::CopyIn) {
      M.Reads.push_back(M.Global);
      M.Events.push_back({M.Frag, true});
    } else {
      M.Writes.push_back(M.Global);
      M.Events.push_back({M.Frag, false});
    }
    return M;
  }

  std::optional<Member> analyzeFill(OpStmt &Op) {
    const Region &DR = Op.getOperands()[0].R;
    if (!isLocal(DR.Buf) || !DR.isWholeBuffer())
      return std::nullopt;
    Member M;
    M.Kind = Member::Fill;
    M.S = &Op;
    M.Frag = DR.Buf;
    M.Domain = fragDomain(M.Frag);
    if (Op.getName() == "fill") {
      loadsOf(*Op.getOperands()[1].E, M);
    }
    M.Events.push_back({M.Frag, true});
    return M;
  }

  std::optional<Member> analyzeReduce(OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    // A candidate destination is dropped by pruneLocals.
    if (!isLocal(SR.Buf) || !SR.isWholeBuffer() || !DR.isWholeBuffer() || DR.Buf->getScope() == MemScope::Global ||
        !DR.Buf->getConstShape() || !DR.Buf->getStrides().empty())
      return std::nullopt;
    Member M;
    M.Kind = Member::Reduce;
    M.S = &Op;
    M.Frag = SR.Buf;
    M.Dst = DR.Buf;
    std::vector<int> Pos;
    M.Domain = fragDomain(M.Frag, &Pos);
    unsigned Dim = Op.getAttrOrDefault("dim").getInt();
    // Only along the innermost domain dimension: the partial results are
    // then one vector of the inner loop.
    if (Dim >= Pos.size() || Pos[Dim] < 0 || Pos[Dim] + 1 != int(M.Domain.size()))
      return std::nullopt;
    // dst's non-unit dimensions are the outer domain dimensions, in order.
    unsigned P = 0;
    std::vector<int64_t> DstShape = *M.Dst->getConstShape();
    for (int64_t E : DstShape) {
      if (E == 1) {
        M.DstPos.push_back(-1);
        continue;
      }
      if (P + 1 >= M.Domain.size() || E != M.Domain[P])
        return std::nullopt;
      M.DstPos.push_back(int(P++));
    }
    if (P + 1 != M.Domain.size())
      return std::nullopt;
    M.Events.push_back({M.Frag, false});
    M.Writes.push_back(M.Dst);
    if (!Op.getAttrOrDefault("clear").getBool())
      M.Reads.push_back(M.Dst);
    return M;
  }

  /// Whether index \p Idx of a local buffer \p F in loop \p Fo is the
  /// loop's element.
  bool isElementIndex(const BufferValue *F, llvm::ArrayRef<ExprPtr> Idx,
                      const ForStmt &Fo, const std::vector<int> &VarPos) {
    std::vector<int> Pos;
    fragDomain(F, &Pos);
    if (Idx.size() != Pos.size())
      return false;
    for (unsigned D = 0; D != Idx.size(); ++D) {
      const auto *R = dyn_cast<RefExpr>(Idx[D].get());
      int VP = -2;
      if (R)
        for (unsigned L = 0; L != Fo.getDims().size(); ++L)
          if (Fo.getDims()[L].Var.get() == R->getValue())
            VP = VarPos[L];
      if (Pos[D] < 0) {
        if (!ex::isConst(*Idx[D], 0) && VP != -1)
          return false;
      } else if (VP != Pos[D]) {
        return false;
      }
    }
    return true;
  }

  std::optional<Member> analyzeLoop(ForStmt &Fo) {
    if (Fo.getLoopKind() != LoopKind::Parallel || Fo.getStep())
      return std::nullopt;
    Member M;
    M.Kind = Member::Loop;
    M.S = &Fo;
    for (const LoopDim &D : Fo.getDims()) {
      if (D.Lo && !ex::isConst(*D.Lo, 0))
        return std::nullopt;
      std::optional<int64_t> C = D.Hi->getConstInt();
      if (!C || *C < 1)
        return std::nullopt;
      M.VarPos.push_back(*C == 1 ? -1 : int(M.Domain.size()));
      if (*C != 1)
        M.Domain.push_back(*C);
    }
    bool TouchesLocal = false;
    for (const StmtPtr &S : Fo.getBody().Stmts) {
      auto *St = dyn_cast<StoreStmt>(S.get());
      if (!St || !isLocal(St->getBuffer()) ||
          fragDomain(St->getBuffer()) != M.Domain ||
          !isElementIndex(St->getBuffer(), St->getIndices(), Fo, M.VarPos))
        return std::nullopt;
      // Reads in the value and the (element) indices, in evaluation order.
      std::function<void(const Expr &)> Visit = [&](const Expr &E) {
        if (const auto *L = dyn_cast<LoadExpr>(&E)) {
          if (isLocal(L->getBuffer()) && fragDomain(L->getBuffer()) == M.Domain &&
              isElementIndex(L->getBuffer(), L->getIndices(), Fo, M.VarPos)) {
            M.Events.push_back({L->getBuffer(), false});
            return;
          }
          M.Reads.push_back(L->getBuffer());
          if (isLocal(L->getBuffer()))
            M.Disqualify.push_back(L->getBuffer());
        }
        forEachChild(const_cast<Expr &>(E), [&](ExprPtr &C) { Visit(*C); });
      };
      Visit(*St->getValue());
      M.Events.push_back({St->getBuffer(), true});
      TouchesLocal = true;
    }
    if (!TouchesLocal)
      return std::nullopt;
    return M;
  }

  std::optional<Member> analyze(Stmt &S) {
    if (usesThread(S))
      return std::nullopt;
    if (auto *Op = dyn_cast<OpStmt>(&S)) {
      if (!Op->getAttrs().empty() && Op->getName() != "reduce")
        return std::nullopt;
      if (Op->getName() == "copy")
        return analyzeCopy(*Op);
      if (Op->getName() == "fill" || Op->getName() == "clear")
        return analyzeFill(*Op);
      if (Op->getName() == "reduce")
        return analyzeReduce(*Op);
      return std::nullopt;
    }
    if (auto *Fo = dyn_cast<ForStmt>(&S))
      return analyzeLoop(*Fo);
    return std::nullopt;
  }

  /// Whether \p M can join \p R: same domain, and no buffer that one
  /// writes is read or written by the other.
  static bool compatible(const Run &R, const Member &M) {
    const Member &F = R.Members.front();
    if (F.Domain != M.Domain)
      return false;
    for (const Member &O : R.Members) {
      for (BufferValue *W : M.Writes)
        if (llvm::is_contained(O.Reads, W) || llvm::is_contained(O.Writes, W))
          return false;
      for (BufferValue *W : O.Writes)
        if (llvm::is_contained(M.Reads, W))
          return false;
    }
    for (BufferValue *W : M.Writes)
      if (llvm::is_contained(M.Reads, W) && M.Kind != Member::Reduce)
        return false;
    return true;
  }

  /// Whether \p M may run before all members of \p R: neither writes what
  /// the other reads or writes, fragments included.
  static bool independent(const Run &R, const Member &M) {
    auto Touched = [](const Member &X) {
      llvm::SmallVector<BufferValue *, 8> T(X.Reads.begin(), X.Reads.end());
      T.append(X.Writes.begin(), X.Writes.end());
      for (auto [F, W] : X.Events)
        T.push_back(F);
      return T;
    };
    auto Written = [](const Member &X) {
      llvm::SmallVector<BufferValue *, 8> T(X.Writes.begin(), X.Writes.end());
      for (auto [F, W] : X.Events)
        if (W)
          T.push_back(F);
      return T;
    };
    llvm::SmallVector<BufferValue *, 8> MT = Touched(M), MW = Written(M);
    for (const Member &O : R.Members) {
      llvm::SmallVector<BufferValue *, 8> OT = Touched(O), OW = Written(O);
      for (BufferValue *W : MW)
        if (llvm::is_contained(OT, W))
          return false;
      for (BufferValue *W : OW)
        if (llvm::is_contained(MT, W))
          return false;
    }
    return true;
  }

  void collectRuns(Block &B, std::vector<Run> &Runs, const Stmt *Owner = nullptr) {
    std::optional<Run> Cur;
    auto Close = [&] {
      if (Cur)
        Runs.push_back(std::move(*Cur));
      Cur.reset();
    };
    for (size_t I = 0; I != B.Stmts.size(); ++I) {
      Stmt &S = *B.Stmts[I];
      std::optional<Member> M = analyze(S);
      if (!M) {
        Close();
        for (Block *N : getNestedBlocks(S))
          collectRuns(*N, Runs, &S);
        continue;
      }
      // Statements computed again for a run start it (they could join
      // the run before, which computed them first).
      if (Cur && RunStarts.count(&S))
        Close();
      if (Cur && !compatible(*Cur, *M)) {
        // A member of another domain that the run does not depend on,
        // followed by one that can join the run (a GEMV's copy of x
        // between the copy of A's tile and the products), goes before the
        // run, which then continues.
        if (I + 1 != B.Stmts.size() && independent(*Cur, *M)) {
          std::optional<Member> Next = analyze(*B.Stmts[I + 1]);
          if (Next && compatible(*Cur, *Next)) {
            std::rotate(B.Stmts.begin() + Cur->First, B.Stmts.begin() + I,
                        B.Stmts.begin() + I + 1);
            ++Cur->First;
            continue;
          }
        }
        Close();
      }
      if (!Cur) {
        Cur.emplace();
        Cur->B = &B;
        Cur->Owner = Owner;
        Cur->First = I;
      }
      Cur->Members.push_back(std::move(*M));
    }
    Close();
  }

  /// Buffers that \p S refers to itself (not in nested blocks).
  static void directUses(Stmt &S, llvm::function_ref<void(const Value *)> Fn) {
    if (!isa<AllocStmt>(S))
      forEachDirectUse(S, Fn);
  }

  /// The values used outside runs, each with the first statement that
  /// uses it.
  void usesOutside(Block &B, const llvm::DenseSet<const Stmt *> &InRun,
                   llvm::DenseMap<const Value *, llvm::SMLoc> &Out) {
    for (StmtPtr &S : B.Stmts) {
      if (InRun.count(S.get()))
        continue;
      directUses(*S, [&](const Value *V) { Out.try_emplace(V, S->getLoc()); });
      for (Block *N : getNestedBlocks(*S))
        usesOutside(*N, InRun, Out);
    }
  }

  /// Removes from Local the buffers that cannot become per-element
  /// scalars; true if any was removed.
  bool pruneLocals(const std::vector<Run> &Runs) {
    llvm::DenseSet<const Stmt *> InRun;
    for (const Run &R : Runs)
      for (const Member &M : R.Members)
        InRun.insert(M.S);
    llvm::DenseMap<const Value *, llvm::SMLoc> Outside;
    usesOutside(K.getBodyMutable(), InRun, Outside);
    llvm::SmallVector<BufferValue *> Drop;
    // The first reason each candidate is dropped for, for the remarks.
    auto DropFor = [&](BufferValue *F, llvm::SMLoc Loc, llvm::StringRef Why) {
      Drop.push_back(F);
      if (Local.count(F))
        Dropped.try_emplace(F, Why.str(), Loc);
    };
    for (BufferValue *F : Local)
      if (auto It = Outside.find(F); It != Outside.end())
        DropFor(F, It->second,
                "a statement that is not element-wise over it (a copy of part of "
                "it, a gemm, an index other than a loop's own) uses it");
    Plans.clear();
    Planned.clear();
    for (size_t RI = 0; RI != Runs.size(); ++RI) {
      const Run &R = Runs[RI];
      llvm::DenseSet<BufferValue *> Seen;
      // Candidates read before written here, with the statement that
      // reads each first.
      llvm::SmallVector<std::pair<BufferValue *, llvm::SMLoc>, 2> Exposed;
      for (const Member &M : R.Members) {
        if (M.Dst)
          DropFor(M.Dst, M.S->getLoc(), kReductionResult);
        for (BufferValue *F : M.Disqualify)
          DropFor(F, M.S->getLoc(),
                  "a statement of an element-wise run reads it at an index other "
                  "than the element's");
        for (auto [F, Write] : M.Events)
          if (Seen.insert(F).second && !Write && !llvm::is_contained(Drop, F))
            Exposed.push_back({F, M.S->getLoc()});
      }
      if (Exposed.empty())
        continue;
      std::string Why;
      if (planRecompute(Runs, RI, Exposed, Why))
        continue;
      for (auto [F, Loc] : Exposed)
        DropFor(F, Loc,
                "a run of element-wise statements reads it before writing it (its "
                "value crosses from an earlier run), and " + Why);
    }
    bool Changed = false;
    for (BufferValue *F : Drop)
      Changed |= Local.remove(F);
    return Changed;
  }

  /// The buffers that \p S writes, in nested blocks too.
  static void writtenBy(Stmt &S, llvm::function_ref<void(BufferValue *)> Fn) {
    auto One = [&](Stmt &X) {
      if (auto *St = dyn_cast<StoreStmt>(&X))
        Fn(St->getBuffer());
      if (auto *Op = dyn_cast<OpStmt>(&X))
        for (unsigned I = 0; I != Op->getOperands().size(); ++I)
          if (Op->getOperand(I).Kind == OperandKind::Region &&
              Op->getInfo().operands()[I].Written)
            Fn(Op->getOperand(I).R.Buf);
    };
    One(S);
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, One);
  }

  /// A call in \p M's values that costs more to compute again than an
  /// element's round trip through the stack, or none.
  static std::optional<Intrinsic> costlyCall(const Member &M) {
    std::optional<Intrinsic> Found;
    std::function<void(const Expr &)> Visit = [&](const Expr &E) {
      if (const auto *C = dyn_cast<CallExpr>(&E)) {
        Intrinsic I = C->getIntrinsic();
        if (I == Intrinsic::Exp || I == Intrinsic::Exp2 || I == Intrinsic::Log ||
            I == Intrinsic::Log2 || I == Intrinsic::Tanh)
          Found = I;
      }
      forEachChild(const_cast<Expr &>(E), [&](ExprPtr &C) { Visit(*C); });
    };
    forEachExprSlot(*M.S, [&](ExprPtr &E) { Visit(*E); });
    for (Block *N : getNestedBlocks(*M.S))
      walkStmts(*N, [&](Stmt &S) { forEachExprSlot(S, [&](ExprPtr &E) { Visit(*E); }); });
    return Found;
  }

  /// Plans, for run \p RI, which reads the candidates \p Exposed before
  /// writing them, to compute them again at its start: the statements of
  /// the nearest earlier run in the same block that their values come from
  /// (the run's own reads of the global tile, selects and casts, not its
  /// reductions) are repeated there, so that the values never cross runs
  /// and need no array. Softmax's second pass over a tile (exp of the tile
  /// minus the maximum the first pass found) reads the tile this way: it
  /// reads it again from the cache instead of from a stack array that the
  /// first pass stored. True when planned, or deferred until the earlier
  /// run's own plan is applied; otherwise false with why in \p Why.
  bool planRecompute(const std::vector<Run> &Runs, size_t RI,
                     llvm::ArrayRef<std::pair<BufferValue *, llvm::SMLoc>> Exposed,
                     std::string &Why) {
    const Run &R = Runs[RI];
    auto IsExposed = [&](const BufferValue *F) {
      return llvm::any_of(Exposed, [&](const auto &E) { return E.first == F; });
    };
    for (const Member &M : R.Members)
      if (Repeated.count(M.S)) {
        Why = "computing it again at the run's start left it read before written";
        return false;
      }
    const Run *P = nullptr;
    size_t PI = 0;
    for (size_t I = RI; I-- > 0 && !P;)
      if (Runs[I].B == R.B)
        for (const Member &M : Runs[I].Members)
          for (auto [F, W] : M.Events)
            if (W && IsExposed(F)) {
              P = &Runs[I];
              PI = I;
            }
    if (!P) {
      Why = "no earlier run in the same block computes it";
      return false;
    }
    if (P->Members.front().Domain != R.Members.front().Domain) {
      Why = "the run that computes it walks other elements";
      return false;
    }
    // The members of P that the exposed values depend on, back to front.
    llvm::SetVector<BufferValue *> Need;
    for (auto [F, Loc] : Exposed)
      Need.insert(F);
    std::vector<size_t> Slice;
    for (size_t J = P->Members.size(); J-- > 0;) {
      const Member &M = P->Members[J];
      llvm::SmallVector<BufferValue *, 4> Written, ReadFirst;
      for (auto [F, W] : M.Events) {
        if (W)
          Written.push_back(F);
        else if (!llvm::is_contained(Written, F))
          ReadFirst.push_back(F);
      }
      if (llvm::none_of(Written, [&](BufferValue *F) { return Need.count(F); }))
        continue;
      Slice.push_back(J);
      for (BufferValue *F : Written)
        Need.remove(F);
      Need.insert(ReadFirst.begin(), ReadFirst.end());
    }
    if (!Need.empty()) {
      if (Planned.count(PI))
        return true;
      Why = "the run that computes it reads %" + Need.front()->getName().str() +
            " from a run before it";
      return false;
    }
    std::reverse(Slice.begin(), Slice.end());
    llvm::SmallVector<BufferValue *, 8> SliceReads;
    for (size_t J : Slice) {
      const Member &M = P->Members[J];
      if (std::optional<Intrinsic> C = costlyCall(M)) {
        Why = "computing it again would repeat a call to " + getIntrinsicName(*C).str();
        return false;
      }
      SliceReads.append(M.Reads.begin(), M.Reads.end());
      // A fragment that the repeated statements write keeps the value it
      // has at the end of P only if no other member of P writes it later.
      for (auto [F, W] : M.Events)
        if (W)
          for (size_t K = J + 1; K != P->Members.size(); ++K)
            if (!llvm::is_contained(Slice, K))
              for (auto [G, WK] : P->Members[K].Events)
                if (WK && G == F) {
                  Why = "the run that computes it writes %" + F->getName().str() +
                        " again in a statement its value does not come from";
                  return false;
                }
    }
    // What they read must not change between P and R.
    for (size_t I = P->First + Slice.front(); I < R.First; ++I) {
      if (I >= P->First && I < P->First + P->Members.size() &&
          llvm::is_contained(Slice, I - P->First))
        continue;
      BufferValue *Changed = nullptr;
      writtenBy(*R.B->Stmts[I], [&](BufferValue *W) {
        if (llvm::is_contained(SliceReads, W))
          Changed = W;
      });
      if (Changed) {
        Why = "%" + Changed->getName().str() + ", which its value is computed from, is written in between";
        return false;
      }
    }
    // The repeated statements and the run's members form one run.
    Run T;
    auto Join = [&](const Member &M) {
      if (!T.Members.empty() && !compatible(T, M))
        return false;
      T.Members.push_back(M);
      return true;
    };
    for (size_t J : Slice)
      Join(P->Members[J]);
    for (const Member &M : R.Members)
      if (!Join(M)) {
        Why = "the statements that compute it cannot join this run (one writes what another reads)";
        return false;
      }
    Plan Pl;
    Pl.RunIndex = RI;
    for (size_t J : Slice)
      Pl.Repeat.push_back(P->Members[J].S);
    for (auto [F, Loc] : Exposed)
      Pl.Frags.push_back(F);
    Plans.push_back(std::move(Pl));
    Planned.insert(RI);
    return true;
  }

  /// Inserts each plan's statements again at the start of its run, last
  /// run first so that the runs' indices stay valid.
  void applyPlans(const std::vector<Run> &Runs) {
    for (auto It = Plans.rbegin(); It != Plans.rend(); ++It) {
      const Run &R = Runs[It->RunIndex];
      Stmts Copies;
      for (const Stmt *S : It->Repeat) {
        StmtPtr C = S->clone();
        if (auto *Fo = dyn_cast<ForStmt>(C.get()))
          for (const LoopDim &D : Fo->getDims())
            if (!D.Lo || isNonNegative(*D.Lo))
              NonNeg.insert(D.Var.get());
        Repeated.insert(C.get());
        if (Copies.empty())
          RunStarts.insert(C.get());
        Copies.push_back(std::move(C));
      }
      std::string Names;
      for (BufferValue *F : It->Frags)
        Names += (Names.empty() ? "%" : ", %") + F->getName().str();
      Remarks.passed(R.Members.front().S->getLoc(),
                     "fragment " + Names + " is computed again at the start of this run of "
                     "element-wise statements, as the run before it computes it, instead "
                     "of kept in an array on the stack between them");
      R.B->Stmts.insert(R.B->Stmts.begin() + R.First, std::make_move_iterator(Copies.begin()),
                        std::make_move_iterator(Copies.end()));
    }
    Plans.clear();
    Planned.clear();
  }

  /// Missed remarks for the fragments that stay arrays, at the statement
  /// that keeps each one (at its allocation when there is none). Reduction
  /// results, which are not element-wise, are not named.
  void remarkDropped() {
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *A = dyn_cast<AllocStmt>(&S);
      if (!A || A->getBuffer()->getScope() != MemScope::Fragment)
        return;
      auto It = Dropped.find(A->getBuffer());
      if (It == Dropped.end() || It->second.first == kReductionResult)
        return;
      llvm::SMLoc Loc = It->second.second.isValid() ? It->second.second : A->getLoc();
      Remarks.missed(Loc, "fragment %" + A->getBuffer()->getName() +
                              " stays an array on the stack instead of one value per "
                              "element of a loop over global memory: " +
                              It->second.first);
    });
  }

  //===--- Rewriting ------------------------------------------------------===//

  std::unique_ptr<Value> loopVar(llvm::StringRef Base) {
    auto V = std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh(Base),
                                     DType::I32, llvm::SMLoc());
    NonNeg.insert(V.get());
    return V;
  }

  static StmtPtr forLoop(LoopKind LK, std::vector<LoopDim> Dims, Stmts Body) {
    return std::make_unique<ForStmt>(LK, std::move(Dims), nullptr,
                                     AttributeList(),
                                     stmt::block(std::move(Body)));
  }

  static LoopDim dim(std::unique_ptr<Value> V, int64_t Lo, int64_t Hi,
                     bool Parallel) {
    LoopDim D;
    D.Var = std::move(V);
    if (!Parallel)
      D.Lo = ex::intLit(Lo);
    D.Hi = ex::intLit(Hi);
    return D;
  }

  BufferValue *alloc(Stmts &Out, llvm::StringRef Name, DType Ty, MemScope Scope,
                     std::vector<int64_t> Shape) {
    std::vector<ExprPtr> S;
    for (int64_t E : Shape)
      S.push_back(ex::intLit(E));
    auto B = std::make_unique<BufferValue>(Names.fresh(Name), Ty, Scope,
                                           std::move(S), std::vector<ExprPtr>(),
                                           false, llvm::SMLoc());
    BufferValue *P = B.get();
    Out.push_back(std::make_unique<AllocStmt>(std::move(B), AttributeList()));
    return P;
  }

  static ExprPtr cloneOr(const Expr *E, int64_t Default) {
    return E ? E->clone() : ex::intLit(Default);
  }

  std::vector<ExprPtr> globalIndex(const Member &M, llvm::ArrayRef<ExprPtr> Elem) {
    std::vector<ExprPtr> Idx;
    for (unsigned D = 0; D != M.GOffsets.size(); ++D) {
      ExprPtr I = cloneOr(M.GOffsets[D], 0);
      if (M.GPos[D] >= 0)
        I = ex::add(std::move(I), Elem[M.GPos[D]]->clone());
      Idx.push_back(std::move(I));
    }
    return Idx;
  }

  ExprPtr inRange(const BufferValue *G, const std::vector<ExprPtr> &Idx) {
    ExprPtr C;
    for (unsigned D = 0; D != Idx.size(); ++D) {
      if (!isNonNegative(*Idx[D]))
        C = ex::land(std::move(C), ex::ge(Idx[D]->clone(), ex::intLit(0)));
      C = ex::land(std::move(C), ex::lt(Idx[D]->clone(), G->getShape()[D]->clone()));
    }
    return C ? std::move(C) : ex::boolLit(true);
  }

  /// Whether every global access of the run is in range for the whole tile.
  /// Tensors of one shape read at one offset need one check.
  ExprPtr wholeTileInRange(const Run &R) {
    ExprPtr C;
    llvm::StringSet<> Seen;
    auto Add = [&](ExprPtr X) {
      std::string Key;
      llvm::raw_string_ostream OS(Key);
      printExpr(*X, OS);
      if (Seen.insert(Key).second)
        C = ex::land(std::move(C), std::move(X));
    };
    for (const Member &M : R.Members) {
      if (!M.Global)
        continue;
      for (unsigned D = 0; D != M.GOffsets.size(); ++D) {
        ExprPtr Off = cloneOr(M.GOffsets[D], 0);
        if (!isNonNegative(*Off))
          Add(ex::ge(Off->clone(), ex::intLit(0)));
        int64_t Ext = M.GPos[D] >= 0 ? M.Domain[M.GPos[D]] : 1;
        Add(ex::le(ex::add(std::move(Off), ex::intLit(Ext)),
                   M.Global->getShape()[D]->clone()));
      }
    }
    return C;
  }

  static ExprPtr identity(llvm::StringRef Kind, DType Ty) {
    if (Kind == "sum" || Kind == "abssum" || Kind == "absmax")
      return ex::zero(Ty);
    return Kind == "max" ? ex::lowest(Ty) : ex::highest(Ty);
  }

  /// Which operand of combine is known not to be NaN.
  enum class NotNaN { Neither, Acc, X };

  /// Acc combined with X. Partial results, which start at the identity,
  /// are never NaN: where one operand B is one, max(A, B) is
  /// `A > B ? A : B` (`<` for min) whatever A is, NaN included, which is
  /// one x86 vmaxps / vminps; LLVM's maxnum needs a compare and a blend
  /// more to ignore a NaN in either operand.
  static ExprPtr combine(llvm::StringRef Kind, ExprPtr Acc, ExprPtr X,
                         NotNaN Known = NotNaN::Neither) {
    if (Kind == "sum" || Kind == "abssum")
      return ex::add(std::move(Acc), std::move(X));
    if (Known != NotNaN::Neither && isFloat(X->getDType()) &&
        X->getDType() == Acc->getDType()) {
      ExprPtr A = Known == NotNaN::Acc ? std::move(X) : std::move(Acc);
      ExprPtr B = Known == NotNaN::Acc ? std::move(Acc) : std::move(X);
      ExprPtr Cond = ex::binary(Kind == "min" ? BinaryOp::Lt : BinaryOp::Gt, A->clone(),
                                B->clone());
      std::vector<ExprPtr> Args;
      Args.push_back(std::move(Cond));
      Args.push_back(std::move(A));
      Args.push_back(std::move(B));
      return ex::call(Intrinsic::Select, std::move(Args));
    }
    std::vector<ExprPtr> Args;
    Args.push_back(std::move(Acc));
    Args.push_back(std::move(X));
    return ex::call(Kind == "min" ? Intrinsic::Min : Intrinsic::Max, std::move(Args));
  }

  static StmtPtr store(BufferValue *B, std::vector<ExprPtr> Idx, ExprPtr V) {
    V = ex::castTo(std::move(V), B->getDType());
    return std::make_unique<StoreStmt>(B, std::move(Idx), std::move(V));
  }

  /// Replaces, in \p E, the comparisons `I < S` (or `S > I`) whose index
  /// I is the global index of a copy of run \p R at element \p Elem in a
  /// dimension of extent S (`%t * 1024 + %j < N` in softmax's select of
  /// the columns inside a row) with true: in the unguarded nest the whole
  /// tile is in range. The program's own guard would otherwise be
  /// computed for every element of every whole tile.
  void foldInRange(ExprPtr &E, const Run &R, llvm::ArrayRef<ExprPtr> Elem) {
    std::vector<std::pair<ExprPtr, const Expr *>> InRange;
    for (const Member &M : R.Members) {
      if (!M.Global)
        continue;
      std::vector<ExprPtr> GI = globalIndex(M, Elem);
      for (unsigned D = 0; D != GI.size(); ++D)
        if (M.GPos[D] >= 0)
          InRange.push_back({std::move(GI[D]), M.Global->getShape()[D].get()});
    }
    rewriteExpr(E, [&](ExprPtr X) -> ExprPtr {
      auto *B = dyn_cast<BinaryExpr>(X.get());
      if (!B || (B->getOp() != BinaryOp::Lt && B->getOp() != BinaryOp::Gt))
        return X;
      const Expr *I = B->getLHS(), *S = B->getRHS();
      if (B->getOp() == BinaryOp::Gt)
        std::swap(I, S);
      for (const auto &[GI, Ext] : InRange)
        if (isSameExpr(*I, *GI) && isSameExpr(*S, *Ext))
          return ex::boolLit(true);
      return X;
    });
  }

  /// The statements of one element: \p Elem are its domain indices, \p Lane
  /// the partial result it accumulates into.
  Stmts elementBody(const Run &R, llvm::ArrayRef<ExprPtr> Elem, const Expr *Lane,
                    bool Guarded, const llvm::DenseMap<const Stmt *, BufferValue *> &Parts) {
    Stmts Out;
    llvm::DenseMap<const BufferValue *, BufferValue *> Scalar;
    for (const Member &M : R.Members)
      for (auto [F, W] : M.Events)
        if (!Scalar.count(F))
          Scalar[F] = alloc(Out, F->getName(), F->getDType(), MemScope::Var, {});
    for (const Member &M : R.Members) {
      switch (M.Kind) {
      case Member::CopyIn: {
        std::vector<ExprPtr> GI = globalIndex(M, Elem);
        BufferValue *V = Scalar[M.Frag];
        if (!Guarded) {
          Out.push_back(store(V, {}, ex::load(M.Global, std::move(GI))));
          break;
        }
        ExprPtr C = inRange(M.Global, GI);
        Stmts Then, Else;
        Then.push_back(store(V, {}, ex::load(M.Global, std::move(GI))));
        Else.push_back(store(V, {}, ex::zero(V->getDType())));
        Out.push_back(stmt::ifThen(std::move(C), std::move(Then), std::move(Else)));
        break;
      }
      case Member::CopyOut: {
        std::vector<ExprPtr> GI = globalIndex(M, Elem);
        ExprPtr C = Guarded ? inRange(M.Global, GI) : nullptr;
        StmtPtr St = store(M.Global, std::move(GI), ex::load(Scalar[M.Frag], {}));
        if (!C) {
          Out.push_back(std::move(St));
          break;
        }
        Stmts Then;
        Then.push_back(std::move(St));
        Out.push_back(stmt::ifThen(std::move(C), std::move(Then)));
        break;
      }
      case Member::Fill: {
        auto *Op = cast<OpStmt>(M.S);
        BufferValue *V = Scalar[M.Frag];
        Out.push_back(store(V, {},
                            Op->getName() == "fill" ? Op->getOperands()[1].E->clone()
                                                    : ex::zero(V->getDType())));
        break;
      }
      case Member::Loop: {
        auto *Fo = cast<ForStmt>(M.S);
        auto Rewrite = [&](ExprPtr E) -> ExprPtr {
          if (auto *Ref = dyn_cast<RefExpr>(E.get()))
            for (unsigned D = 0; D != Fo->getDims().size(); ++D)
              if (Fo->getDims()[D].Var.get() == Ref->getValue())
                return ex::castTo(M.VarPos[D] < 0 ? ex::intLit(0)
                                                  : Elem[M.VarPos[D]]->clone(),
                                  Ref->getDType());
          if (auto *L = dyn_cast<LoadExpr>(E.get()))
            if (BufferValue *V = Scalar.lookup(L->getBuffer()))
              return ex::load(V, {});
          return E;
        };
        for (const StmtPtr &S : Fo->getBody().Stmts) {
          auto *St = cast<StoreStmt>(S.get());
          ExprPtr Val = St->getValue()->clone();
          rewriteExpr(Val, Rewrite);
          if (!Guarded)
            foldInRange(Val, R, Elem);
          Out.push_back(store(Scalar[St->getBuffer()], {}, std::move(Val)));
        }
        break;
      }
      case Member::Reduce: {
        auto *Op = cast<OpStmt>(M.S);
        std::string Kind = Op->getAttrOrDefault("kind").getStr().str();
        BufferValue *P = Parts.lookup(M.S);
        ExprPtr X = ex::castTo(ex::load(Scalar[M.Frag], {}), P->getDType());
        if (llvm::StringRef(Kind).starts_with("abs")) {
          std::vector<ExprPtr> Args;
          Args.push_back(std::move(X));
          X = ex::call(Intrinsic::Abs, std::move(Args));
        }
        std::vector<ExprPtr> LI, SI;
        LI.push_back(Lane->clone());
        SI.push_back(Lane->clone());
        ExprPtr Cur = ex::load(P, std::move(LI));
        Out.push_back(store(P, std::move(SI),
                            combine(Kind, std::move(Cur), std::move(X), NotNaN::Acc)));
        break;
      }
      }
    }
    return Out;
  }

  /// Allocates, into \p Out, \p L partial results of a \p Kind reduction
  /// of type \p Ty, each set to the reduction's identity.
  BufferValue *initPartials(Stmts &Out, llvm::StringRef Kind, DType Ty, int64_t L) {
    BufferValue *P = alloc(Out, "part", Ty, MemScope::Local, {L});
    auto V = loopVar("l");
    Value *LV = V.get();
    std::vector<LoopDim> D;
    D.push_back(dim(std::move(V), 0, L, true));
    Stmts Init;
    std::vector<ExprPtr> PI;
    PI.push_back(ex::ref(LV));
    Init.push_back(store(P, std::move(PI), identity(Kind, Ty)));
    Out.push_back(forLoop(LoopKind::Parallel, std::move(D), std::move(Init)));
    return P;
  }

  /// Combines the \p L partial results \p P into Dst[DI] (into its current
  /// value unless \p Clear).
  /// The partial results may be of a narrower type than Dst (partialType):
  /// then they are combined in theirs, and Dst's current value joins the
  /// result last.
  void foldPartials(Stmts &Inner, llvm::StringRef Kind, BufferValue *P, int64_t L,
                    BufferValue *Dst, std::vector<ExprPtr> DI, bool Clear) {
    DType Ty = P->getDType();
    bool Narrow = Ty != Dst->getDType();
    BufferValue *Acc = alloc(Inner, "acc", Ty, MemScope::Var, {});
    std::vector<ExprPtr> DI2;
    for (const ExprPtr &X : DI)
      DI2.push_back(X->clone());
    Inner.push_back(store(Acc, {},
                          Clear || Narrow ? identity(Kind, Ty) : ex::load(Dst, std::move(DI2))));
    // Whole vectors of partial results fold pairwise onto the lower half
    // while more than one vector is left (as vector adds); the last
    // vector's lanes then join the result in order (the chain becomes
    // halvings of the vector in the CPU codegen: reduceLanesInTrees). A chain of L scalar
    // adds would take about as long as the nest itself for a tile of a
    // few vectors per lane. (Folding the last vector in halves as well
    // left LLVM storing it to the stack and reading back parts of it, which
    // was slower for GEMV and LayerNorm.)
    int64_t VL = std::max<int64_t>(1, int64_t(VectorBits) / getDTypeBits(Ty));
    int64_t W = L;
    while (W > VL && W % (2 * VL) == 0) {
      int64_t H = W / 2;
      auto V = loopVar("l");
      Value *LV = V.get();
      std::vector<LoopDim> D;
      D.push_back(dim(std::move(V), 0, H, true));
      std::vector<ExprPtr> LI, HI, SI;
      LI.push_back(ex::ref(LV));
      HI.push_back(ex::add(ex::ref(LV), ex::intLit(H)));
      SI.push_back(ex::ref(LV));
      Stmts Fold;
      Fold.push_back(store(P, std::move(SI),
                           combine(Kind, ex::load(P, std::move(LI)), ex::load(P, std::move(HI)),
                                   NotNaN::Acc)));
      Inner.push_back(forLoop(LoopKind::Parallel, std::move(D), std::move(Fold)));
      W = H;
    }
    auto V = loopVar("l");
    Value *LV = V.get();
    std::vector<LoopDim> D;
    D.push_back(dim(std::move(V), 0, W, false));
    std::vector<ExprPtr> PI;
    PI.push_back(ex::ref(LV));
    Stmts Comb;
    Comb.push_back(
        store(Acc, {}, combine(Kind, ex::load(Acc, {}), ex::load(P, std::move(PI)), NotNaN::X)));
    Inner.push_back(forLoop(LoopKind::Unroll, std::move(D), std::move(Comb)));
    ExprPtr R = ex::castTo(ex::load(Acc, {}), Dst->getDType());
    if (Narrow && !Clear) {
      std::vector<ExprPtr> DI3;
      for (const ExprPtr &X : DI)
        DI3.push_back(X->clone());
      R = combine(Kind, ex::load(Dst, std::move(DI3)), std::move(R), NotNaN::X);
    }
    Inner.push_back(store(Dst, std::move(DI), std::move(R)));
  }

  /// Replaces the reductions left outside fused runs that
  /// lowerReduction takes, in \p B and the blocks nested in it.
  void lowerReductions(Block &B) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        lowerReductions(*N);
      if (auto *Op = dyn_cast<OpStmt>(S.get()); Op && Op->getName() == "reduce")
        if (std::optional<Stmts> L = lowerReduction(*Op)) {
          Out.insert(Out.end(), std::make_move_iterator(L->begin()),
                     std::make_move_iterator(L->end()));
          continue;
        }
      Out.push_back(std::move(S));
    }
    B.Stmts = std::move(Out);
  }

  /// A reduction of a whole on-chip buffer of constant shape along its
  /// innermost dimension into a whole buffer, outside a fused run (its
  /// source is also used otherwise, as softmax's running tile is): each
  /// row is walked in vectors of partial results, as in a run, instead of
  /// one element after another. None when the reduction is not of that
  /// form or a row is shorter than the partial results.
  std::optional<Stmts> lowerReduction(const OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    BufferValue *Src = SR.Buf, *Dst = DR.Buf;
    auto OnChip = [](const BufferValue *B) {
      return B->getScope() != MemScope::Global && B->getStrides().empty();
    };
    std::optional<std::vector<int64_t>> Shape = Src->getConstShape();
    if (!SR.isWholeBuffer() || !DR.isWholeBuffer() || !OnChip(Src) || !OnChip(Dst) ||
        !Shape || Shape->empty() || Dst->getRank() + 1 != Src->getRank() ||
        uint64_t(Op.getAttrOrDefault("dim").getInt()) + 1 != Shape->size())
      return std::nullopt;
    std::string Kind = Op.getAttrOrDefault("kind").getStr().str();
    DType Ty = Dst->getDType();
    int64_t E = Shape->back(), L = lanes(Ty);
    if (E < L)
      return std::nullopt;
    std::vector<LoopDim> OuterDims;
    std::vector<ExprPtr> Row;
    for (unsigned D = 0; D + 1 < Shape->size(); ++D) {
      if ((*Shape)[D] == 1) {
        Row.push_back(ex::intLit(0));
        continue;
      }
      auto V = loopVar("i");
      Row.push_back(ex::ref(V.get()));
      OuterDims.push_back(dim(std::move(V), 0, (*Shape)[D], false));
    }
    Stmts Inner;
    BufferValue *P = initPartials(Inner, Kind, Ty, L);
    // P[Lane] = Kind(P[Lane], Src[Row..., Col]).
    auto Accumulate = [&](ExprPtr Col, Value *Lane) {
      std::vector<ExprPtr> SI;
      for (const ExprPtr &X : Row)
        SI.push_back(X->clone());
      SI.push_back(std::move(Col));
      ExprPtr X = ex::castTo(ex::load(Src, std::move(SI)), Ty);
      if (llvm::StringRef(Kind).starts_with("abs")) {
        std::vector<ExprPtr> Args;
        Args.push_back(std::move(X));
        X = ex::call(Intrinsic::Abs, std::move(Args));
      }
      std::vector<ExprPtr> LI, PI;
      LI.push_back(ex::ref(Lane));
      PI.push_back(ex::ref(Lane));
      Stmts Body;
      Body.push_back(store(P, std::move(PI), combine(Kind, ex::load(P, std::move(LI)),
                                                     std::move(X), NotNaN::Acc)));
      return Body;
    };
    if (int64_t Q = E / L) {
      auto JO = loopVar("jo"), JL = loopVar("jl");
      Value *JOV = JO.get(), *JLV = JL.get();
      std::vector<LoopDim> DL, DO;
      DL.push_back(dim(std::move(JL), 0, L, true));
      Stmts OBody;
      OBody.push_back(forLoop(LoopKind::Parallel, std::move(DL),
                              Accumulate(ex::add(ex::mul(ex::ref(JOV), ex::intLit(L)),
                                                 ex::ref(JLV)),
                                         JLV)));
      DO.push_back(dim(std::move(JO), 0, Q, false));
      Inner.push_back(forLoop(LoopKind::Serial, std::move(DO), std::move(OBody)));
    }
    if (int64_t Rem = E % L) {
      auto JT = loopVar("jt");
      Value *JTV = JT.get();
      std::vector<LoopDim> D;
      D.push_back(dim(std::move(JT), 0, Rem, true));
      Inner.push_back(forLoop(LoopKind::Parallel, std::move(D),
                              Accumulate(ex::add(ex::intLit(E / L * L), ex::ref(JTV)), JTV)));
    }
    std::vector<ExprPtr> DI;
    for (const ExprPtr &X : Row)
      DI.push_back(X->clone());
    foldPartials(Inner, Kind, P, L, Dst, std::move(DI), Op.getAttrOrDefault("clear").getBool());
    if (OuterDims.empty())
      return Inner;
    Stmts Out;
    Out.push_back(forLoop(LoopKind::Serial, std::move(OuterDims), std::move(Inner)));
    return Out;
  }

  /// Whether every value \p E can take is an f16 value (converting it to
  /// f16 and back gives it again): an f16 expression, a widening cast of
  /// one, a float literal that f16 holds, or a select, max, min,
  /// negation or abs of such values. \p Exact says it of the loads of
  /// run-local fragments (one value per element).
  static bool holdsF16(const Expr &E,
                       const llvm::DenseMap<const BufferValue *, bool> &Exact) {
    if (E.getDType() == DType::F16)
      return true;
    if (!isFloat(E.getDType()) || getDTypeBits(E.getDType()) < 32)
      return false;
    switch (E.getKind()) {
    case Expr::Kind::Inf:
      return true;
    case Expr::Kind::FloatLit: {
      llvm::APFloat V(cast<FloatLitExpr>(E).getValue());
      bool LosesInfo = true;
      V.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &LosesInfo);
      return !LosesInfo;
    }
    case Expr::Kind::Load:
      return Exact.lookup(cast<LoadExpr>(E).getBuffer());
    case Expr::Kind::Cast:
      return holdsF16(*cast<CastExpr>(E).getOperand(), Exact);
    case Expr::Kind::Unary:
      return cast<UnaryExpr>(E).getOp() == UnaryOp::Neg &&
             holdsF16(*cast<UnaryExpr>(E).getOperand(), Exact);
    case Expr::Kind::Call: {
      const auto &C = cast<CallExpr>(E);
      llvm::ArrayRef<ExprPtr> Args = C.getArgs();
      switch (C.getIntrinsic()) {
      case Intrinsic::Select:
        return holdsF16(*Args[1], Exact) && holdsF16(*Args[2], Exact);
      case Intrinsic::Max:
      case Intrinsic::Min:
        return holdsF16(*Args[0], Exact) && holdsF16(*Args[1], Exact);
      case Intrinsic::Abs:
        return holdsF16(*Args[0], Exact);
      default:
        return false;
      }
    }
    default:
      return false;
    }
  }

  /// The element type of the partial results of reduction \p Red of run
  /// \p R: f16 for a max or min whose every element is an f16 value
  /// (holdsF16: softmax's row maximum of an f16 tensor read into an f32
  /// fragment) where the CPU computes on f16 vectors, twice the lanes per
  /// vector and no conversion per element; the result is the same value,
  /// f16 to f32 being exact and order-preserving. Otherwise the
  /// destination's type.
  /// Says so in a remark unless \p Quiet (the guarded nest's copy).
  DType partialType(const Run &R, const Member &Red, bool Quiet) {
    DType Ty = Red.Dst->getDType();
    llvm::StringRef Kind = cast<OpStmt>(Red.S)->getAttrOrDefault("kind").getStr();
    if ((Kind != "max" && Kind != "min") || !isFloat(Ty) || getDTypeBits(Ty) <= 16 ||
        !isFloat(Red.Frag->getDType()))
      return Ty;
    llvm::DenseMap<const BufferValue *, bool> Exact;
    for (const Member &M : R.Members) {
      if (&M == &Red)
        break;
      switch (M.Kind) {
      case Member::CopyIn:
        // The guarded nest reads out-of-range elements as zero.
        Exact[M.Frag] = M.Global->getDType() == DType::F16;
        break;
      case Member::Fill: {
        auto *Op = cast<OpStmt>(M.S);
        Exact[M.Frag] = Op->getName() != "fill" || holdsF16(*Op->getOperands()[1].E, Exact);
        break;
      }
      case Member::Loop:
        for (const StmtPtr &S : cast<ForStmt>(M.S)->getBody().Stmts) {
          auto *St = cast<StoreStmt>(S.get());
          Exact[St->getBuffer()] = holdsF16(*St->getValue(), Exact);
        }
        break;
      case Member::CopyOut:
      case Member::Reduce:
        break;
      }
    }
    if (!Exact.lookup(Red.Frag))
      return Ty;
    if (!F16Arith) {
      if (!Quiet)
        Remarks.missed(Red.S->getLoc(),
                     "reduce " + Kind.str() + " of f16 values in " + getDTypeName(Ty) +
                         " partial results: f16 ones (twice the lanes per vector, no "
                         "conversion) need a CPU that computes on f16 vectors "
                         "(AVX512-FP16)");
      return Ty;
    }
    if (!Quiet)
      Remarks.passed(Red.S->getLoc(), "reduce " + Kind.str() +
                                        " of f16 values in f16 partial results (the same "
                                        "value; twice the lanes per vector, no conversion)");
    return DType::F16;
  }

  /// The block that holds \p S among \p B and the blocks nested in it,
  /// with S's index there.
  static std::optional<std::pair<Block *, size_t>> findParent(Block &B, const Stmt *S) {
    for (size_t I = 0; I != B.Stmts.size(); ++I) {
      if (B.Stmts[I].get() == S)
        return std::make_pair(&B, I);
      for (Block *N : getNestedBlocks(*B.Stmts[I]))
        if (auto P = findParent(*N, S))
          return P;
    }
    return std::nullopt;
  }

  /// Why the partial results of reduction \p Red of run \p R, which
  /// accumulates into its destination (clear = false) in every iteration
  /// of the serial loop whose body the run is, cannot live across that
  /// loop; empty when they can. None when the reduction is not of that
  /// form (no remark).
  std::optional<std::string> acrossLoopObstacle(const Run &R, const Member &Red) {
    const auto *Loop = llvm::dyn_cast_or_null<ForStmt>(R.Owner);
    if (!Loop || Loop->getLoopKind() != LoopKind::Serial || isLocal(Red.Dst) ||
        cast<OpStmt>(Red.S)->getAttrOrDefault("clear").getBool())
      return std::nullopt;
    if (Red.Domain.size() != 1)
      return std::string("each of its ") + std::to_string(Red.Domain.front()) +
             " rows would keep its own partial results";
    // Nothing else in the loop may read or write the destination: it
    // holds the sum of earlier iterations only after the loop.
    std::string Other;
    for (const StmtPtr &S : Loop->getBody().Stmts) {
      if (S.get() == Red.S)
        continue;
      forEachUse(*S, [&](const Value *V) {
        if (V == Red.Dst && Other.empty())
          Other = "%" + Red.Dst->getName().str() + " is also used in the loop";
      });
    }
    return Other;
  }

  /// The partial results of reduction \p Red of run \p R, of type \p Ty
  /// and \p L lanes, kept across the serial loop whose body the run is:
  /// a reduction that accumulates into its destination in every iteration
  /// (RMSNorm's and LayerNorm's sums over a row walked in tiles) starts
  /// its partial results once before the loop and combines them into the
  /// destination once after it, instead of combining a vector of partial
  /// results into one value per iteration (a chain of shuffles and adds, a
  /// tenth of the work of a tile of 1024 elements with LayerNorm's two
  /// sums). Null where that does not hold; a remark says so unless \p
  /// Quiet (the guarded nest's copy, which shares the unguarded one's).
  BufferValue *partialsAcrossLoop(const Run &R, const Member &Red, DType Ty, int64_t L,
                                  bool Quiet) {
    auto *Op = cast<OpStmt>(Red.S);
    llvm::StringRef Kind = Op->getAttrOrDefault("kind").getStr();
    std::string What = "reduce " + Kind.str() + " into %" + Red.Dst->getName().str();
    if (auto It = AcrossLoop.find(Red.S); It != AcrossLoop.end()) {
      if (!Quiet && AcrossLoopSaid.insert(Red.S).second)
        remarkAcrossLoop(What, Red, L);
      return It->second;
    }
    std::optional<std::string> Obstacle = acrossLoopObstacle(R, Red);
    if (!Obstacle)
      return nullptr;
    if (!Obstacle->empty()) {
      if (!Quiet)
        Remarks.missed(Red.S->getLoc(), What + " combines its partial results in every "
                                               "iteration of the enclosing loop: " +
                                               *Obstacle);
      return nullptr;
    }
    auto Parent = findParent(K.getBodyMutable(), R.Owner);
    if (!Parent)
      return nullptr;
    auto [PB, Index] = *Parent;
    Stmts Before, After;
    BufferValue *P = initPartials(Before, Kind, Ty, L);
    // A run of one dimension reduces into a single element.
    std::vector<ExprPtr> DI;
    for (size_t D = 0; D != Red.DstPos.size(); ++D)
      DI.push_back(ex::intLit(0));
    foldPartials(After, Kind, P, L, Red.Dst, std::move(DI), /*Clear=*/false);
    // After the results that earlier reductions of the loop joined after
    // it, so that they join in the order of the reductions.
    size_t &Joined = JoinedAfter[R.Owner];
    PB->Stmts.insert(PB->Stmts.begin() + Index + 1 + Joined,
                     std::make_move_iterator(After.begin()), std::make_move_iterator(After.end()));
    Joined += After.size();
    PB->Stmts.insert(PB->Stmts.begin() + Index, std::make_move_iterator(Before.begin()),
                     std::make_move_iterator(Before.end()));
    AcrossLoop[Red.S] = P;
    if (!Quiet && AcrossLoopSaid.insert(Red.S).second)
      remarkAcrossLoop(What, Red, L);
    return P;
  }

  void remarkAcrossLoop(const std::string &What, const Member &Red, int64_t L) {
    Remarks.passed(Red.S->getLoc(), What + " keeps its " + std::to_string(L) +
                                        " partial results across the enclosing loop and "
                                        "combines them once after it");
  }

  /// The loop nest of a run over its whole domain.
  Stmts nest(const Run &R, bool Guarded) {
    const std::vector<int64_t> &Dom = R.Members.front().Domain;
    std::vector<const Member *> Reduces;
    for (const Member &M : R.Members)
      if (M.Kind == Member::Reduce)
        Reduces.push_back(&M);
    Stmts Out;
    if (Reduces.empty()) {
      llvm::DenseMap<const Stmt *, BufferValue *> NoParts;
      static const char *const VarNames[] = {"i", "j", "k", "l"};
      std::vector<LoopDim> Dims;
      std::vector<ExprPtr> Elem;
      for (unsigned P = 0; P != Dom.size(); ++P) {
        auto V = loopVar(VarNames[std::min<unsigned>(P, 3)]);
        Elem.push_back(ex::ref(V.get()));
        Dims.push_back(dim(std::move(V), 0, Dom[P], true));
      }
      Stmts Body = elementBody(R, Elem, nullptr, Guarded, NoParts);
      if (Dims.empty())
        return Body;
      Out.push_back(forLoop(LoopKind::Parallel, std::move(Dims), std::move(Body)));
      return Out;
    }
    // Outer dimensions: a serial loop; inside it the innermost dimension
    // is walked in vectors of L partial results, then the tail.
    std::vector<LoopDim> OuterDims;
    std::vector<ExprPtr> Elem;
    for (unsigned P = 0; P + 1 < Dom.size(); ++P) {
      auto V = loopVar("i");
      Elem.push_back(ex::ref(V.get()));
      OuterDims.push_back(dim(std::move(V), 0, Dom[P], false));
    }
    int64_t E = Dom.back();
    std::vector<DType> PartTys;
    int64_t L = 1;
    for (const Member *M : Reduces) {
      PartTys.push_back(partialType(R, *M, Guarded));
      L = std::max(L, lanes(PartTys.back()));
    }
    Stmts Inner;
    if (!Guarded)
      prefetchNextRows(R, Elem, E, Inner);
    llvm::DenseMap<const Stmt *, BufferValue *> Parts;
    for (auto [M, Ty] : llvm::zip(Reduces, PartTys)) {
      if (BufferValue *P = partialsAcrossLoop(R, *M, Ty, L, Guarded)) {
        Parts[M->S] = P;
        continue;
      }
      Parts[M->S] =
          initPartials(Inner, cast<OpStmt>(M->S)->getAttrOrDefault("kind").getStr(), Ty, L);
    }
    if (int64_t Q = E / L) {
      auto JO = loopVar("jo"), JL = loopVar("jl");
      Value *JOV = JO.get(), *JLV = JL.get();
      Elem.push_back(ex::add(ex::mul(ex::ref(JOV), ex::intLit(L)), ex::ref(JLV)));
      ExprPtr Lane = ex::ref(JLV);
      Stmts Body = elementBody(R, Elem, Lane.get(), Guarded, Parts);
      Elem.pop_back();
      std::vector<LoopDim> DL, DO;
      DL.push_back(dim(std::move(JL), 0, L, true));
      Stmts OBody;
      OBody.push_back(forLoop(LoopKind::Parallel, std::move(DL), std::move(Body)));
      DO.push_back(dim(std::move(JO), 0, Q, false));
      Inner.push_back(forLoop(LoopKind::Serial, std::move(DO), std::move(OBody)));
    }
    if (int64_t Rem = E % L) {
      auto JT = loopVar("jt");
      Value *JTV = JT.get();
      Elem.push_back(ex::add(ex::intLit(E / L * L), ex::ref(JTV)));
      ExprPtr Lane = ex::ref(JTV);
      Stmts Body = elementBody(R, Elem, Lane.get(), Guarded, Parts);
      Elem.pop_back();
      std::vector<LoopDim> D;
      D.push_back(dim(std::move(JT), 0, Rem, true));
      Inner.push_back(forLoop(LoopKind::Parallel, std::move(D), std::move(Body)));
    }
    for (const Member *M : Reduces) {
      if (AcrossLoop.count(M->S))
        continue;
      auto *Op = cast<OpStmt>(M->S);
      std::vector<ExprPtr> DI;
      for (int Pos : M->DstPos)
        DI.push_back(Pos < 0 ? ex::intLit(0) : Elem[Pos]->clone());
      foldPartials(Inner, Op->getAttrOrDefault("kind").getStr(), Parts[M->S], L, M->Dst,
                   std::move(DI), Op->getAttrOrDefault("clear").getBool());
    }
    if (OuterDims.empty())
      return Inner;
    // Serial: parallel loops do not nest.
    Out.push_back(forLoop(LoopKind::Serial, std::move(OuterDims), std::move(Inner)));
    return Out;
  }

  /// In a run of rows (outer dimensions walked by a serial loop, a
  /// reduction along each) inside a serial loop over %v whose copies read
  /// a global tensor at a %v-dependent offset, the start of each row
  /// prefetches (`cpu.prefetch`, into L2) the lines that the same row reads
  /// at %v + 1: a GEMV's rows lie a whole row of A apart, more streams than
  /// the hardware prefetchers follow, so each row's next tile would start
  /// with a miss.
  void prefetchNextRows(const Run &R, llvm::ArrayRef<ExprPtr> Row, int64_t E, Stmts &Out) {
    const auto *Loop = llvm::dyn_cast_or_null<ForStmt>(R.Owner);
    if (!Prefetch || Row.empty() || !Loop || Loop->getDims().size() != 1 || Loop->getStep() ||
        (Loop->getLoopKind() != LoopKind::Serial && Loop->getLoopKind() != LoopKind::Pipelined))
      return;
    const Value *V = Loop->getDims()[0].Var.get();
    for (const Member &M : R.Members) {
      if (M.Kind != Member::CopyIn)
        continue;
      bool UsesV = false;
      for (const Expr *Off : M.GOffsets)
        if (Off)
          forEachUse(*Off, [&](const Value *U) { UsesV |= U == V; });
      if (!UsesV)
        continue;
      int64_t PerLine = std::max<int64_t>(1, LineBytes / getDTypeBytes(M.Global->getDType()));
      for (int64_t C = 0; C < E; C += PerLine) {
        std::vector<ExprPtr> Elem;
        for (const ExprPtr &X : Row)
          Elem.push_back(X->clone());
        Elem.push_back(ex::intLit(C));
        std::vector<OpOperand> Operands(1);
        Operands[0].Kind = OperandKind::Region;
        Operands[0].R.Buf = M.Global;
        for (ExprPtr &I : globalIndex(M, Elem)) {
          rewriteExpr(I, [&](ExprPtr X) -> ExprPtr {
            if (auto *Ref = dyn_cast<RefExpr>(X.get()); Ref && Ref->getValue() == V)
              return ex::add(std::move(X), ex::intLit(1));
            return X;
          });
          RegionIndex RI;
          RI.Offset = std::move(I);
          Operands[0].R.Indices.push_back(std::move(RI));
        }
        AttributeList Attrs;
        Attrs.set("locality", Attribute::getInt(2));
        Out.push_back(std::make_unique<OpStmt>(Prefetch, std::move(Operands), std::move(Attrs)));
      }
    }
  }

  int64_t lanes(DType Ty) const {
    if (Lanes > 0)
      return Lanes;
    // Four vector registers of partial results: enough independent adds
    // to cover the latency of a vector add on current cores.
    return std::max<int64_t>(1, 4 * int64_t(VectorBits) / getDTypeBits(Ty));
  }

  void fuse(Run &R) {
    Stmts Fused;
    if (ExprPtr Full = wholeTileInRange(R))
      Fused.push_back(stmt::ifThen(std::move(Full), nest(R, false), nest(R, true)));
    else
      Fused = nest(R, false);
    std::vector<StmtPtr> &S = R.B->Stmts;
    size_t N = R.Members.size();
    S.erase(S.begin() + R.First, S.begin() + R.First + N);
    S.insert(S.begin() + R.First, std::make_move_iterator(Fused.begin()),
             std::make_move_iterator(Fused.end()));
  }

  void removeAllocs(Block &B) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      if (auto *A = dyn_cast<AllocStmt>(S.get()); A && Local.count(A->getBuffer()))
        continue;
      for (Block *N : getNestedBlocks(*S))
        removeAllocs(*N);
      Out.push_back(std::move(S));
    }
    B.Stmts = std::move(Out);
  }

  static constexpr const char *kReductionResult = "a reduction writes it";

  /// Statements of an earlier run to repeat at the start of a run.
  struct Plan {
    size_t RunIndex;
    std::vector<const Stmt *> Repeat;
    llvm::SmallVector<BufferValue *, 2> Frags;
  };
  std::vector<Plan> Plans;
  /// The runs with a plan, by index.
  llvm::DenseSet<size_t> Planned;
  /// The statements inserted by plans, and the first of each plan's.
  llvm::DenseSet<const Stmt *> Repeated, RunStarts;

  NameGenerator Names;
  KernelStmt &K;
  RemarkEmitter Remarks;
  /// Candidates dropped, with why and where.
  llvm::DenseMap<const BufferValue *, std::pair<std::string, llvm::SMLoc>> Dropped;
  int64_t Lanes;
  unsigned VectorBits;
  unsigned LineBytes;
  /// Whether the CPU computes on f16 vectors (partialType).
  bool F16Arith;
  /// cpu.prefetch, or null (the cpu dialect not registered: tile-opt alone).
  const OpInfo *Prefetch;
  llvm::DenseSet<const Value *> NonNeg;
  llvm::SetVector<BufferValue *> Local;
  /// The reductions whose partial results live across their loop
  /// (partialsAcrossLoop), with them.
  llvm::DenseMap<const Stmt *, BufferValue *> AcrossLoop;
  llvm::DenseSet<const Stmt *> AcrossLoopSaid;
  /// Per loop, the statements inserted after it by partialsAcrossLoop.
  llvm::DenseMap<const Stmt *, size_t> JoinedAfter;
};

class FuseElementwisePass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    // Without a target (tile-opt alone) the defaults describe AVX2.
    CPUVectorInfo Vec;
    int64_t Lanes = getIntOption("lanes");
    if (S.Backend && Lanes <= 0) {
      llvm::Expected<CPUVectorInfo> Info = getCPUVectorInfo(S.Backend->getTarget());
      if (!Info) {
        S.Diag.error(llvm::SMLoc(), "cpu-fuse-elementwise: " +
                                        llvm::toString(Info.takeError()));
        return false;
      }
      Vec = *Info;
    }
    for (const auto &F : M.getFunctions()) {
      std::vector<KernelStmt *> Kernels;
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          Kernels.push_back(K);
      });
      for (KernelStmt *K : Kernels)
        Fuser(*F, *K, getRemarks(M), Lanes, getKernelVectorBits(Vec, *K), Vec.CacheLineBytes,
              Vec.HasF16Arith, M.getContext().getOpRegistry().lookup("cpu.prefetch"))
            .run();
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createCPUFuseElementwisePass() {
  return std::make_unique<FuseElementwisePass>(getCPUFuseElementwisePassInfo());
}
