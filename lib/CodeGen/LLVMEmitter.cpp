//===- LLVMEmitter.cpp - Tile expressions and statements to LLVM ----------===//
//
// Expressions map one to one onto LLVM instructions (integer division and
// remainder truncate as in C; floordiv/floormod/ceildiv round as their names
// say; float-to-integer casts saturate). Loops become canonical counted
// loops. Parallel loops are serial loops whose iterations LLVM is told are
// independent (llvm.loop.parallel_accesses) and should be vectorized.
//
// LLVM's loop vectorizer takes that annotation as leave to reorder any two
// annotated accesses, also within one iteration: it combines the stores of
// an unrolled row into one interleaved store emitted at the last member's
// place, past a conditional store to the same element (`%a[i, j] = 3.0;
// if ... { %a[i, j] = 0.125 }` kept 3.0 in 7 of 8 columns). So a buffer
// that an iteration accesses again after storing to it stays out of the
// loop's access group, and LLVM's own dependence analysis orders it.
//
//===----------------------------------------------------------------------===//

#include "LLVMEmitter.h"
#include "tile/IR/Walk.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include <functional>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

llvm::Type *tile::getLLVMType(llvm::LLVMContext &C, DType T) {
  switch (T) {
  case DType::I1: return llvm::Type::getInt1Ty(C);
  case DType::I8:
  case DType::U8:
  case DType::F8E4M3:
  case DType::F8E5M2: return llvm::Type::getInt8Ty(C);
  case DType::I16:
  case DType::U16: return llvm::Type::getInt16Ty(C);
  case DType::I32:
  case DType::U32: return llvm::Type::getInt32Ty(C);
  case DType::I64:
  case DType::U64: return llvm::Type::getInt64Ty(C);
  case DType::F16: return llvm::Type::getHalfTy(C);
  case DType::BF16: return llvm::Type::getBFloatTy(C);
  case DType::F32: return llvm::Type::getFloatTy(C);
  case DType::F64: return llvm::Type::getDoubleTy(C);
  }
  llvm_unreachable("unknown dtype");
}

llvm::Type *tile::getLLVMMemType(llvm::LLVMContext &C, DType T) {
  if (T == DType::I1)
    return llvm::Type::getInt8Ty(C);
  return getLLVMType(C, T);
}

LLVMDeviceTarget::~LLVMDeviceTarget() = default;

llvm::Value *LLVMDeviceTarget::getCapture(llvm::IRBuilder<> &, KernelEmission &K,
                                          unsigned I, llvm::Type *) {
  return K.Fn->getArg(I);
}

std::vector<llvm::Type *>
LLVMDeviceTarget::getCaptureParamTypes(llvm::LLVMContext &C,
                                       const KernelEmission &K) const {
  std::vector<llvm::Type *> Params;
  for (const KernelCapture &Cap : K.Captures)
    Params.push_back(Cap.isBuffer()
                         ? llvm::PointerType::get(C, getGlobalAddressSpace())
                         : getLLVMType(C, Cap.V->getDType()));
  return Params;
}

llvm::Function *LLVMDeviceTarget::createKernelFunction(
    llvm::Module &M, llvm::StringRef Name, const KernelEmission &K,
    llvm::ArrayRef<llvm::Type *> Params, llvm::CallingConv::ID CC) {
  auto *FT = llvm::FunctionType::get(llvm::Type::getVoidTy(M.getContext()),
                                     Params, false);
  llvm::Function *F =
      llvm::Function::Create(FT, llvm::Function::ExternalLinkage, Name, M);
  F->setCallingConv(CC);
  F->addFnAttr(llvm::Attribute::NoUnwind);
  for (unsigned I = 0; I != K.Captures.size(); ++I)
    F->getArg(I)->setName(K.Captures[I].V->getName());
  return F;
}

llvm::Value *tile::createPerThreadArray(llvm::IRBuilder<> &B, KernelEmission &K,
                                        const BufferValue &Buf,
                                        llvm::Type *ElemTy, uint64_t NumElems) {
  llvm::IRBuilder<> Entry(&K.Fn->getEntryBlock(),
                          K.Fn->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst *A = Entry.CreateAlloca(
      llvm::ArrayType::get(ElemTy, NumElems), nullptr, Buf.getName());
  A->setAlignment(llvm::Align(16));
  return A;
}

llvm::Value *StaticSharedArrays::allocate(llvm::IRBuilder<> &B,
                                          KernelEmission &K,
                                          const BufferValue &Buf,
                                          uint64_t Bytes) {
  assert(!Kernels.empty() && Kernels.back().Fn == K.Fn &&
         "shared memory requested outside the kernel being emitted");
  KernelArray &KA = Kernels.back();
  llvm::Module &M = *K.Fn->getParent();
  if (!KA.Placeholder)
    KA.Placeholder = new llvm::GlobalVariable(
        M, llvm::ArrayType::get(B.getInt8Ty(), 0), false,
        llvm::GlobalValue::InternalLinkage, nullptr,
        K.Fn->getName() + "." + Suffix + ".placeholder", nullptr,
        llvm::GlobalValue::NotThreadLocal, AddrSpace);
  int64_t Offset = placeSharedBuffer(K, Bytes);
  return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), KA.Placeholder, Offset,
                                      Buf.getName());
}

