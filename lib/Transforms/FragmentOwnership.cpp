//===- FragmentOwnership.cpp - Fragments only their owner thread touches --===//

#include "tile/Transforms/FragmentOwnership.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "llvm/Support/MathExtras.h"
#include <functional>

using namespace tile;
using llvm::dyn_cast;

namespace {

/// The constant extent of each dimension of a parallel loop that starts at
/// 0; none otherwise.
std::optional<std::vector<int64_t>> loopExtents(const ForStmt &F) {
  std::vector<int64_t> Out;
  for (const LoopDim &D : F.getDims()) {
    std::optional<int64_t> Hi = D.Hi->getConstInt();
    if (!Hi || (D.Lo && !ex::isConst(*D.Lo, 0)))
      return std::nullopt;
    Out.push_back(*Hi);
  }
  return Out;
}

} // namespace

FragmentOwnership::FragmentOwnership(
    const KernelStmt &K, int64_t Threads,
    const llvm::DenseSet<const ForStmt *> &SharedOut)
    : Threads(Threads), SharedOut(SharedOut) {
  walkStmts(K.getBody(), [&](const Stmt &S) {
    const auto *A = dyn_cast<AllocStmt>(&S);
    if (!A || A->getBuffer()->getScope() != MemScope::Fragment)
      return;
    const BufferValue *B = A->getBuffer();
    Frags.push_back(B);
    if (std::optional<std::vector<int64_t>> Shape = B->getConstShape())
      Shapes[B] = *Shape;
    else
      drop(B, "its shape is not constant");
  });
  // A thread's slots are indexed with 32-bit integers, as the element
  // loops that share the fragment out are.
  for (const auto &[B, Shape] : Shapes) {
    int64_t N = 1;
    bool Over = false;
    for (int64_t E : Shape)
      Over |= llvm::MulOverflow(N, E, N);
    if (Over || N > int64_t(INT32_MAX))
      drop(B, "it has more elements than 32-bit indexes reach");
  }
  collect(K.getBody(), nullptr);
  for (const Access &A : Accesses)
    if (!A.Loop)
      drop(A.Buf, "it is accessed outside a parallel loop that the block "
                  "shares out over its threads");
  // Largest first, each fragment is kept if it can be private together
  // with those kept before it.
  std::vector<const BufferValue *> Order;
  for (const BufferValue *B : Frags)
    if (!Why.count(B))
      Order.push_back(B);
  auto Elems = [&](const BufferValue *B) {
    int64_t N = 1;
    for (int64_t E : Shapes[B])
      N *= E;
    return N;
  };
  llvm::DenseMap<const BufferValue *, unsigned> Pos;
  for (const BufferValue *B : Order)
    Pos[B] = Pos.size();
  llvm::sort(Order, [&](const BufferValue *A, const BufferValue *B) {
    return std::make_pair(-Elems(A), Pos[A]) < std::make_pair(-Elems(B), Pos[B]);
  });
  llvm::DenseSet<const BufferValue *> Kept;
  for (const BufferValue *B : Order) {
    std::string Reason;
    llvm::DenseSet<const BufferValue *> Alone{B};
    if (!solve(Alone, Reason)) {
      drop(B, Reason);
      continue;
    }
    Kept.insert(B);
    if (solve(Kept, Reason))
      continue;
    Kept.erase(B);
    std::string Others;
    for (const BufferValue *K : Order)
      if (Kept.count(K))
        Others += (Others.empty() ? "%" : ", %") + K->getName().str();
    drop(B, "a parallel loop indexes it in a way that does not share out "
            "over the threads together with the fragments kept per thread (" +
                Others + ")");
  }
  std::string Unused;
  solve(Kept, Unused);
}

void FragmentOwnership::drop(const BufferValue *B, std::string Reason) {
  if (!Why.count(B))
    Why[B] = std::move(Reason);
}

