//===- DeviceCodeGen.cpp - Kernels to LLVM functions ----------------------===//
//
// Each kernel of a function becomes one LLVM function taking the kernel's
// captures (the values it uses that are defined outside it). The target
// decides how those arrive and where on-chip buffers live.
//
//===----------------------------------------------------------------------===//

#include "ArtifactEntries.h"
#include "LLVMEmitter.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

llvm::DenseSet<const Value *>
tile::getKernelDefinedValues(const KernelStmt &K) {
  llvm::DenseSet<const Value *> Inside;
  walkStmts(K.getBody(), [&](const Stmt &S) {
    if (const auto *A = dyn_cast<AllocStmt>(&S))
      Inside.insert(A->getBuffer());
    else if (const auto *L = dyn_cast<LetStmt>(&S))
      Inside.insert(L->getVar());
    else if (const auto *Fo = dyn_cast<ForStmt>(&S))
      for (const LoopDim &D : Fo->getDims())
        Inside.insert(D.Var.get());
  });
  for (const auto &V : K.getBlockIndices())
    Inside.insert(V.get());
  if (K.getThreadIndex())
    Inside.insert(K.getThreadIndex());
  return Inside;
}

std::vector<KernelCapture> tile::getKernelCaptures(const Function &F,
                                                   const KernelStmt &K) {
  llvm::DenseSet<const Value *> Used;
  forEachUse(K.getBody(), [&](const Value *V) { Used.insert(V); });
  // Values defined inside the kernel are not captures.
  llvm::DenseSet<const Value *> Inside = getKernelDefinedValues(K);
  // A captured buffer brings the dimensions its addressing needs.
  llvm::SmallVector<const Value *> Worklist(Used.begin(), Used.end());
  for (const Value *V : Worklist)
    if (const auto *B = dyn_cast<BufferValue>(V)) {
      for (const ExprPtr &D : B->getShape())
        forEachUse(*D, [&](const Value *X) { Used.insert(X); });
      for (const ExprPtr &D : B->getStrides())
        forEachUse(*D, [&](const Value *X) { Used.insert(X); });
    }
  std::vector<KernelCapture> Out;
  auto Take = [&](const Value *V) {
    if (Used.count(V) && !Inside.count(V))
      Out.push_back({V});
  };
  for (const auto &P : F.getParams())
    Take(P.get());
  for (const auto &D : F.getDims())
    Take(D.get());
  // Host lets and workspaces, in program order.
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (const auto *L = dyn_cast<LetStmt>(&S))
      Take(L->getVar());
    else if (const auto *A = dyn_cast<AllocStmt>(&S))
      if (A->getBuffer()->getScope() == MemScope::Global)
        Take(A->getBuffer());
  });
  return Out;
}

