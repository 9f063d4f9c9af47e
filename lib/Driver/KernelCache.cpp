//===- KernelCache.cpp - Compiled kernels on disk -------------------------===//
//
// An entry is one file, <key>.tilek:
//
//   "TILEKC1\n"            8 bytes
//   payload size           8 bytes, little-endian
//   BLAKE3 of the payload  32 bytes
//   payload                KernelArtifact::serialize()
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/KernelCache.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/Driver/CompileModule.h"
#include "tile/IR/Remarks.h"
#include "tile/IR/Printer.h"
#include "tile/Support/FileIdentity.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LockFileManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/TargetParser/Host.h"
#include <chrono>
#include <cstring>
#include <elf.h>
#include <link.h>
#include <unistd.h>

using namespace tile;

static constexpr llvm::StringLiteral Magic = "TILEKC1\n";
static constexpr size_t HeaderSize = 8 + 8 + 32;

llvm::StringRef tile::getCacheOutcomeName(CacheOutcome O) {
  switch (O) {
  case CacheOutcome::Disabled: return "disabled";
  case CacheOutcome::Hit: return "hit";
  case CacheOutcome::Miss: return "miss";
  case CacheOutcome::Rebuilt: return "rebuilt";
  }
  llvm_unreachable("unknown cache outcome");
}

std::string KernelCache::getDefaultDirectory() {
  if (std::optional<std::string> D = llvm::sys::Process::GetEnv("TILE_CACHE_DIR"))
    if (!D->empty())
      return *D;
  llvm::SmallString<128> P;
  if (std::optional<std::string> X = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      X && llvm::sys::path::is_absolute(*X)) {
    P = *X;
  } else if (std::optional<std::string> H = llvm::sys::Process::GetEnv("HOME")) {
    P = *H;
    llvm::sys::path::append(P, ".cache");
  } else {
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, P);
  }
  llvm::sys::path::append(P, "tile", "kernels");
  return std::string(P);
}

/// The GNU build ID of a loaded object, read from its notes in memory (no
/// system call: a stat costs ~9 us on a virtual machine, and a tool loads
/// 18 Tile libraries), as hex; empty when it has none.
static std::string getBuildID(const dl_phdr_info &Info) {
  for (unsigned I = 0; I != Info.dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info.dlpi_phdr[I];
    if (P.p_type != PT_NOTE)
      continue;
    const char *Note = reinterpret_cast<const char *>(Info.dlpi_addr + P.p_vaddr);
    size_t Align = P.p_align < 4 ? 4 : P.p_align;
    for (size_t Off = 0; Off + sizeof(ElfW(Nhdr)) <= P.p_memsz;) {
      ElfW(Nhdr) N;
      memcpy(&N, Note + Off, sizeof(N));
      size_t Name = Off + sizeof(N);
      size_t Desc = llvm::alignTo(Name + N.n_namesz, Align);
      size_t Next = llvm::alignTo(Desc + N.n_descsz, Align);
      if (Next > P.p_memsz)
        break;
      if (N.n_type == NT_GNU_BUILD_ID && N.n_namesz == 4 &&
          llvm::StringRef(Note + Name, 4) == llvm::StringRef("GNU", 4))
        return llvm::toHex(llvm::StringRef(Note + Desc, N.n_descsz),
                           /*LowerCase=*/true);
      Off = Next;
    }
  }
  return "";
}

namespace {
struct LoadedTileObjects {
  /// An address in the object that holds this code.
  uintptr_t Self;
  std::vector<std::string> Parts;
};
} // namespace

/// Appends "<name> <identity>" for the object holding this code and for
/// each loaded shared object whose file is one of Tile's libraries
/// (libTile*.so). The identity is the object's build ID, or without one
/// its file's size and modification time.
static int addTileObject(struct dl_phdr_info *Info, size_t, void *Data) {
  auto &Objects = *static_cast<LoadedTileObjects *>(Data);
  llvm::StringRef Path = Info->dlpi_name ? Info->dlpi_name : "";
  bool HoldsSelf = false;
  for (unsigned I = 0; I != Info->dlpi_phnum && !HoldsSelf; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    uintptr_t Start = Info->dlpi_addr + P.p_vaddr;
    HoldsSelf = P.p_type == PT_LOAD && Objects.Self >= Start &&
                Objects.Self < Start + P.p_memsz;
  }
  if (!HoldsSelf && !llvm::sys::path::filename(Path).starts_with("libTile"))
    return 0;
  std::string Identity = getBuildID(*Info);
  if (Identity.empty()) {
    // The main program's dlpi_name is empty.
    std::string File = Path.empty() ? llvm::sys::fs::getMainExecutable(
                                          nullptr, reinterpret_cast<void *>(
                                                       Objects.Self))
                                    : Path.str();
    Identity = getFileIdentity(File);
  } else {
    Identity = "build-id " + Identity;
  }
  Objects.Parts.push_back(
      (Path.empty() ? llvm::StringRef("(program)")
                    : llvm::sys::path::filename(Path)).str() +
      " " + Identity);
  return 0;
}