llvm::StringRef FragmentOwnership::getWhyShared(const BufferValue *B) const {
  auto It = Why.find(B);
  return It == Why.end() ? llvm::StringRef() : llvm::StringRef(It->second);
}

void FragmentOwnership::access(const BufferValue *B,
                               llvm::ArrayRef<ExprPtr> Idx,
                               const ForStmt *Loop) {
  if (!Shapes.count(B) && !Why.count(B))
    return; // not a fragment
  Access A{B, Loop, {}};
  for (const ExprPtr &E : Idx) {
    int P = -1;
    if (const auto *R = dyn_cast<RefExpr>(E.get()); R && Loop)
      for (unsigned L = 0; L != Loop->getDims().size(); ++L)
        if (Loop->getDims()[L].Var.get() == R->getValue())
          P = int(L);
    A.Map.push_back(P);
  }
  Accesses.push_back(std::move(A));
}

void FragmentOwnership::collect(const Block &B, const ForStmt *Loop) {
  std::function<void(const Expr &)> Scan = [&](const Expr &E) {
    if (const auto *L = dyn_cast<LoadExpr>(&E))
      access(L->getBuffer(), L->getIndices(), Loop);
    if (const auto *R = dyn_cast<RefExpr>(&E))
      if (const auto *Buf = dyn_cast<BufferValue>(R->getValue()))
        if (Shapes.count(Buf))
          drop(Buf, "it is referenced as a whole");
    forEachChild(E, Scan);
  };
  for (const StmtPtr &SP : B.Stmts) {
    Stmt &S = const_cast<Stmt &>(*SP);
    forEachExprSlot(S, [&](ExprPtr &E) { Scan(*E); });
    if (const auto *St = dyn_cast<StoreStmt>(&S))
      access(St->getBuffer(), St->getIndices(), Loop);
    if (const auto *Op = dyn_cast<OpStmt>(&S))
      for (const OpOperand &O : Op->getOperands())
        if (O.Kind == OperandKind::Region && Shapes.count(O.R.Buf))
          drop(O.R.Buf, "the tile op '" + Op->getName().str() + "' uses it");
    const ForStmt *Inner = Loop;
    if (const auto *F = dyn_cast<ForStmt>(&S); F && F->getLoopKind() == LoopKind::Parallel)
      // A loop nested in another, or in code written per thread, runs on
      // one thread; one without constant extents from 0 is not analyzed.
      Inner = !Loop && SharedOut.count(F) && loopExtents(*F) ? F : nullptr;
    for (Block *N : getNestedBlocks(S))
      collect(*N, Inner);
  }
}