llvm::Value *StaticSharedArrays::allocateOnChip(llvm::IRBuilder<> &B,
                                                KernelEmission &K,
                                                const BufferValue &Buf,
                                                llvm::Type *ElemTy,
                                                uint64_t NumElems) {
  if (Buf.getScope() == MemScope::Shared) {
    const llvm::DataLayout &DL = K.Fn->getParent()->getDataLayout();
    return allocate(B, K, Buf, DL.getTypeAllocSize(ElemTy) * NumElems);
  }
  return createPerThreadArray(B, K, Buf, ElemTy, NumElems);
}

int64_t tile::placeSharedBuffer(KernelEmission &K, uint64_t Bytes) {
  int64_t Offset = K.PlannedSharedOffset ? *K.PlannedSharedOffset
                                         : (K.SharedBytes + 15) / 16 * 16;
  K.SharedBytes = std::max(K.SharedBytes, Offset + int64_t(Bytes));
  return Offset;
}

void StaticSharedArrays::finish(const KernelArtifact &A) {
  for (KernelArray &KA : Kernels) {
    if (!KA.Placeholder)
      continue;
    int64_t Bytes = getKernelSharedBytes(A, KA.Fn->getName());
    llvm::Module &M = *KA.Fn->getParent();
    auto *Ty = llvm::ArrayType::get(llvm::Type::getInt8Ty(M.getContext()), Bytes);
    auto *G = new llvm::GlobalVariable(
        M, Ty, false, llvm::GlobalValue::InternalLinkage,
        llvm::PoisonValue::get(Ty), KA.Fn->getName() + "." + Suffix, nullptr,
        llvm::GlobalValue::NotThreadLocal, AddrSpace);
    G->setAlignment(llvm::Align(16));
    KA.Placeholder->replaceAllUsesWith(G);
    KA.Placeholder->eraseFromParent();
    KA.Placeholder = nullptr;
  }
}

int64_t tile::getKernelSharedBytes(const KernelArtifact &A,
                                   llvm::StringRef Symbol) {
  for (const ArtifactEntry &E : A.Entries)
    for (const ArtifactKernel &K : E.Kernels)
      if (K.Symbol == Symbol)
        return K.SharedBytes;
  return 0;
}

llvm::Error LLVMDeviceTarget::emitBarrier(llvm::IRBuilder<> &, KernelEmission &) {
  return llvm::createStringError("this target has no block-wide barrier");
}

llvm::Error LLVMDeviceTarget::emitTargetOp(llvm::IRBuilder<> &, KernelEmission &,
                                           const OpStmt &Op,
                                           llvm::ArrayRef<llvm::Value *>) {
  return llvm::createStringError(
      "op '" + Op.getName() +
      "' reached code generation; the target's pipeline must lower it first");
}

llvm::Value *LLVMDeviceTarget::emitMath(llvm::IRBuilder<> &B,
                                        llvm::StringRef Name, llvm::Value *X) {
  llvm::Intrinsic::ID ID = llvm::StringSwitch<llvm::Intrinsic::ID>(Name)
                               .Case("exp", llvm::Intrinsic::exp)
                               .Case("exp2", llvm::Intrinsic::exp2)
                               .Case("log", llvm::Intrinsic::log)
                               .Case("log2", llvm::Intrinsic::log2)
                               .Case("sqrt", llvm::Intrinsic::sqrt)
                               .Case("tanh", llvm::Intrinsic::tanh)
                               .Default(llvm::Intrinsic::not_intrinsic);
  assert(ID != llvm::Intrinsic::not_intrinsic && "unknown math function");
  return B.CreateUnaryIntrinsic(ID, X);
}

//===----------------------------------------------------------------------===//
// Conversions and expressions
//===----------------------------------------------------------------------===//