std::string KernelCache::getToolVersion() {
  // The object that holds this function (the tool, or libTileDriver) and
  // every other Tile library loaded: a rebuilt backend library alone
  // changes the code it makes too.
  LoadedTileObjects Objects;
  Objects.Self = reinterpret_cast<uintptr_t>(&KernelCache::getToolVersion);
  dl_iterate_phdr(addTileObject, &Objects);
  llvm::sort(Objects.Parts);
  return llvm::join(Objects.Parts, ";");
}

KernelCache::KernelCache(llvm::StringRef D, llvm::StringRef ToolName,
                         llvm::raw_ostream &W)
    : Dir(D.str()), Tool(ToolName.str()), Warnings(&W) {
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
    warn("kernel cache directory '" + Dir + "' cannot be created (" +
         EC.message() + "); compiling without the cache");
    return;
  }
  // Write permission as the directory's mode states it (root may write
  // to any directory, but a read-only cache was made so on purpose).
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::status(Dir, St)) {
    warn("kernel cache directory '" + Dir + "' cannot be read (" +
         EC.message() + "); compiling without the cache");
    return;
  }
  if (!llvm::sys::fs::is_directory(St)) {
    warn("kernel cache directory '" + Dir +
         "' is not a directory; compiling without the cache");
    return;
  }
  if (!(St.permissions() & (llvm::sys::fs::owner_write |
                            llvm::sys::fs::group_write |
                            llvm::sys::fs::others_write)) ||
      llvm::sys::fs::access(Dir, llvm::sys::fs::AccessMode::Write)) {
    warn("kernel cache directory '" + Dir +
         "' is read-only; compiling without the cache");
    return;
  }
  Enabled = true;
}

void KernelCache::warn(const llvm::Twine &Msg) {
  llvm::WithColor::warning(*Warnings, Tool) << Msg << "\n";
}

std::string KernelCache::getEntryPath(llvm::StringRef Key) const {
  llvm::SmallString<128> P(Dir);
  llvm::sys::path::append(P, Key + ".tilek");
  return std::string(P);
}

std::string KernelCache::getToolchainEnvironment() {
  std::vector<std::string> Vars;
  for (char **E = environ; E && *E; ++E) {
    llvm::StringRef V(*E);
    if (V.starts_with("TILE_") && !V.starts_with("TILE_CACHE_DIR="))
      Vars.push_back(V.str());
  }
  llvm::sort(Vars);
  return llvm::join(Vars, "\n");
}

