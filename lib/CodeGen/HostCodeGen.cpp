//===- HostCodeGen.cpp - Entry points with the packed C ABI ---------------===//
//
// For `func @f`, emits
//
//   int32_t tile_f(const TileArg *args, int32_t num_args, void *ctx)
//
// which checks every argument against the declaration (kind, device,
// rank, dtype, shape, symbolic dimensions shared between tensors, strides,
// null data, alignment), binds the symbolic dimensions, runs the host part
// of the function (lets, workspaces, conditions) and launches each kernel
// through tile_rt_launch, with the tensor maps its artifact description
// asks for built by tile_rt_tensor_map. A kernel the artifact has a
// specialization of launches it where the target's test of the arguments
// (HostCodeGenOptions::SpecializationCondition) holds, else itself; a
// persistent kernel (HostCodeGenOptions::IsPersistent) with no more blocks
// than the device runs at once (tile_rt_resident_blocks). A
// failed check calls tile_rt_fail with a message naming the argument and
// what was expected, and nothing is launched.
//
//===----------------------------------------------------------------------===//

#include "ArtifactEntries.h"
#include "LLVMEmitter.h"
#include "tile/Exec/RuntimeABI.h"
#include "llvm/IR/MDBuilder.h"
#include "tile/IR/Walk.h"
#include <dlpack/dlpack.h>
#include <cstddef>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

namespace {

class HostEmitter {
public:
  HostEmitter(const Function &F, llvm::Module &LM,
              const HostCodeGenOptions &Opts, ArtifactEntry &Entry,
              DebugLocations *DebugLocs)
      : F(F), LM(LM), C(LM.getContext()), Opts(Opts), Entry(Entry), B(C),
        Em(B, nullptr), DebugLocs(DebugLocs) {}

  llvm::Error emit();

private:
  llvm::FunctionCallee failFn() {
    return LM.getOrInsertFunction(
        "tile_rt_fail", llvm::FunctionType::get(
                            B.getInt32Ty(),
                            {B.getPtrTy(), B.getPtrTy(), B.getInt64Ty(),
                             B.getInt64Ty()},
                            false));
  }

  /// if (!Cond) return tile_rt_fail(ctx, Msg, Expected, Actual);
  void check(llvm::Value *Cond, const llvm::Twine &Msg, llvm::Value *Expected,
             llvm::Value *Actual) {
    llvm::BasicBlock *Ok = llvm::BasicBlock::Create(C, "ok", Fn);
    llvm::BasicBlock *Bad = llvm::BasicBlock::Create(C, "bad", Fn);
    B.CreateCondBr(Cond, Ok, Bad, llvm::MDBuilder(C).createLikelyBranchWeights());
    B.SetInsertPoint(Bad);
    freeWorkspaces();
    llvm::Value *Str = B.CreateGlobalString(Msg.str(), "tile.msg");
    llvm::Value *Code = B.CreateCall(
        failFn(), {Ctx, Str, B.CreateSExtOrTrunc(Expected, B.getInt64Ty()),
                   B.CreateSExtOrTrunc(Actual, B.getInt64Ty())});
    B.CreateRet(Code);
    B.SetInsertPoint(Ok);
  }

  llvm::Value *loadField(llvm::Value *Base, size_t Offset, llvm::Type *Ty) {
    return B.CreateLoad(Ty, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Base,
                                                         Offset));
  }

  std::string argDesc(unsigned I) const {
    return "argument '" + F.getParams()[I]->getName().str() + "' (#" +
           std::to_string(I) + ")";
  }

