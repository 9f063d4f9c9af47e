//===- LaunchFlags.cpp - Kernel tests the host can make before launch -----===//
//
// The tests of cuda.tma_ready and cuda.aligned, emitted once for both the
// device (the kernel's own test) and the host (the choice between a
// kernel's specialization and its general version), and the rule that
// says which of a kernel's flag ops the host can evaluate.
//
//===----------------------------------------------------------------------===//

#include "LaunchFlags.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::dyn_cast;

namespace {

/// A flag op that asks for a specialization: the pass that made it knows
/// how much of the kernel hangs on it (the warp-specialized GEMM's TMA and
/// pair tests: half its PTX and ptxas time), where a second compile of the
/// kernel pays.
bool isFlagOp(const OpStmt &Op) {
  return (Op.getName() == "cuda.tma_ready" || Op.getName() == "cuda.aligned") &&
         Op.getAttrOrDefault("specialize").getBool();
}

/// Whether every operand of \p Op but its `dst` uses only values from
/// outside the kernel.
bool usesOnlyHostValues(const OpStmt &Op,
                        const llvm::DenseSet<const Value *> &Inside) {
  for (unsigned I = 0; I != Op.getOperands().size(); ++I) {
    if (llvm::StringRef(Op.getInfo().Operands[I].Name) == "dst")
      continue;
    const OpOperand &O = Op.getOperand(I);
    if (O.Kind == OperandKind::Expr) {
      bool Host = true;
      forEachUse(*O.E, [&](const Value *V) { Host &= !Inside.count(V); });
      if (!Host)
        return false;
      continue;
    }
    const BufferValue *Buf = O.R.Buf;
    if (Inside.count(Buf) || Buf->getScope() != MemScope::Global ||
        !O.R.isWholeBuffer())
      return false;
  }
  return true;
}

} // namespace

std::vector<const OpStmt *> cuda::getLaunchFlags(const KernelStmt &K) {
  std::vector<const OpStmt *> Flags;
  std::optional<llvm::DenseSet<const Value *>> Inside;
  walkStmts(K.getBody(), [&](const Stmt &S) {
    const auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op || !isFlagOp(*Op))
      return;
    if (!Inside)
      Inside = getKernelDefinedValues(K);
    if (usesOnlyHostValues(*Op, *Inside))
      Flags.push_back(Op);
  });
  return Flags;
}

bool cuda::isLaunchFlag(const KernelStmt &K, const OpStmt &Op) {
  return isFlagOp(Op) && usesOnlyHostValues(Op, getKernelDefinedValues(K));
}

llvm::SmallVector<llvm::Value *, 4> cuda::emitLaunchFlagConditions(
    llvm::IRBuilder<> &B, const OpStmt &Op, llvm::Value *Data,
    llvm::function_ref<llvm::Value *(const Expr &)> Emit) {
  llvm::SmallVector<llvm::Value *, 4> Conds;
  auto AlignedTo = [&](llvm::Value *V, uint64_t Align) {
    return B.CreateICmpEQ(B.CreateAnd(V, llvm::ConstantInt::get(V->getType(), Align - 1)),
                          llvm::ConstantInt::get(V->getType(), 0));
  };
  llvm::Value *Addr = B.CreatePtrToInt(Data, B.getInt64Ty());
  const BufferValue &T = *Op.getOperand("tensor").R.Buf;
  if (Op.getName() == "cuda.aligned") {
    Conds.push_back(AlignedTo(Addr, uint64_t(Op.getAttrOrDefault("bytes").getInt())));
    return Conds;
  }
  assert(Op.getName() == "cuda.tma_ready" && "not a flag op");
  // The data 16-byte aligned; rows of whole 16-byte chunks, tested on the
  // pitch in elements (E is a power of two dividing 16), on which LLVM
  // can then also assume that the pitch is even; no empty dimension (the
  // runtime builds no map for an empty tensor).
  Conds.push_back(AlignedTo(Addr, 16));
  uint64_t E = uint64_t(getDTypeBytes(T.getDType()));
  Conds.push_back(AlignedTo(Emit(*Op.getOperand("pitch").E), 16 / E));
  for (const ExprPtr &D : T.getShape()) {
    if (std::optional<int64_t> C = D->getConstInt(); C && *C > 0)
      continue;
    llvm::Value *X = Emit(*D);
    Conds.push_back(B.CreateICmpSGT(X, llvm::ConstantInt::get(X->getType(), 0)));
  }
  return Conds;
}

std::string cuda::describeLaunchFlag(const OpStmt &Op) {
  std::string Name = "%" + Op.getOperand("tensor").R.Buf->getName().str();
  if (Op.getName() == "cuda.aligned")
    return Name + "'s data " + std::to_string(Op.getAttrOrDefault("bytes").getInt()) +
           "-byte aligned";
  return Name + " readable by TMA (data 16-byte aligned, rows of whole 16-byte "
                "chunks, no empty dimension)";
}
