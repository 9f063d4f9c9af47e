//===- PrefetchNextBlock.cpp - cpu-prefetch-next-block --------------------===//
//
// A kernel such as RMSNorm reads each block's input twice: a first pass
// (the sum of squares) streams it from memory and only reads, a second
// pass reads it again from the cache and writes the output. A core then
// alternates between a read stream and a write stream, and memory reads
// stand idle while the second pass runs. This pass lets the second pass
// fetch the next block's input. In a serial loop over %v (after
// cpu-coarsen-grid, the loop over a task's blocks) whose body reads a
// global tensor at a %v-dependent index in two or more of its statements,
// each innermost parallel loop of a later statement that walks the
// tensor's innermost dimension
//
//   for %j in parallel(E) { ... %X[%v, %a + %j] ... }
//
// becomes, with C the elements of `lines` cache lines (of the narrowest
// element among the tensors prefetched) and D = `distance`,
//
//   for %j_o in serial(0, E / C) {
//     cpu.prefetch %X[%v + D, %a + %j_o * C]           one per line of
//     cpu.prefetch %X[%v + D, %a + %j_o * C + 32]      the chunk (f16)
//     ...
//     for %j in parallel(C) { ...[%j := %j_o * C + %j] }
//   }
//
// so that the prefetches keep pace with the loop's own accesses; a loop of
// at most C elements is left whole, after the prefetches of its lines. The
// first pass of the next iteration then reads from the cache. The chunks
// are several lines long so that LLVM vectorizes each one as a loop: a loop
// of one line's elements is small enough to be unrolled completely before
// vectorization, and the SLP vectorizer then cannot reorder its loads and
// stores to possibly aliasing tensors. A parallel loop is rewritten for the
// outermost serial loop that qualifies; one whose extent is longer than a
// chunk but not a multiple of it is left alone.
//
//===----------------------------------------------------------------------===//

#include "CPUPassUtils.h"
#include "CPUTargetInfo.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

using namespace tile;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

bool usesValue(const Expr &E, const Value *V) {
  bool Found = false;
  forEachUse(E, [&](const Value *U) { Found |= U == V; });
  return Found;
}

bool usesAny(llvm::ArrayRef<ExprPtr> Idx, const Value *V) {
  return llvm::any_of(Idx, [&](const ExprPtr &E) { return usesValue(*E, V); });
}

/// Calls \p Fn on every load in \p S and the statements nested in it.
void forEachLoad(Stmt &S, llvm::function_ref<void(const LoadExpr &)> Fn) {
  std::function<void(const Expr &)> Visit = [&](const Expr &E) {
    if (const auto *L = dyn_cast<LoadExpr>(&E))
      Fn(*L);
    forEachChild(E, Visit);
  };
  auto Slots = [&](Stmt &X) { forEachExprSlot(X, [&](ExprPtr &E) { Visit(*E); }); };
  Slots(S);
  for (Block *N : getNestedBlocks(S))
    walkStmts(*N, Slots);
}

void forEachLoad(Block &B, llvm::function_ref<void(const LoadExpr &)> Fn) {
  for (StmtPtr &S : B.Stmts)
    forEachLoad(*S, Fn);
}

/// A load to prefetch for iteration %v + distance of a serial loop.
struct Target {
  BufferValue *Buf;
  std::vector<ExprPtr> Indices;
  const Value *V;
};

class Prefetcher {
public:
  Prefetcher(Function &F, const OpInfo &Prefetch, int64_t Distance,
             int64_t Locality, int64_t Lines, unsigned LineBytes)
      : Names(F), Prefetch(Prefetch), Distance(Distance), Locality(Locality),
        Lines(Lines), LineBytes(LineBytes) {}

  void run(Block &B) {
    walkStmts(B, [&](Stmt &S) {
      if (auto *F = dyn_cast<ForStmt>(&S))
        if (F->getLoopKind() == LoopKind::Serial && F->getDims().size() == 1 &&
            !F->getStep())
          visitSerialLoop(*F);
    });
    rewriteIn(B);
  }

private:
  static bool isGlobal(const BufferValue *B) {
    return B->getScope() == MemScope::Global && B->getStrides().empty() &&
           B->getRank() > 0;
  }