  llvm::Error checkTensor(unsigned I, const BufferValue &Buf,
                          llvm::Value *Arg);
  llvm::Error emitHostBlock(const Block &Blk);
  /// Launches kernel \p Index of the entry for \p K; with \p IndexV, the
  /// kernel that value names at run time (one of kernels with the same
  /// arguments, tensor maps and shared memory as \p Index).
  llvm::Error emitLaunch(const KernelStmt &K, unsigned Index,
                         llvm::Value *IndexV = nullptr);
  llvm::Value *emitTensorMap(const ArtifactTensorMap &M, llvm::Value *Index,
                             unsigned MapIndex, const BufferValue &Buf,
                             llvm::Value *Data);
  /// if (!P) { free the workspaces; return 1; } (the runtime recorded why)
  void checkRuntimeResult(llvm::Value *P);
  void freeWorkspaces() {
    for (llvm::Value *W : Workspaces)
      B.CreateCall(LM.getOrInsertFunction(
                       "tile_rt_free_workspace",
                       llvm::FunctionType::get(B.getVoidTy(),
                                               {B.getPtrTy(), B.getPtrTy()},
                                               false)),
                   {Ctx, W});
  }

  const Function &F;
  llvm::Module &LM;
  llvm::LLVMContext &C;
  const HostCodeGenOptions &Opts;
  ArtifactEntry &Entry;
  llvm::IRBuilder<> B;
  LLVMEmitter Em;
  llvm::Function *Fn = nullptr;
  llvm::Value *Ctx = nullptr;
  /// For each symbolic dimension: where it was bound (as text), once bound.
  llvm::DenseMap<const Value *, std::string> BoundBy;
  std::vector<llvm::Value *> Workspaces;
  unsigned NextKernel = 0;
  /// Null unless LLVM's remarks are located (the whole entry is at @F).
  DebugLocations *DebugLocs;
};

} // namespace

