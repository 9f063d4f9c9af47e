//===- RasterizeGrid.cpp - tile-rasterize-grid ----------------------------===//
//
// A GPU launches blocks roughly in the order of their linear index, x
// fastest, so that the blocks in flight at one time cover one or two rows
// of a 2-D grid: a GEMM then reads every B tile of the row but shares
// little of it between rows in L2. `raster_swizzle = P` on a kernel asks
// for the blocks to be taken in panels of P rows instead, column by column
// within a panel, so that the blocks in flight cover a P-row square-ish
// patch and share both their A and their B tiles. This pass implements it:
//
//   kernel grid(gx, gy[, gz]) (%bx, %by[, %bz]) attributes {raster_swizzle = P}
// becomes
//   kernel grid(gx * gy[, gz]) (%bid[, %bz]) {
//     allocs
//     let %panel_blocks = min(P, gy) * gx
//     let %panel = %bid / %panel_blocks
//     let %rows = min(P, gy - %panel * P)
//     let %in = %bid % %panel_blocks
//     let %by = %panel * P + %in % %rows
//     let %bx = %in / %rows
//     ...
//
// The last panel holds the gy % P remaining rows (%rows), so the mapping is
// a bijection onto the original grid for any gy. A panel's blocks are
// counted as min(P, gy) * gx rather than P * gx, which is the same where
// there are P rows or more and cannot overflow where there are fewer (a
// grid of gx * gy blocks fits in 32 bits, P * gx need not). With `flatten=false` the
// grid keeps its dimensions and the linear index is computed in the kernel
// (`let %bid = %bid_y * gx + %bid_x`), for targets that cap each grid
// dimension. The attribute is removed; a 1-D grid (one row of blocks) and
// P = 1 (panels of one row) are the launch order already, so for them only
// the attribute is removed.
//
// With `gemm-panel=P` (a backend's pipeline sets it; 1, the default, turns
// it off) a kernel shaped like a GEMM is rasterized in panels of P rows as
// if it carried `raster_swizzle = P`, with a passed remark at the kernel
// saying so; a kernel that wants the launch order says `raster_swizzle =
// 1`. GEMM-shaped: no raster_swizzle, a grid of two or more dimensions, a
// gemm, and copies whose source indices depend on %bx alone (B's tiles)
// and on %by alone (A's tiles), so that blocks in one panel share both.
// FlashAttention's grid is not: its K and V tiles depend on the head (%by)
// only and its Q tile on both, and the launch order already has the blocks
// of one head, which share K and V, run together.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace {

void replaceUses(Block &B, const Value *From, Value *To) {
  auto Fix = [&](ExprPtr &Slot) {
    rewriteExpr(Slot, [&](ExprPtr E) {
      if (auto *R = dyn_cast<RefExpr>(E.get()); R && R->getValue() == From)
        R->setValue(To);
      return E;
    });
  };
  walkStmts(B, [&](Stmt &S) { forEachExprSlot(S, Fix); });
}

class GridRasterizer {
public:
  GridRasterizer(Function &F, KernelStmt &K, int64_t Panel, llvm::SMLoc Loc)
      : K(K), Names(F), P(Panel), Loc(Loc) {}

  void run(bool Flatten) {
    std::vector<std::unique_ptr<Value>> &Idx = K.getBlockIndicesMutable();
    Value *Bx = Idx[0].get(), *By = Idx[1].get();
    DType Ty = Bx->getDType();
    ExprPtr Gx = ex::castTo(K.getGrid()[0]->clone(), Ty);
    ExprPtr Gy = ex::castTo(K.getGrid()[1]->clone(), Ty);
    // The kernel's lets of %bx and %by replace the block indices in the body.
    auto NewBx = std::make_unique<Value>(Value::Kind::Let, Bx->getName(), Ty,
                                         Bx->getLoc());
    auto NewBy = std::make_unique<Value>(Value::Kind::Let, By->getName(), Ty,
                                         By->getLoc());
    replaceUses(K.getBodyMutable(), Bx, NewBx.get());
    replaceUses(K.getBodyMutable(), By, NewBy.get());

    std::vector<StmtPtr> Lets;
    Value *Bid;
    if (Flatten) {
      // One dimension of gx * gy blocks; %bx's value becomes %bid, %by's
      // goes away and a third dimension moves to the second place.
      Bx->setName(Names.fresh("bid"));
      Bid = Bx;
      std::vector<ExprPtr> &Grid = K.getGridMutable();
      Grid[0] = ex::mul(Gx->clone(), Gy->clone());
      Grid.erase(Grid.begin() + 1);
      Idx.erase(Idx.begin() + 1);
    } else {
      Bx->setName(Names.fresh("bid_x"));
      By->setName(Names.fresh("bid_y"));
      Bid = let(Lets, "bid", ex::add(ex::mul(ex::ref(By), Gx->clone()), ex::ref(Bx)));
    }
    std::vector<ExprPtr> Height;
    Height.push_back(ex::intLit(P, Ty));
    Height.push_back(Gy->clone());
    Value *PanelBlocks = let(Lets, "panel_blocks",
                             ex::mul(ex::call(Intrinsic::Min, std::move(Height)),
                                     Gx->clone()));
    Value *Panel = let(Lets, "panel", div(ex::ref(Bid), ex::ref(PanelBlocks)));
    std::vector<ExprPtr> MinArgs;
    MinArgs.push_back(ex::intLit(P, Ty));
    MinArgs.push_back(ex::sub(Gy->clone(), ex::mul(ex::ref(Panel), ex::intLit(P, Ty))));
    Value *Rows = let(Lets, "rows", ex::call(Intrinsic::Min, std::move(MinArgs)));
    Value *In = let(Lets, "in", rem(ex::ref(Bid), ex::ref(PanelBlocks)));
    Lets.push_back(std::make_unique<LetStmt>(
        std::move(NewBy),
        ex::add(ex::mul(ex::ref(Panel), ex::intLit(P, Ty)),
                rem(ex::ref(In), ex::ref(Rows))),
        Loc));
    Lets.push_back(std::make_unique<LetStmt>(
        std::move(NewBx), div(ex::ref(In), ex::ref(Rows)), Loc));

    // The lets go after the kernel's leading allocations, as a kernel that
    // rasterizes by hand writes them (bench/gpu/gemm_hopper_f16.tile).
    std::vector<StmtPtr> &Body = K.getBodyMutable().Stmts;
    auto At = Body.begin();
    while (At != Body.end() && llvm::isa<AllocStmt>(At->get()))
      ++At;
    Body.insert(At, std::make_move_iterator(Lets.begin()),
                std::make_move_iterator(Lets.end()));
  }

private:
  Value *let(std::vector<StmtPtr> &Out, llvm::StringRef Name, ExprPtr Init) {
    auto V = std::make_unique<Value>(Value::Kind::Let, Names.fresh(Name),
                                     Init->getDType(), Loc);
    Value *R = V.get();
    Out.push_back(std::make_unique<LetStmt>(std::move(V), std::move(Init), Loc));
    return R;
  }
  static ExprPtr div(ExprPtr A, ExprPtr B) {
    return ex::binary(BinaryOp::Div, std::move(A), std::move(B));
  }
  static ExprPtr rem(ExprPtr A, ExprPtr B) {
    return ex::binary(BinaryOp::Rem, std::move(A), std::move(B));
  }