llvm::Value *tile::emitConvert(llvm::IRBuilder<> &B, llvm::Value *V, DType From,
                               DType To) {
  if (From == To)
    return V;
  llvm::Type *ToTy = getLLVMType(B.getContext(), To);
  if (isBool(To)) {
    if (isFloat(From))
      return B.CreateFCmpUNE(V, llvm::ConstantFP::get(V->getType(), 0.0));
    return B.CreateICmpNE(V, llvm::ConstantInt::get(V->getType(), 0));
  }
  if (isBool(From)) {
    if (isFloat(To))
      return B.CreateUIToFP(V, ToTy);
    return B.CreateZExt(V, ToTy);
  }
  if (isInteger(From) && isInteger(To))
    return isUnsigned(From) ? B.CreateZExtOrTrunc(V, ToTy)
                            : B.CreateSExtOrTrunc(V, ToTy);
  if (isInteger(From))
    return isUnsigned(From) ? B.CreateUIToFP(V, ToTy) : B.CreateSIToFP(V, ToTy);
  if (isInteger(To))
    return B.CreateIntrinsic(isUnsigned(To) ? llvm::Intrinsic::fptoui_sat
                                            : llvm::Intrinsic::fptosi_sat,
                             {ToTy, V->getType()}, {V});
  // Float to float; half <-> bfloat go through float.
  if ((From == DType::F16 && To == DType::BF16) ||
      (From == DType::BF16 && To == DType::F16))
    V = B.CreateFPExt(V, B.getFloatTy());
  if (V->getType()->getPrimitiveSizeInBits() < ToTy->getPrimitiveSizeInBits())
    return B.CreateFPExt(V, ToTy);
  return B.CreateFPTrunc(V, ToTy);
}

llvm::Value *LLVMEmitter::convert(llvm::Value *V, DType From, DType To) {
  return emitConvert(B, V, From, To);
}

/// floor(a / b) for signed integers.
static llvm::Value *floorDiv(llvm::IRBuilder<> &B, llvm::Value *A,
                             llvm::Value *D) {
  llvm::Value *Q = B.CreateSDiv(A, D);
  llvm::Value *R = B.CreateSRem(A, D);
  llvm::Value *Zero = llvm::ConstantInt::get(A->getType(), 0);
  llvm::Value *Adjust = B.CreateAnd(
      B.CreateICmpNE(R, Zero), B.CreateICmpSLT(B.CreateXor(R, D), Zero));
  return B.CreateSub(Q, B.CreateZExt(Adjust, A->getType()));
}

llvm::Value *LLVMEmitter::emitIntrinsic(const CallExpr &Call) {
  llvm::ArrayRef<ExprPtr> Args = Call.getArgs();
  DType Ty = Args[Call.getIntrinsic() == Intrinsic::Select ? 1 : 0]->getDType();
  bool F = isFloat(Ty), U = isUnsigned(Ty);
  auto Arg = [&](unsigned I) { return emit(*Args[I]); };
  switch (Call.getIntrinsic()) {
  case Intrinsic::Select: {
    llvm::Value *Cond = Arg(0);
    llvm::Value *T = Arg(1), *E = Arg(2);
    return B.CreateSelect(Cond, T, E);
  }
  case Intrinsic::Min:
  case Intrinsic::Max: {
    bool Max = Call.getIntrinsic() == Intrinsic::Max;
    llvm::Value *X = Arg(0), *Y = Arg(1);
    if (F)
      return B.CreateBinaryIntrinsic(Max ? llvm::Intrinsic::maxnum
                                         : llvm::Intrinsic::minnum, X, Y);
    if (isBool(Ty))
      return Max ? B.CreateOr(X, Y) : B.CreateAnd(X, Y);
    return B.CreateBinaryIntrinsic(
        Max ? (U ? llvm::Intrinsic::umax : llvm::Intrinsic::smax)
            : (U ? llvm::Intrinsic::umin : llvm::Intrinsic::smin),
        X, Y);
  }
  case Intrinsic::Abs: {
    llvm::Value *X = Arg(0);
    if (F)
      return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X);
    if (U)
      return X;
    return B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, X, B.getFalse());
  }
  case Intrinsic::Exp:
    return Target ? Target->emitMath(B, "exp", Arg(0))
                  : B.CreateUnaryIntrinsic(llvm::Intrinsic::exp, Arg(0));
  case Intrinsic::Exp2:
    return Target ? Target->emitMath(B, "exp2", Arg(0))
                  : B.CreateUnaryIntrinsic(llvm::Intrinsic::exp2, Arg(0));
  case Intrinsic::Log:
    return Target ? Target->emitMath(B, "log", Arg(0))
                  : B.CreateUnaryIntrinsic(llvm::Intrinsic::log, Arg(0));
  case Intrinsic::Log2:
    return Target ? Target->emitMath(B, "log2", Arg(0))
                  : B.CreateUnaryIntrinsic(llvm::Intrinsic::log2, Arg(0));
  case Intrinsic::Sqrt:
    return Target ? Target->emitMath(B, "sqrt", Arg(0))
                  : B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, Arg(0));
  case Intrinsic::Tanh:
    return Target ? Target->emitMath(B, "tanh", Arg(0))
                  : B.CreateUnaryIntrinsic(llvm::Intrinsic::tanh, Arg(0));
  case Intrinsic::Rsqrt: {
    llvm::Value *X = Arg(0);
    llvm::Value *S = Target ? Target->emitMath(B, "sqrt", X)
                            : B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X);
    return B.CreateFDiv(llvm::ConstantFP::get(X->getType(), 1.0), S);
  }
  case Intrinsic::CeilDiv:
  case Intrinsic::FloorDiv:
  case Intrinsic::FloorMod: {
    llvm::Value *X = Arg(0), *Y = Arg(1);
    llvm::Intrinsic::ID Unused = llvm::Intrinsic::not_intrinsic;
    (void)Unused;
    if (U) {
      if (Call.getIntrinsic() == Intrinsic::FloorDiv)
        return B.CreateUDiv(X, Y);
      if (Call.getIntrinsic() == Intrinsic::FloorMod)
        return B.CreateURem(X, Y);
      llvm::Value *One = llvm::ConstantInt::get(X->getType(), 1);
      return B.CreateUDiv(B.CreateAdd(X, B.CreateSub(Y, One)), Y);
    }
    if (Call.getIntrinsic() == Intrinsic::FloorDiv)
      return floorDiv(B, X, Y);
    if (Call.getIntrinsic() == Intrinsic::FloorMod)
      return B.CreateSub(X, B.CreateMul(floorDiv(B, X, Y), Y));
    // ceildiv(a, b) = -floordiv(-a, b)
    return B.CreateNeg(floorDiv(B, B.CreateNeg(X), Y));
  }
  }
  llvm_unreachable("unknown intrinsic");
}