llvm::Error HostEmitter::checkTensor(unsigned I, const BufferValue &Buf,
                                     llvm::Value *Arg) {
  std::string Desc = argDesc(I);
  llvm::Value *T = loadField(Arg, offsetof(TileArg, value), B.getPtrTy());
  check(B.CreateIsNotNull(T), Desc + " is a null tensor", B.getInt64(0),
        B.getInt64(0));
  llvm::Value *Dev =
      loadField(T, offsetof(DLTensor, device) + offsetof(DLDevice, device_type),
                B.getInt32Ty());
  check(B.CreateICmpEQ(Dev, B.getInt32(Opts.DeviceType)),
        Desc + ": tensor is on DLPack device type {actual}, expected {expected}",
        B.getInt32(Opts.DeviceType), Dev);
  llvm::Value *NDim = loadField(T, offsetof(DLTensor, ndim), B.getInt32Ty());
  check(B.CreateICmpEQ(NDim, B.getInt32(Buf.getRank())),
        Desc + ": expected a tensor of rank {expected}, got rank {actual}",
        B.getInt32(Buf.getRank()), NDim);
  llvm::Value *DT = loadField(T, offsetof(DLTensor, dtype), B.getInt32Ty());
  uint32_t Want = getPackedDLPackType(Buf.getDType());
  check(B.CreateICmpEQ(DT, B.getInt32(Want)),
        Desc + ": expected dtype " + getDTypeName(Buf.getDType()) +
            " (DLPack {dtype:expected}), got {dtype:actual}",
        B.getInt32(Want), DT);
  // Shapes: literals must match; a symbol is bound by its first tensor and
  // checked against it by the others.
  llvm::Value *Shape = loadField(T, offsetof(DLTensor, shape), B.getPtrTy());
  if (Buf.getRank() != 0)
    check(B.CreateIsNotNull(Shape), Desc + " has a null shape pointer",
          B.getInt64(0), B.getInt64(0));
  std::vector<llvm::Value *> Dims;
  for (unsigned D = 0; D != Buf.getRank(); ++D) {
    llvm::Value *S = B.CreateLoad(
        B.getInt64Ty(), B.CreateConstInBoundsGEP1_64(B.getInt64Ty(), Shape, D));
    Dims.push_back(S);
    const Expr &DimE = *Buf.getShape()[D];
    std::string Where = Desc + " dimension " + std::to_string(D);
    if (std::optional<int64_t> Lit = DimE.getConstInt()) {
      check(B.CreateICmpEQ(S, B.getInt64(*Lit)),
            Where + " is {actual}, expected {expected}", B.getInt64(*Lit), S);
      continue;
    }
    const Value *Sym = cast<RefExpr>(DimE).getValue();
    auto It = BoundBy.find(Sym);
    if (It == BoundBy.end()) {
      check(B.CreateICmpULE(S, B.getInt64(INT32_MAX)),
            Where + " (" + Sym->getName() +
                ") is {actual}, beyond the 32-bit index range (at most "
                "{expected})",
            B.getInt64(INT32_MAX), S);
      Em.bindScalar(Sym, B.CreateTrunc(S, B.getInt32Ty(), Sym->getName()));
      BoundBy[Sym] = Desc + " dimension " + std::to_string(D);
      continue;
    }
    llvm::Value *Bound = B.CreateSExt(Em.lookupScalar(Sym), B.getInt64Ty());
    check(B.CreateICmpEQ(S, Bound),
          Where + " (" + Sym->getName() + ") is {actual}, but " + It->second +
              " set " + Sym->getName() + " = {expected}",
          Bound, S);
  }
  // Strides: none means row-major (DLPack's compact layout); the tensor's
  // strides, given or row-major, must match the declaration wherever the
  // extent is not 1 (row-major where nothing is declared).
  llvm::Value *Strides = loadField(T, offsetof(DLTensor, strides), B.getPtrTy());
  llvm::Value *HasStrides = B.CreateIsNotNull(Strides);
  llvm::BasicBlock *LoadBB = llvm::BasicBlock::Create(C, "strides", Fn);
  llvm::BasicBlock *Join = llvm::BasicBlock::Create(C, "strides.done", Fn);
  llvm::BasicBlock *Cur = B.GetInsertBlock();
  std::vector<llvm::Value *> RowMajor(Buf.getRank());
  llvm::Value *Acc = B.getInt64(1);
  for (unsigned D = Buf.getRank(); D-- > 0;) {
    RowMajor[D] = Acc;
    Acc = B.CreateMul(Acc, Dims[D]);
  }
  llvm::Value *NumElems = Acc;
  B.CreateCondBr(HasStrides, LoadBB, Join);
  B.SetInsertPoint(LoadBB);
  std::vector<llvm::Value *> Loaded(Buf.getRank());
  for (unsigned D = 0; D != Buf.getRank(); ++D)
    Loaded[D] = B.CreateLoad(
        B.getInt64Ty(), B.CreateConstInBoundsGEP1_64(B.getInt64Ty(), Strides, D));
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  std::vector<llvm::Value *> Given(Buf.getRank());
  for (unsigned D = 0; D != Buf.getRank(); ++D) {
    llvm::PHINode *P = B.CreatePHI(B.getInt64Ty(), 2);
    P->addIncoming(Loaded[D], LoadBB);
    P->addIncoming(RowMajor[D], Cur);
    Given[D] = P;
  }
  for (unsigned D = 0; D != Buf.getRank(); ++D) {
    llvm::Value *Want = RowMajor[D];
    std::string Note = " (row-major; pass a contiguous tensor)";
    if (!Buf.getStrides().empty()) {
      const Expr &SE = *Buf.getStrides()[D];
      if (std::optional<int64_t> Lit = SE.getConstInt()) {
        Want = B.getInt64(*Lit);
      } else if (BoundBy.count(cast<RefExpr>(SE).getValue())) {
        Want = B.CreateSExt(Em.lookupScalar(cast<RefExpr>(SE).getValue()),
                            B.getInt64Ty());
      } else {
        continue; // a new symbol: bound below
      }
      Note = " (as declared; a tensor without strides is row-major)";
    }
    llvm::Value *Ok = B.CreateOr(B.CreateICmpEQ(Given[D], Want),
                                 B.CreateICmpEQ(Dims[D], B.getInt64(1)));
    check(Ok, Desc + " stride of dimension " + std::to_string(D) +
                  " is {actual}, expected {expected}" + Note,
          Want, Given[D]);
  }
  // Bind stride symbols first seen here: the tensor's stride.
  for (unsigned D = 0; D != Buf.getStrides().size(); ++D) {
    const Expr &SE = *Buf.getStrides()[D];
    if (SE.getConstInt())
      continue;
    const Value *Sym = cast<RefExpr>(SE).getValue();
    if (BoundBy.count(Sym) && Em.lookupScalar(Sym))
      continue;
    Em.bindScalar(Sym, B.CreateTrunc(Given[D], B.getInt32Ty(), Sym->getName()));
    BoundBy[Sym] = Desc + " stride " + std::to_string(D);
  }
  // Data: present unless empty, and aligned.
  llvm::Value *Data = loadField(T, offsetof(DLTensor, data), B.getPtrTy());
  llvm::Value *Off = loadField(T, offsetof(DLTensor, byte_offset), B.getInt64Ty());
  llvm::Value *Ptr = B.CreateGEP(B.getInt8Ty(), Data, Off);
  check(B.CreateOr(B.CreateIsNotNull(Data), B.CreateICmpEQ(NumElems, B.getInt64(0))),
        Desc + " has a null data pointer", B.getInt64(0), B.getInt64(0));
  int64_t Align = std::max<int64_t>(Opts.DataAlignment, getDTypeBytes(Buf.getDType()));
  llvm::Value *Mis = B.CreateAnd(B.CreatePtrToInt(Ptr, B.getInt64Ty()),
                                 B.getInt64(Align - 1));
  check(B.CreateICmpEQ(Mis, B.getInt64(0)),
        Desc + " data is not aligned to {expected} bytes (address % "
               "alignment = {actual})",
        B.getInt64(Align), Mis);
  Em.bindBuffer(&Buf, Ptr);
  return llvm::Error::success();
}