std::string KernelCache::computeKey(const Module &M, const BackendContext &Ctx,
                                    llvm::StringRef Options,
                                    llvm::StringRef ToolVersion) {
  llvm::BLAKE3 H;
  auto Field = [&](llvm::StringRef Name, llvm::StringRef Text) {
    // Length-prefixed, so that fields cannot run into each other.
    H.update(Name);
    H.update(llvm::utostr(Text.size()));
    H.update(":");
    H.update(Text);
  };
  Field("format", "tile-kernel-cache-1");
  Field("tool", ToolVersion.empty() ? getToolVersion() : ToolVersion.str());
  Field("ir", toString(M));
  std::string C;
  llvm::raw_string_ostream CO(C);
  Ctx.print(CO);
  Field("context", C);
  // `-mcpu=native` means this machine's CPU.
  std::string Host = llvm::sys::getProcessTriple() + " " +
                     llvm::sys::getHostCPUName().str();
  for (const auto &[Name, On] : llvm::sys::getHostCPUFeatures())
    if (On)
      Host += " +" + Name.str();
  Field("host", Host);
  Field("options", Options);
  Field("environment", getToolchainEnvironment());
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

std::optional<KernelArtifact> KernelCache::lookup(llvm::StringRef Key,
                                                  bool *Damaged) {
  if (!Enabled)
    return std::nullopt;
  std::string Path = getEntryPath(Key);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  llvm::StringRef B = (*Buf)->getBuffer();
  auto Reject = [&](const llvm::Twine &Why) -> std::optional<KernelArtifact> {
    warn("kernel cache entry '" + Path + "' is " + Why +
         "; it is not loaded and is rebuilt");
    llvm::sys::fs::remove(Path);
    if (Damaged)
      *Damaged = true;
    return std::nullopt;
  };
  if (B.size() < HeaderSize)
    return Reject("truncated (" + llvm::Twine(B.size()) + " bytes, less than "
                  "its " + llvm::Twine(HeaderSize) + "-byte header)");
  if (!B.starts_with(Magic))
    return Reject("corrupted (it does not start with the entry header)");
  uint64_t Size = llvm::support::endian::read64le(B.data() + 8);
  llvm::StringRef Payload = B.drop_front(HeaderSize);
  if (Payload.size() < Size)
    return Reject("truncated (" + llvm::Twine(Payload.size()) + " of " +
                  llvm::Twine(Size) + " bytes)");
  if (Payload.size() > Size)
    return Reject("corrupted (" + llvm::Twine(Payload.size() - Size) +
                  " bytes past its end)");
  auto Sum = llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(Payload));
  if (llvm::StringRef(reinterpret_cast<const char *>(Sum.data()), Sum.size()) !=
      B.substr(16, 32))
    return Reject("corrupted (checksum mismatch)");
  llvm::Expected<KernelArtifact> A = KernelArtifact::deserialize(Payload);
  if (!A)
    return Reject("corrupted (" + llvm::toString(A.takeError()) + ")");
  // The external programs that made it must be the same builds.
  for (const auto &[Note, Identity] : A->Notes) {
    llvm::StringRef Name(Note);
    if (!Name.consume_front(ToolchainNotePrefix))
      continue;
    std::string Now = getFileIdentity(Name);
    if (Now != Identity)
      return Reject(("stale: it was built by '" + Name + "' (" + Identity +
                     "), which is now " + Now)
                        .str());
  }
  return std::move(*A);
}

void KernelCache::store(llvm::StringRef Key, const KernelArtifact &A) {
  if (!Enabled)
    return;
  std::string Payload = A.serialize();
  std::string Header = Magic.str();
  char Size[8];
  llvm::support::endian::write64le(Size, Payload.size());
  Header.append(Size, 8);
  auto Sum = llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(Payload));
  Header.append(reinterpret_cast<const char *>(Sum.data()), Sum.size());
  std::string Path = getEntryPath(Key);
  llvm::SmallString<128> Tmp;
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(
          Path + ".tmp-%%%%%%%%", FD, Tmp)) {
    warn("cannot write kernel cache entry '" + Path + "' (" + EC.message() +
         ")");
    return;
  }
  bool OK;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Header << Payload;
    OS.close();
    OK = !OS.has_error();
    if (!OK) {
      warn("cannot write kernel cache entry '" + Path + "' (" +
           OS.error().message() + ")");
      OS.clear_error();
    }
  }
  if (OK)
    if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
      warn("cannot publish kernel cache entry '" + Path + "' (" +
           EC.message() + ")");
      OK = false;
    }
  if (!OK)
    llvm::sys::fs::remove(Tmp);
}

void KernelCache::publish(llvm::StringRef Key, KernelArtifact A,
                          llvm::StringRef Linker) {
  if (!Linker.empty() && !A.getHostLinkedObjects().empty())
    if (llvm::Error E = linkHostLibrary(A, Linker))
      warn("kernel cache entry '" + getEntryPath(Key) +
           "' keeps its host code as objects, which each load links "
           "through ORC: " + llvm::toString(std::move(E)));
  store(Key, A);
}

CachePublication::~CachePublication() { wait(); }

void CachePublication::wait() {
  if (Worker.joinable())
    Worker.join();
  if (!Log.empty() && Warnings)
    *Warnings << Log;
  Log.clear();
}

