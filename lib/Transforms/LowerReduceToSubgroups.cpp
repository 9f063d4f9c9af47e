//===- LowerReduceToSubgroups.cpp - tile-lower-reduce-subgroups -----------===//
//
// A block-level reduce whose rows are few (softmax's and rmsnorm's single
// row) runs, after tile-lower-tile-ops and tile-lower-to-simt, as a loop
// over the rows in which a few threads each walk a whole row: the other
// threads wait. This pass, before tile-lower-tile-ops, spreads each row
// over every thread of the block instead, as per-thread code:
//  - thread t combines the row's elements t, t + T, ... into a partial;
//  - the backend's subgroup-reduce op (metal.simd_reduce,
//    webgpu.subgroup_reduce, ...; the pipeline names it) combines the
//    partials of the subgroup;
//  - one value per subgroup goes to a small [rows, slots] fragment, and
//    after a barrier the original reduce, now on that fragment, combines
//    the subgroups' values (with its own clear and destination).
// With a subgroup size fixed at compile time, subgroup s = t / S writes
// slot s from its lane 0. Where the device picks the size, the op gives
// the result to the subgroup's first invocation and the identity to the
// others, and every thread writes its own slot (rows = 1 only, so that
// the slots stay T values).
//
// Reduces that do not qualify keep the plain lowering, with a missed
// remark: a source that is not a whole fragment or shared buffer of
// constant shape, a reduction along a dimension other than the last, more
// rows than threads per subgroup share (there each thread already has
// rows of its own), a dtype the ops do not take, or a target without
// subgroup operations (the pipeline's reason).
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "tile/Transforms/StmtBuilder.h"
#include "tile/Transforms/SubgroupReduce.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace {

class SubgroupReduceLowering : public StmtBuilder {
public:
  SubgroupReduceLowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
                         llvm::StringRef ReduceOp, int64_t SubgroupSize,
                         llvm::StringRef Unavailable, const RemarkEmitter &Remarks)
      : StmtBuilder(F, Ops), K(K), ReduceOp(ReduceOp), SubgroupSize(SubgroupSize),
        Unavailable(Unavailable), Remarks(Remarks),
        Threads(K.getThreads()->getConstInt().value_or(0)) {}

  void run() {
    std::vector<const OpStmt *> Taken;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op || Op->getName() != "reduce")
        return;
      std::string Why = whyNot(*Op);
      if (!Why.empty()) {
        Remarks.missed(Op->getLoc(),
                       "reduce not lowered to subgroup operations: " + Why);
        return;
      }
      Taken.push_back(Op);
    });
    if (Taken.empty())
      return;
    for (const OpStmt *Op : Taken)
      Selected.insert(Op);
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    rewrite(K.getBodyMutable(), /*IsKernelBody=*/true);
    Block &Body = K.getBodyMutable();
    Body.Stmts.insert(Body.Stmts.begin(), std::make_move_iterator(NewAllocs.begin()),
                      std::make_move_iterator(NewAllocs.end()));
  }