bool FragmentOwnership::solve(const llvm::DenseSet<const BufferValue *> &Cands,
                              std::string &Reason) {
  auto Candidate = [&](const BufferValue *B) { return Cands.count(B) > 0; };
  // Owned dimensions of each candidate, distributed dimensions of each loop
  // (bit masks), shrunk to a fixed point.
  llvm::DenseMap<const BufferValue *, uint64_t> DSet;
  llvm::DenseMap<const ForStmt *, uint64_t> LSet;
  for (const Access &A : Accesses) {
    if (!Candidate(A.Buf))
      continue;
    DSet[A.Buf] = (uint64_t(1) << Shapes[A.Buf].size()) - 1;
    LSet[A.Loop] = (uint64_t(1) << A.Loop->getDims().size()) - 1;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Access &A : Accesses) {
      if (!Candidate(A.Buf))
        continue;
      uint64_t &D = DSet[A.Buf], &L = LSet[A.Loop];
      std::vector<int64_t> Ext = *loopExtents(*A.Loop);
      const std::vector<int64_t> &Shape = Shapes[A.Buf];
      uint64_t NewD = D, Seen = 0, Dup = 0;
      for (unsigned Dim = 0; Dim != A.Map.size(); ++Dim)
        if ((D >> Dim & 1) && A.Map[Dim] >= 0) {
          uint64_t Bit = uint64_t(1) << A.Map[Dim];
          Dup |= Seen & Bit;
          Seen |= Bit;
        }
      uint64_t Covered = 0;
      for (unsigned Dim = 0; Dim != A.Map.size(); ++Dim) {
        if (!(D >> Dim & 1))
          continue;
        int P = A.Map[Dim];
        if (P < 0 || !(L >> P & 1) || (Dup >> P & 1) || Shape[Dim] != Ext[P])
          NewD &= ~(uint64_t(1) << Dim);
        else
          Covered |= uint64_t(1) << P;
      }
      uint64_t NewL = L & Covered;
      if (NewD != D || NewL != L) {
        D = NewD;
        L = NewL;
        Changed = true;
      }
    }
  }
  // The loops' orders, as the owned dimensions of each fragment induce them.
  Owned.clear();
  LoopDims.clear();
  for (const Access &A : Accesses) {
    if (!Candidate(A.Buf))
      continue;
    uint64_t D = DSet[A.Buf];
    if (!D) {
      Reason = "it is read or written across threads: no dimension of it is "
               "indexed by one shared-out loop variable in all its accesses";
      return false;
    }
    std::vector<unsigned> Dims, Order;
    for (unsigned Dim = 0; Dim != A.Map.size(); ++Dim)
      if (D >> Dim & 1) {
        Dims.push_back(Dim);
        Order.push_back(unsigned(A.Map[Dim]));
      }
    auto [It, New] = LoopDims.try_emplace(A.Loop, Order);
    if (!New && It->second != Order) {
      Reason = "parallel loops index it with their variables in different "
               "orders (a transpose across threads)";
      return false;
    }
    Owned[A.Buf] = Dims;
  }
  // Fragments without accesses are private too (nothing touches them).
  for (const BufferValue *B : Cands)
    if (!Owned.count(B)) {
      std::vector<unsigned> All;
      for (unsigned Dim = 0; Dim != Shapes[B].size(); ++Dim)
        All.push_back(Dim);
      Owned[B] = All;
    }
  return true;
}

int64_t FragmentOwnership::getSlots(const BufferValue *B) const {
  const std::vector<unsigned> &D = Owned.find(B)->second;
  const std::vector<int64_t> &Shape = Shapes.find(B)->second;
  int64_t InD = 1, Rest = 1;
  for (unsigned Dim = 0; Dim != Shape.size(); ++Dim)
    (llvm::is_contained(D, Dim) ? InD : Rest) *= Shape[Dim];
  return (InD + Threads - 1) / Threads * Rest;
}

ExprPtr FragmentOwnership::getSlot(const BufferValue *B,
                                   llvm::ArrayRef<ExprPtr> Idx) const {
  const std::vector<unsigned> &D = Owned.find(B)->second;
  const std::vector<int64_t> &Shape = Shapes.find(B)->second;
  ExprPtr LinD, LinRest;
  int64_t InD = 1, Rest = 1;
  for (unsigned Dim = 0; Dim != Shape.size(); ++Dim) {
    bool Own = llvm::is_contained(D, Dim);
    ExprPtr &Lin = Own ? LinD : LinRest;
    Lin = Lin ? ex::add(ex::mul(std::move(Lin), ex::intLit(Shape[Dim])),
                        Idx[Dim]->clone())
              : Idx[Dim]->clone();
    (Own ? InD : Rest) *= Shape[Dim];
  }
  ExprPtr Slot = LinRest ? std::move(LinRest) : ex::intLit(0);
  if (InD > Threads)
    Slot = ex::add(ex::mul(ex::binary(BinaryOp::Div, std::move(LinD),
                                      ex::intLit(Threads)),
                           ex::intLit(Rest)),
                   std::move(Slot));
  return Slot;
}

std::optional<std::vector<unsigned>>
FragmentOwnership::getDistributedDims(const ForStmt &F) const {
  auto It = LoopDims.find(&F);
  if (It == LoopDims.end())
    return std::nullopt;
  return It->second;
}
