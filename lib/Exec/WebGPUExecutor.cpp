//===- WebGPUExecutor.cpp - The `webgpu` execution backend ----------------===//
//
// Runs WGSL artifacts on a WebGPU implementation without linking one: Dawn
// for Node (the npm package `webgpu`) is driven by a small node script,
// utils/webgpu/tile-webgpu-run.mjs. Memory handed out by the executor is
// host memory; a call checks the arguments against the entry's parameter
// descriptions (what host code does for other backends), binds symbolic
// dimensions, evaluates each kernel's grid from its launch description,
// writes a job directory (the WGSL, one file per tensor, the uniform
// blocks and job.json), runs the script on it, and copies the buffers the
// kernels write back into the tensors. The script validates the WGSL
// (createShaderModule + getCompilationInfo) before it creates pipelines.
//
// Found at run time: `node` from TILE_NODE or PATH, the script from
// TILE_WEBGPU_RUNNER or the source tree this library was built from, with
// its node_modules/webgpu installed (utils/setup.sh does that).
//
//===----------------------------------------------------------------------===//

#include "ExecutorFactories.h"
#include "HostMemoryExecutor.h"
#include "tile/Exec/Executor.h"
#include "tile/Exec/LaunchExpr.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <cstring>
#include <dlpack/dlpack.h>
#include <map>

using namespace tile;

#ifndef TILE_WEBGPU_RUNNER_DEFAULT
#define TILE_WEBGPU_RUNNER_DEFAULT ""
#endif


namespace {

/// kDLWebGPU in DLPack 0.8 and later (the system header is 0.6).
constexpr int32_t kDLWebGPUDevice = 15;
/// WebGPU's maxComputeWorkgroupsPerDimension default.
constexpr int64_t kMaxWorkgroupsPerDimension = 65535;
/// Seconds a run may take before it is reported as hung.
constexpr unsigned kRunTimeoutSeconds = 600;

std::string getRunnerScript() {
  if (const char *P = std::getenv("TILE_WEBGPU_RUNNER"))
    return P;
  return TILE_WEBGPU_RUNNER_DEFAULT;
}

llvm::Expected<std::string> findNode() {
  if (const char *P = std::getenv("TILE_NODE"))
    return std::string(P);
  llvm::ErrorOr<std::string> N = llvm::sys::findProgramByName("node");
  if (!N)
    return llvm::createStringError("node (Node.js) is not on PATH; install "
                                   "nodejs or set TILE_NODE");
  return *N;
}

/// Where the script and its npm package are; an error says what is missing.
llvm::Expected<std::string> findRunner() {
  std::string Script = getRunnerScript();
  if (Script.empty() || !llvm::sys::fs::exists(Script))
    return llvm::createStringError(
        "the WebGPU runner script '" + Script +
        "' does not exist; set TILE_WEBGPU_RUNNER to tile-webgpu-run.mjs");
  llvm::SmallString<256> Pkg(llvm::sys::path::parent_path(Script));
  llvm::sys::path::append(Pkg, "node_modules", "webgpu", "package.json");
  if (!llvm::sys::fs::exists(Pkg))
    return llvm::createStringError(
        "the npm package 'webgpu' is not installed beside " + Script +
        " (run utils/setup.sh, or npm ci in its folder)");
  return Script;
}

/// The script's stderr less Dawn's warnings, for messages.
std::string readMessages(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return "";
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  std::string Out;
  bool InWarning = false;
  for (llvm::StringRef L : Lines) {
    // A Dawn warning is a "Warning:" line and its indented continuation.
    if (L.starts_with("Warning:")) {
      InWarning = true;
      continue;
    }
    if (InWarning && (L.starts_with(" ") || L.trim().empty()))
      continue;
    InWarning = false;
    if (L.trim().empty())
      continue;
    Out += (Out.empty() ? "" : "\n") + L.rtrim().str();
  }
  return Out;
}

/// Runs the script with \p Args; its stdout in \p Stdout. An error carries
/// what it printed.
llvm::Error runScript(llvm::ArrayRef<std::string> Args, std::string *Stdout,
                      unsigned TimeoutSeconds) {
  llvm::Expected<std::string> Node = findNode();
  if (!Node)
    return Node.takeError();
  llvm::Expected<std::string> Script = findRunner();
  if (!Script)
    return Script.takeError();
  llvm::SmallString<128> Out, Err;
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile("tile-webgpu", "out", Out))
    return llvm::createStringError("cannot create a temporary file: " + EC.message());
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile("tile-webgpu", "err", Err))
    return llvm::createStringError("cannot create a temporary file: " + EC.message());
  std::vector<llvm::StringRef> Argv = {*Node, *Script};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Out.str(), Err.str()};
  std::string ExecErr;
  int RC = llvm::sys::ExecuteAndWait(*Node, Argv, std::nullopt, Redirects,
                                     TimeoutSeconds, 0, &ExecErr);
  std::string Messages = readMessages(Err);
  if (Stdout) {
    auto Buf = llvm::MemoryBuffer::getFile(Out, /*IsText=*/true);
    *Stdout = Buf ? (*Buf)->getBuffer().trim().str() : "";
  }
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Err);
  if (RC == 0)
    return llvm::Error::success();
  std::string Why = RC == -2 ? "timed out after " + std::to_string(TimeoutSeconds) + " s"
                    : RC < 0 ? "could not be run (" + ExecErr + ")"
                             : "exited with code " + std::to_string(RC);
  return llvm::createStringError("the WebGPU runner " + Why +
                                 (Messages.empty() ? "" : ":\n" + Messages));
}

