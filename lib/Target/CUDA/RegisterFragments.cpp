//===- RegisterFragments.cpp - cuda-register-fragments --------------------===//
//
// Keeps the fragments of memory-bound kernels in registers instead of
// shared memory, before tile-lower-tile-ops and tile-lower-to-simt. A
// kernel qualifies when every fragment is either
//  - distributed: copied from or to global memory, reduced, or written and
//    read elementwise by parallel loops whose iteration space has the
//    fragment's shape. With T threads and vector width V, element
//    e = c * T * V + t * V + v belongs to thread t as its local element
//    c * V + v: each thread holds V consecutive elements of every T * V
//    chunk, so a copy is one 16-byte access per thread and chunk, and a
//    warp's accesses are contiguous;
//  - replicated: small (reduce results, row statistics); every thread
//    holds all of it and computes it redundantly;
//  - sliced: a vector read by a parallel loop at some of its variables (a
//    broadcast, as GEMV's x), or a reduce result whose rows do not span
//    whole T * V chunks (GEMV's row sums): the projection of the loop's
//    (the source's) blocked layout (tile/Analysis LinearLayout), so each
//    thread holds its rows or columns once, and a reduction runs in
//    registers, then over the lanes that share a row, then through shared
//    memory only where warps share one.
// Fragment copies become cuda.vload / cuda.vstore under a whole-tile
// range check, with an element-wise guarded tail; parallel loops become
// unrolled per-thread loops over the thread's elements; a reduce along
// the last dimension becomes a per-thread partial, a butterfly of warp
// shuffles, and, across warps, one slot per warp in shared memory that
// every warp reads back and reduces again, so that each thread ends with
// the result. Nothing else touches shared memory, so no barriers are
// needed but the two around that exchange.
//
// Kernels that do not qualify (a gemm on a fragment, a fragment copied to
// shared memory, a fragment read across threads, shapes that do not share
// out evenly, a broadcast over a shape that is not a power of two) are
// left as they are for the generic SIMT path, with a missed remark.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/FragmentLayouts.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "tile/Transforms/StmtBuilder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <functional>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CUDAPasses.inc"

namespace tile {
void registerCUDAOps(OpRegistry &R);
} // namespace tile

namespace {

using Stmts = std::vector<StmtPtr>;

/// Distributed: the blocked layout (each thread V consecutive elements of
/// every T * V chunk). Replicated: every thread holds it all. Sliced: the
/// projection of a distributed fragment's layout onto some of its
/// dimensions (a row or column vector broadcast over the others, a reduce
/// result): each thread holds the elements of its rows or columns, once.
enum class Layout { Distributed, Replicated, Sliced };

struct FragInfo {
  std::vector<int64_t> Shape;
  int64_t Elems = 1;
  Layout L = Layout::Replicated;
  /// Largest vector width its global copies allow (elements).
  int64_t MaxVec = 16;
  bool Copied = false, CopiedIn = false;
  /// Sliced: the layout over the nonunit dimensions, and which register
  /// bits it keeps (the others repeat an element the thread already holds).
  std::optional<LinearLayout> Slice;
  int64_t SliceRegMask = 0;
  /// Registers a thread holds of a sliced fragment.
  int64_t sliceRegs() const { return int64_t(1) << llvm::popcount(uint64_t(SliceRegMask)); }
};

/// A parallel loop the pass rewrites.
struct LoopPlan {
  Layout L;
  std::vector<int64_t> Extents;
};

bool isPow2(int64_t X) { return X > 0 && (X & (X - 1)) == 0; }

/// Indices of the dimensions of \p Shape with extent other than 1.
std::vector<unsigned> nonUnitDims(llvm::ArrayRef<int64_t> Shape) {
  std::vector<unsigned> Out;
  for (unsigned D = 0; D != Shape.size(); ++D)
    if (Shape[D] != 1)
      Out.push_back(D);
  return Out;
}

std::vector<int64_t> nonUnitExtents(llvm::ArrayRef<int64_t> Shape) {
  std::vector<int64_t> Out;
  for (int64_t E : Shape)
    if (E != 1)
      Out.push_back(E);
  return Out;
}

/// Element types that move as vectors (held in registers as stored).
bool vectorizable(DType T) {
  return !isBool(T) && T != DType::F8E4M3 && T != DType::F8E5M2;
}

class RegisterLowering {
public:
  RegisterLowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
                   int64_t WarpSize, int64_t VectorBytes, int64_t MaxPerThread)
      : Names(F), K(K), Ops(Ops), WarpSize(WarpSize), VectorBytes(VectorBytes),
        MaxPerThread(MaxPerThread) {}

  /// Rewrites the kernel; false (and the kernel untouched) when it does not
  /// qualify.
  bool run() {
    std::optional<int64_t> Th = K.getThreads()->getConstInt();
    if (!Th || *Th <= 0)
      return reject(K.getLoc(), "the kernel's thread count is not a positive constant");
    T = *Th;
    if (!analyze())
      return false;
    rewrite();
    return true;
  }

  /// Why the kernel does not qualify, and where (after run() returned
  /// false; empty when it has no fragments).
  const std::string &getWhy() const { return Why; }
  llvm::SMLoc getWhyLoc() const { return WhyLoc; }
  /// Fast paths a kernel that qualified did not get, and why (after run()
  /// returned true).
  llvm::ArrayRef<std::pair<llvm::SMLoc, std::string>> getMissed() const {
    return Missed;
  }

private:
  /// Records a fast path the kernel does not get, and why.
  void miss(llvm::SMLoc Loc, const llvm::Twine &Msg) {
    Missed.push_back({Loc, Msg.str()});
  }

  /// Records the first reason the kernel does not qualify; returns false.
  bool reject(llvm::SMLoc Loc, const llvm::Twine &Msg) {
    if (Why.empty()) {
      Why = Msg.str();
      WhyLoc = Loc;
    }
    return false;
  }

  //===--- Analysis -------------------------------------------------------===//

  FragInfo *frag(const BufferValue *B) {
    auto It = Frags.find(B);
    return It == Frags.end() ? nullptr : &It->second;
  }

  /// Fragments loaded anywhere in expression \p E.
  void fragLoads(const Expr &E, llvm::function_ref<void(const LoadExpr &)> Fn) {
    if (const auto *L = dyn_cast<LoadExpr>(&E))
      if (frag(L->getBuffer()))
        Fn(*L);
    forEachChild(E, [&](const Expr &C) { fragLoads(C, Fn); });
  }

