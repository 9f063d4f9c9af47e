//===- JitTool.cpp - The logic of tile-jit --------------------------------===//
//
// Parse -> make or read inputs (poisoning what the kernel only writes) ->
// resolve the BackendContext once -> compile -> build and load on the
// execution backend -> launch -> write outputs -> check against the
// reference interpreter -> time. With --emulate, the target backend's
// pipeline and then its emulator take the place of code generation, the
// execution backend and the launch; outputs and checks are the same. The
// stages are Jit's member functions (Jit.h); this file runs them in order.
//
// tile-jit passes tensors to the entry point as given: the checks of the
// generated host code, not tile-jit, decide whether an argument is
// acceptable, so the tool exercises exactly what a C++ caller would.
//
//===----------------------------------------------------------------------===//

#include "Jit.h"
#include "JitAutotune.h"
#include "tile/Driver/KernelCache.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/Interpreter.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/Emulator.h"
#include "tile/Target/TargetRegistry.h"
#include "tile/Tools/CompileHeap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <chrono>
#include <thread>

using namespace tile;

static double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

bool Jit::failWith(llvm::Error E, const llvm::Twine &Prefix) {
  // Typed diagnostics print as they are; located ones were already reported.
  reportToolError(std::move(E), "tile-jit", Err, Prefix);
  return false;
}

bool Jit::resolve() {
  ResolveOptions RO;
  // The emulator runs on the host: the execution backend is not used.
  RO.RequireAvailable = !Opts.Emulate;
  // Nothing here prints the LLVM IR: not printing it saves compile time and
  // kernel cache space (the GEMM's sm_90a entry: 612 -> about 200 KB).
  RO.KeepLLVMIR = false;
  llvm::Expected<BackendContext> C = resolveBackendContext(
      Registry, Opts.Target, Opts.HostTarget, Opts.ExecBackend, RO);
  if (!C)
    return fail(llvm::toString(C.takeError()));
  Ctx.emplace(std::move(*C));
  return true;
}

bool Jit::emulate() {
  const TargetBackendInfo &B = Ctx->getBackend();
  EmulatorFn Emulate = Registry.getEmulator(B);
  if (!Emulate) {
    std::vector<std::string> With;
    for (const TargetBackendInfo *O : Registry.getBackends())
      if (Registry.getEmulator(*O))
        With.push_back(O->Name);
    std::sort(With.begin(), With.end());
    return fail("target '" + Opts.Target + "' (backend " + B.Name +
                ") has no emulator; --emulate runs on the backends that have "
                "one: " +
                (With.empty() ? std::string("none") : llvm::join(With, ", ")));
  }
  if (Opts.Bench)
    return fail("--bench times the execution backend; it cannot be combined "
                "with --emulate");
  if (llvm::Error E = lowerModule(Registry, *Ctx, *Single, Diag, &Timings))
    return failWith(std::move(E));
  // The function as the pipeline left it, on the tensors' values.
  const Function &Lowered = *Single->lookupFunction(F->getName());
  std::vector<TensorArg> Storage(Lowered.getParams().size());
  std::vector<ArgValue> EmuArgs;
  for (size_t I = 0; I != Lowered.getParams().size(); ++I) {
    const Value *P = Lowered.getParams()[I].get();
    std::string Name = P->getName().str();
    if (P->isBuffer()) {
      const HostTensor &T = Tensors[Name];
      Storage[I].Shape = T.getShape();
      Storage[I].Data.resize(size_t(T.getNumElements()));
      for (int64_t E = 0; E != T.getNumElements(); ++E)
        Storage[I].Data[size_t(E)] = T.get(E);
      EmuArgs.push_back(ArgValue::tensor(Storage[I]));
    } else if (isFloat(P->getDType())) {
      EmuArgs.push_back(ArgValue::scalar(ScalarValues.at(Name)));
    } else {
      auto It = IntScalars.find(Name);
      EmuArgs.push_back(ArgValue::integer(It != IntScalars.end()
                                           ? It->second
                                           : int64_t(ScalarValues.at(Name))));
    }
  }
  EmulatorOptions EO;
  EO.SM = &SM;
  EO.DataOffset = Opts.DataOffset;
  EO.ResidentBlocks = Opts.EmulateResidentBlocks;
  auto T0 = std::chrono::steady_clock::now();
  if (llvm::Error E = Emulate(*Ctx, Lowered, EmuArgs, EO))
    return failWith(std::move(E), "emulator: ");
  Timings.add("emulation", std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - T0)
                               .count());
  if (Opts.PrintCompileTime) {
    Out << "compile time (" << Ctx->getTarget().str() << ", emulated):\n";
    Timings.print(Out);
  }
  for (size_t I = 0; I != Lowered.getParams().size(); ++I) {
    const Value *P = F->getParams()[I].get();
    if (!P->isBuffer() || !Written.count(P))
      continue;
    HostTensor R = Tensors[P->getName().str()];
    for (int64_t E = 0; E != R.getNumElements(); ++E)
      R.set(E, Storage[I].Data[size_t(E)]);
    Results[P->getName().str()] = std::move(R);
  }
  return true;
}