  KernelStmt &K;
  NameGenerator Names;
  int64_t P;
  llvm::SMLoc Loc;
};

class RasterizeGridPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    bool Flatten = getBoolOption("flatten");
    int64_t GemmPanel = getIntOption("gemm-panel");
    RemarkEmitter Remarks = getRemarks(M);
    forEachKernel(M, [&](Function &F, KernelStmt &K) {
      if (GemmPanel > 1 && !K.getAttrs().getNamed("raster_swizzle") &&
          K.getGrid().size() >= 2 && isGemmShaped(K)) {
        Remarks.passed(K.getLoc(),
                       "blocks taken in panels of " + llvm::Twine(GemmPanel) +
                           " rows (the backend's default for a kernel with a "
                           "gemm; raster_swizzle = 1 keeps the launch order)");
        GridRasterizer(F, K, GemmPanel, K.getLoc()).run(Flatten);
        return;
      }
      rasterize(F, K, Flatten);
    });
    return true;
  }

private:
  /// Whether \p K is GEMM-shaped (see the file comment): which of %bx (1)
  /// and %by (2) each let and each copy source's indices depend on.
  static bool isGemmShaped(const KernelStmt &K) {
    const auto &Idx = K.getBlockIndices();
    llvm::DenseMap<const Value *, unsigned> Deps{{Idx[0].get(), 1u},
                                                 {Idx[1].get(), 2u}};
    auto DepsOf = [&](const Expr &E) {
      unsigned D = 0;
      forEachUse(E, [&](const Value *V) { D |= Deps.lookup(V); });
      return D;
    };
    bool Gemm = false;
    unsigned SourceDeps = 0; // bit 0: a source on %bx alone; 1: on %by alone
    walkStmts(K.getBody(), [&](const Stmt &S) {
      if (const auto *L = dyn_cast<LetStmt>(&S)) {
        if (unsigned D = DepsOf(*L->getInit()))
          Deps[L->getVar()] = D;
        return;
      }
      const auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op)
        return;
      if (Op->getName() == "gemm")
        Gemm = true;
      if (Op->getName() != "copy")
        return;
      unsigned D = 0;
      for (const RegionIndex &I : Op->getOperand("src").R.Indices)
        D |= DepsOf(*I.Offset);
      if (D == 1 || D == 2)
        SourceDeps |= D;
    });
    return Gemm && SourceDeps == 3;
  }

  static void rasterize(Function &F, KernelStmt &K, bool Flatten) {
    const NamedAttribute *A = K.getAttrs().getNamed("raster_swizzle");
    if (!A)
      return;
    int64_t P = A->Value.getInt();
    llvm::SMLoc Loc = A->Loc;
    AttributeList Rest;
    for (const NamedAttribute &NA : K.getAttrs())
      if (NA.Name != "raster_swizzle")
        Rest.set(NA.Name, NA.Value, NA.Loc);
    K.getAttrsMutable() = std::move(Rest);
    assert(P >= 1 && "the verifier accepts positive panel heights only");
    if (K.getGrid().size() < 2 || P == 1)
      return;
    GridRasterizer(F, K, P, Loc).run(Flatten);
  }
};

} // namespace

std::unique_ptr<Pass> tile::createRasterizeGridPass() {
  return std::make_unique<RasterizeGridPass>(getRasterizeGridPassInfo());
}