  void visitSerialLoop(ForStmt &L) {
    const Value *V = L.getDims()[0].Var.get();
    // The statements of the body that read each tensor at a V-dependent
    // index, in order.
    llvm::MapVector<BufferValue *, llvm::SmallVector<size_t, 2>> ReadIn;
    std::vector<StmtPtr> &Body = L.getBodyMutable().Stmts;
    for (size_t I = 0; I != Body.size(); ++I)
      forEachLoad(*Body[I], [&](const LoadExpr &Ld) {
        if (!isGlobal(Ld.getBuffer()) || !usesAny(Ld.getIndices(), V))
          return;
        auto &Stmts = ReadIn[Ld.getBuffer()];
        if (Stmts.empty() || Stmts.back() != I)
          Stmts.push_back(I);
      });
    for (auto &Entry : ReadIn) {
      BufferValue *Buf = Entry.first;
      auto Visit = [&](Stmt &S) {
        if (auto *P = dyn_cast<ForStmt>(&S))
          addTargets(*P, Buf, V);
      };
      for (size_t K = 1; K < Entry.second.size(); ++K) {
        Stmt &S = *Body[Entry.second[K]];
        Visit(S);
        for (Block *N : getNestedBlocks(S))
          walkStmts(*N, Visit);
      }
    }
  }

  /// The extent of \p P when it is an innermost one-dimensional parallel
  /// loop from 0.
  static std::optional<int64_t> parallelExtent(ForStmt &P) {
    if (P.getLoopKind() != LoopKind::Parallel || P.getDims().size() != 1 ||
        P.getStep())
      return std::nullopt;
    const LoopDim &D = P.getDims()[0];
    if (D.Lo && !ex::isConst(*D.Lo, 0))
      return std::nullopt;
    bool Nested = false;
    walkStmts(P.getBodyMutable(), [&](Stmt &S) { Nested |= isa<ForStmt>(S); });
    if (Nested)
      return std::nullopt;
    return D.Hi->getConstInt();
  }

  /// Whether \p E is a sum in which \p J appears once, as a term of its
  /// own: `%j`, `%a + %j`, `%a + (%b + %j)`.
  static bool hasUnitTerm(const Expr &E, const Value *J) {
    if (const auto *R = dyn_cast<RefExpr>(&E))
      return R->getValue() == J;
    const auto *B = dyn_cast<BinaryExpr>(&E);
    if (!B || B->getOp() != BinaryOp::Add)
      return false;
    const Expr &L = *B->getLHS(), &R = *B->getRHS();
    return (hasUnitTerm(R, J) && !usesValue(L, J)) ||
           (hasUnitTerm(L, J) && !usesValue(R, J));
  }

  /// Whether \p Idx walks the innermost dimension with \p J, one element
  /// per step, and the others not at all.
  static bool isContiguous(llvm::ArrayRef<ExprPtr> Idx, const Value *J) {
    for (size_t D = 0; D + 1 < Idx.size(); ++D)
      if (usesValue(*Idx[D], J))
        return false;
    return hasUnitTerm(*Idx.back(), J);
  }

  void addTargets(ForStmt &P, BufferValue *Buf, const Value *V) {
    // The outermost serial loop that finds P owns it.
    auto It = Work.find(&P);
    if ((It != Work.end() && It->second.front().V != V) || !parallelExtent(P))
      return;
    const Value *J = P.getDims()[0].Var.get();
    llvm::SetVector<const Value *> Inner = definedIn(P.getBodyMutable());
    forEachLoad(P.getBodyMutable(), [&](const LoadExpr &Ld) {
      if (Ld.getBuffer() != Buf || !usesAny(Ld.getIndices(), V) ||
          !isContiguous(Ld.getIndices(), J))
        return;
      bool Local = false;
      for (const ExprPtr &E : Ld.getIndices())
        forEachUse(*E, [&](const Value *U) { Local |= Inner.count(U) > 0; });
      if (Local)
        return;
      std::string Key;
      llvm::raw_string_ostream OS(Key);
      OS << Buf->getName() << '[';
      for (const ExprPtr &E : Ld.getIndices()) {
        printExpr(*E, OS);
        OS << ',';
      }
      if (!Seen[&P].insert(Key).second)
        return;
      Target T;
      T.Buf = Buf;
      T.V = V;
      for (const ExprPtr &E : Ld.getIndices())
        T.Indices.push_back(E->clone());
      Work[&P].push_back(std::move(T));
    });
  }