bool Jit::useTuningRecord(
    std::thread &Starter,
    std::optional<llvm::Expected<std::unique_ptr<Executor>>> &Started) {
  // A config --autotune recorded for this kernel, target, device and shape
  // bucket stands in for the defaults of the tunables --param leaves.
  if (Generic->getTunables().empty())
    return true;
  std::string Path = getTuningRecordPath(*Generic, *Ctx, DimValues, CacheDir);
  if (!llvm::sys::fs::exists(Path))
    return true;
  Starter.join(); // the record is per device
  if (!*Started)
    return true; // reported after the compile
  std::optional<TunableConfig> Rec =
      TuningRecords::lookup(Path, (**Started)->getDeviceName());
  if (!Rec)
    return true;
  for (const auto &[K, V] : Config)
    (*Rec)[K] = V;
  llvm::Expected<std::unique_ptr<Function>> S =
      specializeFunction(*Generic, *Rec);
  if (!S || !verifyFunction(**S, Diag)) {
    if (!S)
      llvm::consumeError(S.takeError());
    return fail("the tuned config " + formatConfig(*Rec) + " in '" + Path +
                "' is not valid for '@" + Generic->getName() +
                "'; run --autotune again or remove the file");
  }
  F = Single->replaceFunction(F, std::move(*S));
  Read.clear();
  Written.clear();
  analyzeAccess();
  if (Opts.PrintCompileTime || Opts.Bench)
    Out << "tuned config: " << formatConfig(getFullConfig(*Generic, *Rec))
        << " (from " << Path << ")\n";
  return true;
}

bool Jit::compile() {
  // The execution backend starts (a GPU driver's initialisation and context
  // take ~0.1 s) on its own thread while the module compiles. LLVM's target
  // registration is left to code generation, on this thread: a cache hit
  // whose host library dlopen loads needs none (0.6 ms).
  ExecutorOptions EO;
  EO.NumThreads = Opts.Threads;
  std::optional<llvm::Expected<std::unique_ptr<Executor>>> Started;
  std::thread Starter([&, Kind = Ctx->getExecBackend().Kind] {
    Started.emplace(Executor::create(Kind, EO));
  });
  llvm::scope_exit JoinStarter([&] {
    if (Starter.joinable())
      Starter.join();
    if (Started && !*Started) // a compile error came first
      llvm::consumeError(Started->takeError());
  });
  CacheDir = Opts.CacheDir.empty() ? KernelCache::getDefaultDirectory()
                                   : Opts.CacheDir;
  if (!Opts.Autotune && !useTuningRecord(Starter, Started))
    return false;
  KernelCacheOptions CO;
  CO.Enabled = !Opts.NoCache;
  CO.Directory = CacheDir;
  CO.ToolVersion = Opts.CacheToolVersion;
  CO.Tool = "tile-jit";
  CO.Options = "params: " + llvm::join(Opts.Params, " ");
  llvm::Expected<KernelArtifact> A =
      compileModuleCached(Registry, *Ctx, *Single, Diag, Timings, CO, Err,
                          CacheSummary, &Publishing);
  if (!A)
    return failWith(A.takeError());
  Artifact.emplace(std::move(*A));
  auto TL = std::chrono::steady_clock::now();
  if (Starter.joinable())
    Starter.join();
  if (!*Started)
    return fail(llvm::toString(Started->takeError()));
  Ex = std::move(**Started);
  // What is left of the executor's start once the compile is done.
  Timings.add("executor wait", secondsSince(TL));
  return true;
}