namespace {

/// Emits kernel \p K of \p F as the LLVM function \p Name in \p LM
/// (specialized when \p Specialized) and describes it.
llvm::Expected<ArtifactKernel> emitKernel(const Function &F, const KernelStmt &K,
                                          LLVMDeviceTarget &T, llvm::Module &LM,
                                          DebugLocations *DebugLocs,
                                          const std::string &Name,
                                          bool Specialized) {
  llvm::LLVMContext &C = LM.getContext();
  KernelEmission KE;
  KE.Kernel = &K;
  KE.Captures = getKernelCaptures(F, K);
  KE.Specialized = Specialized;
  KE.Fn = T.createKernel(LM, Name, KE);
  llvm::BasicBlock *Entry0 = llvm::BasicBlock::Create(C, "entry", KE.Fn);
  llvm::IRBuilder<> B(Entry0);
  LLVMEmitter Em(B, &T);
  if (DebugLocs)
    Em.setDebugScope(DebugLocs, DebugLocs->addFunction(*KE.Fn, K.getLoc()));
  // The arguments' loads and the block indices: at the kernel.
  Em.setEnclosingLoc(K.getLoc());
  for (unsigned I = 0; I != KE.Captures.size(); ++I) {
    const Value *V = KE.Captures[I].V;
    if (llvm::isa<BufferValue>(V))
      continue; // bound below, once dims are known
    Em.bindScalar(V, T.getCapture(B, KE, I, getLLVMType(C, V->getDType())));
  }
  for (unsigned I = 0; I != KE.Captures.size(); ++I)
    if (const auto *Buf = dyn_cast<BufferValue>(KE.Captures[I].V))
      Em.bindBuffer(Buf, T.getCapture(B, KE, I,
                                      llvm::PointerType::get(
                                          C, T.getGlobalAddressSpace())));
  for (unsigned D = 0; D != K.getBlockIndices().size(); ++D)
    Em.bindScalar(K.getBlockIndices()[D].get(), T.getBlockIndex(B, KE, D));
  if (const Value *Tid = K.getThreadIndex()) {
    llvm::Value *TV = T.getThreadIndex(B, KE);
    if (!TV)
      return llvm::createStringError(
          "kernel " + Name +
          " binds a thread index, but the target runs each block as one "
          "task; its pipeline must remove it");
    Em.bindScalar(Tid, TV);
  }
  if (llvm::Error E = Em.emitBlock(K.getBody(), KE))
    return std::move(E);
  B.CreateRetVoid();
  ArtifactKernel AK;
  AK.Symbol = Name;
  AK.GridRank = K.getGrid().size();
  AK.Threads = K.getThreads()->getConstInt().value_or(1);
  AK.SharedBytes = KE.SharedBytes;
  AK.NumArgs = KE.Captures.size() + KE.TensorMaps.size();
  const llvm::DataLayout &DL = LM.getDataLayout();
  for (const KernelCapture &Cap : KE.Captures)
    AK.ArgBytes.push_back(
        Cap.isBuffer()
            ? DL.getPointerSize(T.getGlobalAddressSpace())
            : DL.getTypeStoreSize(getLLVMType(C, Cap.V->getDType())));
  for (size_t I = 0; I != KE.TensorMaps.size(); ++I)
    AK.ArgBytes.push_back(ArtifactTensorMap::Bytes);
  AK.TensorMaps = std::move(KE.TensorMaps);
  return AK;
}

} // namespace

llvm::Error tile::emitDeviceKernels(const Module &M, LLVMDeviceTarget &T,
                                    llvm::Module &LM, KernelArtifact &Artifact,
                                    llvm::Module *DeferredLM) {
  std::unique_ptr<DebugLocations> DebugLocs =
      DebugLocations::create(M.getContext(), LM);
  std::unique_ptr<DebugLocations> DeferredDebugLocs =
      DeferredLM ? DebugLocations::create(M.getContext(), *DeferredLM) : nullptr;
  for (const auto &F : M.getFunctions()) {
    ArtifactEntry *Entry = &getOrAddArtifactEntry(Artifact, *F);
    unsigned Index = 0;
    llvm::Error Err = llvm::Error::success();
    walkStmts(F->getBody(), [&](const Stmt &S) {
      const auto *K = dyn_cast<KernelStmt>(&S);
      if (!K || Err)
        return;
      std::string Name =
          "tile_" + F->getName().str() + "_kernel" + std::to_string(Index++);
      bool Specialize = T.hasSpecialization(*K);
      // The general version of a specialized kernel runs only where the
      // specialization's conditions fail: with DeferredLM, it is compiled
      // apart, at its first launch.
      bool Defer = Specialize && DeferredLM;
      // The specialization, which usually runs, keeps the kernel's name.
      llvm::Expected<ArtifactKernel> General =
          emitKernel(*F, *K, T, Defer ? *DeferredLM : LM,
                     Defer ? DeferredDebugLocs.get() : DebugLocs.get(),
                     Specialize ? Name + "_fallback" : Name,
                     /*Specialized=*/false);
      if (!General) {
        Err = General.takeError();
        return;
      }
      General->Deferred = Defer;
      unsigned GeneralIndex = unsigned(Entry->Kernels.size());
      Entry->Kernels.push_back(std::move(*General));
      if (!Specialize)
        return;
      llvm::Expected<ArtifactKernel> Spec = emitKernel(
          *F, *K, T, LM, DebugLocs.get(), Name, /*Specialized=*/true);
      if (!Spec) {
        Err = Spec.takeError();
        return;
      }
      Spec->SpecializationOf = GeneralIndex;
      Entry->Kernels.push_back(std::move(*Spec));
    });
    if (Err)
      return Err;
  }
  return llvm::Error::success();
}
