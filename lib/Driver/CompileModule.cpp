//===- CompileModule.cpp - From verified IR to a KernelArtifact -----------===//

#include "tile/Driver/CompileModule.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/Target/DialectCheck.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/Format.h"
#include <chrono>
#include <optional>
#include <thread>

using namespace tile;

double CompileTimings::total() const {
  double T = 0;
  for (const Stage &S : Stages)
    T += S.Part ? 0 : S.Seconds;
  return T;
}

void CompileTimings::print(llvm::raw_ostream &OS) const {
  for (const Stage &S : Stages)
    OS << llvm::format(S.Part ? "    %-14s %9.3f ms\n" : "  %-16s %9.3f ms\n",
                       (S.Name + ":").c_str(), S.Seconds * 1e3);
  OS << llvm::format("  %-16s %9.3f ms\n", "total:", total() * 1e3);
}

namespace {
class StageTimer {
public:
  StageTimer(CompileTimings *T, llvm::StringRef Name)
      : T(T), Name(Name), Start(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    if (T)
      T->add(Name, std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count());
  }

private:
  CompileTimings *T;
  llvm::StringRef Name;
  std::chrono::steady_clock::time_point Start;
};
} // namespace

llvm::Error tile::lowerModule(const TargetRegistry &Registry,
                              const BackendContext &Ctx, Module &M,
                              DiagnosticEngine &Diag, CompileTimings *Timings) {
  for (const auto &F : M.getFunctions())
    if (!F->getTunables().empty())
      return llvm::createStringError(
          "'@" + F->getName() +
          "' has tunable parameters; specialize it for a config first "
          "(tile::specializeModule)");
  {
    StageTimer ST(Timings, "dialect check");
    if (!verifyDialectUse(Registry, Ctx, M, Diag))
      return makeReportedError(ErrorCategory::InvalidProgram,
                               "the module uses ops the target does not "
                               "provide");
  }
  StageTimer ST(Timings, "pipeline");
  if (llvm::Error E = Ctx.getBackend().Pipeline(Ctx, M))
    return E;
  // The one check of every kernel against the target's declared limits,
  // now that the pipeline has placed fragments and shared buffers.
  if (!checkResourceLimits(Ctx, M, Diag))
    return makeReportedError(ErrorCategory::ResourceLimit,
                             "a kernel exceeds a resource limit of the target");
  return llvm::Error::success();
}

llvm::Expected<KernelArtifact>
tile::compileModule(const TargetRegistry &Registry, const BackendContext &Ctx,
                    Module &M, DiagnosticEngine &Diag, CompileTimings *Timings) {
  const TargetBackendInfo &B = Ctx.getBackend();
  if (llvm::Error E = lowerModule(Registry, Ctx, M, Diag, Timings))
    return std::move(E);
  KernelArtifact A;
  A.Target = Ctx.getTarget().str();
  if (Ctx.hasExecBackend())
    A.ExecBackend = Ctx.getExecBackend().Name;
  // A compile-only backend's host code is generated when it has a host
  // codegen: no execution backend says otherwise.
  bool NeedsHost = Ctx.hasExecBackend()
                       ? Ctx.getExecContract().NeedsHostCodeGen ||
                             Ctx.getExecBackend().NeedsHostCodeGen
                       : B.HostCodeGen != nullptr;
  const TargetBackendInfo &HB = B.HostCodeGen ? B : Ctx.getHostBackend();
  auto GenerateHost = [&]() -> llvm::Error {
    if (!HB.HostCodeGen)
      return llvm::createStringError("backend " + llvm::Twine(HB.Name) +
                                     " generates no host code");
    return HB.HostCodeGen(Ctx, M, A);
  };
  // The host code's time when it was generated beside the device code.
  std::optional<double> HostBeside;
  {
    StageTimer ST(Timings, "device codegen");
    if (llvm::Error E = B.DeviceCodeGen(Ctx, M, A))
      return std::move(E);
    if (A.FinishDeviceCode && NeedsHost) {
      // The host code needs the kernels' entries, which are there, and
      // writes only the host fields and the entries' parameters: it is
      // generated on another thread while this one finishes the device
      // code (on the f32 GEMM for the CPU, ~3.5 ms beside ~80).
      llvm::Error HostErr = llvm::Error::success();
      std::thread Host([&] {
        auto Start = std::chrono::steady_clock::now();
        llvm::Error E = GenerateHost();
        HostBeside = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
                         .count();
        HostErr = std::move(E);
      });
      llvm::Error DeviceErr = A.finishDeviceCode();
      Host.join();
      if (DeviceErr) {
        llvm::consumeError(std::move(HostErr));
        return std::move(DeviceErr);
      }
      if (HostErr)
        return std::move(HostErr);
    } else if (llvm::Error E = A.finishDeviceCode()) {
      return std::move(E);
    }
  }
  // Registers per thread, which only the device toolchain knows.
  std::vector<KernelResourceUsage> Usage = measureModuleResources(M, &Ctx);
  addToolchainResources(Usage, A);
  if (!checkToolchainResourceLimits(Ctx, Usage, Diag))
    return makeReportedError(ErrorCategory::ResourceLimit,
                             "a kernel exceeds a resource limit of the target");
  // Backends time the parts of their device codegen in the artifact.
  if (Timings) {
    for (const KernelArtifact::CodeGenTiming &T : A.Timings)
      Timings->addPart(T.Phase, T.Seconds);
    // Beside the device code: a part of its stage, not counted again.
    if (HostBeside)
      Timings->addPart("host codegen", *HostBeside);
  }
  if (NeedsHost && !HostBeside) {
    StageTimer ST(Timings, "host codegen");
    if (llvm::Error E = GenerateHost())
      return std::move(E);
  }
  return A;
}