void HostEmitter::checkRuntimeResult(llvm::Value *P) {
  llvm::BasicBlock *Ok = llvm::BasicBlock::Create(C, "rt.ok", Fn);
  llvm::BasicBlock *Bad = llvm::BasicBlock::Create(C, "rt.failed", Fn);
  B.CreateCondBr(B.CreateIsNotNull(P), Ok, Bad,
                 llvm::MDBuilder(C).createLikelyBranchWeights());
  B.SetInsertPoint(Bad);
  freeWorkspaces();
  B.CreateRet(B.getInt32(1));
  B.SetInsertPoint(Ok);
}

/// tile_rt_tensor_map(ctx, kernel, map, data, rank, dims, strides) for the
/// tensor \p Buf at \p Data: its extents and strides (declared, or
/// row-major) as the host sees them.
llvm::Value *HostEmitter::emitTensorMap(const ArtifactTensorMap &M,
                                        llvm::Value *Index, unsigned MapIndex,
                                        const BufferValue &Buf,
                                        llvm::Value *Data) {
  unsigned Rank = Buf.getRank();
  auto *ArrTy = llvm::ArrayType::get(B.getInt64Ty(), std::max(Rank, 1u));
  llvm::Value *Dims = B.CreateAlloca(ArrTy, nullptr, "tmap.dims");
  llvm::Value *Strides = B.CreateAlloca(ArrTy, nullptr, "tmap.strides");
  std::vector<llvm::Value *> Extent(Rank);
  for (unsigned D = 0; D != Rank; ++D)
    Extent[D] = B.CreateSExt(Em.emit(*Buf.getShape()[D]), B.getInt64Ty());
  llvm::Value *RowMajor = B.getInt64(1);
  for (unsigned D = Rank; D-- > 0;) {
    llvm::Value *S = Buf.getStrides().empty()
                         ? RowMajor
                         : B.CreateSExt(Em.emit(*Buf.getStrides()[D]), B.getInt64Ty());
    B.CreateStore(Extent[D], B.CreateConstInBoundsGEP2_64(ArrTy, Dims, 0, D));
    B.CreateStore(S, B.CreateConstInBoundsGEP2_64(ArrTy, Strides, 0, D));
    RowMajor = B.CreateMul(RowMajor, Extent[D]);
  }
  llvm::FunctionCallee Fn = LM.getOrInsertFunction(
      "tile_rt_tensor_map",
      llvm::FunctionType::get(B.getPtrTy(),
                              {B.getPtrTy(), B.getInt32Ty(), B.getInt32Ty(),
                               B.getPtrTy(), B.getInt32Ty(), B.getPtrTy(),
                               B.getPtrTy()},
                              false));
  llvm::Value *P = B.CreateCall(
      Fn, {Ctx, Index, B.getInt32(MapIndex), Data,
           B.getInt32(Rank), Dims, Strides},
      "tmap." + M.Name);
  checkRuntimeResult(P);
  return P;
}

