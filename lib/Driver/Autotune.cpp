//===- Autotune.cpp - Choosing a config of a kernel's tunables ------------===//

#include "tile/Driver/Autotune.h"
#include "tile/Driver/CompileModule.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include <algorithm>
#include <chrono>
#include <mutex>

using namespace tile;

/// The parameters' declarations as printed: what tensors are made for.
static std::string printSignature(const Function &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printFunction(F, OS);
  return S.substr(0, S.find('{'));
}

/// The first line of \p Msg, without the trailing newline.
static std::string firstLine(llvm::StringRef Msg) {
  return Msg.trim().split('\n').first.trim().str();
}

std::vector<TuneResult>
tile::compileConfigs(const Function &Generic, const Function &Reference,
                     llvm::ArrayRef<TunableConfig> Configs,
                     const TargetRegistry &Registry, const BackendContext &Ctx,
                     llvm::SourceMgr *SM, unsigned Threads) {
  std::vector<TuneResult> Results(Configs.size());
  // Build the source's line table now: the threads then only read it.
  if (SM)
    for (unsigned I = 1; I <= SM->getNumBuffers(); ++I)
      SM->getLineAndColumn(
          llvm::SMLoc::getFromPointer(SM->getMemoryBuffer(I)->getBufferStart()),
          I);
  std::string RefSig = printSignature(Reference);
  std::mutex DiagLock;
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Threads));
  for (size_t I = 0; I != Configs.size(); ++I)
    Pool.async([&, I] {
      TuneResult &R = Results[I];
      R.Config = getFullConfig(Generic, Configs[I]);
      auto Start = std::chrono::steady_clock::now();
      TileContext TC;
      Registry.registerDialects(TC.getOpRegistry());
      TC.setSourceMgr(SM);
      DiagnosticEngine Diag(SM);
      std::string FirstError;
      Diag.setHandler([&](const Diagnostic &D) {
        if (D.Sev != Severity::Error || !FirstError.empty())
          return;
        std::lock_guard<std::mutex> G(DiagLock);
        FirstError = D.Message;
        if (SM && D.Loc.isValid()) {
          auto [Line, Col] = SM->getLineAndColumn(D.Loc);
          FirstError = "line " + std::to_string(Line) + ":" +
                       std::to_string(Col) + ": " + FirstError;
        }
      });
      llvm::Expected<std::unique_ptr<Function>> S =
          specializeFunction(Generic, Configs[I]);
      if (!S) {
        R.Pruned = llvm::toString(S.takeError());
        return;
      }
      if (!verifyFunction(**S, Diag)) {
        R.Pruned = "not valid: " + FirstError;
        return;
      }
      if (printSignature(**S) != RefSig) {
        R.Pruned = "its parameters' shapes differ from those of the inputs";
        return;
      }
      Module M(TC);
      M.addFunction(std::move(*S));
      llvm::Expected<KernelArtifact> A = compileModule(Registry, Ctx, M, Diag);
      R.CompileSeconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - Start)
                             .count();
      if (!A) {
        std::string Msg = llvm::toString(A.takeError());
        R.Pruned = "the backend refuses it: " +
                   (FirstError.empty() ? firstLine(Msg) : FirstError);
        return;
      }
      R.Artifact = std::move(*A);
    });
  Pool.wait();
  return Results;
}