bool Jit::load() {
  auto TM = std::chrono::steady_clock::now();
  // The loaded artifact keeps the artifact: moved, not copied.
  llvm::Expected<std::unique_ptr<LoadedArtifact>> L =
      Ex->loadOwned(std::move(*Artifact));
  Artifact.reset();
  if (!L)
    return fail("cannot load the artifact on '" +
                llvm::Twine(Ctx->getExecBackend().Name) +
                "': " + llvm::toString(L.takeError()));
  Loaded = std::move(*L);
  Timings.add("load", secondsSince(TM));
  for (const std::string &W : Loaded->getWarnings())
    llvm::WithColor::warning(Err, "tile-jit") << W << "\n";
  if (Opts.PrintCompileTime) {
    Out << CacheSummary << "\n";
    if (Loaded->getHostCodeKind() != LoadedArtifact::HostCodeKind::None)
      Out << "host code: " << getHostCodeKindName(Loaded->getHostCodeKind())
          << "\n";
    Out << describeCompileHeap() << "\n";
    Out << "compile time (" << Ctx->getTarget().str() << ", "
        << Ctx->getExecBackend().Name << "):\n";
    Timings.print(Out);
  }
  return true;
}

llvm::Error Jit::call() {
  if (llvm::Error E = Loaded->call(F->getName(), Args))
    return E;
  return Ex->synchronize();
}

bool Jit::launch() {
  // Device copies of the tensors, and the argument list.
  Dev.resize(F->getParams().size());
  Args.resize(F->getParams().size());
  for (unsigned I = 0; I != F->getParams().size(); ++I) {
    const Value *P = F->getParams()[I].get();
    std::string Name = P->getName().str();
    if (!P->isBuffer()) {
      if (isFloat(P->getDType())) {
        Args[I].kind = TILE_ARG_FLOAT;
        Args[I].value.f64 = ScalarValues[Name];
      } else {
        Args[I].kind = TILE_ARG_INT;
        auto It = IntScalars.find(Name);
        Args[I].value.i64 =
            It != IntScalars.end() ? It->second : int64_t(ScalarValues[Name]);
      }
      continue;
    }
    HostTensor &T = Tensors[Name];
    llvm::Expected<DeviceBuffer> Mem = DeviceBuffer::allocate(
        *Ex, std::max<size_t>(T.getNumBytes() + Opts.DataOffset, 1));
    if (!Mem)
      return fail(llvm::toString(Mem.takeError()));
    Dev[I].Mem = std::move(*Mem);
    char *Data = static_cast<char *>(Dev[I].Mem.get());
    if (llvm::Error E =
            Ex->copyToDevice(Data + Opts.DataOffset, T.data(), T.getNumBytes()))
      return fail(llvm::toString(std::move(E)));
    Dev[I].Shape = T.getShape();
    DLTensor &DL = Dev[I].DL;
    DL.data = Data;
    DL.device = {static_cast<DLDeviceType>(Ex->getDLDeviceType()), 0};
    DL.ndim = int32_t(T.getShape().size());
    auto [Code, Bits] = getDLPackType(T.getDType());
    DL.dtype = {Code, Bits, 1};
    DL.shape = Dev[I].Shape.data();
    DL.strides = nullptr;
    DL.byte_offset = Opts.DataOffset;
    Args[I].kind = TILE_ARG_TENSOR;
    Args[I].value.tensor = &DL;
  }
  if (Opts.Autotune) {
    Publishing.wait(); // nothing else competes with the timed runs
    if (!autotune())
      return false;
  }
  if (llvm::Error E = call())
    return fail(llvm::toString(std::move(E)));
  // Results back to the host.
  for (unsigned I = 0; I != F->getParams().size(); ++I) {
    const Value *P = F->getParams()[I].get();
    if (!P->isBuffer() || !Written.count(P))
      continue;
    HostTensor R = Tensors[P->getName().str()];
    if (llvm::Error E = Ex->copyFromDevice(
            R.data(), static_cast<char *>(Dev[I].Mem.get()) + Opts.DataOffset,
            R.getNumBytes()))
      return fail(llvm::toString(std::move(E)));
    Results[P->getName().str()] = std::move(R);
  }
  return true;
}