llvm::Error HostEmitter::emitLaunch(const KernelStmt &K, unsigned Index,
                                    llvm::Value *IndexV) {
  if (!IndexV)
    IndexV = B.getInt32(Index);
  std::vector<KernelCapture> Caps = getKernelCaptures(F, K);
  // Arguments: the captures, then the tensor maps device codegen added.
  const std::vector<ArtifactTensorMap> *Maps =
      Entry.Kernels.size() > Index ? &Entry.Kernels[Index].TensorMaps : nullptr;
  size_t NumArgs = Caps.size() + (Maps ? Maps->size() : 0);
  llvm::Value *Argv = B.CreateAlloca(
      llvm::ArrayType::get(B.getPtrTy(), std::max<size_t>(NumArgs, 1)),
      nullptr, "argv");
  auto ArgSlot = [&](size_t I) {
    return B.CreateConstInBoundsGEP2_64(
        llvm::ArrayType::get(B.getPtrTy(), std::max<size_t>(NumArgs, 1)), Argv,
        0, I);
  };
  for (unsigned I = 0; I != Caps.size(); ++I) {
    const Value *V = Caps[I].V;
    llvm::Value *Val;
    if (const auto *Buf = dyn_cast<BufferValue>(V)) {
      const BufferBinding *Bd = Em.lookupBuffer(Buf);
      if (!Bd)
        return llvm::createStringError("kernel uses buffer '%" +
                                       Buf->getName() + "' with no binding");
      Val = Bd->Base;
    } else {
      Val = Em.lookupScalar(V);
      if (!Val)
        return llvm::createStringError("kernel uses '" + V->getName() +
                                       "' before it is defined on the host");
    }
    llvm::Value *Slot = B.CreateAlloca(Val->getType());
    B.CreateStore(Val, Slot);
    B.CreateStore(Slot, ArgSlot(I));
  }
  for (unsigned I = 0; Maps && I != Maps->size(); ++I) {
    const ArtifactTensorMap &M = (*Maps)[I];
    const auto *Buf = M.Tensor < Caps.size() ? dyn_cast<BufferValue>(Caps[M.Tensor].V)
                                             : nullptr;
    if (!Buf || M.Arg >= NumArgs || M.Arg < Caps.size())
      return llvm::createStringError(
          "tensor map #" + std::to_string(I) + " of kernel #" +
          std::to_string(Index) + " names argument " + std::to_string(M.Tensor) +
          " as its tensor and " + std::to_string(M.Arg) +
          " as its own; the kernel's tensors are among its " +
          std::to_string(Caps.size()) + " captures");
    // The map's bytes are the argument's value.
    B.CreateStore(emitTensorMap(M, IndexV, I, *Buf, Em.lookupBuffer(Buf)->Base),
                  ArgSlot(M.Arg));
  }
  llvm::Value *G[3] = {B.getInt32(1), B.getInt32(1), B.getInt32(1)};
  for (unsigned D = 0; D != K.getGrid().size(); ++D)
    G[D] = Em.emit(*K.getGrid()[D]);
  llvm::Value *Threads = Em.emit(*K.getThreads());
  int64_t Shared = Entry.Kernels.size() > Index ? Entry.Kernels[Index].SharedBytes : 0;
  if (Opts.IsPersistent && Opts.IsPersistent(K)) {
    // As many blocks as run at once, each looping over the tiles.
    if (K.getGrid().size() != 1)
      return llvm::createStringError(
          "a persistent kernel's grid has one dimension, not " +
          std::to_string(K.getGrid().size()));
    llvm::FunctionCallee Resident = LM.getOrInsertFunction(
        "tile_rt_resident_blocks",
        llvm::FunctionType::get(B.getInt32Ty(),
                                {B.getPtrTy(), B.getInt32Ty(), B.getInt32Ty(),
                                 B.getInt64Ty()},
                                false));
    llvm::Value *R = B.CreateCall(
        Resident, {Ctx, IndexV, B.CreateSExtOrTrunc(Threads, B.getInt32Ty()),
                   B.getInt64(Shared)},
        "resident");
    llvm::BasicBlock *Ok = llvm::BasicBlock::Create(C, "resident.ok", Fn);
    llvm::BasicBlock *Bad = llvm::BasicBlock::Create(C, "resident.failed", Fn);
    B.CreateCondBr(B.CreateICmpSGT(R, B.getInt32(0)), Ok, Bad,
                   llvm::MDBuilder(C).createLikelyBranchWeights());
    B.SetInsertPoint(Bad);
    freeWorkspaces();
    B.CreateRet(B.getInt32(1));
    B.SetInsertPoint(Ok);
    llvm::Value *G0 = B.CreateSExtOrTrunc(G[0], B.getInt32Ty());
    G[0] = B.CreateSelect(B.CreateICmpSLT(R, G0), R, G0, "grid.x");
  }
  llvm::FunctionCallee Launch = LM.getOrInsertFunction(
      "tile_rt_launch",
      llvm::FunctionType::get(B.getInt32Ty(),
                              {B.getPtrTy(), B.getInt32Ty(), B.getPtrTy(),
                               B.getInt32Ty(), B.getInt32Ty(), B.getInt32Ty(),
                               B.getInt32Ty(), B.getInt64Ty()},
                              false));
  llvm::Value *RC = B.CreateCall(Launch, {Ctx, IndexV, Argv, G[0],
                                          G[1], G[2], Threads,
                                          B.getInt64(Shared)});
  llvm::BasicBlock *Ok = llvm::BasicBlock::Create(C, "launched", Fn);
  llvm::BasicBlock *Bad = llvm::BasicBlock::Create(C, "launch.failed", Fn);
  B.CreateCondBr(B.CreateICmpEQ(RC, B.getInt32(0)), Ok, Bad);
  B.SetInsertPoint(Bad);
  freeWorkspaces();
  B.CreateRet(RC);
  B.SetInsertPoint(Ok);
  return llvm::Error::success();
}