llvm::Expected<KernelArtifact> KernelCache::getOrCompile(
    llvm::StringRef Key,
    llvm::function_ref<llvm::Expected<KernelArtifact>()> Compile,
    CacheOutcome &Outcome, const CachePublishOptions &PO) {
  if (!Enabled) {
    Outcome = CacheOutcome::Disabled;
    return Compile();
  }
  bool Damaged = false;
  if (std::optional<KernelArtifact> A = lookup(Key, &Damaged)) {
    Outcome = CacheOutcome::Hit;
    return std::move(*A);
  }
  // One process compiles a cold key; the others wait for its entry.
  std::string Path = getEntryPath(Key);
  auto Lock = std::make_unique<llvm::LockFileManager>(Path);
  llvm::Expected<bool> Owned = Lock->tryLock();
  if (!Owned) {
    llvm::consumeError(Owned.takeError());
  } else if (!*Owned) {
    if (Lock->waitForUnlockFor(std::chrono::seconds(PO.WaitSeconds)) ==
        llvm::WaitForUnlockResult::Success)
      if (std::optional<KernelArtifact> A = lookup(Key, &Damaged)) {
        Outcome = CacheOutcome::Hit;
        return std::move(*A);
      }
  }
  Outcome = Damaged ? CacheOutcome::Rebuilt : CacheOutcome::Miss;
  llvm::Expected<KernelArtifact> A = Compile();
  if (!A)
    return A;
  if (!PO.Background) {
    publish(Key, *A, PO.Linker);
    return A;
  }
  // The entry's lock is held until it is published: processes waiting for
  // it then load it.
  PO.Background->Warnings = Warnings;
  PO.Background->Worker =
      std::thread([Quiet = KernelCache(*this), Key = Key.str(), Copy = *A,
                   Linker = PO.Linker, Lock = std::move(Lock),
                   P = PO.Background]() mutable {
        llvm::raw_string_ostream OS(P->Log);
        Quiet.Warnings = &OS;
        Quiet.publish(Key, std::move(Copy), Linker);
        Lock.reset();
      });
  return A;
}

llvm::Expected<KernelArtifact> tile::compileModuleCached(
    const TargetRegistry &Registry, const BackendContext &Ctx, Module &M,
    DiagnosticEngine &Diag, CompileTimings &Timings,
    const KernelCacheOptions &Opts, llvm::raw_ostream &Warnings,
    std::string &Summary, CachePublication *Background) {
  if (!Opts.Enabled) {
    Summary = "kernel cache: disabled";
    return compileModule(Registry, Ctx, M, Diag, &Timings);
  }
  auto T0 = std::chrono::steady_clock::now();
  KernelCache Cache(Opts.Directory.empty() ? KernelCache::getDefaultDirectory()
                                           : Opts.Directory,
                    Opts.Tool, Warnings);
  std::string Key =
      Cache.isEnabled()
          ? KernelCache::computeKey(M, Ctx, Opts.Options, Opts.ToolVersion)
          : "";
  double KeySec =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  // The lookup (and a wait for another process's compile) is its own stage;
  // a compile on a miss is timed by compileModule.
  double CompileSec = 0;
  CacheOutcome Outcome;
  CachePublishOptions PO;
  PO.Background = Background;
  llvm::Expected<KernelArtifact> A = Cache.getOrCompile(
      Key,
      [&]() -> llvm::Expected<KernelArtifact> {
        auto C0 = std::chrono::steady_clock::now();
        llvm::Expected<KernelArtifact> R =
            compileModule(Registry, Ctx, M, Diag, &Timings);
        CompileSec = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - C0)
                         .count();
        // Entries load fastest as a linked library (HostCode.h); without a
        // linker their objects are linked on each load.
        if (R && !R->getHostLinkedObjects().empty()) {
          if (std::optional<std::string> L = findLinker()) {
            PO.Linker = *L;
          } else if (!M.getFunctions().empty()) {
            std::optional<std::string> Env =
                llvm::sys::Process::GetEnv("TILE_LD_LLD");
            RemarkEmitter(M.getContext().getRemarks(), "kernel-cache")
                .missed(M.getFunctions().front()->getLoc(),
                        std::string("the cache entry keeps its host code as "
                                    "objects, which each load links through "
                                    "ORC (about 0.3 ms more): ") +
                            (Env ? "TILE_LD_LLD=none asks for no linker"
                                 : "no ld.lld of LLVM 22 was found (set "
                                   "TILE_LD_LLD, or put ld.lld-22 on the "
                                   "PATH)"));
          }
        }
        return R;
      },
      Outcome, PO);
  double Total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  Timings.add("kernel cache", Total - CompileSec);
  if (Cache.isEnabled())
    Timings.addPart("key", KeySec);
  Summary = ("kernel cache: " + getCacheOutcomeName(Outcome)).str();
  if (Outcome != CacheOutcome::Disabled)
    Summary += " (" + Cache.getEntryPath(Key) + ")";
  return A;
}
