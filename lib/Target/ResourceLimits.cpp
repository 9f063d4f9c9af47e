//===- ResourceLimits.cpp - Kernel resource use against target limits -----===//
//
// Limits come from the generated backend tables (ResourceLimit records of
// each backend's .td); the first limit of a kind whose condition holds for
// the resolved target applies, and an int target attribute may set its
// value (WebGPU's adapter limits). Use is measured on the IR after the
// backend's pipeline: by then every pipeline has placed its fragments
// (in registers as per-thread `local` arrays, or in shared memory) and
// planned shared-memory offsets, so the IR says what the device will
// allocate. Registers per thread only device code generation knows: the
// backends record the toolchain's figure per kernel in the artifact
// (ptxas -v, the AMDGPU code object's metadata), and they are checked
// after it. Amounts are computed with saturating arithmetic: a shape of
// 2^40 x 2^40 elements is reported, not wrapped.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/ResourceLimits.h"
#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/Walk.h"
#include "tile/Exec/KernelArtifact.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

using namespace tile;

namespace {
struct KindText {
  const char *Name;
  const char *Unit;
  bool Checked;
};
// In ResourceKind order; the names and units are those of Target.td.
constexpr KindText Kinds[] = {
    {"threads per block", "threads", true},
    {"shared memory per block", "bytes", true},
    {"shared memory per block without opt-in", "bytes", false},
    {"registers per thread", "registers", true},
    {"local memory per thread", "bytes", true},
    {"stack arrays per block", "bytes", true},
    {"grid dimension x", "blocks", true},
    {"grid dimension y", "blocks", true},
    {"grid dimension z", "blocks", true},
};
const KindText &text(ResourceKind K) { return Kinds[unsigned(K)]; }

int64_t saturatingMul(int64_t A, int64_t B) {
  bool Overflow = false;
  uint64_t R = llvm::SaturatingMultiply(uint64_t(A), uint64_t(B), &Overflow);
  return Overflow || R > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(R);
}
int64_t saturatingAdd(int64_t A, int64_t B) {
  return A > INT64_MAX - B ? INT64_MAX : A + B;
}

/// Elements of \p B when its shape is constant.
std::optional<int64_t> getConstElements(const BufferValue &B) {
  int64_t N = 1;
  for (const ExprPtr &D : B.getShape()) {
    std::optional<int64_t> V = D->getConstInt();
    if (!V || *V < 0)
      return std::nullopt;
    N = saturatingMul(N, *V);
  }
  return N;
}

std::string describeTarget(const BackendContext &Ctx) {
  return "'" + Ctx.getTarget().str() + "' (backend " + Ctx.getBackend().Name +
         ")";
}
} // namespace

llvm::StringRef tile::getResourceKindName(ResourceKind K) { return text(K).Name; }
llvm::StringRef tile::getResourceKindUnit(ResourceKind K) { return text(K).Unit; }
bool tile::isCheckedResourceKind(ResourceKind K) { return text(K).Checked; }

std::vector<AppliedLimit> tile::getResourceLimits(const BackendContext &Ctx) {
  std::vector<AppliedLimit> Out;
  const BackendKindInfo *BK = Ctx.getBackend().findKind(Ctx.getTarget().getKind());
  if (!BK)
    return Out;
  for (const ResourceLimitInfo &L : BK->limits()) {
    if (llvm::any_of(Out, [&](const AppliedLimit &A) { return A.Kind == L.Kind; }))
      continue;
    if (L.When && !L.When(Ctx.getTarget().getValueIndices().data()))
      continue;
    int64_t Value = L.Value;
    if (L.FromAttr)
      if (std::optional<llvm::StringRef> A = Ctx.getTarget().getAttr(L.FromAttr))
        if (int64_t V; !A->getAsInteger(10, V) && V > 0)
          Value = V;
    Out.push_back({L.Kind, Value, &L});
  }
  return Out;
}

std::optional<AppliedLimit> tile::getResourceLimit(const BackendContext &Ctx,
                                                   ResourceKind K) {
  for (const AppliedLimit &L : getResourceLimits(Ctx))
    if (L.Kind == K)
      return L;
  return std::nullopt;
}

std::optional<int64_t> KernelResourceUsage::get(ResourceKind K) const {
  switch (K) {
  case ResourceKind::ThreadsPerBlock: return Threads;
  case ResourceKind::SharedMemoryPerBlock:
  case ResourceKind::SharedMemoryWithoutOptIn: return SharedBytes;
  case ResourceKind::RegistersPerThread: return Registers;
  case ResourceKind::LocalMemoryPerThread: return LocalBytesPerThread;
  case ResourceKind::StackArraysPerBlock: return BlockArrayBytes;
  case ResourceKind::GridDimX: return Grid[0];
  case ResourceKind::GridDimY: return Grid[1];
  case ResourceKind::GridDimZ: return Grid[2];
  }
  llvm_unreachable("unknown resource kind");
}