  bool analyze() {
    // Fragments and their constant shapes.
    bool OK = true;
    walkStmts(K.getBody(), [&](const Stmt &S) {
      const auto *A = dyn_cast<AllocStmt>(&S);
      if (!A || A->getBuffer()->getScope() != MemScope::Fragment)
        return;
      std::optional<std::vector<int64_t>> Shape = A->getBuffer()->getConstShape();
      if (!Shape) {
        OK = reject(A->getLoc(), "fragment %" + A->getBuffer()->getName() + " has no constant shape");
        return;
      }
      FragInfo I;
      I.Shape = *Shape;
      for (int64_t E : *Shape)
        I.Elems *= E;
      Frags[A->getBuffer()] = I;
    });
    if (!OK || Frags.empty())
      return false;
    // Layouts from the ops.
    llvm::DenseSet<const BufferValue *> &ReduceDst = ReduceDstSet;
    OK = true;
    walkStmts(K.getBody(), [&](const Stmt &S) {
      const auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op || !OK)
        return;
      OK = classifyOp(*Op, ReduceDst);
    });
    if (!OK)
      return false;
    for (auto &[B, I] : Frags) {
      if (ReduceDst.count(B)) {
        // Replicated or sliced, decided once the vector width is known.
        I.L = Layout::Replicated;
        continue;
      }
      if (I.Copied || Distributed.count(B) ||
          (I.Elems >= T && I.Elems % T == 0)) {
        I.L = isBroadcast(B) ? Layout::Sliced : Layout::Distributed;
      } else {
        I.L = Layout::Replicated;
      }
      if (I.L == Layout::Replicated && I.Elems > MaxPerThread)
        return reject(B->getLoc(), "fragment %" + B->getName() + " of " + llvm::Twine(I.Elems) + " elements does not share out over the " + llvm::Twine(T) + " threads and is larger than a thread keeps (max-elements-per-thread)");
      if (I.L == Layout::Replicated && Distributed.count(B))
        return reject(B->getLoc(), "reduce source %" + B->getName() + " does not share out over the " + llvm::Twine(T) + " threads");
    }
    if (!chooseVectorWidth() || !sliceReduceResults())
      return false;
    // Copies out of replicated fragments stay for tile-lower-tile-ops.
    llvm::erase_if(Copies, [&](const OpStmt *Op) {
      return !isOwned(Op->getOperand("src").R.Buf) &&
             !isOwned(Op->getOperand("dst").R.Buf);
    });
    // Statements: fragment uses outside ops.
    if (!checkBlock(K.getBody()))
      return false;
    for (const OpStmt *R : Reduces)
      if (!checkReduce(*R))
        return false;
    for (auto &[B, I] : Frags)
      if (I.L == Layout::Sliced && !I.Slice)
        return reject(B->getLoc(), "fragment %" + B->getName() + " is read as a broadcast but by no parallel loop over a distributed fragment");
    return true;
  }

  /// Whether \p B, which would be distributed by its size or its copies,
  /// is read by a parallel loop at a strict subset of the loop's variables
  /// (a row or column vector broadcast over a larger tile) and written by
  /// none: it then takes the projection of that loop's layout.
  bool isBroadcast(const BufferValue *B) {
    bool Read = false, Written = false;
    walkStmts(K.getBody(), [&](const Stmt &S) {
      const auto *F = dyn_cast<ForStmt>(&S);
      if (!F || F->getLoopKind() != LoopKind::Parallel)
        return;
      int64_t Total = 1;
      for (const LoopDim &D : F->getDims()) {
        std::optional<int64_t> C = D.Hi->getConstInt();
        Total *= C ? *C : 0;
      }
      walkStmts(F->getBody(), [&](const Stmt &X) {
        if (const auto *St = dyn_cast<StoreStmt>(&X))
          Written |= St->getBuffer() == B;
        forEachExprSlot(const_cast<Stmt &>(X), [&](ExprPtr &E) {
          fragLoads(*E, [&](const LoadExpr &L) {
            Read |= L.getBuffer() == B && Total > frag(B)->Elems &&
                    loopKeep(*F, L.getIndices()).has_value();
          });
        });
      });
    });
    return Read && !Written;
  }

  /// For an access at loop variables of \p F: the positions, among the
  /// loop's dimensions of extent other than 1, of the variables that index
  /// the buffer's dimensions of extent other than 1 (unit dimensions take
  /// 0); none when an index is anything else.
  std::optional<std::vector<unsigned>> loopKeep(const ForStmt &F,
                                                llvm::ArrayRef<ExprPtr> Idx) {
    std::vector<int64_t> Ext;
    for (const LoopDim &D : F.getDims()) {
      std::optional<int64_t> C = D.Hi->getConstInt();
      if (!C)
        return std::nullopt;
      Ext.push_back(*C);
    }
    std::vector<unsigned> Keep;
    for (const ExprPtr &I : Idx) {
      if (ex::isConst(*I, 0))
        continue;
      unsigned Pos = 0;
      bool Found = false;
      for (unsigned L = 0; L != Ext.size() && !Found; ++L) {
        if (isVar(*I, F.getDims()[L].Var.get())) {
          Found = true;
          if (Ext[L] != 1)
            Keep.push_back(Pos);
        }
        Pos += Ext[L] != 1;
      }
      if (!Found)
        return std::nullopt;
    }
    std::vector<unsigned> Sorted = Keep;
    llvm::sort(Sorted);
    if (std::adjacent_find(Sorted.begin(), Sorted.end()) != Sorted.end())
      return std::nullopt;
    return Keep;
  }

  /// The projection onto \p Keep of the blocked layout of a tile of
  /// nonunit extents \p Ext; none unless the extents are powers of two.
  std::optional<LinearLayout> projectBlocked(llvm::ArrayRef<int64_t> Ext,
                                             llvm::ArrayRef<unsigned> Keep) {
    if (!llvm::all_of(Ext, isPow2))
      return std::nullopt;
    return getBlockedLayout(Ext, T, WarpSize, V).project(Keep);
  }

  /// Gives \p B slice layout \p L, or checks that it has it already.
  bool setSlice(const BufferValue *B, LinearLayout L, llvm::SMLoc Loc) {
    FragInfo &I = *frag(B);
    if (I.Slice)
      return *I.Slice == L || reject(Loc, "fragment %" + B->getName() + " is used here with another layout than before (a layout conversion is not implemented here)");
    I.SliceRegMask = 0;
    for (unsigned R = 0; R != L.getNumBits(HwDim::Register); ++R)
      if (llvm::any_of(L.getBases(HwDim::Register)[R], [](int64_t X) { return X != 0; }))
        I.SliceRegMask |= int64_t(1) << R;
    I.Slice = std::move(L);
    return true;
  }

  /// Reduce results stay replicated where each reduced row spans whole
  /// chunks of T * V elements; otherwise they take the projection of the
  /// source's layout, and the reduction runs within groups of lanes.
  bool sliceReduceResults() {
    for (const OpStmt *Op : Reduces) {
      const BufferValue *Src = Op->getOperand("src").R.Buf,
                        *Dst = Op->getOperand("dst").R.Buf;
      FragInfo &S = *frag(Src), &D = *frag(Dst);
      unsigned Dim = Op->getAttrOrDefault("dim").getInt();
      if (S.L != Layout::Distributed || Dim >= S.Shape.size())
        continue; // checkReduce says why
      if (Dim + 1 == S.Shape.size() && S.Shape.back() % (T * V) == 0 &&
          D.L == Layout::Replicated)
        continue;
      std::vector<unsigned> NU = nonUnitDims(S.Shape), Keep;
      for (unsigned P = 0; P != NU.size(); ++P)
        if (NU[P] != Dim)
          Keep.push_back(P);
      std::optional<LinearLayout> L = projectBlocked(nonUnitExtents(S.Shape), Keep);
      if (!L || Keep.size() == NU.size() ||
          nonUnitExtents(D.Shape) != std::vector<int64_t>(L->getShape()))
        return reject(Op->getLoc(), "reduce of rows of " + llvm::Twine(S.Shape[Dim]) + " elements that do not span whole chunks of " + llvm::Twine(T) + " threads x " + llvm::Twine(V) + " elements, over a shape that is not a power of two in every dimension");
      D.L = Layout::Sliced;
      if (!setSlice(Dst, std::move(*L), Op->getLoc()))
        return false;
    }
    for (auto &[B, I] : Frags)
      if (ReduceDstSet.count(B) && I.L == Layout::Replicated) {
        // Every thread holds it all, so the generic lowering may share the
        // copy out; not in.
        if (I.CopiedIn)
          return reject(B->getLoc(), "reduce result %" + B->getName() + " is also copied in from memory");
        if (I.Elems > MaxPerThread)
          return reject(B->getLoc(), "fragment %" + B->getName() + " of " + llvm::Twine(I.Elems) + " elements does not share out over the " + llvm::Twine(T) + " threads and is larger than a thread keeps (max-elements-per-thread)");
      }
    return true;
  }

  bool classifyOp(const OpStmt &Op,
                  llvm::DenseSet<const BufferValue *> &ReduceDst) {
    llvm::StringRef N = Op.getName();
    auto FragRegion = [&](const Region &R) { return frag(R.Buf) != nullptr; };
    bool Touches = false;
    for (const OpOperand &O : Op.getOperands()) {
      if (O.Kind == OperandKind::Region)
        Touches |= FragRegion(O.R);
      else
        fragLoads(*O.E, [&](const LoadExpr &) { Touches = true; });
    }
    if (!Touches)
      return true;
    if (N == "copy") {
      const Region &S = Op.getOperand("src").R, &D = Op.getOperand("dst").R;
      bool SF = FragRegion(S), DF = FragRegion(D);
      if (SF == DF)
        return reject(Op.getLoc(), "copy between two fragments (no layout conversion here)");
      const Region &F = SF ? S : D, &G = SF ? D : S;
      if (!F.isWholeBuffer() || G.Buf->getScope() != MemScope::Global)
        return reject(Op.getLoc(), F.isWholeBuffer() ? "copy between fragment %" + F.Buf->getName() + " and " + getScopeName(G.Buf->getScope()) + " memory; only copies with global memory are vectorized" : "copy of a part of fragment %" + F.Buf->getName());
      FragInfo &I = *frag(F.Buf);
      I.Copied = true;
      I.CopiedIn |= DF;
      DType GT = G.Buf->getDType();
      int64_t W = vectorizable(GT) && vectorizable(F.Buf->getDType())
                      ? std::max<int64_t>(1, VectorBytes / getDTypeBytes(GT))
                      : 1;
      I.MaxVec = std::min(I.MaxVec, W);
      Copies.push_back(&Op);
      return true;
    }
    if (N == "fill" || N == "clear") {
      const Region &D = Op.getOperand("dst").R;
      if (!D.isWholeBuffer())
        return reject(Op.getLoc(), "fill of a part of fragment %" + D.Buf->getName());
      if (N == "fill")
        return !fragUsedIn(*Op.getOperand("value").E);
      return true;
    }
    if (N == "reduce") {
      const Region &S = Op.getOperand("src").R, &D = Op.getOperand("dst").R;
      if (!FragRegion(S) || !FragRegion(D) || !S.isWholeBuffer() ||
          !D.isWholeBuffer())
        return reject(Op.getLoc(), "reduce of or into a part of a fragment");
      Distributed.insert(S.Buf);
      ReduceDst.insert(D.Buf);
      Reduces.push_back(&Op);
      return true;
    }
    return reject(Op.getLoc(), "'" + N + "' on a fragment");
  }

  bool fragUsedIn(const Expr &E) {
    bool Found = false;
    fragLoads(E, [&](const LoadExpr &) { Found = true; });
    return Found;
  }

  /// One vector width for the kernel: the smallest its copies allow,
  /// halved until every distributed fragment shares out in whole chunks.
  bool chooseVectorWidth() {
    V = 0;
    for (auto &[B, I] : Frags)
      if (I.L == Layout::Distributed && I.Copied)
        V = V ? std::min(V, I.MaxVec) : I.MaxVec;
    if (!V)
      V = 1;
    auto Fits = [&](int64_t W) {
      for (auto &[B, I] : Frags) {
        if (I.L != Layout::Distributed)
          continue;
        std::vector<int64_t> NU = nonUnitExtents(I.Shape);
        if (I.Elems % (T * W) != 0 || NU.empty() || NU.back() % W != 0)
          return false; // the caller says why
      }
      return true;
    };
    while (V > 1 && !Fits(V))
      V /= 2;
    if (!Fits(V))
      return reject(K.getLoc(), "the fragments' shapes do not share out over the " + llvm::Twine(T) + " threads in whole vectors");
    for (auto &[B, I] : Frags)
      if (I.L == Layout::Distributed && I.Elems / T > MaxPerThread)
        return reject(B->getLoc(), "fragment %" + B->getName() + " gives each thread " + llvm::Twine(I.Elems / T) + " elements, more than max-elements-per-thread (" + llvm::Twine(MaxPerThread) + ")");
    return true;
  }

  bool isDist(const BufferValue *B) {
    FragInfo *I = frag(B);
    return I && I->L == Layout::Distributed;
  }
  bool isSliced(const BufferValue *B) {
    FragInfo *I = frag(B);
    return I && I->L == Layout::Sliced;
  }
  /// Whether each thread holds only its own part (distributed or sliced).
  bool isOwned(const BufferValue *B) { return isDist(B) || isSliced(B); }

  /// Statements outside parallel loops: distributed fragments only through
  /// ops; replicated fragments anywhere.
  bool checkBlock(const Block &B) {
    for (const StmtPtr &S : B.Stmts) {
      if (const auto *F = dyn_cast<ForStmt>(S.get());
          F && F->getLoopKind() == LoopKind::Parallel) {
        if (!checkParallel(*F))
          return false;
        continue;
      }
      if (isa<OpStmt>(*S))
        continue; // classified above
      if (const auto *St = dyn_cast<StoreStmt>(S.get()))
        if (isOwned(St->getBuffer()))
          return reject(St->getLoc(), "a store to distributed fragment %" + St->getBuffer()->getName() + " outside a parallel loop");
      bool Bad = false;
      forEachExprSlot(const_cast<Stmt &>(*S), [&](ExprPtr &E) {
        fragLoads(*E, [&](const LoadExpr &L) { Bad |= isOwned(L.getBuffer()); });
      });
      if (Bad)
        return reject(S->getLoc(), "a distributed fragment is read outside a parallel loop");
      for (Block *N : getNestedBlocks(const_cast<Stmt &>(*S)))
        if (!checkBlock(*N))
          return false;
    }
    return true;
  }

  /// Whether index \p E of a distributed access is loop variable \p Var
  /// (or 0 for a unit dimension).
  static bool isVar(const Expr &E, const Value *Var) {
    const auto *R = dyn_cast<RefExpr>(&E);
    return R && R->getValue() == Var;
  }

  bool checkParallel(const ForStmt &F) {
    std::vector<int64_t> Ext;
    int64_t Total = 1;
    for (const LoopDim &D : F.getDims()) {
      std::optional<int64_t> C = D.Hi->getConstInt();
      if (!C)
        return !touchesFragments(F) || reject(F.getLoc(), "a parallel loop over fragments has extents that are not constants");
      Ext.push_back(*C);
      Total *= *C;
    }
    bool AnyDist = false, AnyFrag = false, RepWrite = false, OK = true,
         SideEffects = false;
    const BufferValue *SliceWrite = nullptr;
    std::vector<const LoadExpr *> SliceReads;
    std::vector<unsigned> NULoop = nonUnitDims(Ext);
    auto CheckDistAccess = [&](const BufferValue *B, llvm::ArrayRef<ExprPtr> Idx) {
      const FragInfo &I = *frag(B);
      if (I.Elems != Total || nonUnitExtents(I.Shape) != nonUnitExtents(Ext)) {
        OK = false;
        return;
      }
      std::vector<unsigned> NUF = nonUnitDims(I.Shape);
      for (unsigned D = 0; D != Idx.size(); ++D) {
        auto P = llvm::find(NUF, D);
        if (P == NUF.end()) {
          // A unit dimension: 0, or a unit loop variable.
          bool Zero = ex::isConst(*Idx[D], 0);
          for (unsigned L = 0; L != Ext.size() && !Zero; ++L)
            Zero = Ext[L] == 1 && isVar(*Idx[D], F.getDims()[L].Var.get());
          OK &= Zero;
        } else {
          OK &= isVar(*Idx[D], F.getDims()[NULoop[P - NUF.begin()]].Var.get());
        }
      }
    };
    std::function<void(const Block &)> Walk = [&](const Block &B) {
      for (const StmtPtr &S : B.Stmts) {
        if (const auto *Fo = dyn_cast<ForStmt>(S.get());
            Fo && Fo->getLoopKind() == LoopKind::Parallel)
          OK = false;
        if (isa<OpStmt>(*S))
          SideEffects = true;
        if (const auto *St = dyn_cast<StoreStmt>(S.get())) {
          if (FragInfo *I = frag(St->getBuffer())) {
            AnyFrag = true;
            if (I->L == Layout::Distributed) {
              AnyDist = true;
              CheckDistAccess(St->getBuffer(), St->getIndices());
            } else if (I->L == Layout::Sliced) {
              SliceWrite = St->getBuffer();
            } else {
              RepWrite = true;
            }
          } else if (St->getBuffer()->getScope() != MemScope::Var &&
                     St->getBuffer()->getScope() != MemScope::Local) {
            SideEffects = true;
          }
        }
        forEachExprSlot(const_cast<Stmt &>(*S), [&](ExprPtr &E) {
          fragLoads(*E, [&](const LoadExpr &L) {
            AnyFrag = true;
            if (isDist(L.getBuffer())) {
              AnyDist = true;
              CheckDistAccess(L.getBuffer(), L.getIndices());
            } else if (isSliced(L.getBuffer())) {
              SliceReads.push_back(&L);
            }
          });
        });
        for (Block *N : getNestedBlocks(const_cast<Stmt &>(*S)))
          Walk(*N);
      }
    };
    Walk(F.getBody());
    if (!OK)
      return reject(F.getLoc(), "a parallel loop reads or writes a distributed fragment at indices other than its own loop variables, or nests a parallel loop");
    if (!AnyFrag)
      return true; // left to the generic path
    if (SliceWrite)
      return reject(F.getLoc(), "a parallel loop writes fragment %" + SliceWrite->getName() + ", whose elements several threads hold (a broadcast or reduce result)");
    for (const LoadExpr *L : SliceReads) {
      const BufferValue *B = L->getBuffer();
      std::optional<std::vector<unsigned>> Keep = loopKeep(F, L->getIndices());
      std::optional<LinearLayout> Lay;
      if (Keep)
        Lay = projectBlocked(nonUnitExtents(Ext), *Keep);
      if (!AnyDist || !Lay ||
          std::vector<int64_t>(Lay->getShape()) != nonUnitExtents(frag(B)->Shape))
        return reject(F.getLoc(), "fragment %" + B->getName() + " is read here other than as a broadcast over a parallel loop's distributed fragments (at a subset of the loop variables, power-of-two extents)");
      if (!setSlice(B, std::move(*Lay), F.getLoc()))
        return false;
    }
    if (AnyDist) {
      if (RepWrite)
        return reject(F.getLoc(), "a parallel loop writes a replicated fragment and reads a distributed one");
      Loops[&F] = {Layout::Distributed, Ext};
      return true;
    }
    // Only replicated fragments. Read only: any thread may run any
    // iteration, so the loop stays for tile-lower-to-simt to share out.
    // Written: every thread runs every iteration, which is only right
    // without side effects outside the thread.
    if (!RepWrite)
      return true;
    if (SideEffects || Total > MaxPerThread)
      return reject(F.getLoc(), "a parallel loop writing a replicated fragment has side effects or more than max-elements-per-thread iterations");
    Loops[&F] = {Layout::Replicated, Ext};
    return true;
  }

  bool touchesFragments(const ForStmt &F) {
    bool Found = false;
    walkStmts(F.getBody(), [&](const Stmt &S) {
      if (const auto *St = dyn_cast<StoreStmt>(&S))
        Found |= frag(St->getBuffer()) != nullptr;
      forEachExprSlot(const_cast<Stmt &>(S), [&](ExprPtr &E) {
        Found |= fragUsedIn(*E);
      });
    });
    return Found;
  }

  bool checkReduce(const OpStmt &Op) {
    const FragInfo &S = *frag(Op.getOperand("src").R.Buf);
    const FragInfo &D = *frag(Op.getOperand("dst").R.Buf);
    unsigned Dim = Op.getAttrOrDefault("dim").getInt();
    DType Ty = Op.getOperand("dst").R.Buf->getDType();
    if (D.L == Layout::Sliced) {
      // Its layout is the projection of the source's (sliceReduceResults).
      if (getDTypeBits(Ty) > 32 || isBool(Ty) || !isPow2(T) ||
          (T > WarpSize && T % WarpSize != 0))
        return reject(Op.getLoc(), "reduce into numbers of more than 32 bits, or over a thread count that is not a power of two");
      return true;
    }
    if (S.L != Layout::Distributed || D.L != Layout::Replicated ||
        Dim + 1 != S.Shape.size() || getDTypeBits(Ty) > 32 || isBool(Ty))
      return reject(Op.getLoc(), "reduce is not of a distributed fragment along its last dimension into a replicated one of at most 32-bit numbers");
    int64_t C = S.Shape.back();
    if (C % (T * V) != 0 || !isPow2(T) || (T > WarpSize && T % WarpSize != 0))
      return reject(Op.getLoc(), "reduce of rows of " + llvm::Twine(C) + " elements does not share out over the " + llvm::Twine(T) + " threads in whole vectors (or the thread count is not a power of two)");
    std::vector<int64_t> Rows(S.Shape.begin(), S.Shape.end() - 1);
    return D.Elems == S.Elems / C && nonUnitExtents(Rows) == nonUnitExtents(D.Shape);
  }

  //===--- Building blocks ------------------------------------------------===//

  StmtPtr unroll(llvm::StringRef Name, int64_t Lo, int64_t Hi,
                 llvm::function_ref<Stmts(Value *)> Body) {
    LoopDim D;
    D.Var = std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh(Name),
                                    DType::I32, llvm::SMLoc());
    D.Lo = ex::intLit(Lo);
    D.Hi = ex::intLit(Hi);
    Value *Var = D.Var.get();
    NonNeg.insert(Var);
    std::vector<LoopDim> Dims;
    Dims.push_back(std::move(D));
    return std::make_unique<ForStmt>(LoopKind::Unroll, std::move(Dims), nullptr,
                                     AttributeList(), stmt::block(Body(Var)));
  }

  BufferValue *allocTop(llvm::StringRef Name, MemScope Scope, DType Ty,
                        int64_t N) {
    std::vector<ExprPtr> Shape;
    Shape.push_back(ex::intLit(N));
    auto B = std::make_unique<BufferValue>(Names.fresh(Name), Ty, Scope,
                                           std::move(Shape),
                                           std::vector<ExprPtr>(), false,
                                           llvm::SMLoc());
    BufferValue *P = B.get();
    TopAllocs.push_back(std::make_unique<AllocStmt>(std::move(B), AttributeList()));
    return P;
  }

  static StmtPtr store(BufferValue *B, std::vector<ExprPtr> Idx, ExprPtr V) {
    V = ex::castTo(std::move(V), B->getDType());
    return std::make_unique<StoreStmt>(B, std::move(Idx), std::move(V));
  }

  static std::vector<ExprPtr> one(ExprPtr E) {
    std::vector<ExprPtr> V;
    V.push_back(std::move(E));
    return V;
  }

  static ExprPtr div(ExprPtr A, int64_t B) {
    return B == 1 ? std::move(A) : ex::binary(BinaryOp::Div, std::move(A), ex::intLit(B));
  }
  static ExprPtr rem(ExprPtr A, int64_t B) {
    return ex::binary(BinaryOp::Rem, std::move(A), ex::intLit(B));
  }

  /// The indices, in a buffer of \p Shape, of the element a thread holds
  /// as local element C * V + Vv (Vv null for 0): linear index
  /// e = C * T * V + %tx * V + Vv, split so that the parts known at compile
  /// time after unrolling stay separate from the thread's part.
  std::vector<ExprPtr> elementIndex(llvm::ArrayRef<int64_t> Shape, Value *C,
                                    Value *Vv) {
    std::vector<unsigned> NU = nonUnitDims(Shape);
    std::vector<ExprPtr> Idx(Shape.size());
    for (ExprPtr &I : Idx)
      I = ex::intLit(0);
    if (NU.empty())
      return Idx;
    int64_t TV = T * V, Inner = Shape[NU.back()];
    auto VPart = [&]() { return Vv ? ex::ref(Vv) : ex::intLit(0); };
    auto Lane = [&]() { return ex::mul(ex::ref(Tid), ex::intLit(V)); };
    ExprPtr In, Outer;
    if (Inner % TV == 0) {
      ExprPtr Base = ex::mul(ex::ref(C), ex::intLit(TV));
      In = ex::add(ex::add(rem(Base->clone(), Inner), Lane()), VPart());
      Outer = div(std::move(Base), Inner);
    } else if (TV % Inner == 0) {
      In = ex::add(rem(Lane(), Inner), VPart());
      Outer = ex::add(ex::mul(ex::ref(C), ex::intLit(TV / Inner)),
                      div(Lane(), Inner));
    } else {
      ExprPtr E = ex::add(ex::add(ex::mul(ex::ref(C), ex::intLit(TV)), Lane()),
                          VPart());
      In = rem(E->clone(), Inner);
      Outer = div(std::move(E), Inner);
    }
    Idx[NU.back()] = std::move(In);
    // The outer dimensions, row-major.
    int64_t Stride = 1;
    for (size_t P = NU.size() - 1; P-- > 0;) {
      ExprPtr I = div(Outer->clone(), Stride);
      if (P != 0)
        I = rem(std::move(I), Shape[NU[P]]);
      Idx[NU[P]] = std::move(I);
      Stride *= Shape[NU[P]];
    }
    return Idx;
  }

  /// Row-major indices of linear element \p L of \p Shape.
  static std::vector<ExprPtr> delinearize(llvm::ArrayRef<int64_t> Shape,
                                          const Expr &L) {
    std::vector<ExprPtr> Idx(Shape.size());
    int64_t Stride = 1;
    for (size_t D = Shape.size(); D-- > 0;) {
      ExprPtr I = Shape[D] == 1 ? ex::intLit(0) : div(L.clone(), Stride);
      if (D != 0 && Shape[D] != 1)
        I = rem(std::move(I), Shape[D]);
      Idx[D] = std::move(I);
      Stride *= Shape[D];
    }
    return Idx;
  }

  ExprPtr localIndex(Value *C, Value *Vv) {
    ExprPtr I = ex::mul(ex::ref(C), ex::intLit(V));
    return Vv ? ex::add(std::move(I), ex::ref(Vv)) : std::move(I);
  }

  bool isNonNeg(const Expr &E) const {
    if (std::optional<int64_t> C = E.getConstInt())
      return *C >= 0;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      Value::Kind Kd = R->getValue()->getKind();
      return Kd == Value::Kind::Dim || Kd == Value::Kind::BlockIdx ||
             Kd == Value::Kind::ThreadIdx || NonNeg.count(R->getValue());
    }
    if (const auto *B = dyn_cast<BinaryExpr>(&E))
      return (B->getOp() == BinaryOp::Add || B->getOp() == BinaryOp::Mul ||
              B->getOp() == BinaryOp::Div || B->getOp() == BinaryOp::Rem) &&
             isNonNeg(*B->getLHS()) && isNonNeg(*B->getRHS());
    return false;
  }

  //===--- Copies ---------------------------------------------------------===//

  /// A global region paired with a distributed fragment.
  struct GlobalSide {
    const Region *R;
    std::vector<const Expr *> Ext;
    /// Per global dimension: the fragment dimension indexing it, or -1.
    std::vector<int> FragDim;
    bool Vector = false;
  };

  GlobalSide pairGlobal(const Region &G, const Region &F) {
    GlobalSide S;
    S.R = &G;
    S.Ext = getRegionExtentExprs(G, &F);
    const FragInfo &I = *frag(F.Buf);
    std::vector<unsigned> NUF = nonUnitDims(I.Shape);
    unsigned P = 0;
    for (const Expr *E : S.Ext) {
      bool Unit = !E || ex::isConst(*E, 1);
      S.FragDim.push_back(!Unit && P < NUF.size() ? int(NUF[P++]) : -1);
    }
    S.Vector = V > 1 && G.Buf->getStrides().empty() && !S.FragDim.empty() &&
               S.FragDim.back() == int(NUF.back()) &&
               vectorizable(G.Buf->getDType()) && vectorizable(F.Buf->getDType());
    return S;
  }

  std::vector<ExprPtr> globalIndex(const GlobalSide &S,
                                   const std::vector<ExprPtr> &FragIdx) {
    std::vector<ExprPtr> Idx;
    for (unsigned D = 0; D != S.FragDim.size(); ++D) {
      ExprPtr I = S.R->isWholeBuffer() ? ex::intLit(0)
                                       : S.R->Indices[D].Offset->clone();
      if (S.FragDim[D] >= 0)
        I = ex::add(std::move(I), FragIdx[S.FragDim[D]]->clone());
      Idx.push_back(std::move(I));
    }
    return Idx;
  }

  ExprPtr inRange(const GlobalSide &S, const std::vector<ExprPtr> &Idx) {
    ExprPtr C;
    for (unsigned D = 0; D != Idx.size(); ++D) {
      if (!isNonNeg(*Idx[D]))
        C = ex::land(std::move(C), ex::ge(Idx[D]->clone(), ex::intLit(0)));
      C = ex::land(std::move(C),
                   ex::lt(Idx[D]->clone(), S.R->Buf->getShape()[D]->clone()));
    }
    return C ? std::move(C) : ex::boolLit(true);
  }

  ExprPtr tileInRange(const GlobalSide &S) {
    ExprPtr C;
    for (unsigned D = 0; D != S.FragDim.size(); ++D) {
      ExprPtr Off = S.R->isWholeBuffer() ? ex::intLit(0)
                                         : S.R->Indices[D].Offset->clone();
      if (!isNonNeg(*Off))
        C = ex::land(std::move(C), ex::ge(Off->clone(), ex::intLit(0)));
      ExprPtr End = ex::add(std::move(Off), S.Ext[D] ? S.Ext[D]->clone()
                                                     : ex::intLit(1));
      C = ex::land(std::move(C),
                   ex::le(std::move(End), S.R->Buf->getShape()[D]->clone()));
    }
    return C ? std::move(C) : ex::boolLit(true);
  }

  /// Per thread: `if (tile in range) { whole chunks, as vectors } else {
  /// element by element, guarded }`.
  Stmts lowerCopy(const OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    bool Load = frag(DR.Buf) != nullptr;
    const Region &F = Load ? DR : SR, &G = Load ? SR : DR;
    GlobalSide S = pairGlobal(G, F);
    const FragInfo &I = *frag(F.Buf);
    BufferValue *FB = F.Buf, *GB = G.Buf;
    int64_t Chunks = I.Elems / (T * V);
    auto Element = [&](Value *C, Value *Vv, bool Guard) {
      std::vector<ExprPtr> FI = elementIndex(I.Shape, C, Vv);
      std::vector<ExprPtr> GI = globalIndex(S, FI);
      Stmts Out;
      if (Load) {
        ExprPtr Cond = Guard ? inRange(S, GI) : nullptr;
        StmtPtr Ld = store(FB, one(localIndex(C, Vv)), ex::load(GB, std::move(GI)));
        if (!Cond) {
          Out.push_back(std::move(Ld));
        } else {
          Stmts Then, Else;
          Then.push_back(std::move(Ld));
          Else.push_back(store(FB, one(localIndex(C, Vv)), ex::zero(FB->getDType())));
          Out.push_back(stmt::ifThen(std::move(Cond), std::move(Then), std::move(Else)));
        }
      } else {
        ExprPtr Cond = Guard ? inRange(S, GI) : nullptr;
        StmtPtr St = store(GB, std::move(GI), ex::load(FB, one(localIndex(C, Vv))));
        if (!Cond) {
          Out.push_back(std::move(St));
        } else {
          Stmts Then;
          Then.push_back(std::move(St));
          Out.push_back(stmt::ifThen(std::move(Cond), std::move(Then)));
        }
      }
      return Out;
    };
    auto Elements = [&](bool Guard) {
      Stmts Out;
      Out.push_back(unroll("c", 0, Chunks, [&](Value *C) {
        if (V == 1)
          return Element(C, nullptr, Guard);
        Stmts In;
        In.push_back(unroll("v", 0, V, [&](Value *Vv) {
          return Element(C, Vv, Guard);
        }));
        return In;
      }));
      return Out;
    };
    if (!S.Vector)
      miss(Op.getLoc(), "copy of %" + FB->getName() + " not vectorized: " + (V == 1 ? "the kernel's fragments share out over its " + llvm::Twine(T) + " threads in single elements only" : llvm::Twine("the global side is strided or not indexed along its contiguous dimension by the fragment's last one, or an element type does not move as vectors")));
    Stmts Fast;
    if (S.Vector) {
      Fast.push_back(unroll("c", 0, Chunks, [&](Value *C) {
        std::vector<ExprPtr> GI = globalIndex(S, elementIndex(I.Shape, C, nullptr));
        std::vector<OpOperand> Ops(2);
        Region GRg, FRg;
        GRg.Buf = GB;
        for (ExprPtr &X : GI)
          GRg.Indices.push_back({std::move(X), nullptr});
        FRg.Buf = FB;
        FRg.Indices.push_back({localIndex(C, nullptr), nullptr});
        Ops[0].Kind = Ops[1].Kind = OperandKind::Region;
        Ops[0].R = Load ? std::move(GRg) : std::move(FRg);
        Ops[1].R = Load ? std::move(FRg) : std::move(GRg);
        AttributeList Attrs;
        Attrs.set("width", Attribute::getInt(V));
        Stmts Out;
        Out.push_back(std::make_unique<OpStmt>(
            this->Ops.lookup(Load ? "cuda.vload" : "cuda.vstore"), std::move(Ops),
            std::move(Attrs), Op.getLoc()));
        return Out;
      }));
    } else {
      Fast = Elements(false);
    }
    Stmts Out;
    Out.push_back(stmt::ifThen(tileInRange(S), std::move(Fast), Elements(true)));
    return Out;
  }

  //===--- Fills ----------------------------------------------------------===//

  Stmts lowerFill(const OpStmt &Op) {
    const Region &D = Op.getOperand("dst").R;
    const FragInfo &I = *frag(D.Buf);
    const Expr *Val = Op.getName() == "fill" ? Op.getOperand("value").E.get() : nullptr;
    auto Value_ = [&]() { return Val ? Val->clone() : ex::zero(D.Buf->getDType()); };
    int64_t N = I.L == Layout::Distributed ? I.Elems / T
                : I.L == Layout::Sliced    ? I.sliceRegs()
                                           : I.Elems;
    Stmts Out;
    Out.push_back(unroll("e", 0, N, [&](Value *E) {
      Stmts S;
      std::vector<ExprPtr> Idx;
      if (I.L != Layout::Replicated)
        Idx = one(ex::ref(E));
      else
        Idx = delinearize(I.Shape, *ex::ref(E));
      S.push_back(store(D.Buf, std::move(Idx), Value_()));
      return S;
    }));
    return Out;
  }

  //===--- Parallel loops -------------------------------------------------===//

  /// Replaces uses of loop variables by \p Map and distributed fragment
  /// accesses by local element \p Local, everywhere in \p B.
  void remapBody(Block &B, const llvm::DenseMap<const Value *, Value *> &Map,
                 Value *C, Value *Vv) {
    auto Fix = [&](ExprPtr &Slot) {
      rewriteExpr(Slot, [&](ExprPtr E) -> ExprPtr {
        if (auto *R = dyn_cast<RefExpr>(E.get()))
          if (Value *N = Map.lookup(R->getValue()))
            R->setValue(N);
        if (auto *L = dyn_cast<LoadExpr>(E.get())) {
          if (isDist(L->getBuffer()))
            L->getIndicesMutable() = one(localIndex(C, Vv));
          else if (isSliced(L->getBuffer()))
            L->getIndicesMutable() = one(compactReg(
                *localIndex(C, Vv), frag(L->getBuffer())->SliceRegMask));
        }
        return E;
      });
    };
    walkStmts(B, [&](Stmt &S) {
      forEachExprSlot(S, Fix);
      if (auto *St = dyn_cast<StoreStmt>(&S))
        if (isDist(St->getBuffer()))
          St->getIndicesMutable() = one(localIndex(C, Vv));
    });
  }

  Stmts lowerParallel(ForStmt &F, const LoopPlan &P) {
    Stmts Out;
    std::vector<LoopDim> &Dims = F.getDimsMutable();
    if (P.L == Layout::Replicated) {
      // Every thread runs every iteration: nested unrolled loops.
      Block Body = std::move(F.getBodyMutable());
      for (size_t D = Dims.size(); D-- > 0;) {
        LoopDim L = std::move(Dims[D]);
        L.Lo = ex::intLit(0);
        NonNeg.insert(L.Var.get());
        std::vector<LoopDim> One;
        One.push_back(std::move(L));
        auto Loop = std::make_unique<ForStmt>(LoopKind::Unroll, std::move(One),
                                              nullptr, AttributeList(),
                                              std::move(Body), F.getLoc());
        Body = Block();
        Body.Stmts.push_back(std::move(Loop));
      }
      for (StmtPtr &S : Body.Stmts)
        Out.push_back(std::move(S));
      return Out;
    }
    int64_t Total = 1;
    for (int64_t E : P.Extents)
      Total *= E;
    int64_t Chunks = Total / (T * V);
    Block Body = std::move(F.getBodyMutable());
    auto Inner = [&](Value *C, Value *Vv) {
      Stmts S;
      std::vector<ExprPtr> Idx = elementIndex(P.Extents, C, Vv);
      llvm::DenseMap<const Value *, Value *> Map;
      // The loop variables become lets of the same names.
      for (unsigned D = 0; D != Dims.size(); ++D) {
        auto Var = std::make_unique<Value>(Value::Kind::Let,
                                           Dims[D].Var->getName(), DType::I32,
                                           Dims[D].Var->getLoc());
        NonNeg.insert(Var.get());
        Map[Dims[D].Var.get()] = Var.get();
        S.push_back(std::make_unique<LetStmt>(std::move(Var), std::move(Idx[D])));
      }
      remapBody(Body, Map, C, Vv);
      for (StmtPtr &X : Body.Stmts)
        S.push_back(std::move(X));
      return S;
    };
    Out.push_back(unroll("c", 0, Chunks, [&](Value *C) {
      if (V == 1)
        return Inner(C, nullptr);
      Stmts In;
      In.push_back(unroll("v", 0, V, [&](Value *Vv) { return Inner(C, Vv); }));
      return In;
    }));
    return Out;
  }

  //===--- Reductions -----------------------------------------------------===//

  /// What the parts of a reduce's lowering share.
  struct ReduceInfo {
    BufferValue *Src, *Dst;
    std::string Kind;
    bool Clear;
    DType Ty;
    int64_t Rows, PerRow;
  };

  ReduceInfo reduceInfo(const OpStmt &Op) {
    ReduceInfo R;
    R.Src = Op.getOperand("src").R.Buf;
    R.Dst = Op.getOperand("dst").R.Buf;
    R.Kind = Op.getAttrOrDefault("kind").getStr().str();
    R.Clear = Op.getAttrOrDefault("clear").getBool();
    R.Ty = R.Dst->getDType();
    const FragInfo &SI = *frag(R.Src);
    int64_t C = SI.Shape.back();
    R.Rows = SI.Elems / C;
    R.PerRow = C / T;
    return R;
  }

  /// The value that combining with leaves anything unchanged.
  static ExprPtr identity(const ReduceInfo &R) {
    if (R.Kind == "min")
      return ex::highest(R.Ty);
    if (R.Kind == "max")
      return ex::lowest(R.Ty);
    return ex::zero(R.Ty); // sum, abssum, absmax (|x| >= 0)
  }

  /// Part[r] = the thread's elements of row r combined (into Part[r] as it
  /// is when \p Accumulate).
  Stmts threadPartial(const ReduceInfo &R, BufferValue *Part, bool Accumulate) {
    auto Elem = [&](ExprPtr LocalIdx) {
      ExprPtr X = ex::castTo(ex::load(R.Src, one(std::move(LocalIdx))), R.Ty);
      if (llvm::StringRef(R.Kind).starts_with("abs"))
        X = ex::call(Intrinsic::Abs, one(std::move(X)));
      return X;
    };
    Stmts Out;
    Out.push_back(unroll("r", 0, R.Rows, [&](Value *Row) {
      Stmts S;
      ExprPtr First = ex::mul(ex::ref(Row), ex::intLit(R.PerRow));
      int64_t From = 0;
      if (!Accumulate) {
        S.push_back(store(Part, one(ex::ref(Row)), Elem(First->clone())));
        From = 1;
      }
      if (R.PerRow > From)
        S.push_back(unroll("q", From, R.PerRow, [&](Value *Q) {
          Stmts In;
          In.push_back(store(Part, one(ex::ref(Row)),
                             ex::reduceCombine(R.Kind, ex::load(Part, one(ex::ref(Row))),
                                     Elem(ex::add(First->clone(), ex::ref(Q))))));
          return In;
        }));
      return S;
    }));
    return Out;
  }

  /// Combines Part[r] over the block's threads, leaving the result in every
  /// thread's Part[r]: a butterfly of shuffles within each warp; across
  /// warps, one shared slot per warp and row, a barrier, every lane reading
  /// warp (lane % W)'s slot and a butterfly over W lanes, and a barrier
  /// before the slots may be written again.
  Stmts acrossThreads(const ReduceInfo &R, BufferValue *Part, llvm::SMLoc Loc) {
    int64_t Lanes = std::min(T, WarpSize), Warps = T / Lanes;
    BufferValue *Tmp = allocTop("shfl", MemScope::Local, R.Ty, 1);
    auto Butterfly = [&](Stmts &S, Value *Row, int64_t Width) {
      for (int64_t O = Width / 2; O >= 1; O /= 2)
        shuffleCombine(S, R, Part, *ex::ref(Row), O, Tmp, Loc);
    };
    Stmts Out;
    Out.push_back(unroll("r", 0, R.Rows, [&](Value *Row) {
      Stmts S;
      Butterfly(S, Row, Lanes);
      return S;
    }));
    if (Warps > 1) {
      BufferValue *Red = allocTop("red", MemScope::Shared, R.Ty, R.Rows * Warps);
      auto Slot = [&](Value *Row, ExprPtr Warp) {
        return one(ex::add(ex::mul(ex::ref(Row), ex::intLit(Warps)), std::move(Warp)));
      };
      Stmts Write;
      Write.push_back(unroll("r", 0, R.Rows, [&](Value *Row) {
        Stmts S;
        S.push_back(store(Red, Slot(Row, div(ex::ref(Tid), Lanes)),
                          ex::load(Part, one(ex::ref(Row)))));
        return S;
      }));
      Out.push_back(stmt::ifThen(ex::binary(BinaryOp::Eq, rem(ex::ref(Tid), Lanes),
                                      ex::intLit(0)),
                           std::move(Write)));
      Out.push_back(barrier());
      Out.push_back(unroll("r", 0, R.Rows, [&](Value *Row) {
        Stmts S;
        S.push_back(store(Part, one(ex::ref(Row)),
                          ex::load(Red, Slot(Row, rem(ex::ref(Tid), Warps)))));
        Butterfly(S, Row, Warps);
        return S;
      }));
      Out.push_back(barrier());
    }
    return Out;
  }

  /// Part[I] combined with its value in the lane \p Offset away (through
  /// local \p Tmp).
  void shuffleCombine(Stmts &S, const ReduceInfo &R, BufferValue *Part,
                      const Expr &I, int64_t Offset, BufferValue *Tmp,
                      llvm::SMLoc Loc) {
    std::vector<OpOperand> Operands(2);
    Operands[0].Kind = OperandKind::Expr;
    Operands[0].E = ex::load(Part, one(I.clone()));
    Operands[1].Kind = OperandKind::Region;
    Operands[1].R.Buf = Tmp;
    Operands[1].R.Indices.push_back({ex::intLit(0), nullptr});
    AttributeList Attrs;
    Attrs.set("offset", Attribute::getInt(Offset));
    S.push_back(std::make_unique<OpStmt>(Ops.lookup("cuda.shfl_xor"),
                                         std::move(Operands), std::move(Attrs),
                                         Loc));
    S.push_back(store(Part, one(I.clone()),
                      ex::reduceCombine(R.Kind, ex::load(Part, one(I.clone())),
                              ex::load(Tmp, one(ex::intLit(0))))));
  }

  //===--- Sliced fragments -----------------------------------------------===//

  /// The register of a sliced fragment that holds what the thread's
  /// register \p Reg of the parent (distributed) layout holds: \p Reg with
  /// the bits outside \p Mask dropped.
  static ExprPtr compactReg(const Expr &Reg, int64_t Mask) {
    ExprPtr Sum;
    unsigned Out = 0;
    for (unsigned B = 0; B != 63;) {
      if (!(Mask >> B & 1)) {
        ++B;
        continue;
      }
      unsigned N = 0;
      while (Mask >> (B + N) & 1)
        ++N;
      ExprPtr X = rem(div(Reg.clone(), int64_t(1) << B), int64_t(1) << N);
      if (Out)
        X = ex::mul(std::move(X), ex::intLit(int64_t(1) << Out));
      Sum = Sum ? ex::add(std::move(Sum), std::move(X)) : std::move(X);
      Out += N;
      B += N;
    }
    return Sum ? std::move(Sum) : ex::intLit(0);
  }

  /// \p K's bits deposited at the set bits of \p Mask, lowest first.
  static int64_t depositBits(int64_t K, int64_t Mask) {
    int64_t Out = 0;
    for (unsigned B = 0; B != 63 && K; ++B)
      if (Mask >> B & 1) {
        Out |= (K & 1) << B;
        K >>= 1;
      }
    return Out;
  }

  /// The bits of the thread index that select lanes and warps whose basis
  /// in \p L is zero (they hold copies of another thread's elements), or
  /// whose basis in \p Parent is nonzero along dimension \p Dim when
  /// \p Parent is given (the threads a reduction along Dim combines).
  int64_t threadBits(const LinearLayout &L, const LinearLayout *Parent,
                     unsigned Dim) const {
    int64_t Mask = 0;
    unsigned Shift = 0;
    for (HwDim H : {HwDim::Lane, HwDim::Warp}) {
      for (unsigned B = 0; B != L.getNumBits(H); ++B) {
        bool Hit = Parent ? Parent->getBases(H)[B][Dim] != 0
                          : llvm::all_of(L.getBases(H)[B],
                                         [](int64_t X) { return X == 0; });
        if (Hit)
          Mask |= int64_t(1) << (Shift + B);
      }
      Shift += log2Exact(WarpSize);
    }
    return Mask;
  }

  /// The fragment indices of register \p K of a sliced fragment in the
  /// calling thread.
  std::vector<ExprPtr> sliceIndex(const FragInfo &I, int64_t K) {
    const LinearLayout &L = *I.Slice;
    // The register's part is a constant; the thread's part goes through
    // the layout's lane and warp bases alone.
    LinearLayout::Coords Const = L.apply(depositBits(K, I.SliceRegMask), 0, 0);
    LinearLayout Threads(std::vector<int64_t>(L.getShape()));
    for (HwDim H : {HwDim::Lane, HwDim::Warp})
      for (const LinearLayout::Coords &B : L.getBases(H))
        Threads.addBasis(H, B);
    ExprPtr Lane = rem(ex::ref(Tid), WarpSize), Warp = div(ex::ref(Tid), WarpSize);
    std::vector<unsigned> NU = nonUnitDims(I.Shape);
    std::vector<ExprPtr> Idx(I.Shape.size());
    for (ExprPtr &X : Idx)
      X = ex::intLit(0);
    for (unsigned P = 0; P != NU.size(); ++P) {
      ExprPtr C = Threads.buildCoordinate(P, *ex::intLit(0), *Lane, *Warp);
      Idx[NU[P]] = Const[P] ? ex::add(ex::intLit(Const[P]), std::move(C)) : std::move(C);
    }
    return Idx;
  }

  /// A copy between global memory and a sliced fragment: each thread moves
  /// its registers (vectors where its lowest registers hold consecutive
  /// elements of the contiguous dimension); a store only from the threads
  /// that hold the original of each element, not a copy.
  Stmts lowerSliceCopy(const OpStmt &Op) {
    const Region &SR = Op.getOperand("src").R, &DR = Op.getOperand("dst").R;
    bool Load = isSliced(DR.Buf);
    const Region &F = Load ? DR : SR, &G = Load ? SR : DR;
    const FragInfo &I = *frag(F.Buf);
    const LinearLayout &L = *I.Slice;
    BufferValue *FB = F.Buf, *GB = G.Buf;
    GlobalSide S = pairGlobal(G, F);
    // The vector: registers 0, 1, ... walking the last dimension by 1, 2, ...
    int64_t W = 1, Last = L.getRank() - 1;
    int64_t MaxW = vectorizable(GB->getDType()) && vectorizable(FB->getDType())
                       ? VectorBytes / getDTypeBytes(GB->getDType())
                       : 1;
    while (2 * W <= MaxW && log2Exact(W) < L.getNumBits(HwDim::Register) &&
           L.getBases(HwDim::Register)[log2Exact(W)][Last] == W &&
           llvm::count(L.getBases(HwDim::Register)[log2Exact(W)], 0) + 1 ==
               int64_t(L.getRank()))
      W *= 2;
    bool Vector = W > 1 && GB->getStrides().empty() && !S.FragDim.empty() &&
                  S.FragDim.back() == int(nonUnitDims(I.Shape).back());
    int64_t Regs = I.sliceRegs();
    if (!Vector)
      miss(Op.getLoc(), "copy of %" + FB->getName() + " not vectorized: " + (W == 1 ? "a thread's elements of it are not consecutive along its last dimension" : "the global side is strided or not indexed along its contiguous dimension by the fragment's last one") + " (" + llvm::Twine(Regs) + " element accesses per thread)");
    auto Elements = [&](bool Guard) {
      Stmts Out;
      for (int64_t K = 0; K != Regs; ++K) {
        std::vector<ExprPtr> GI = globalIndex(S, sliceIndex(I, K));
        ExprPtr Cond = Guard ? inRange(S, GI) : nullptr;
        StmtPtr X = Load ? store(FB, one(ex::intLit(K)), ex::load(GB, std::move(GI)))
                         : store(GB, std::move(GI), ex::load(FB, one(ex::intLit(K))));
        if (!Cond) {
          Out.push_back(std::move(X));
          continue;
        }
        Stmts Then, Else;
        Then.push_back(std::move(X));
        if (Load)
          Else.push_back(store(FB, one(ex::intLit(K)), ex::zero(FB->getDType())));
        Out.push_back(stmt::ifThen(std::move(Cond), std::move(Then),
                             Load ? std::optional<Stmts>(std::move(Else)) : std::nullopt));
      }
      return Out;
    };
    Stmts Fast;
    if (Vector) {
      for (int64_t K = 0; K < Regs; K += W) {
        std::vector<ExprPtr> GI = globalIndex(S, sliceIndex(I, K));
        Region GRg, FRg;
        GRg.Buf = GB;
        for (ExprPtr &X : GI)
          GRg.Indices.push_back({std::move(X), nullptr});
        FRg.Buf = FB;
        FRg.Indices.push_back({ex::intLit(K), nullptr});
        std::vector<OpOperand> Operands(2);
        Operands[0].Kind = Operands[1].Kind = OperandKind::Region;
        Operands[0].R = Load ? std::move(GRg) : std::move(FRg);
        Operands[1].R = Load ? std::move(FRg) : std::move(GRg);
        AttributeList Attrs;
        Attrs.set("width", Attribute::getInt(W));
        Fast.push_back(std::make_unique<OpStmt>(
            Ops.lookup(Load ? "cuda.vload" : "cuda.vstore"), std::move(Operands),
            std::move(Attrs), Op.getLoc()));
      }
    } else {
      Fast = Elements(false);
    }
    Stmts Out;
    Out.push_back(stmt::ifThen(tileInRange(S), std::move(Fast), Elements(true)));
    int64_t Copies = threadBits(L, nullptr, 0);
    if (Load || !Copies)
      return Out;
    Stmts Owner;
    Owner.push_back(stmt::ifThen(ex::binary(BinaryOp::Eq,
                                      ex::binary(BinaryOp::And, ex::ref(Tid),
                                                 ex::intLit(Copies)),
                                      ex::intLit(0)),
                           std::move(Out)));
    return Owner;
  }

  /// Part[k] = identity, for the registers of sliced \p Dst.
  Stmts sliceInit(const ReduceInfo &R, BufferValue *Part) {
    Stmts Out;
    Out.push_back(unroll("r", 0, frag(R.Dst)->sliceRegs(), [&](Value *K) {
      Stmts S;
      S.push_back(store(Part, one(ex::ref(K)), identity(R)));
      return S;
    }));
    return Out;
  }

  /// Each of the thread's source registers combined into the register of
  /// Part that holds its row.
  Stmts slicePartial(const ReduceInfo &R, BufferValue *Part) {
    int64_t Mask = frag(R.Dst)->SliceRegMask;
    Stmts Out;
    Out.push_back(unroll("r", 0, frag(R.Src)->Elems / T, [&](Value *Reg) {
      ExprPtr X = ex::castTo(ex::load(R.Src, one(ex::ref(Reg))), R.Ty);
      if (llvm::StringRef(R.Kind).starts_with("abs"))
        X = ex::call(Intrinsic::Abs, one(std::move(X)));
      ExprPtr K = compactReg(*ex::ref(Reg), Mask);
      Stmts S;
      S.push_back(store(Part, one(K->clone()),
                        ex::reduceCombine(R.Kind, ex::load(Part, one(K->clone())), std::move(X))));
      return S;
    }));
    return Out;
  }

  /// Combines Part over the threads that hold parts of the same result:
  /// warp shuffles over the lanes, and over warps one shared slot per
  /// thread and register that every thread reads back in the same order.
  Stmts sliceAcross(const ReduceInfo &R, const OpStmt &Op, BufferValue *Part) {
    const FragInfo &SI = *frag(R.Src);
    std::vector<unsigned> NU = nonUnitDims(SI.Shape);
    unsigned Dim = llvm::find(NU, unsigned(Op.getAttrOrDefault("dim").getInt())) - NU.begin();
    LinearLayout Parent = getBlockedLayout(nonUnitExtents(SI.Shape), T, WarpSize, V);
    int64_t Bits = threadBits(*frag(R.Dst)->Slice, &Parent, Dim),
            Regs = frag(R.Dst)->sliceRegs();
    int64_t LaneBits = Bits & (WarpSize - 1), WarpBits = Bits & ~(WarpSize - 1);
    Stmts Out;
    if (LaneBits) {
      BufferValue *Tmp = allocTop("shfl", MemScope::Local, R.Ty, 1);
      Out.push_back(unroll("r", 0, Regs, [&](Value *K) {
        Stmts S;
        for (int64_t O = WarpSize / 2; O >= 1; O /= 2)
          if (LaneBits & O)
            shuffleCombine(S, R, Part, *ex::ref(K), O, Tmp, Op.getLoc());
        return S;
      }));
    }
    if (!WarpBits)
      return Out;
    miss(Op.getLoc(), "reduce of %" + R.Src->getName() + " not kept within warps: the reduced dimension spans " + llvm::Twine(int64_t(1) << llvm::popcount(uint64_t(WarpBits))) + " warps, combined through shared memory (" + llvm::Twine(Regs * T * getDTypeBytes(R.Ty)) + " bytes, two barriers)");
    BufferValue *Red = allocTop("red", MemScope::Shared, R.Ty, Regs * T);
    auto Slot = [&](Value *K, ExprPtr Thread) {
      return one(ex::add(ex::mul(ex::ref(K), ex::intLit(T)), std::move(Thread)));
    };
    Out.push_back(unroll("r", 0, Regs, [&](Value *K) {
      Stmts S;
      S.push_back(store(Red, Slot(K, ex::ref(Tid)), ex::load(Part, one(ex::ref(K)))));
      return S;
    }));
    Out.push_back(barrier());
    Out.push_back(unroll("r", 0, Regs, [&](Value *K) {
      Stmts S;
      ExprPtr Base = ex::binary(BinaryOp::And, ex::ref(Tid), ex::intLit(~WarpBits));
      ExprPtr Sum;
      for (int64_t W = 0; W != int64_t(1) << llvm::popcount(uint64_t(WarpBits)); ++W) {
        ExprPtr X = ex::load(Red, Slot(K, ex::add(Base->clone(),
                                                  ex::intLit(depositBits(W, WarpBits)))));
        Sum = Sum ? ex::reduceCombine(R.Kind, std::move(Sum), std::move(X)) : std::move(X);
      }
      S.push_back(store(Part, one(ex::ref(K)), std::move(Sum)));
      return S;
    }));
    Out.push_back(barrier());
    return Out;
  }

  /// dst[k] = Part[k], or combined with it without `clear`.
  Stmts sliceWriteBack(const ReduceInfo &R, BufferValue *Part) {
    Stmts Out;
    Out.push_back(unroll("r", 0, frag(R.Dst)->sliceRegs(), [&](Value *K) {
      ExprPtr Val = ex::load(Part, one(ex::ref(K)));
      if (!R.Clear)
        Val = ex::reduceCombine(R.Kind, ex::load(R.Dst, one(ex::ref(K))), std::move(Val));
      Stmts S;
      S.push_back(store(R.Dst, one(ex::ref(K)), std::move(Val)));
      return S;
    }));
    return Out;
  }

  /// dst[r] = Part[r], or dst[r] combined with it without `clear`.
  Stmts writeBack(const ReduceInfo &R, BufferValue *Part) {
    const FragInfo &DI = *frag(R.Dst);
    Stmts Out;
    Out.push_back(unroll("r", 0, R.Rows, [&](Value *Row) {
      Stmts S;
      std::vector<ExprPtr> Idx = delinearize(DI.Shape, *ex::ref(Row));
      ExprPtr Val = ex::load(Part, one(ex::ref(Row)));
      if (!R.Clear) {
        std::vector<ExprPtr> Again;
        for (ExprPtr &X : Idx)
          Again.push_back(X->clone());
        Val = ex::reduceCombine(R.Kind, ex::load(R.Dst, std::move(Again)), std::move(Val));
      }
      S.push_back(store(R.Dst, std::move(Idx), std::move(Val)));
      return S;
    }));
    return Out;
  }

  static void append(Stmts &Out, Stmts In) {
    for (StmtPtr &S : In)
      Out.push_back(std::move(S));
  }

  Stmts lowerReduce(const OpStmt &Op) {
    ReduceInfo R = reduceInfo(Op);
    bool Sliced = isSliced(R.Dst);
    // Accumulated across the iterations of its loop: only the thread's
    // share here, the rest after the loop.
    if (BufferValue *Acc = Deferred.lookup(&Op))
      return Sliced ? slicePartial(R, Acc)
                    : threadPartial(R, Acc, /*Accumulate=*/true);
    if (Sliced) {
      BufferValue *Part = allocTop("part", MemScope::Local, R.Ty, frag(R.Dst)->sliceRegs());
      Stmts Out = sliceInit(R, Part);
      append(Out, slicePartial(R, Part));
      append(Out, sliceAcross(R, Op, Part));
      append(Out, sliceWriteBack(R, Part));
      return Out;
    }
    BufferValue *Part = allocTop("part", MemScope::Local, R.Ty, R.Rows);
    Stmts Out = threadPartial(R, Part, false);
    append(Out, acrossThreads(R, Part, Op.getLoc()));
    append(Out, writeBack(R, Part));
    return Out;
  }

  /// Reduces without `clear` directly in the body of serial loop \p F
  /// whose destination nothing else in the loop touches: their threads'
  /// partials can be accumulated over the iterations and combined across
  /// threads once, after the loop.
  std::vector<const OpStmt *> deferrableReduces(const ForStmt &F) {
    std::vector<const OpStmt *> Out;
    if (F.getLoopKind() != LoopKind::Serial)
      return Out;
    for (const StmtPtr &S : F.getBody().Stmts) {
      const auto *Op = dyn_cast<OpStmt>(S.get());
      if (!Op || !llvm::is_contained(Reduces, Op) ||
          Op->getAttrOrDefault("clear").getBool())
        continue;
      const BufferValue *D = Op->getOperand("dst").R.Buf;
      bool Used = false;
      walkStmts(F.getBody(), [&](const Stmt &X) {
        if (&X == Op)
          return;
        if (const auto *St = dyn_cast<StoreStmt>(&X))
          Used |= St->getBuffer() == D;
        if (const auto *O = dyn_cast<OpStmt>(&X))
          for (const OpOperand &Opd : O->getOperands())
            Used |= Opd.Kind == OperandKind::Region && Opd.R.Buf == D;
        forEachExprSlot(const_cast<Stmt &>(X), [&](ExprPtr &E) {
          forEachUse(*E, [&](const Value *V) { Used |= V == D; });
        });
      });
      if (!Used)
        Out.push_back(Op);
    }
    return Out;
  }

  StmtPtr barrier() {
    return std::make_unique<OpStmt>(Ops.lookup("barrier"), std::vector<OpOperand>(),
                                    AttributeList());
  }

  //===--- Rewrite --------------------------------------------------------===//

  void rewrite() {
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    walkStmts(K.getBody(), [&](const Stmt &S) {
      if (const auto *F = dyn_cast<ForStmt>(&S))
        for (const LoopDim &D : F->getDims())
          if (!D.Lo || isNonNeg(*D.Lo))
            NonNeg.insert(D.Var.get());
    });
    rewriteBlock(K.getBodyMutable());
    // Fragments become local arrays: a distributed one holds the thread's
    // elements, a replicated one all of them.
    for (auto &[B, I] : Frags) {
      auto *Buf = const_cast<BufferValue *>(B);
      Buf->setScope(MemScope::Local);
      if (I.L != Layout::Replicated) {
        std::vector<ExprPtr> &Shape = Buf->getShapeMutable();
        Shape.clear();
        Shape.push_back(ex::intLit(I.L == Layout::Sliced ? I.sliceRegs() : I.Elems / T));
      }
    }
    Block &Body = K.getBodyMutable();
    Body.Stmts.insert(Body.Stmts.begin(),
                      std::make_move_iterator(TopAllocs.begin()),
                      std::make_move_iterator(TopAllocs.end()));
  }

  void rewriteBlock(Block &B) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      std::optional<Stmts> New;
      if (auto *Op = dyn_cast<OpStmt>(S.get())) {
        if (llvm::is_contained(Copies, Op))
          New = isSliced(Op->getOperand("src").R.Buf) ||
                        isSliced(Op->getOperand("dst").R.Buf)
                    ? lowerSliceCopy(*Op)
                    : lowerCopy(*Op);
        else if (llvm::is_contained(Reduces, Op))
          New = lowerReduce(*Op);
        else if ((Op->getName() == "fill" || Op->getName() == "clear") &&
                 frag(Op->getOperand("dst").R.Buf))
          New = lowerFill(*Op);
      } else if (auto *F = dyn_cast<ForStmt>(S.get())) {
        auto It = Loops.find(F);
        if (It != Loops.end()) {
          New = lowerParallel(*F, It->second);
        } else {
          std::vector<const OpStmt *> Defer = deferrableReduces(*F);
          Stmts Before, After;
          for (const OpStmt *Op : Defer) {
            ReduceInfo R = reduceInfo(*Op);
            if (isSliced(R.Dst)) {
              BufferValue *Acc = allocTop("part", MemScope::Local, R.Ty,
                                          frag(R.Dst)->sliceRegs());
              Deferred[Op] = Acc;
              append(Before, sliceInit(R, Acc));
              append(After, sliceAcross(R, *Op, Acc));
              append(After, sliceWriteBack(R, Acc));
              continue;
            }
            BufferValue *Acc = allocTop("part", MemScope::Local, R.Ty, R.Rows);
            Deferred[Op] = Acc;
            Before.push_back(unroll("r", 0, R.Rows, [&](Value *Row) {
              Stmts X;
              X.push_back(store(Acc, one(ex::ref(Row)), identity(R)));
              return X;
            }));
            append(After, acrossThreads(R, Acc, Op->getLoc()));
            append(After, writeBack(R, Acc));
          }
          rewriteBlock(F->getBodyMutable());
          if (!Defer.empty()) {
            New = std::move(Before);
            New->push_back(std::move(S));
            append(*New, std::move(After));
          }
        }
      } else {
        for (Block *N : getNestedBlocks(*S))
          rewriteBlock(*N);
      }
      if (!New) {
        Out.push_back(std::move(S));
        continue;
      }
      for (StmtPtr &X : *New)
        Out.push_back(std::move(X));
    }
    B.Stmts = std::move(Out);
  }

  NameGenerator Names;
  KernelStmt &K;
  const OpRegistry &Ops;
  int64_t WarpSize, VectorBytes, MaxPerThread;
  int64_t T = 0, V = 1;
  std::string Why;
  llvm::SMLoc WhyLoc;
  std::vector<std::pair<llvm::SMLoc, std::string>> Missed;
  Value *Tid = nullptr;
  llvm::DenseMap<const BufferValue *, FragInfo> Frags;
  llvm::DenseSet<const BufferValue *> Distributed, ReduceDstSet;
  llvm::DenseMap<const ForStmt *, LoopPlan> Loops;
  std::vector<const OpStmt *> Copies, Reduces;
  llvm::DenseSet<const Value *> NonNeg;
  /// Reduces whose cross-thread part follows their loop: the per-thread
  /// accumulator.
  llvm::DenseMap<const OpStmt *, BufferValue *> Deferred;
  Stmts TopAllocs;
};

class RegisterFragmentsPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    int64_t Warp = getIntOption("warp-size"), Bytes = getIntOption("vector-bytes"),
            Max = getIntOption("max-elements-per-thread");
    if (!isPow2(Warp) || !isPow2(Bytes) || Max < 1) {
      S.Diag.error(llvm::SMLoc(),
                   "cuda-register-fragments: warp-size (" + llvm::Twine(Warp) +
                       ") and vector-bytes (" + llvm::Twine(Bytes) +
                       ") must be powers of two and max-elements-per-thread (" +
                       llvm::Twine(Max) + ") positive");
      return false;
    }
    // The pass emits cuda ops: their dialect must be known (tile-opt
    // registers only the common ops).
    registerCUDAOps(M.getContext().getOpRegistry());
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St)) {
          RegisterLowering L(*F, *K, M.getContext().getOpRegistry(), Warp, Bytes,
                             Max);
          bool Taken = L.run();
          for (const auto &[Loc, Msg] : L.getMissed())
            getRemarks(M).missed(Loc, Msg);
          if (!Taken && !L.getWhy().empty())
            getRemarks(M).missed(L.getWhyLoc().isValid() ? L.getWhyLoc()
                                                         : K->getLoc(),
                                 "fragments not kept in registers, copies not "
                                 "vectorized: " +
                                     L.getWhy());
        }
      });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createRegisterFragmentsPass() {
  return std::make_unique<RegisterFragmentsPass>(getRegisterFragmentsPassInfo());
}