private:
  /// Rows of the reduce's source (the product of all but its last
  /// dimension) and its row length.
  static std::pair<int64_t, int64_t> rowsAndLength(const std::vector<int64_t> &Shape) {
    int64_t Rows = 1;
    for (size_t D = 0; D + 1 < Shape.size(); ++D)
      Rows *= Shape[D];
    return {Rows, Shape.back()};
  }

  int64_t slots() const { return SubgroupSize ? Threads / SubgroupSize : Threads; }

  /// Why \p Op keeps the plain lowering; empty when it is taken.
  std::string whyNot(const OpStmt &Op) {
    const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
    const BufferValue *B = Src.Buf;
    if (!Src.isWholeBuffer() || !B->getConstShape() ||
        (B->getScope() != MemScope::Fragment && B->getScope() != MemScope::Shared))
      return "its source %" + B->getName().str() +
             " is not a whole fragment or shared buffer of constant shape";
    std::vector<int64_t> Shape = *B->getConstShape();
    if (Shape.size() > 2)
      return "its source has rank " + std::to_string(Shape.size()) +
             " (rows of a rank-1 or rank-2 source are taken)";
    int64_t Dim = Op.getAttrOrDefault("dim").getInt();
    if (Dim != int64_t(Shape.size()) - 1)
      return "it reduces dimension " + std::to_string(Dim) +
             ", not the last one, along which the threads would read "
             "consecutive elements";
    DType Ty = Dst.Buf->getDType();
    if (Ty != DType::F32 && Ty != DType::I32 && Ty != DType::U32)
      return "it accumulates in " + getDTypeName(Ty).str() +
             "; the subgroup operations here take f32, i32 or u32";
    if (!Threads)
      return "the kernel's thread count is not a constant";
    auto [Rows, Length] = rowsAndLength(Shape);
    int64_t PerRow = SubgroupSize ? SubgroupSize : Threads;
    if (Rows * PerRow > Threads)
      return "its " + std::to_string(Rows) + " rows keep the block's " +
             std::to_string(Threads) + " threads busy a row at a time (" +
             (SubgroupSize ? "subgroups take rows when each has at least " +
                                 std::to_string(SubgroupSize) + " threads"
                           : std::string("the device picks the subgroup size, so "
                                         "only reductions to one value per block "
                                         "use subgroups")) +
             ")";
    if (ReduceOp.empty())
      return Unavailable.empty() ? "the target has no subgroup operations"
                                 : Unavailable.str();
    if (!Ops.lookup(ReduceOp))
      return "op '" + ReduceOp.str() + "' is not registered";
    if (SubgroupSize && Threads % SubgroupSize)
      return "the kernel's " + std::to_string(Threads) +
             " threads are not whole subgroups of " + std::to_string(SubgroupSize);
    (void)Length;
    return "";
  }

  static std::vector<ExprPtr> at(ExprPtr I) {
    std::vector<ExprPtr> Idx;
    Idx.push_back(std::move(I));
    return Idx;
  }

  Stmts lower(const OpStmt &Op) {
    const Region &Src = Op.getOperand("src").R;
    BufferValue *SrcBuf = Src.Buf;
    std::vector<int64_t> Shape = *SrcBuf->getConstShape();
    int64_t Rows = rowsAndLength(Shape).first, Length = rowsAndLength(Shape).second;
    llvm::StringRef Kind = Op.getAttrOrDefault("kind").getStr();
    bool Abs = Kind.starts_with("abs");
    // The subgroups combine the thread partials, with abs already applied.
    llvm::StringRef SubKind = Kind == "abssum" ? "sum" : Kind == "absmax" ? "max" : Kind;
    DType Ty = Op.getOperand("dst").R.Buf->getDType();
    ExprPtr Identity = SubKind == "sum" ? ex::zero(Ty)
                       : SubKind == "max" ? (Abs ? ex::zero(Ty) : ex::lowest(Ty))
                                          : ex::highest(Ty);
    int64_t Slots = slots();
    // The partials: the source's shape with its rows' length replaced by
    // one slot per subgroup.
    auto Part = std::make_unique<BufferValue>(
        Names.fresh(SrcBuf->getName().str() + "_sg"), Ty, MemScope::Fragment,
        std::vector<ExprPtr>(), std::vector<ExprPtr>(), false, Op.getLoc());
    for (size_t D = 0; D + 1 < Shape.size(); ++D)
      Part->getShapeMutable().push_back(lit(Shape[D]));
    Part->getShapeMutable().push_back(lit(Slots));
    BufferValue *PartBuf = Part.get();
    NewAllocs.push_back(std::make_unique<AllocStmt>(std::move(Part), AttributeList()));

    Stmts Body;
    BufferValue *Acc, *Red;
    Body.push_back(allocLocal("sg_part", Ty, 1, Acc));
    Body.push_back(allocLocal("sg_red", Ty, 1, Red));
    int64_t Steps = (Length + Threads - 1) / Threads;
    Body.push_back(loop(LoopKind::Serial, "row", lit(Rows), [&](Value *Row) {
      Stmts R;
      R.push_back(std::make_unique<StoreStmt>(Acc, at(lit(0)), Identity->clone()));
      R.push_back(loop(LoopKind::Serial, "k", lit(Steps), [&](Value *Step) {
        Stmts L;
        Value *Col = let(L, "col", add(ref(Tid), mul(ref(Step), Threads)));
        std::vector<ExprPtr> Idx;
        if (Shape.size() == 2)
          Idx.push_back(ref(Row));
        Idx.push_back(ref(Col));
        ExprPtr X = ex::castTo(ex::load(SrcBuf, std::move(Idx)), Ty);
        if (Abs) {
          std::vector<ExprPtr> Args;
          Args.push_back(std::move(X));
          X = ex::call(Intrinsic::Abs, std::move(Args));
        }
        Stmts Then;
        Then.push_back(std::make_unique<StoreStmt>(
            Acc, at(lit(0)), ex::reduceCombine(SubKind, ex::load(Acc, at(lit(0))), std::move(X))));
        if (Length % Threads)
          L.push_back(ifThen(ex::lt(ref(Col), lit(Length)), std::move(Then)));
        else
          for (StmtPtr &S : Then)
            L.push_back(std::move(S));
        return L;
      }));
      std::vector<OpOperand> Operands(2);
      Operands[0].Kind = OperandKind::Expr;
      Operands[0].E = ex::load(Acc, at(lit(0)));
      Operands[1].Kind = OperandKind::Region;
      Operands[1].R.Buf = Red;
      Operands[1].R.Indices.push_back({lit(0), lit(1)});
      AttributeList Attrs;
      Attrs.set("kind", Attribute::getIdent(SubKind));
      if (!SubgroupSize)
        Attrs.set("first_only", Attribute::getBool(true));
      R.push_back(op(ReduceOp, std::move(Operands), std::move(Attrs), Op.getLoc()));
      std::vector<ExprPtr> PIdx;
      if (Shape.size() == 2)
        PIdx.push_back(ref(Row));
      PIdx.push_back(SubgroupSize ? div(ref(Tid), SubgroupSize) : ref(Tid));
      Stmts Write;
      Write.push_back(std::make_unique<StoreStmt>(PartBuf, std::move(PIdx),
                                                  ex::load(Red, at(lit(0)))));
      if (SubgroupSize)
        R.push_back(ifThen(ex::binary(BinaryOp::Eq, rem(ref(Tid), SubgroupSize), lit(0)),
                           std::move(Write)));
      else
        for (StmtPtr &S : Write)
          R.push_back(std::move(S));
      return R;
    }));
    Stmts Out;
    Out.push_back(ifThen(ex::lt(ref(Tid), lit(Threads)), std::move(Body)));
    Out.push_back(barrier());
    // The block-level reduce of the partials, as the original one.
    StmtPtr Final = Op.clone();
    Region &FinalSrc = llvm::cast<OpStmt>(Final.get())->getOperandsMutable()[0].R;
    assert(llvm::StringRef(Op.getInfo().Operands[0].Name) == "src" &&
           "reduce's first operand");
    FinalSrc.Buf = PartBuf;
    FinalSrc.Indices.clear();
    Out.push_back(std::move(Final));
    Remarks.passed(Op.getLoc(), "reduce " + Kind + " of %" + SrcBuf->getName() +
                                    " lowered to subgroup operations ('" + ReduceOp +
                                    "'): " + llvm::Twine(Rows) + " row(s) of " +
                                    llvm::Twine(Length) + " over " +
                                    llvm::Twine(Threads) + " threads, " +
                                    llvm::Twine(Slots) + " partials a row");
    return Out;
  }

  static bool usesValue(Stmt &S, const Value *V) {
    bool Found = false;
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *U) { Found |= U == V; });
    });
    return Found;
  }

  void rewrite(Block &B, bool IsKernelBody) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        rewrite(*N, false);
      auto *Op = dyn_cast<OpStmt>(S.get());
      if (!Op || !Selected.count(Op)) {
        Out.push_back(std::move(S));
        continue;
      }
      // tile-lower-to-simt puts a barrier after each block-level statement
      // that touches shared memory; per-thread code before this one gives
      // no such promise.
      bool Covered = Out.empty() ? IsKernelBody
                                 : isBarrier(*Out.back()) || !usesValue(*Out.back(), Tid);
      if (!Covered)
        Out.push_back(barrier());
      for (StmtPtr &L : lower(*Op))
        Out.push_back(std::move(L));
    }
    B.Stmts = std::move(Out);
  }

  KernelStmt &K;
  llvm::StringRef ReduceOp;
  int64_t SubgroupSize;
  llvm::StringRef Unavailable;
  const RemarkEmitter &Remarks;
  int64_t Threads;
  Value *Tid = nullptr;
  llvm::DenseSet<const OpStmt *> Selected;
  Stmts NewAllocs;
};

class LowerReduceToSubgroupsPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    std::string ReduceOp = getStringOption("reduce-op");
    std::string Unavailable = getStringOption("unavailable");
    int64_t Size = getIntOption("subgroup-size");
    RemarkEmitter Remarks = getRemarks(M);
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          SubgroupReduceLowering(*F, *K, M.getContext().getOpRegistry(), ReduceOp,
                                 Size, Unavailable, Remarks)
              .run();
      });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerReduceToSubgroupsPass() {
  return std::make_unique<LowerReduceToSubgroupsPass>(getLowerReduceToSubgroupsPassInfo());
}

bool tile::verifySubgroupReduceDst(const OpStmt &Op, DiagnosticEngine &Diag,
                                   llvm::StringRef Holder) {
  const OpOperand &Dst = Op.getOperand("dst");
  const BufferValue *B = Dst.R.Buf;
  std::string Name = ("'" + Op.getName() + "'").str();
  if (B->getScope() != MemScope::Local) {
    Diag.error(Dst.getLoc(), Name + " writes " + Holder + " (a local buffer), but %" +
                                 B->getName() + " is " + getScopeName(B->getScope()));
    return false;
  }
  DType T = B->getDType();
  if (T != DType::F32 && T != DType::I32 && T != DType::U32) {
    Diag.error(Dst.getLoc(), Name + " combines f32, i32 or u32, not " + getDTypeName(T));
    return false;
  }
  return true;
}