KernelResourceUsage tile::measureKernelResources(const KernelStmt &K,
                                                 llvm::StringRef FunctionName,
                                                 unsigned Index,
                                                 const BackendContext *Ctx) {
  StorageBytesFn Storage = Ctx ? Ctx->getBackend().StorageBytes : nullptr;
  KernelResourceUsage U;
  U.Loc = K.getLoc();
  U.Name = ("@" + FunctionName + ", kernel " + llvm::Twine(Index)).str();
  U.Function = FunctionName.str();
  U.Index = Index;
  U.Threads = K.getThreads()->getConstInt();
  for (auto [I, G] : llvm::enumerate(K.getGrid()))
    if (I < 3)
      U.Grid[I] = G->getConstInt();
  // Shared buffers at their planned offsets when every one has one, else
  // side by side; per-thread arrays side by side.
  int64_t SharedSum = 0, SharedEnd = 0, Local = 0, BlockBytes = 0;
  bool AllPlaced = true, SharedKnown = true, LocalKnown = true, BlockKnown = true;
  walkStmts(K.getBody(), [&](const Stmt &S) {
    const auto *A = llvm::dyn_cast<AllocStmt>(&S);
    if (!A)
      return;
    const BufferValue &B = *A->getBuffer();
    MemScope Scope = B.getScope();
    if (Scope == MemScope::Global)
      return;
    std::optional<int64_t> Elems =
        Scope == MemScope::Var ? std::optional<int64_t>(1) : getConstElements(B);
    int64_t Bytes = Elems ? saturatingMul(*Elems, Storage ? Storage(*Ctx, B.getDType())
                                                 : getDTypeBytes(B.getDType())) : 0;
    BlockKnown &= Elems.has_value();
    BlockBytes = saturatingAdd(BlockBytes, Bytes);
    if (Scope == MemScope::Fragment)
      return;
    if (Scope != MemScope::Shared) {
      LocalKnown &= Elems.has_value();
      Local = saturatingAdd(Local, Bytes);
      return;
    }
    SharedKnown &= Elems.has_value();
    SharedSum = saturatingAdd(SharedSum, Bytes);
    const Attribute *Off = A->getAttrs().get("offset");
    if (Off && Off->getKind() == Attribute::Kind::Int)
      SharedEnd = std::max(SharedEnd, saturatingAdd(Off->getInt(), Bytes));
    else
      AllPlaced = false;
    U.SharedBuffers += (U.SharedBuffers.empty() ? "'%" : ", '%") +
                       B.getName().str() + "' " +
                       (Elems ? std::to_string(Bytes) : std::string("?"));
  });
  if (SharedKnown)
    U.SharedBytes = AllPlaced && !U.SharedBuffers.empty() ? SharedEnd : SharedSum;
  if (LocalKnown)
    U.LocalBytesPerThread = Local;
  if (BlockKnown)
    U.BlockArrayBytes = BlockBytes;
  return U;
}

std::vector<KernelResourceUsage>
tile::measureModuleResources(const Module &M, const BackendContext *Ctx) {
  std::vector<KernelResourceUsage> Out;
  for (const auto &F : M.getFunctions()) {
    unsigned Index = 0;
    walkStmts(F->getBody(), [&](const Stmt &S) {
      if (const auto *K = llvm::dyn_cast<KernelStmt>(&S))
        Out.push_back(measureKernelResources(*K, F->getName(), Index++, Ctx));
    });
  }
  return Out;
}

void tile::addToolchainResources(std::vector<KernelResourceUsage> &Kernels,
                                 const KernelArtifact &A) {
  for (KernelResourceUsage &U : Kernels) {
    const ArtifactEntry *E = A.findEntry(U.Function);
    std::optional<unsigned> I = E ? E->getKernelIndex(U.Index) : std::nullopt;
    if (!I)
      continue;
    // A kernel compiled at its first launch has no report yet; its
    // specialization, compiled now, is the one that usually runs.
    const ArtifactKernel *K = &E->Kernels[*I];
    if (!K->Registers)
      if (std::optional<unsigned> S = E->getSpecialization(*I))
        K = &E->Kernels[*S];
    U.Registers = K->Registers;
    U.RegisterReport = K->RegisterReport;
  }
}

std::vector<ExceededLimit> tile::getExceededLimits(const BackendContext &Ctx,
                                                   const KernelResourceUsage &U) {
  std::vector<ExceededLimit> Out;
  for (const AppliedLimit &L : getResourceLimits(Ctx)) {
    if (!isCheckedResourceKind(L.Kind))
      continue;
    if (std::optional<int64_t> Use = U.get(L.Kind); Use && *Use > L.Value)
      Out.push_back({L, *Use});
  }
  return Out;
}

