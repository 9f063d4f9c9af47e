//===- TestHostBackend.cpp - The testhost unit-test backend ---------------===//
//
// Entry points of the TestHost backend and the probe and executor of its
// `testhost-orc` execution backend, all named by TestHost.td, and its
// generated tables. Compilation is the CPU backend's; the device code it
// makes is labelled `testhost-object`, the format only `testhost-orc`
// loads. The executor checks the format, unwraps the object and runs it
// on an ORC executor it owns.
//
//===----------------------------------------------------------------------===//

#include "TestHostBackend.h"
#include "tile/Exec/Executor.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/PassManager.h"

namespace tile {

// The CPU backend's entry points (lib/Target/CPU), which this backend
// compiles with.
void buildCPUPipeline(const BackendContext &, PassManager &);
llvm::Error generateCPUDeviceCode(const BackendContext &, const Module &,
                                  KernelArtifact &);
llvm::Error generateCPUHostCode(const BackendContext &, const Module &,
                                KernelArtifact &);

namespace {

constexpr const char *kFormatName = "testhost-object";
constexpr const char *kExecName = "testhost-orc";

/// The value libTileExec gave the format registered from TestHost.td.
llvm::Expected<DeviceFormat> getTestHostFormat() {
  if (const DeviceFormatInfo *F = lookupDeviceFormat(kFormatName))
    return F->Format;
  return llvm::createStringError(
      "device format 'testhost-object' is not registered; call "
      "registerTestHostTargetBackends first");
}

/// Runs testhost objects on an ORC executor of its own.
class TestHostExecutor : public Executor {
public:
  TestHostExecutor(std::unique_ptr<Executor> Orc, ExecBackendKind Kind)
      : Orc(std::move(Orc)), Kind(Kind) {}

  ExecBackendKind getKind() const override { return Kind; }
  int32_t getDLDeviceType() const override { return Orc->getDLDeviceType(); }
  std::string getDeviceName() const override { return Orc->getDeviceName(); }

  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) override {
    llvm::Expected<DeviceFormat> Mine = getTestHostFormat();
    if (!Mine)
      return Mine.takeError();
    if (A.DeviceFmt != *Mine)
      return llvm::createStringError(
          "execution backend 'testhost-orc' loads testhost-object device "
          "code, not " +
          llvm::Twine(getDeviceFormatInfo(A.DeviceFmt).Name));
    KernelArtifact Unwrapped = A;
    Unwrapped.DeviceFmt = DeviceFormat::Object;
    return Orc->load(Unwrapped);
  }

  llvm::Expected<void *> allocate(size_t Bytes) override {
    return Orc->allocate(Bytes);
  }
  void deallocate(void *P) override { Orc->deallocate(P); }
  llvm::Error copyToDevice(void *Dst, const void *Src, size_t Bytes) override {
    return Orc->copyToDevice(Dst, Src, Bytes);
  }
  llvm::Error copyFromDevice(void *Dst, const void *Src,
                             size_t Bytes) override {
    return Orc->copyFromDevice(Dst, Src, Bytes);
  }
  llvm::Error synchronize() override { return Orc->synchronize(); }

private:
  std::unique_ptr<Executor> Orc;
  ExecBackendKind Kind;
};

} // namespace

void buildTestHostPipeline(const BackendContext &Ctx, PassManager &PM) {
  buildCPUPipeline(Ctx, PM);
}

llvm::Error generateTestHostDeviceCode(const BackendContext &Ctx,
                                       const Module &M,
                                       KernelArtifact &Artifact) {
  if (llvm::Error E = generateCPUDeviceCode(Ctx, M, Artifact))
    return E;
  if (Artifact.DeviceFmt != DeviceFormat::Object)
    return llvm::createStringError(
        "testhost device codegen expected a host object from the CPU "
        "backend, got " +
        llvm::Twine(getDeviceFormatInfo(Artifact.DeviceFmt).Name));
  llvm::Expected<DeviceFormat> Mine = getTestHostFormat();
  if (!Mine)
    return Mine.takeError();
  Artifact.DeviceFmt = *Mine;
  return llvm::Error::success();
}

llvm::Error generateTestHostHostCode(const BackendContext &Ctx,
                                     const Module &M,
                                     KernelArtifact &Artifact) {
  return generateCPUHostCode(Ctx, M, Artifact);
}

ExecAvailability probeTestHostRuntime() {
  const ExecAvailability &Orc = getExecAvailability(ExecBackendKind::Orc);
  if (!Orc.Available)
    return ExecAvailability::unavailable("the testhost runtime needs ORC: " +
                                         Orc.Reason);
  return ExecAvailability::available("the testhost runtime over " +
                                     Orc.Reason);
}

llvm::Expected<std::unique_ptr<Executor>>
createTestHostExecutor(const ExecutorOptions &Opts) {
  const ExecBackendInfo *Self = lookupExecBackend(kExecName);
  if (!Self)
    return llvm::createStringError(
        "execution backend 'testhost-orc' is not registered");
  llvm::Expected<std::unique_ptr<Executor>> Orc =
      Executor::create(ExecBackendKind::Orc, Opts);
  if (!Orc)
    return Orc.takeError();
  return std::make_unique<TestHostExecutor>(std::move(*Orc), Self->Kind);
}

} // namespace tile

#define GET_TILE_TARGET_BACKEND_TABLE
#include "TestHost.inc"