llvm::Error HostEmitter::emitHostBlock(const Block &Blk) {
  for (const StmtPtr &S : Blk.Stmts) {
    if (const auto *L = dyn_cast<LetStmt>(S.get())) {
      Em.bindScalar(L->getVar(), Em.emit(*L->getInit()));
      continue;
    }
    if (const auto *A = dyn_cast<AllocStmt>(S.get())) {
      const BufferValue *Buf = A->getBuffer();
      llvm::Value *N = B.getInt64(getDTypeBytes(Buf->getDType()));
      for (const ExprPtr &D : Buf->getShape())
        N = B.CreateMul(N, B.CreateSExt(Em.emit(*D), B.getInt64Ty()));
      llvm::Value *P = B.CreateCall(
          LM.getOrInsertFunction("tile_rt_alloc_workspace",
                                 llvm::FunctionType::get(
                                     B.getPtrTy(), {B.getPtrTy(), B.getInt64Ty()},
                                     false)),
          {Ctx, N});
      llvm::BasicBlock *Ok = llvm::BasicBlock::Create(C, "ws.ok", Fn);
      llvm::BasicBlock *Bad = llvm::BasicBlock::Create(C, "ws.failed", Fn);
      B.CreateCondBr(B.CreateIsNotNull(P), Ok, Bad);
      B.SetInsertPoint(Bad);
      freeWorkspaces();
      B.CreateRet(B.getInt32(1));
      B.SetInsertPoint(Ok);
      Workspaces.push_back(P);
      Em.bindBuffer(Buf, P);
      continue;
    }
    if (const auto *K = dyn_cast<KernelStmt>(S.get())) {
      unsigned N = NextKernel++;
      std::optional<unsigned> Index = Entry.getKernelIndex(N);
      std::optional<unsigned> Spec =
          Index ? Entry.getSpecialization(*Index) : std::nullopt;
      if (!Spec) {
        if (llvm::Error E = emitLaunch(*K, Index.value_or(N)))
          return E;
        continue;
      }
      // The kernel's specialization where its conditions hold, else the
      // kernel as written.
      if (!Opts.SpecializationCondition)
        return llvm::createStringError(
            "kernel '" + Entry.Kernels[*Spec].Symbol +
            "' is a specialization, but the target's host code generation "
            "cannot test its conditions");
      llvm::Value *Cond = Opts.SpecializationCondition(
          B, *K, [&](const Expr &E) { return Em.emit(E); },
          [&](const BufferValue &Buf) { return Em.lookupBuffer(&Buf)->Base; });
      // Both are the same statement's code: they take the same arguments
      // (its captures, then the tensor maps of its bulk copies) and shared
      // memory, so one launch of the kernel chosen at run time serves.
      assert(Entry.Kernels[*Index].SharedBytes == Entry.Kernels[*Spec].SharedBytes &&
             Entry.Kernels[*Index].NumArgs == Entry.Kernels[*Spec].NumArgs &&
             "a specialization launches as its kernel does");
      if (llvm::Error E = emitLaunch(
              *K, *Index,
              B.CreateSelect(Cond, B.getInt32(*Spec), B.getInt32(*Index), "kernel")))
        return E;
      continue;
    }
    if (const auto *I = dyn_cast<IfStmt>(S.get())) {
      llvm::BasicBlock *Then = llvm::BasicBlock::Create(C, "host.then", Fn);
      llvm::BasicBlock *Else = llvm::BasicBlock::Create(C, "host.else", Fn);
      llvm::BasicBlock *Merge = llvm::BasicBlock::Create(C, "host.end", Fn);
      B.CreateCondBr(Em.emit(*I->getCond()), Then, Else);
      B.SetInsertPoint(Then);
      if (llvm::Error E = emitHostBlock(I->getThen()))
        return E;
      B.CreateBr(Merge);
      B.SetInsertPoint(Else);
      if (I->hasElse())
        if (llvm::Error E = emitHostBlock(I->getElse()))
          return E;
      B.CreateBr(Merge);
      B.SetInsertPoint(Merge);
      continue;
    }
    return llvm::createStringError(
        "function '@" + F.getName() +
        "': only let, global allocations, if and kernels may appear outside "
        "a kernel");
  }
  return llvm::Error::success();
}