/// "kernel needs 4194304 bytes of shared memory ('%s' 4194304), more than
/// the 232448 bytes that target 'cuda -arch=sm_90a' (backend Hopper)
/// allows (shared memory per block when arch >= sm_90); <hint>".
static std::string describeExceeded(const BackendContext &Ctx,
                                    const KernelResourceUsage &U,
                                    const ExceededLimit &E) {
  std::string Use;
  llvm::raw_string_ostream OS(Use);
  int64_t V = E.Limit.Value;
  switch (E.Limit.Kind) {
  case ResourceKind::ThreadsPerBlock:
    OS << "kernel has " << E.Use << " threads per block";
    break;
  case ResourceKind::SharedMemoryPerBlock:
  case ResourceKind::SharedMemoryWithoutOptIn:
    OS << "kernel needs " << E.Use << " bytes of shared memory";
    if (!U.SharedBuffers.empty())
      OS << " (" << U.SharedBuffers << ")";
    break;
  case ResourceKind::LocalMemoryPerThread:
    OS << "kernel needs " << E.Use
       << " bytes of per-thread arrays (fragments and locals) in each thread";
    break;
  case ResourceKind::RegistersPerThread:
    OS << "kernel needs " << E.Use << " registers per thread";
    if (!U.RegisterReport.empty())
      OS << " (" << U.RegisterReport << ")";
    break;
  case ResourceKind::StackArraysPerBlock:
    OS << "kernel needs " << E.Use
       << " bytes of arrays (shared buffers, fragments, locals) per block";
    break;
  case ResourceKind::GridDimX:
  case ResourceKind::GridDimY:
  case ResourceKind::GridDimZ:
    OS << "kernel launches " << E.Use << " blocks along "
       << getResourceKindName(E.Limit.Kind);
    break;
  }
  OS << ", more than the " << V;
  if (getResourceKindUnit(E.Limit.Kind) == "bytes")
    OS << " bytes";
  OS << " that target " << describeTarget(Ctx) << " allows ("
     << getResourceKindName(E.Limit.Kind);
  llvm::StringRef When = E.Limit.Info->When ? E.Limit.Info->WhenText : "";
  if (!When.empty())
    OS << " when " << When;
  if (E.Limit.Info->FromAttr)
    OS << ", set by -" << E.Limit.Info->FromAttr;
  OS << ")";
  if (E.Limit.Info->Hint && *E.Limit.Info->Hint)
    OS << "; " << E.Limit.Info->Hint;
  return Use;
}

bool tile::checkResourceLimits(const BackendContext &Ctx, const Module &M,
                               DiagnosticEngine &Diag) {
  bool OK = true;
  for (const KernelResourceUsage &U : measureModuleResources(M, &Ctx))
    for (const ExceededLimit &E : getExceededLimits(Ctx, U)) {
      Diag.error(U.Loc, describeExceeded(Ctx, U, E));
      OK = false;
    }
  return OK;
}

bool tile::checkToolchainResourceLimits(const BackendContext &Ctx,
                                       llvm::ArrayRef<KernelResourceUsage> Kernels,
                                       DiagnosticEngine &Diag) {
  bool OK = true;
  for (const KernelResourceUsage &U : Kernels)
    for (const ExceededLimit &E : getExceededLimits(Ctx, U))
      if (E.Limit.Kind == ResourceKind::RegistersPerThread) {
        Diag.error(U.Loc, describeExceeded(Ctx, U, E));
        OK = false;
      }
  return OK;
}

void tile::printResourceUsage(const BackendContext &Ctx,
                              llvm::ArrayRef<KernelResourceUsage> Kernels,
                              llvm::raw_ostream &OS) {
  std::vector<AppliedLimit> Limits = getResourceLimits(Ctx);
  OS << "resource usage for target " << describeTarget(Ctx) << ":\n";
  for (const KernelResourceUsage &U : Kernels) {
    OS << "  " << U.Name << ":\n";
    for (const AppliedLimit &L : Limits) {
      std::optional<int64_t> Use = U.get(L.Kind);
      bool Over = Use && *Use > L.Value;
      OS << llvm::format("    %-40s ", getResourceKindName(L.Kind).str().c_str())
         << (Use ? std::to_string(*Use) : std::string("unknown")) << " of "
         << L.Value << " " << getResourceKindUnit(L.Kind);
      if (Use && L.Value)
        OS << llvm::format(" (%.1f%%)", 100.0 * double(*Use) / double(L.Value));
      if (Over)
        OS << (isCheckedResourceKind(L.Kind) ? "  EXCEEDED" : "  above");
      if (L.Kind == ResourceKind::RegistersPerThread)
        OS << "  ["
           << (U.RegisterReport.empty() ? "the toolchain reported none"
                                        : U.RegisterReport)
           << "]";
      OS << "\n";
    }
  }
}