  std::unique_ptr<Value> loopVar(llvm::StringRef Base) {
    return std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh(Base),
                                   DType::I32, llvm::SMLoc());
  }

  /// \p E with each use of \p From replaced by a copy of \p To.
  static ExprPtr substitute(ExprPtr E, const Value *From, const Expr &To) {
    rewriteExpr(E, [&](ExprPtr X) -> ExprPtr {
      if (auto *R = dyn_cast<RefExpr>(X.get()); R && R->getValue() == From)
        return ex::castTo(To.clone(), R->getDType());
      return X;
    });
    return E;
  }

  void rewriteIn(Block &B) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      if (auto *P = dyn_cast<ForStmt>(S.get()); P && Work.count(P)) {
        rewrite(S, Work[P], Out);
        continue;
      }
      for (Block *N : getNestedBlocks(*S))
        rewriteIn(*N);
      Out.push_back(std::move(S));
    }
    B.Stmts = std::move(Out);
  }

  /// `cpu.prefetch` of \p T's element for iteration %v + distance, with
  /// the parallel loop's variable \p J at \p At.
  StmtPtr prefetch(const Target &T, const Value *J, const Expr &At) {
    ExprPtr Next = ex::add(ex::ref(const_cast<Value *>(T.V)), ex::intLit(Distance));
    std::vector<OpOperand> Operands(1);
    Operands[0].Kind = OperandKind::Region;
    Operands[0].R.Buf = T.Buf;
    for (const ExprPtr &I : T.Indices) {
      RegionIndex RI;
      RI.Offset = ex::fold(substitute(substitute(I->clone(), T.V, *Next), J, At));
      Operands[0].R.Indices.push_back(std::move(RI));
    }
    AttributeList Attrs;
    Attrs.set("locality", Attribute::getInt(Locality));
    return std::make_unique<OpStmt>(&Prefetch, std::move(Operands), std::move(Attrs));
  }

  /// Appends to \p Out the prefetches of the lines of elements
  /// [Base, Base + N) of each target, with J = Base + offset.
  void prefetchLines(llvm::ArrayRef<Target> Targets, const Value *J,
                     llvm::function_ref<ExprPtr(int64_t)> Base, int64_t N,
                     std::vector<StmtPtr> &Out) {
    for (const Target &T : Targets) {
      int64_t PerLine = std::max<int64_t>(1, LineBytes / getDTypeBytes(T.Buf->getDType()));
      for (int64_t Off = 0; Off < N; Off += PerLine)
        Out.push_back(prefetch(T, J, *Base(Off)));
    }
  }

  /// Appends the parallel loop in \p Slot with its prefetches to \p Out:
  /// a loop of at most one chunk after the prefetches of its lines, a
  /// longer one cut into chunks that each begin with theirs (unchanged when
  /// its extent is not a multiple of a chunk).
  void rewrite(StmtPtr &Slot, llvm::ArrayRef<Target> Targets, std::vector<StmtPtr> &Out) {
    auto &P = *llvm::cast<ForStmt>(Slot.get());
    int64_t E = *parallelExtent(P);
    unsigned MinBytes = ~0u;
    for (const Target &T : Targets)
      MinBytes = std::min(MinBytes, getDTypeBytes(T.Buf->getDType()));
    int64_t C = std::max<int64_t>(1, Lines * int64_t(LineBytes) / MinBytes);
    Value *J = P.getDimsMutable()[0].Var.get();
    if (E <= C) {
      prefetchLines(Targets, J, [](int64_t Off) { return ex::intLit(Off); }, E, Out);
      Out.push_back(std::move(Slot));
      return;
    }
    if (E % C != 0) {
      Out.push_back(std::move(Slot));
      return;
    }
    auto JO = loopVar(J->getName().str() + "_o");
    Value *JOV = JO.get();
    // %j_o * C + Off: an element of the chunk.
    auto At = [&](int64_t Off) {
      ExprPtr B = ex::mul(ex::ref(JOV), ex::intLit(C));
      return Off ? ex::add(std::move(B), ex::intLit(Off)) : std::move(B);
    };
    std::vector<StmtPtr> Chunk;
    prefetchLines(Targets, J, At, C, Chunk);
    // The parallel loop walks one chunk: %j becomes %j_o * C + %j.
    ExprPtr Inner = ex::add(At(0), ex::ref(J));
    walkStmts(P.getBodyMutable(), [&](Stmt &S) {
      forEachExprSlot(S, [&](ExprPtr &X) { X = substitute(std::move(X), J, *Inner); });
    });
    P.getDimsMutable()[0].Hi = ex::intLit(C);
    Chunk.push_back(std::move(Slot));
    LoopDim D;
    D.Var = std::move(JO);
    D.Lo = ex::intLit(0);
    D.Hi = ex::intLit(E / C);
    std::vector<LoopDim> Dims;
    Dims.push_back(std::move(D));
    Block Body;
    Body.Stmts = std::move(Chunk);
    Out.push_back(std::make_unique<ForStmt>(LoopKind::Serial, std::move(Dims), nullptr,
                                            AttributeList(), std::move(Body)));
  }

  NameGenerator Names;
  const OpInfo &Prefetch;
  int64_t Distance, Locality, Lines;
  unsigned LineBytes;
  llvm::MapVector<ForStmt *, std::vector<Target>> Work;
  llvm::DenseMap<ForStmt *, llvm::StringSet<>> Seen;
};

class PrefetchNextBlockPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    int64_t Lines = getIntOption("lines");
    int64_t Distance = getIntOption("distance");
    int64_t Locality = getIntOption("locality");
    for (auto [Name, V] : {std::pair<const char *, int64_t>{"distance", Distance},
                           {"lines", Lines}})
      if (V < 1) {
        S.Diag.error(llvm::SMLoc(), std::string("cpu-prefetch-next-block: ") + Name +
                                        " must be at least 1, got " + std::to_string(V));
        return false;
      }
    if (Locality < 0 || Locality > 3) {
      S.Diag.error(llvm::SMLoc(), "cpu-prefetch-next-block: locality must be "
                                  "between 0 and 3, got " + std::to_string(Locality));
      return false;
    }
    const OpInfo *Prefetch = M.getContext().getOpRegistry().lookup("cpu.prefetch");
    if (!Prefetch) {
      S.Diag.error(llvm::SMLoc(), "cpu-prefetch-next-block: the cpu dialect is not "
                                  "registered; register the CPU backend's dialects first");
      return false;
    }
    // Without a target (tile-opt alone), a 64-byte line.
    CPUVectorInfo Info;
    if (S.Backend) {
      llvm::Expected<CPUVectorInfo> I = getCPUVectorInfo(S.Backend->getTarget());
      if (!I) {
        S.Diag.error(llvm::SMLoc(),
                     "cpu-prefetch-next-block: " + llvm::toString(I.takeError()));
        return false;
      }
      Info = *I;
    }
    for (const auto &F : M.getFunctions()) {
      std::vector<KernelStmt *> Kernels;
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          Kernels.push_back(K);
      });
      for (KernelStmt *K : Kernels)
        Prefetcher(*F, *Prefetch, Distance, Locality, Lines, Info.CacheLineBytes)
            .run(K->getBodyMutable());
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createCPUPrefetchNextBlockPass() {
  return std::make_unique<PrefetchNextBlockPass>(getCPUPrefetchNextBlockPassInfo());
}