llvm::Value *LLVMEmitter::emit(const Expr &E) {
  llvm::Type *Ty = getLLVMType(C, E.getDType());
  switch (E.getKind()) {
  case Expr::Kind::IntLit:
    return llvm::ConstantInt::get(Ty, cast<IntLitExpr>(E).getValue(),
                                  !isUnsigned(E.getDType()));
  case Expr::Kind::FloatLit:
    return llvm::ConstantFP::get(Ty, cast<FloatLitExpr>(E).getValue());
  case Expr::Kind::Inf:
    return llvm::ConstantFP::getInfinity(Ty);
  case Expr::Kind::Ref: {
    llvm::Value *V = Scalars.lookup(cast<RefExpr>(E).getValue());
    assert(V && "use of a value with no LLVM binding");
    return V;
  }
  case Expr::Kind::Load: {
    const auto &L = cast<LoadExpr>(E);
    return load(L.getBuffer(), L.getIndices());
  }
  case Expr::Kind::Cast: {
    const auto &Cst = cast<CastExpr>(E);
    return convert(emit(*Cst.getOperand()), Cst.getOperand()->getDType(),
                   Cst.getDType());
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    llvm::Value *X = emit(*U.getOperand());
    if (U.getOp() == UnaryOp::Not)
      return B.CreateNot(X);
    return isFloat(U.getDType()) ? B.CreateFNeg(X) : B.CreateNeg(X);
  }
  case Expr::Kind::Call:
    return emitIntrinsic(cast<CallExpr>(E));
  case Expr::Kind::Binary: {
    const auto &Bin = cast<BinaryExpr>(E);
    llvm::Value *L = emit(*Bin.getLHS()), *R = emit(*Bin.getRHS());
    DType OT = Bin.getLHS()->getDType();
    bool F = isFloat(OT), U = isUnsigned(OT) || isBool(OT);
    switch (Bin.getOp()) {
    case BinaryOp::Add: return F ? B.CreateFAdd(L, R) : B.CreateAdd(L, R);
    case BinaryOp::Sub: return F ? B.CreateFSub(L, R) : B.CreateSub(L, R);
    case BinaryOp::Mul: return F ? B.CreateFMul(L, R) : B.CreateMul(L, R);
    case BinaryOp::Div:
      return F ? B.CreateFDiv(L, R) : U ? B.CreateUDiv(L, R) : B.CreateSDiv(L, R);
    case BinaryOp::Rem:
      return F ? B.CreateFRem(L, R) : U ? B.CreateURem(L, R) : B.CreateSRem(L, R);
    case BinaryOp::And:
    case BinaryOp::LogicalAnd: return B.CreateAnd(L, R);
    case BinaryOp::Or:
    case BinaryOp::LogicalOr: return B.CreateOr(L, R);
    case BinaryOp::Xor: return B.CreateXor(L, R);
    case BinaryOp::Shl: return B.CreateShl(L, R);
    case BinaryOp::Shr: return U ? B.CreateLShr(L, R) : B.CreateAShr(L, R);
    case BinaryOp::Eq: return F ? B.CreateFCmpOEQ(L, R) : B.CreateICmpEQ(L, R);
    case BinaryOp::Ne: return F ? B.CreateFCmpUNE(L, R) : B.CreateICmpNE(L, R);
    case BinaryOp::Lt:
      return F ? B.CreateFCmpOLT(L, R) : U ? B.CreateICmpULT(L, R) : B.CreateICmpSLT(L, R);
    case BinaryOp::Le:
      return F ? B.CreateFCmpOLE(L, R) : U ? B.CreateICmpULE(L, R) : B.CreateICmpSLE(L, R);
    case BinaryOp::Gt:
      return F ? B.CreateFCmpOGT(L, R) : U ? B.CreateICmpUGT(L, R) : B.CreateICmpSGT(L, R);
    case BinaryOp::Ge:
      return F ? B.CreateFCmpOGE(L, R) : U ? B.CreateICmpUGE(L, R) : B.CreateICmpSGE(L, R);
    }
  }
  }
  llvm_unreachable("unknown expression");
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

void LLVMEmitter::bindBuffer(const BufferValue *Buf, llvm::Value *Base) {
  BufferBinding Bd;
  Bd.Base = Base;
  Bd.ElemTy = getLLVMMemType(C, Buf->getDType());
  Bd.ParallelDepthAtAlloc = AccessGroups.size();
  unsigned R = Buf->getRank();
  Bd.Strides.assign(R, nullptr);
  auto AsI64 = [&](const Expr &E) {
    return B.CreateSExt(emit(E), B.getInt64Ty());
  };
  if (!Buf->getStrides().empty()) {
    for (unsigned D = 0; D != R; ++D)
      Bd.Strides[D] = AsI64(*Buf->getStrides()[D]);
  } else {
    llvm::Value *S = B.getInt64(1);
    for (unsigned D = R; D-- > 0;) {
      Bd.Strides[D] = S;
      if (D)
        S = B.CreateMul(S, AsI64(*Buf->getShape()[D]));
    }
  }
  Buffers[Buf] = std::move(Bd);
}

llvm::Value *LLVMEmitter::address(const BufferValue *Buf,
                                  llvm::ArrayRef<ExprPtr> Idx) {
  const BufferBinding *Bd = lookupBuffer(Buf);
  assert(Bd && "buffer has no LLVM binding");
  if (Idx.empty())
    return Bd->Base;
  llvm::Value *Off = nullptr;
  for (unsigned D = 0; D != Idx.size(); ++D) {
    llvm::Value *I = B.CreateSExt(emit(*Idx[D]), B.getInt64Ty());
    llvm::Value *T = B.CreateMul(I, Bd->Strides[D], "", /*HasNUW=*/false,
                                 /*HasNSW=*/true);
    Off = Off ? B.CreateAdd(Off, T, "", false, true) : T;
  }
  return B.CreateInBoundsGEP(Bd->ElemTy, Bd->Base, Off);
}

/// The buffers that one iteration of \p Body accesses again after it stored
/// to them, in program order (the loads of a store's indices and value come
/// before it; the two branches of an `if` exclude each other). A nested
/// loop's body is seen twice, for the accesses of its next trip; an op that
/// is not a plain store counts as storing to and accessing every buffer it
/// names.
static llvm::SmallPtrSet<const BufferValue *, 4>
getReaccessedAfterStore(const Block &Body) {
  llvm::SmallPtrSet<const BufferValue *, 4> Stored, Again;
  auto Access = [&](const Value *V) {
    if (auto *Buf = llvm::dyn_cast<BufferValue>(V))
      if (Stored.contains(Buf))
        Again.insert(Buf);
  };
  std::function<void(const Expr &)> Loads = [&](const Expr &E) {
    if (auto *L = llvm::dyn_cast<LoadExpr>(&E))
      Access(L->getBuffer());
    forEachChild(E, Loads);
  };
  std::function<void(const Block &)> Visit = [&](const Block &Blk) {
    for (const StmtPtr &SP : Blk.Stmts) {
      Stmt &S = const_cast<Stmt &>(*SP);
      forEachExprSlot(S, [&](ExprPtr &E) {
        if (E)
          Loads(*E);
      });
      if (auto *St = llvm::dyn_cast<StoreStmt>(&S)) {
        Access(St->getBuffer());
        Stored.insert(St->getBuffer());
      } else if (llvm::isa<OpStmt>(S)) {
        for (const OpOperand &O : llvm::cast<OpStmt>(S).getOperands())
          if (O.Kind == OperandKind::Region && O.R.Buf) {
            Stored.insert(O.R.Buf);
            Again.insert(O.R.Buf);
          }
      }
      if (llvm::isa<IfStmt>(S)) {
        // One of the branches runs: each starts from what was stored
        // before the `if`, and after it either's stores count.
        auto Before = Stored;
        llvm::SmallPtrSet<const BufferValue *, 4> After;
        for (Block *Branch : getNestedBlocks(S)) {
          Stored = Before;
          Visit(*Branch);
          After.insert(Stored.begin(), Stored.end());
        }
        Stored = std::move(After);
        continue;
      }
      unsigned Trips = llvm::isa<ForStmt>(S) ? 2 : 1;
      for (unsigned T = 0; T != Trips; ++T)
        for (Block *Nested : getNestedBlocks(S))
          Visit(*Nested);
    }
  };
  Visit(Body);
  return Again;
}

void LLVMEmitter::tagAccess(llvm::Instruction *I, const BufferValue *Buf) {
  const BufferBinding *Bd = lookupBuffer(Buf);
  if (Buf->getScope() == MemScope::Var || AccessGroups.empty())
    return;
  // Only the parallel loops outside the buffer's allocation see the same
  // memory in every iteration.
  llvm::SmallVector<llvm::Metadata *> Groups;
  for (unsigned G = Bd->ParallelDepthAtAlloc; G < AccessGroups.size(); ++G)
    if (!AccessGroups[G].Excluded.contains(Buf))
      Groups.push_back(AccessGroups[G].Group);
  if (Groups.empty())
    return;
  llvm::MDNode *MD = Groups.size() == 1 ? cast<llvm::MDNode>(Groups.front())
                                        : llvm::MDNode::get(C, Groups);
  I->setMetadata(llvm::LLVMContext::MD_access_group, MD);
}

llvm::Value *LLVMEmitter::load(const BufferValue *Buf,
                               llvm::ArrayRef<ExprPtr> Idx) {
  llvm::Value *Addr = address(Buf, Idx);
  llvm::Type *MemTy = getLLVMMemType(C, Buf->getDType());
  llvm::LoadInst *L = B.CreateLoad(MemTy, Addr);
  tagAccess(L, Buf);
  if (Buf->getDType() == DType::I1)
    return B.CreateTrunc(L, B.getInt1Ty());
  return L;
}

void LLVMEmitter::store(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx,
                        llvm::Value *V) {
  if (Buf->getDType() == DType::I1)
    V = B.CreateZExt(V, B.getInt8Ty());
  llvm::Value *Addr = address(Buf, Idx);
  llvm::StoreInst *S = B.CreateStore(V, Addr);
  tagAccess(S, Buf);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void LLVMEmitter::setEnclosingLoc(llvm::SMLoc Loc) {
  StmtLoc = Loc;
  if (DebugLocs)
    B.SetCurrentDebugLocation(DebugLocs->get(Loc, Scope));
}

llvm::Error LLVMEmitter::emitBlock(const Block &Blk, KernelEmission &K) {
  for (const StmtPtr &S : Blk.Stmts) {
    llvm::SMLoc Outer = StmtLoc;
    llvm::DebugLoc OuterDL = B.getCurrentDebugLocation();
    if (S->getLoc().isValid()) {
      StmtLoc = S->getLoc();
      if (DebugLocs)
        B.SetCurrentDebugLocation(DebugLocs->get(StmtLoc, Scope));
    }
    llvm::Error E = emitStmt(*S, K);
    StmtLoc = Outer;
    if (DebugLocs)
      B.SetCurrentDebugLocation(OuterDL);
    if (E)
      return E;
  }
  return llvm::Error::success();
}

llvm::Error LLVMEmitter::emitStmt(const Stmt &S, KernelEmission &K) {
  switch (S.getKind()) {
  case Stmt::Kind::Alloc: {
    const auto &Alloc = cast<AllocStmt>(S);
    const BufferValue *Buf = Alloc.getBuffer();
    if (Buf->getScope() == MemScope::Global)
      return llvm::createStringError("global workspace '%" + Buf->getName() +
                                     "' inside a kernel");
    std::optional<std::vector<int64_t>> Shape = Buf->getConstShape();
    if (!Shape)
      return llvm::createStringError("on-chip buffer '%" + Buf->getName() +
                                     "' has a non-constant shape");
    uint64_t N = 1;
    for (int64_t D : *Shape)
      N *= D;
    if (const Attribute *Off = Alloc.getAttrs().get("offset"))
      K.PlannedSharedOffset = Off->getInt();
    llvm::Value *Base = Target->allocateOnChip(
        B, K, *Buf, getLLVMMemType(C, Buf->getDType()), N);
    K.PlannedSharedOffset.reset();
    bindBuffer(Buf, Base);
    return llvm::Error::success();
  }
  case Stmt::Kind::Let: {
    const auto &L = cast<LetStmt>(S);
    bindScalar(L.getVar(), emit(*L.getInit()));
    return llvm::Error::success();
  }
  case Stmt::Kind::Store: {
    const auto &St = cast<StoreStmt>(S);
    store(St.getBuffer(), St.getIndices(), emit(*St.getValue()));
    return llvm::Error::success();
  }
  case Stmt::Kind::For:
    return emitFor(cast<ForStmt>(S), K);
  case Stmt::Kind::If:
    return emitIf(cast<IfStmt>(S), K);
  case Stmt::Kind::Op:
    return emitOp(cast<OpStmt>(S), K);
  case Stmt::Kind::Kernel:
    return llvm::createStringError("nested kernel in device code");
  }
  llvm_unreachable("unknown statement");
}

namespace {
/// One counted loop: header with the induction variable, body, latch.
struct LoopBlocks {
  llvm::BasicBlock *Header, *Body, *Latch, *Exit;
  llvm::PHINode *IV;
  /// Iterations, where both bounds are constants.
  std::optional<int64_t> TripCount;
};
} // namespace

static LoopBlocks beginLoop(llvm::IRBuilder<> &B, llvm::Value *Lo,
                            llvm::Value *Hi, bool Unsigned) {
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext &C = B.getContext();
  LoopBlocks L;
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  L.Header = llvm::BasicBlock::Create(C, "loop.header", F);
  L.Body = llvm::BasicBlock::Create(C, "loop.body", F);
  L.Latch = llvm::BasicBlock::Create(C, "loop.latch", F);
  L.Exit = llvm::BasicBlock::Create(C, "loop.exit", F);
  B.CreateBr(L.Header);
  B.SetInsertPoint(L.Header);
  L.IV = B.CreatePHI(Lo->getType(), 2, "iv");
  L.IV->addIncoming(Lo, Pre);
  llvm::Value *Cond = Unsigned ? B.CreateICmpULT(L.IV, Hi) : B.CreateICmpSLT(L.IV, Hi);
  B.CreateCondBr(Cond, L.Body, L.Exit);
  B.SetInsertPoint(L.Body);
  return L;
}

static void endLoop(llvm::IRBuilder<> &B, LoopBlocks &L, llvm::Value *Step,
                    llvm::MDNode *LoopMD) {
  B.CreateBr(L.Latch);
  B.SetInsertPoint(L.Latch);
  llvm::Value *Next = B.CreateAdd(L.IV, Step, "iv.next");
  L.IV->addIncoming(Next, L.Latch);
  llvm::BranchInst *Back = B.CreateBr(L.Header);
  if (LoopMD)
    Back->setMetadata(llvm::LLVMContext::MD_loop, LoopMD);
  B.SetInsertPoint(L.Exit);
}

/// `!llvm.loop` with a self reference and the given properties.
static llvm::MDNode *loopMetadata(llvm::LLVMContext &C,
                                  llvm::ArrayRef<llvm::Metadata *> Props) {
  llvm::SmallVector<llvm::Metadata *> Ops;
  Ops.push_back(nullptr);
  Ops.append(Props.begin(), Props.end());
  llvm::MDNode *N = llvm::MDNode::getDistinct(C, Ops);
  N->replaceOperandWith(0, N);
  return N;
}

/// The longest parallel loop of known trip count whose unrolling waits for
/// the vectorizer (emitFor): a CPU strip of four vectors is 32 iterations
/// on AVX2 and 64 with AVX-512. Held back, a loop is also not interleaved
/// by the vectorizer, which costs longer loops: with 1024 iterations
/// bench/cpu/layernorm.tile ran 40% slower on AVX2, and with 256
/// bench/cpu/saxpy_threads.tile about 15% slower with AVX-512 on 16 threads
/// (bench/cpu/ab-unroll-after-vectorize-2026-12-07-*.log).
static constexpr int64_t kMaxUnrollGuardedTrip = 64;

llvm::Error LLVMEmitter::emitFor(const ForStmt &F, KernelEmission &K) {
  bool Parallel = F.getLoopKind() == LoopKind::Parallel;
  llvm::MDNode *Group = nullptr;
  if (Parallel && Target && Target->annotateParallelLoops()) {
    Group = llvm::MDNode::getDistinct(C, {});
    AccessGroups.push_back({Group, getReaccessedAfterStore(F.getBody())});
  }
  std::vector<LoopBlocks> Loops;
  for (const LoopDim &D : F.getDims()) {
    llvm::Type *IVTy = getLLVMType(C, D.Var->getDType());
    llvm::Value *Lo = D.Lo ? emit(*D.Lo) : llvm::ConstantInt::get(IVTy, 0);
    llvm::Value *Hi = emit(*D.Hi);
    Loops.push_back(beginLoop(B, Lo, Hi, isUnsigned(D.Var->getDType())));
    auto *CLo = llvm::dyn_cast<llvm::ConstantInt>(Lo);
    auto *CHi = llvm::dyn_cast<llvm::ConstantInt>(Hi);
    if (CLo && CHi)
      Loops.back().TripCount = CHi->getSExtValue() - CLo->getSExtValue();
    bindScalar(D.Var.get(), Loops.back().IV);
  }
  if (llvm::Error E = emitBlock(F.getBody(), K))
    return E;
  if (Group)
    AccessGroups.pop_back();
  for (unsigned I = Loops.size(); I-- > 0;) {
    llvm::SmallVector<llvm::Metadata *> Props;
    Props.push_back(llvm::MDNode::get(C, llvm::MDString::get(C, "llvm.loop.mustprogress")));
    if (Group)
      Props.push_back(llvm::MDNode::get(
          C, {llvm::MDString::get(C, "llvm.loop.parallel_accesses"), Group}));
    if (llvm::Metadata *Tag = Target ? Target->getLoopProperty(C, StmtLoc) : nullptr)
      Props.push_back(Tag);
    if (F.getLoopKind() == LoopKind::Unroll)
      Props.push_back(
          llvm::MDNode::get(C, llvm::MDString::get(C, "llvm.loop.unroll.full")));
    if (Parallel && I + 1 == Loops.size() && Target &&
        Target->annotateParallelLoops()) {
      // A short loop of known trip count (a CPU strip of 4 vectors: 32
      // lanes of f32 on AVX2) would otherwise be unrolled completely before
      // the vectorizer runs, leaving one scalar accumulator a lane and an outer
      // loop the vectorizer refuses (examples/rmsnorm.tile on AVX2: 10 GB/s
      // against 33 vectorized). Its unrolling waits for the vectorizer;
      // the loops the vectorizer makes (its followup) keep the other
      // properties and may be unrolled as usual.
      if (Loops[I].TripCount && *Loops[I].TripCount <= kMaxUnrollGuardedTrip) {
        llvm::SmallVector<llvm::Metadata *> Followup = {
            llvm::MDString::get(C, "llvm.loop.vectorize.followup_all")};
        Followup.append(Props.begin(), Props.end());
        Props.push_back(llvm::MDNode::get(C, Followup));
        Props.push_back(
            llvm::MDNode::get(C, llvm::MDString::get(C, "llvm.loop.unroll.disable")));
      }
      Props.push_back(llvm::MDNode::get(
          C, {llvm::MDString::get(C, "llvm.loop.vectorize.enable"),
              llvm::ConstantAsMetadata::get(B.getTrue())}));
    }
    llvm::Value *Step = llvm::ConstantInt::get(Loops[I].IV->getType(), 1);
    if (F.getStep())
      Step = emit(*F.getStep());
    endLoop(B, Loops[I], Step, loopMetadata(C, Props));
  }
  return llvm::Error::success();
}

llvm::Error LLVMEmitter::emitIf(const IfStmt &I, KernelEmission &K) {
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::BasicBlock *Then = llvm::BasicBlock::Create(C, "if.then", Fn);
  llvm::BasicBlock *Else =
      I.hasElse() ? llvm::BasicBlock::Create(C, "if.else", Fn) : nullptr;
  llvm::BasicBlock *Merge = llvm::BasicBlock::Create(C, "if.end", Fn);
  B.CreateCondBr(emit(*I.getCond()), Then, Else ? Else : Merge);
  B.SetInsertPoint(Then);
  if (llvm::Error E = emitBlock(I.getThen(), K))
    return E;
  B.CreateBr(Merge);
  if (Else) {
    B.SetInsertPoint(Else);
    if (llvm::Error E = emitBlock(I.getElse(), K))
      return E;
    B.CreateBr(Merge);
  }
  B.SetInsertPoint(Merge);
  return llvm::Error::success();
}

llvm::Error LLVMEmitter::emitOp(const OpStmt &Op, KernelEmission &K) {
  if (Op.getName() == "atomic_elem") {
    const Region &Dst = Op.getOperand("dst").R;
    std::vector<ExprPtr> Idx;
    for (const RegionIndex &I : Dst.Indices)
      Idx.push_back(I.Offset->clone());
    DType Ty = Dst.Buf->getDType();
    const Expr &ValE = *Op.getOperand("value").E;
    llvm::Value *V = convert(emit(ValE), ValE.getDType(), Ty);
    llvm::Value *Addr = address(Dst.Buf, Idx);
    std::string Kind = Op.getAttrOrDefault("kind").getStr().str();
    bool F = isFloat(Ty), U = isUnsigned(Ty);
    llvm::AtomicRMWInst::BinOp RMW =
        Kind == "add" ? (F ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add)
        : Kind == "max"
            ? (F ? llvm::AtomicRMWInst::FMax
                 : U ? llvm::AtomicRMWInst::UMax : llvm::AtomicRMWInst::Max)
            : (F ? llvm::AtomicRMWInst::FMin
                 : U ? llvm::AtomicRMWInst::UMin : llvm::AtomicRMWInst::Min);
    B.CreateAtomicRMW(RMW, Addr, V, llvm::MaybeAlign(),
                      llvm::AtomicOrdering::Monotonic);
    return llvm::Error::success();
  }
  if (Op.getName() == "barrier")
    return Target->emitBarrier(B, K);
  if (Target && !Op.getInfo().isCommon()) {
    std::vector<llvm::Value *> Operands;
    for (const OpOperand &O : Op.getOperands()) {
      if (O.Kind == OperandKind::Expr) {
        Operands.push_back(emit(*O.E));
        continue;
      }
      std::vector<ExprPtr> Idx;
      for (const RegionIndex &I : O.R.Indices)
        Idx.push_back(I.Offset->clone());
      Operands.push_back(address(O.R.Buf, Idx));
    }
    K.EmitExpr = [this](const Expr &E) { return emit(E); };
    llvm::Error E = Target->emitTargetOp(B, K, Op, Operands);
    K.EmitExpr = nullptr;
    return E;
  }
  return llvm::createStringError(
      "op '" + Op.getName() +
      "' reached code generation; the target's pipeline must lower it first");
}
