//===- JitAutotune.cpp - tile-jit --autotune ------------------------------===//

#include "JitAutotune.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include <algorithm>
#include <chrono>

using namespace tile;

llvm::Expected<double> tile::timeRuns(Executor &Ex, LoadedArtifact &L,
                                      llvm::StringRef Entry,
                                      llvm::ArrayRef<TileArg> Args,
                                      unsigned Runs, bool *DeviceClock) {
  llvm::Expected<std::unique_ptr<DeviceTimer>> Timer = Ex.createTimer();
  if (!Timer)
    return Timer.takeError();
  if (DeviceClock)
    *DeviceClock = *Timer != nullptr;
  std::vector<double> Times;
  for (unsigned I = 0; I != Runs; ++I) {
    auto S = std::chrono::steady_clock::now();
    if (*Timer) {
      if (llvm::Error E = (*Timer)->start())
        return std::move(E);
      if (llvm::Error E = L.call(Entry, Args))
        return std::move(E);
      llvm::Expected<double> T = (*Timer)->stop();
      if (!T)
        return T.takeError();
      Times.push_back(*T);
      continue;
    }
    if (llvm::Error E = L.call(Entry, Args))
      return std::move(E);
    if (llvm::Error E = Ex.synchronize())
      return std::move(E);
    Times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - S)
            .count());
  }
  if (Times.empty())
    return llvm::createStringError("no timed runs");
  std::sort(Times.begin(), Times.end());
  return Times[Times.size() / 2];
}

std::string tile::getTuningRecordPath(const Function &Generic,
                                      const BackendContext &Ctx,
                                      const std::map<std::string, int64_t> &Dims,
                                      llvm::StringRef CacheDir) {
  llvm::SmallString<128> Dir(CacheDir);
  llvm::sys::path::append(Dir, "tuning");
  return TuningRecords(Dir).getPath(Generic, Ctx,
                                    TuningRecords::getShapeBucket(Dims));
}

llvm::Expected<std::unique_ptr<LoadedArtifact>>
tile::autotuneJit(const JitTuneRequest &R, TunableConfig &Best,
                  llvm::raw_ostream &Out) {
  std::vector<TunableConfig> Configs;
  for (TunableConfig &C : enumerateConfigs(*R.Generic)) {
    bool Keep = true;
    for (const auto &[K, V] : R.Fixed)
      Keep &= C.count(K) && C[K] == V;
    if (Keep)
      Configs.push_back(std::move(C));
  }
  auto T0 = std::chrono::steady_clock::now();
  std::vector<TuneResult> Results =
      compileConfigs(*R.Generic, *R.Reference, Configs, *R.Registry, *R.Ctx,
                     R.SM);
  double CompileWall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  std::unique_ptr<LoadedArtifact> BestLoaded;
  const TuneResult *BestR = nullptr;
  for (TuneResult &T : Results) {
    if (!T.Artifact)
      continue;
    llvm::Expected<std::unique_ptr<LoadedArtifact>> L = R.Ex->load(*T.Artifact);
    if (!L) {
      T.Pruned = "cannot be loaded: " + llvm::toString(L.takeError());
      continue;
    }
    // One warm-up run (it also checks that the config runs at all).
    llvm::Error E = (*L)->call(R.Generic->getName(), R.Args);
    if (!E)
      E = R.Ex->synchronize();
    if (E) {
      T.Pruned = "fails to run: " + llvm::toString(std::move(E));
      continue;
    }
    llvm::Expected<double> S =
        timeRuns(*R.Ex, **L, R.Generic->getName(), R.Args, R.Runs);
    if (!S) {
      T.Pruned = "fails to run: " + llvm::toString(S.takeError());
      continue;
    }
    T.Seconds = *S;
    if (!BestR || T.Seconds < BestR->Seconds) {
      BestR = &T;
      BestLoaded = std::move(*L);
    }
  }
  Out << "autotune @" << R.Generic->getName() << " on "
      << R.Ctx->getTarget().str() << " (" << R.Ex->getDeviceName() << "): "
      << Configs.size() << " configs compiled in "
      << llvm::format("%.0f ms", CompileWall * 1e3) << " on "
      << llvm::hardware_concurrency().compute_thread_count()
      << " threads, each timed over " << R.Runs << " runs\n";
  printTuneTable(Results, R.Flops, R.Bytes, Out);
  if (!BestR)
    return llvm::createStringError("--autotune: no config of '@" +
                                   R.Generic->getName() +
                                   "' compiled and ran; see the table");
  Best = BestR->Config;
  std::string Path =
      getTuningRecordPath(*R.Generic, *R.Ctx, R.Dims, R.CacheDir);
  std::string Describe = "@" + R.Generic->getName().str() + " on " +
                         R.Ctx->getTarget().str() + ", shapes " +
                         TuningRecords::getShapeBucket(R.Dims) +
                         "; written by tile-jit --autotune";
  if (llvm::Error E = TuningRecords::record(Path, R.Ex->getDeviceName(), Best,
                                            BestR->Seconds, Describe))
    Out << "autotune: best " << formatConfig(Best) << "; not recorded ("
        << llvm::toString(std::move(E)) << ")\n";
  else
    Out << "autotune: best " << formatConfig(Best) << ", recorded in " << Path
        << "\n";
  return std::move(BestLoaded);
}