void tile::printTuneTable(llvm::ArrayRef<TuneResult> Results,
                          std::optional<double> Flops, double Bytes,
                          llvm::raw_ostream &OS) {
  std::vector<const TuneResult *> Timed, Pruned;
  for (const TuneResult &R : Results)
    (R.Pruned.empty() && R.Seconds > 0 ? Timed : Pruned).push_back(&R);
  // Fastest first; equal times keep the configs' order.
  std::sort(Timed.begin(), Timed.end(),
            [](const TuneResult *A, const TuneResult *B) {
              return A->Seconds != B->Seconds ? A->Seconds < B->Seconds : A < B;
            });
  size_t W = 6;
  for (const TuneResult &R : Results)
    W = std::max(W, formatConfig(R.Config).size());
  OS << "autotune: " << Timed.size() << " of " << Results.size()
     << " configs timed, " << Pruned.size() << " pruned\n";
  OS << llvm::left_justify("config", W) << "  " << llvm::right_justify("time", 12)
     << "  " << llvm::right_justify(Flops ? "TFLOP/s" : "GB/s", 9) << "  "
     << llvm::right_justify("compile", 10) << "\n";
  for (const TuneResult *R : Timed) {
    double Rate = Flops ? *Flops / R->Seconds / 1e12 : Bytes / R->Seconds / 1e9;
    OS << llvm::left_justify(formatConfig(R->Config), W) << "  "
       << llvm::format("%9.4f ms  %9.3f  %7.1f ms", R->Seconds * 1e3, Rate,
                       R->CompileSeconds * 1e3)
       << (R == Timed.front() ? "  best" : "") << "\n";
  }
  for (const TuneResult *R : Pruned)
    OS << llvm::left_justify(formatConfig(R->Config), W)
       << "  pruned: " << R->Pruned << "\n";
}

std::string
TuningRecords::getShapeBucket(const std::map<std::string, int64_t> &Dims) {
  std::string S;
  for (const auto &[K, V] : Dims)
    S += (S.empty() ? "" : " ") + K + "=" +
         std::to_string(V <= 1 ? 1 : int64_t(llvm::PowerOf2Ceil(uint64_t(V))));
  return S.empty() ? "scalar" : S;
}

std::string TuningRecords::getPath(const Function &Generic,
                                   const BackendContext &Ctx,
                                   llvm::StringRef Bucket) const {
  llvm::BLAKE3 H;
  std::string F;
  llvm::raw_string_ostream FO(F);
  printFunction(Generic, FO);
  std::string C;
  llvm::raw_string_ostream CO(C);
  Ctx.print(CO);
  for (llvm::StringRef Part : {llvm::StringRef(F), llvm::StringRef(C), Bucket}) {
    H.update(llvm::utostr(Part.size()) + ":");
    H.update(Part);
  }
  llvm::SmallString<128> P(Dir);
  llvm::sys::path::append(
      P, Generic.getName() + "-" +
             llvm::toHex(H.final(), /*LowerCase=*/true).substr(0, 32) + ".txt");
  return std::string(P);
}

/// `device<TAB>config<TAB>milliseconds` lines after `#` comments.
std::optional<TunableConfig> TuningRecords::lookup(llvm::StringRef Path,
                                                   llvm::StringRef Device) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    if (L.starts_with("#"))
      continue;
    llvm::SmallVector<llvm::StringRef, 3> F;
    L.split(F, '\t');
    if (F.size() != 3 || F[0] != Device)
      continue;
    llvm::SmallVector<llvm::StringRef> Assign;
    F[1].split(Assign, ' ', -1, false);
    std::vector<std::string> A(Assign.begin(), Assign.end());
    llvm::Expected<TunableConfig> C = parseParamAssignments(A);
    if (!C) {
      llvm::consumeError(C.takeError());
      return std::nullopt;
    }
    return *C;
  }
  return std::nullopt;
}

llvm::Error TuningRecords::record(llvm::StringRef Path, llvm::StringRef Device,
                                  const TunableConfig &C, double Seconds,
                                  llvm::StringRef Describe) {
  std::string Text = "# " + Describe.str() + "\n";
  if (auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true)) {
    llvm::SmallVector<llvm::StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines)
      if (!L.starts_with("#") && !L.starts_with((Device + "\t").str()))
        Text += L.str() + "\n";
  }
  Text += Device.str() + "\t" + formatConfig(C) + "\t" +
          llvm::formatv("{0:f4}", Seconds * 1e3).str() + "\n";
  if (std::error_code EC =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)))
    return llvm::createStringError("cannot create '" +
                                   llvm::sys::path::parent_path(Path) +
                                   "': " + EC.message());
  llvm::SmallString<128> Tmp;
  int FD;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Path + ".tmp-%%%%%%%%", FD, Tmp))
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      llvm::sys::fs::remove(Tmp);
      return llvm::createStringError("cannot write '" + Path + "': " + Msg);
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
    llvm::sys::fs::remove(Tmp);
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  }
  return llvm::Error::success();
}