llvm::Error HostEmitter::emit() {
  Fn = llvm::Function::Create(
      llvm::FunctionType::get(B.getInt32Ty(),
                              {B.getPtrTy(), B.getInt32Ty(), B.getPtrTy()},
                              false),
      llvm::Function::ExternalLinkage, Entry.Symbol, LM);
  llvm::Value *Args = Fn->getArg(0);
  llvm::Value *NArgs = Fn->getArg(1);
  Ctx = Fn->getArg(2);
  Args->setName("args");
  NArgs->setName("num_args");
  Ctx->setName("ctx");
  B.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", Fn));
  if (DebugLocs)
    B.SetCurrentDebugLocation(
        DebugLocs->get(F.getLoc(), DebugLocs->addFunction(*Fn, F.getLoc())));
  unsigned N = F.getParams().size();
  check(B.CreateICmpEQ(NArgs, B.getInt32(N)),
        "'" + Entry.Symbol + "' takes {expected} arguments, got {actual}",
        B.getInt32(N), NArgs);
  for (unsigned I = 0; I != N; ++I) {
    const Value *P = F.getParams()[I].get();
    llvm::Value *Arg = B.CreateConstInBoundsGEP1_64(
        llvm::StructType::get(C, {B.getInt64Ty(), B.getInt32Ty(), B.getInt32Ty()}),
        Args, I);
    llvm::Value *Kind = loadField(Arg, offsetof(TileArg, kind), B.getInt32Ty());
    ArtifactParam AP;
    AP.Name = P->getName().str();
    AP.DType = getDTypeName(P->getDType()).str();
    std::tie(AP.TypeCode, AP.Bits) = getDLPackType(P->getDType());
    if (const auto *Buf = dyn_cast<BufferValue>(P)) {
      AP.K = ArtifactParam::Kind::Tensor;
      for (const ExprPtr &D : Buf->getShape())
        AP.Shape.push_back(D->getConstInt() ? std::to_string(*D->getConstInt())
                                            : cast<RefExpr>(*D).getValue()->getName().str());
      for (const ExprPtr &D : Buf->getStrides())
        AP.Strides.push_back(D->getConstInt() ? std::to_string(*D->getConstInt())
                                              : cast<RefExpr>(*D).getValue()->getName().str());
      check(B.CreateICmpEQ(Kind, B.getInt32(TILE_ARG_TENSOR)),
            argDesc(I) + " must be a tensor (TileArg kind {expected}), got kind "
                         "{actual}",
            B.getInt32(TILE_ARG_TENSOR), Kind);
      if (llvm::Error E = checkTensor(I, *Buf, Arg))
        return E;
    } else {
      bool IsF = isFloat(P->getDType());
      AP.K = IsF ? ArtifactParam::Kind::Float : ArtifactParam::Kind::Int;
      int32_t Want = IsF ? TILE_ARG_FLOAT : TILE_ARG_INT;
      check(B.CreateICmpEQ(Kind, B.getInt32(Want)),
            argDesc(I) + " must be " + (IsF ? "a float" : "an integer") +
                " scalar of type " + getDTypeName(P->getDType()) +
                " (TileArg kind {expected}), got kind {actual}",
            B.getInt32(Want), Kind);
      llvm::Value *V;
      if (IsF)
        V = Em.convert(loadField(Arg, 0, B.getDoubleTy()), DType::F64,
                       P->getDType());
      else
        V = Em.convert(loadField(Arg, 0, B.getInt64Ty()), DType::I64,
                       P->getDType());
      Em.bindScalar(P, V);
    }
    Entry.Params.push_back(std::move(AP));
  }
  for (const auto &D : F.getDims())
    if (!BoundBy.count(D.get()))
      return llvm::createStringError("symbolic dimension '" + D->getName() +
                                     "' of '@" + F.getName() +
                                     "' is never bound by a tensor shape");
  if (llvm::Error E = emitHostBlock(F.getBody()))
    return E;
  freeWorkspaces();
  B.CreateRet(B.getInt32(0));
  return llvm::Error::success();
}

llvm::Error tile::emitHostEntries(const Module &M, llvm::Module &LM,
                                  const HostCodeGenOptions &Opts,
                                  KernelArtifact &Artifact) {
  std::unique_ptr<DebugLocations> DebugLocs =
      DebugLocations::create(M.getContext(), LM);
  for (const auto &F : M.getFunctions()) {
    ArtifactEntry *Entry = &getOrAddArtifactEntry(Artifact, *F);
    Entry->Params.clear();
    HostEmitter H(*F, LM, Opts, *Entry, DebugLocs.get());
    if (llvm::Error E = H.emit())
      return E;
  }
  return llvm::Error::success();
}
