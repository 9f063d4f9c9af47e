//===- PersistentGrid.cpp - Tiles of a persistent kernel ------------------===//
//
// See PersistentGrid.h. The tile order needs to know which way a loop's
// trip count moves with a block index; the bounds of the loops this is for
// are sums, products with positive constants, quotients by them, min and
// max of block indices and values fixed for the launch (causal attention:
// `min(%bx + 1, ceildiv(S, 128))`), whose direction their form tells.
//
//===----------------------------------------------------------------------===//

#include "PersistentGrid.h"
#include "tile/IR/Walk.h"

using namespace tile;
using namespace tile::hopper;
using llvm::dyn_cast;

namespace {

/// The direction of a sum of terms moving as \p A and \p B.
std::optional<int> combine(std::optional<int> A, std::optional<int> B) {
  if (!A || !B)
    return std::nullopt;
  if (*A == 0)
    return B;
  if (*B == 0 || *A == *B)
    return A;
  return std::nullopt;
}

std::optional<int> negate(std::optional<int> A) {
  if (!A)
    return A;
  return -*A;
}

bool positiveLiteral(const Expr &E) {
  std::optional<int64_t> C = E.getConstInt();
  return C && *C > 0;
}

bool dependsOn(const Expr &E, const Value *V, const LetInits &Lets, unsigned Depth = 0) {
  bool Found = false;
  forEachUse(E, [&](const Value *U) {
    if (U == V) {
      Found = true;
      return;
    }
    if (const Expr *Init = Lets.lookup(U); Init && Depth < 32)
      Found |= dependsOn(*Init, V, Lets, Depth + 1);
  });
  return Found;
}

} // namespace

std::optional<int> hopper::monotonicity(const Expr &E, const Value *V,
                                        const LetInits &Lets) {
  if (!dependsOn(E, V, Lets))
    return 0;
  if (const auto *R = dyn_cast<RefExpr>(&E)) {
    if (R->getValue() == V)
      return 1;
    const Expr *Init = Lets.lookup(R->getValue());
    return Init ? monotonicity(*Init, V, Lets) : std::optional<int>(0);
  }
  if (const auto *C = dyn_cast<CastExpr>(&E))
    return monotonicity(*C->getOperand(), V, Lets);
  if (const auto *U = dyn_cast<UnaryExpr>(&E))
    return U->getOp() == UnaryOp::Neg ? negate(monotonicity(*U->getOperand(), V, Lets))
                                      : std::nullopt;
  if (const auto *B = dyn_cast<BinaryExpr>(&E)) {
    const Expr &L = *B->getLHS(), &R = *B->getRHS();
    switch (B->getOp()) {
    case BinaryOp::Add:
      return combine(monotonicity(L, V, Lets), monotonicity(R, V, Lets));
    case BinaryOp::Sub:
      return combine(monotonicity(L, V, Lets), negate(monotonicity(R, V, Lets)));
    case BinaryOp::Mul:
      if (positiveLiteral(R))
        return monotonicity(L, V, Lets);
      if (positiveLiteral(L))
        return monotonicity(R, V, Lets);
      return std::nullopt;
    case BinaryOp::Div:
      return positiveLiteral(R) ? monotonicity(L, V, Lets) : std::nullopt;
    default:
      return std::nullopt;
    }
  }
  if (const auto *C = dyn_cast<CallExpr>(&E)) {
    llvm::ArrayRef<ExprPtr> Args = C->getArgs();
    switch (C->getIntrinsic()) {
    case Intrinsic::Min:
    case Intrinsic::Max: {
      std::optional<int> D = 0;
      for (const ExprPtr &A : Args)
        D = combine(D, monotonicity(*A, V, Lets));
      return D;
    }
    case Intrinsic::CeilDiv:
    case Intrinsic::FloorDiv:
      return positiveLiteral(*Args[1]) ? monotonicity(*Args[0], V, Lets)
                                       : std::nullopt;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

TileOrder hopper::chooseTileOrder(const Expr *Lo, const Expr *Hi,
                                  llvm::ArrayRef<const Value *> Blocks,
                                  const LetInits &Lets) {
  TileOrder O;
  if (!Hi)
    return O;
  int Growing = -1;
  for (unsigned D = 0; D != Blocks.size(); ++D) {
    // The trip count Hi - Lo.
    std::optional<int> H = monotonicity(*Hi, Blocks[D], Lets);
    std::optional<int> L = Lo ? monotonicity(*Lo, Blocks[D], Lets) : std::optional<int>(0);
    std::optional<int> Trip = combine(H, negate(L));
    if (Trip && *Trip == 0)
      continue;
    O.Uneven = true;
    if (!Trip || *Trip < 0 || Growing == -2)
      Growing = -2;
    else
      Growing = Growing == -1 ? int(D) : -2; // two of them: no one order
  }
  O.Descending = std::max(Growing, -1);
  return O;
}

void hopper::remapValues(std::vector<StmtPtr> &Body,
                         const llvm::DenseMap<const Value *, Value *> &Map) {
  for (StmtPtr &S : Body)
    remapValueRefs(*S, Map);
}