class WebGPUExecutor;

class WebGPULoaded : public LoadedArtifact {
public:
  explicit WebGPULoaded(const KernelArtifact &A) : LoadedArtifact(A) {}
  llvm::Error call(llvm::StringRef Entry, llvm::ArrayRef<TileArg> Args) override;
};

class WebGPUExecutor : public HostMemoryExecutor {
public:
  ExecBackendKind getKind() const override { return ExecBackendKind::WebGPU; }
  int32_t getDLDeviceType() const override { return kDLWebGPUDevice; }

  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) override {
    if (A.DeviceFmt != DeviceFormat::WGSL)
      return llvm::createStringError(
          "execution backend 'webgpu' loads device code in format 'wgsl'; this "
          "artifact holds '" +
          llvm::Twine(getDeviceFormatInfo(A.DeviceFmt).Name) + "'");
    for (const ArtifactEntry &E : A.Entries)
      for (const ArtifactKernel &K : E.Kernels)
        if (K.Launch.empty())
          return llvm::createStringError("kernel " + K.Symbol +
                                         " has no launch description");
    return std::make_unique<WebGPULoaded>(A);
  }

  llvm::Expected<void *> allocate(size_t Bytes) override {
    return allocateAligned(Bytes, 64);
  }
};

/// A tensor argument after checking: where its bytes are and how many.
struct BoundTensor {
  char *Data = nullptr;
  size_t Bytes = 0;
};