bool Jit::bench() {
  Publishing.wait();
  for (int W = 0; W < 2; ++W)
    if (llvm::Error E = call())
      return fail(llvm::toString(std::move(E)));
  // Device work is timed on the device's clock where the executor has
  // one (the host's packed-API checks and launch stay outside), otherwise
  // with the host clock around the call and the wait.
  bool DeviceClock = false;
  llvm::Expected<double> Med =
      timeRuns(*Ex, *Loaded, F->getName(), Args, Opts.Bench, &DeviceClock);
  if (!Med)
    return fail(llvm::toString(Med.takeError()));
  double Bytes = countTensorBytes();
  Out << llvm::format("bench: median %.3f ms over %u runs, %.2f GB/s "
                      "(tensor bytes read + written)",
                      *Med * 1e3, Opts.Bench, Bytes / *Med / 1e9);
  if (std::optional<double> Fl = countGemmFlops(*RefF, DimValues); Fl && *Fl > 0)
    Out << llvm::format(", %.2f GFLOP/s", *Fl / *Med / 1e9);
  Out << (DeviceClock ? "; device clock\n" : "; host clock\n");
  return true;
}

double Jit::countTensorBytes() {
  double Bytes = 0;
  for (auto &[K, T] : Tensors)
    Bytes += double(T.getNumBytes()) * ((Read.count(findParam(K)) ? 1 : 0) +
                                        (Written.count(findParam(K)) ? 1 : 0));
  return Bytes;
}

bool Jit::autotune() {
  if (Generic->getTunables().empty())
    return fail("--autotune: '@" + Generic->getName() +
                "' has no tunable parameters");
  JitTuneRequest TR;
  TR.Generic = Generic;
  TR.Reference = RefF;
  TR.Fixed = Config;
  TR.Registry = &Registry;
  TR.Ctx = &*Ctx;
  TR.SM = &SM;
  TR.Ex = Ex.get();
  TR.Args = Args;
  if (std::optional<double> Fl = countGemmFlops(*RefF, DimValues); Fl && *Fl > 0)
    TR.Flops = Fl;
  TR.Bytes = countTensorBytes();
  TR.Dims = DimValues;
  TR.Runs = Opts.Bench ? Opts.Bench : 10;
  TR.CacheDir = CacheDir;
  TunableConfig Best;
  llvm::Expected<std::unique_ptr<LoadedArtifact>> BL =
      autotuneJit(TR, Best, Out);
  if (!BL)
    return fail(llvm::toString(BL.takeError()));
  Loaded = std::move(*BL);
  return true;
}

int Jit::run() {
  reserveCompileHeap();
  if (!parse() || !prepareInputs() || !resolve())
    return 1;
  Timings.add("parse+verify", ParseSeconds);
  std::string RanOn;
  if (Opts.Emulate) {
    if (!emulate())
      return 1;
    RanOn = Ctx->getTarget().str() + " (emulated)";
  } else {
    if (!compile() || !load())
      return 1;
    endCompileHeap();
    if (!launch())
      return 1;
    RanOn = Ctx->getTarget().str() + " (" + Ctx->getExecBackend().Name + ")";
  }
  if (!reference() || !writeOutputs(RanOn))
    return 1;
  std::optional<int> RC = check();
  if (!RC)
    return 1;
  if (Opts.Bench && !Opts.Emulate && !bench())
    return 1;
  Publishing.wait();
  return *RC;
}

int tile::runJit(const JitOptions &Opts, const TargetRegistry &Registry,
                 llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  if (Opts.InputFile.empty()) {
    llvm::WithColor::error(Err, "tile-jit") << "no input file\n";
    return 1;
  }
  return Jit(Opts, Registry, Out, Err).run();
}