llvm::Error WebGPULoaded::call(llvm::StringRef EntryName,
                               llvm::ArrayRef<TileArg> Args) {
  const ArtifactEntry *E = Artifact.findEntry(EntryName);
  if (!E)
    return Artifact.missingEntry(EntryName);
  auto Fail = [&](const llvm::Twine &Msg) {
    return llvm::createStringError("@" + EntryName + ": " + Msg);
  };
  if (Args.size() != E->Params.size())
    return Fail("expected " + llvm::Twine(E->Params.size()) + " arguments, got " +
                llvm::Twine(Args.size()));

  // Check the arguments and bind symbolic dimensions, as host code would.
  std::map<std::string, int64_t> Ints;
  std::map<std::string, double> Floats;
  std::map<std::string, BoundTensor> Tensors;
  auto Bind = [&](const std::string &Name, int64_t V, const llvm::Twine &What)
      -> llvm::Error {
    if (!Name.empty() && (llvm::isDigit(Name[0]) || Name[0] == '-')) {
      int64_t Lit = 0;
      llvm::StringRef(Name).getAsInteger(10, Lit);
      if (Lit != V)
        return Fail(What + " is " + llvm::Twine(V) + ", expected " + Name);
      return llvm::Error::success();
    }
    auto [It, New] = Ints.insert({Name, V});
    if (!New && It->second != V)
      return Fail(What + " is " + llvm::Twine(V) + ", but " + Name + " is " +
                  llvm::Twine(It->second) + " from an earlier tensor");
    return llvm::Error::success();
  };
  for (size_t I = 0; I != Args.size(); ++I) {
    const ArtifactParam &P = E->Params[I];
    const TileArg &A = Args[I];
    if (P.K == ArtifactParam::Kind::Int) {
      if (A.kind != TILE_ARG_INT)
        return Fail("argument " + llvm::Twine(I) + " ('" + P.Name + "') must be an integer");
      Ints[P.Name] = A.value.i64;
      continue;
    }
    if (P.K == ArtifactParam::Kind::Float) {
      if (A.kind != TILE_ARG_FLOAT)
        return Fail("argument " + llvm::Twine(I) + " ('" + P.Name + "') must be a float");
      Floats[P.Name] = A.value.f64;
      continue;
    }
    const auto *T = static_cast<const DLTensor *>(A.value.tensor);
    if (A.kind != TILE_ARG_TENSOR || !T || !T->data)
      return Fail("argument " + llvm::Twine(I) + " ('" + P.Name + "') must be a tensor with data");
    if (T->device.device_type != kDLWebGPUDevice && T->device.device_type != kDLCPU)
      return Fail("tensor '" + P.Name + "' is on device type " +
                  llvm::Twine(int(T->device.device_type)) +
                  "; the webgpu backend takes host memory (kDLCPU) or its own (15)");
    if (T->dtype.code != P.TypeCode || T->dtype.bits != P.Bits || T->dtype.lanes != 1)
      return Fail("tensor '" + P.Name + "' has dtype code " + llvm::Twine(int(T->dtype.code)) +
                  " bits " + llvm::Twine(int(T->dtype.bits)) + ", expected " + P.DType);
    if (size_t(T->ndim) != P.Shape.size())
      return Fail("tensor '" + P.Name + "' has rank " + llvm::Twine(T->ndim) +
                  ", expected " + llvm::Twine(P.Shape.size()));
    int64_t Elems = 1, Span = 1;
    for (int D = 0; D != T->ndim; ++D) {
      if (llvm::Error Err = Bind(P.Shape[D], T->shape[D],
                                 "dimension " + llvm::Twine(D) + " of '" + P.Name + "'"))
        return Err;
      Elems *= T->shape[D];
    }
    // Strides: declared ones bind their symbols; otherwise row-major.
    int64_t Expect = 1;
    for (int D = T->ndim; D-- > 0;) {
      int64_t S = T->strides ? T->strides[D] : Expect;
      if (!P.Strides.empty()) {
        if (llvm::Error Err = Bind(P.Strides[D], S,
                                   "stride " + llvm::Twine(D) + " of '" + P.Name + "'"))
          return Err;
      } else if (S != Expect && T->shape[D] != 1) {
        return Fail("tensor '" + P.Name + "' is not row-major contiguous (stride " +
                    llvm::Twine(D) + " is " + llvm::Twine(S) + ", expected " +
                    llvm::Twine(Expect) + ")");
      }
      if (T->shape[D] > 0)
        Span += (T->shape[D] - 1) * S;
      Expect *= T->shape[D];
    }
    if (Elems == 0)
      Span = 0;
    BoundTensor B;
    B.Data = static_cast<char *>(T->data) + T->byte_offset;
    B.Bytes = size_t(Span) * (P.Bits / 8 ? P.Bits / 8 : 1);
    Tensors[P.Name] = B;
  }
  for (auto &[Name, V] : Ints)
    if ((V > INT32_MAX || V < INT32_MIN))
      return Fail("'" + Name + "' is " + llvm::Twine(V) +
                  ", beyond the 32-bit range WGSL computes in");

  // The job: the shader, every tensor a kernel binds, each kernel's uniform
  // block and grid.
  llvm::SmallString<128> Dir;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory("tile-webgpu", Dir))
    return Fail("cannot create a job directory: " + EC.message());
  llvm::scope_exit Cleanup([&] { llvm::sys::fs::remove_directories(Dir); });
  auto WriteFile = [&](llvm::StringRef Name, llvm::StringRef Bytes) -> llvm::Error {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
    if (EC)
      return llvm::createStringError("cannot write '" + Path + "': " + EC.message());
    OS << Bytes;
    return llvm::Error::success();
  };
  if (llvm::Error Err = WriteFile("shader.wgsl", Artifact.DeviceCode))
    return Err;
  std::map<std::string, unsigned> BufferIndex;
  std::vector<std::pair<std::string, bool>> Buffers; // param, writable
  llvm::json::Array Kernels;
  auto Lookup = [&](llvm::StringRef N) -> std::optional<int64_t> {
    auto It = Ints.find(N.str());
    if (It == Ints.end())
      return std::nullopt;
    return It->second;
  };
  for (const ArtifactKernel &K : E->Kernels) {
    const KernelLaunch &L = K.Launch;
    int64_t Grid[3] = {1, 1, 1};
    bool Empty = false;
    for (size_t D = 0; D != L.Grid.size() && D < 3; ++D) {
      llvm::Expected<int64_t> G = evaluateLaunchExpr(L.Grid[D], Lookup);
      if (!G)
        return Fail(K.Symbol + ": " + llvm::toString(G.takeError()));
      if (*G < 0)
        return Fail(K.Symbol + ": grid dimension " + llvm::Twine(D) + " (" +
                    L.Grid[D] + ") is negative: " + llvm::Twine(*G));
      if (*G > kMaxWorkgroupsPerDimension)
        return Fail(K.Symbol + ": grid dimension " + llvm::Twine(D) + " (" + L.Grid[D] +
                    ") is " + llvm::Twine(*G) + ", more than the " +
                    llvm::Twine(kMaxWorkgroupsPerDimension) +
                    " workgroups per dimension WebGPU dispatches");
      Grid[D] = *G;
      Empty |= *G == 0;
    }
    if (Empty)
      continue;
    llvm::json::Array Bindings;
    for (const KernelLaunch::Binding &B : L.Bindings) {
      if (B.K == KernelLaunch::Binding::Kind::Uniform) {
        std::string Bytes(std::max<uint32_t>(L.UniformBytes, 16), '\0');
        for (const KernelLaunch::UniformField &U : L.Uniforms) {
          uint32_t Word = 0;
          if (U.DType == "f32") {
            auto F = Floats.find(U.Name);
            float V = F != Floats.end() ? float(F->second) : float(Ints[U.Name]);
            std::memcpy(&Word, &V, 4);
          } else {
            auto It = Ints.find(U.Name);
            if (It == Ints.end())
              return Fail(K.Symbol + ": no value for uniform '" + U.Name + "'");
            Word = uint32_t(It->second);
          }
          if (U.Offset + 4 > Bytes.size())
            return Fail(K.Symbol + ": uniform '" + U.Name + "' is outside the block");
          std::memcpy(&Bytes[U.Offset], &Word, 4);
        }
        std::string File = "uniform" + std::to_string(Kernels.size()) + ".bin";
        if (llvm::Error Err = WriteFile(File, Bytes))
          return Err;
        Bindings.push_back(llvm::json::Object{{"binding", B.Slot}, {"uniform", File}});
        continue;
      }
      auto It = Tensors.find(B.Param);
      if (It == Tensors.end())
        return Fail(K.Symbol + " binds '" + B.Param + "', which is not a tensor parameter");
      auto [BI, New] = BufferIndex.insert({B.Param, unsigned(Buffers.size())});
      if (New)
        Buffers.push_back({B.Param, B.Writable});
      Buffers[BI->second].second |= B.Writable;
      Bindings.push_back(llvm::json::Object{{"binding", B.Slot}, {"buffer", BI->second}});
    }
    Kernels.push_back(llvm::json::Object{
        {"entry", K.Symbol},
        {"grid", llvm::json::Array{Grid[0], Grid[1], Grid[2]}},
        {"bindings", std::move(Bindings)}});
  }
  if (Kernels.empty())
    return llvm::Error::success();
  // Each tensor's exact bytes: the runner rounds a buffer up to whole 32-bit
  // words (a packed 16-bit tensor of odd length ends in half a word) and
  // returns the exact bytes.
  llvm::json::Array BufferList;
  for (size_t I = 0; I != Buffers.size(); ++I) {
    const BoundTensor &T = Tensors[Buffers[I].first];
    std::string File = "buf" + std::to_string(I) + ".bin";
    if (llvm::Error Err = WriteFile(File, llvm::StringRef(T.Data, T.Bytes)))
      return Err;
    BufferList.push_back(llvm::json::Object{
        {"file", File}, {"bytes", int64_t(T.Bytes)}, {"writable", Buffers[I].second}});
  }
  std::string Job;
  llvm::raw_string_ostream JS(Job);
  JS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"shader", "shader.wgsl"},
                                   {"buffers", std::move(BufferList)},
                                   {"kernels", std::move(Kernels)}}));
  if (llvm::Error Err = WriteFile("job.json", Job))
    return Err;
  if (llvm::Error Err = runScript({Dir.str().str()}, nullptr, kRunTimeoutSeconds))
    return Fail(llvm::toString(std::move(Err)));
  for (size_t I = 0; I != Buffers.size(); ++I) {
    if (!Buffers[I].second)
      continue;
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, "out" + std::to_string(I) + ".bin");
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
    const BoundTensor &T = Tensors[Buffers[I].first];
    if (!Buf || (*Buf)->getBufferSize() != T.Bytes)
      return Fail("the WebGPU runner returned no result for '" + Buffers[I].first + "'");
    if (T.Bytes)
      std::memcpy(T.Data, (*Buf)->getBufferStart(), T.Bytes);
  }
  return llvm::Error::success();
}

} // namespace

ExecAvailability tile::probeWebGPU() {
  std::string Description;
  if (llvm::Error E = runScript({"--probe"}, &Description, 120))
    return ExecAvailability::unavailable(llvm::toString(std::move(E)));
  return ExecAvailability::available("Dawn for Node (npm webgpu) on " + Description);
}

llvm::Expected<std::unique_ptr<Executor>>
tile::createWebGPUExecutor(const ExecutorOptions &) {
  return std::make_unique<WebGPUExecutor>();
}
