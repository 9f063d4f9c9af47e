//===- KernelArtifact.cpp - Export and import of artifacts ----------------===//
//
// The file format: the magic "TILEART\0", the version (kVersion, 2) as a
// little-endian u64, then every field in the fixed order of serialize():
// integers as little-endian u64 (small enums and flags packed into one),
// strings and lists prefixed by their u64 length, the device format by its
// name (formats a target backend registers have no fixed number) and the
// device architecture after the target and execution backend, the notes as
// a list of key/value string pairs. Timings are not written (they describe
// one compilation). Version 1 files, which numbered the shared formats and
// kept the architecture in a `cubin.arch` note, are still read. Optional sections follow, each an 8-byte tag
// (kLaunchTag, kArgBytesTag, kTensorMapTag, kSpecializeTag) and then its
// record for every kernel in entry order (kSpecializeTag: then the deferred
// device source); a section no kernel needs is left out. Last, a
// host library (kHostLibraryTag and one string) when the artifact has one.
// Reading
// checks every length against what is left, so a truncated or corrupt file
// is an error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/KernelArtifact.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile;

static constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'A', 'R', 'T', '\0'};
static constexpr uint64_t kVersion = 2;
/// Starts the optional section of kernel argument sizes, after the launch
/// descriptions.
static constexpr char kArgBytesTag[8] = {'A', 'R', 'G', 'S', 'Z', '1', '\0', '\0'};
/// Starts the optional section of launch descriptions after the notes.
static constexpr char kLaunchTag[8] = {'L', 'A', 'U', 'N', 'C', 'H', '1', '\0'};
/// Starts the optional section of tensor map arguments, after the argument
/// sizes.
static constexpr char kTensorMapTag[8] = {'T', 'M', 'A', 'P', 'S', '1', '\0', '\0'};
/// Starts the optional section of specializations and deferred kernels
/// (with the deferred device source), after the tensor maps.
static constexpr char kSpecializeTag[8] = {'S', 'P', 'E', 'C', 'L', 'Z', '1', '\0'};
/// Starts the optional host library, the last section.
static constexpr char kHostLibraryTag[8] = {'H', 'O', 'S', 'T', 'L', 'I', 'B', '1'};

std::optional<unsigned> ArtifactEntry::getKernelIndex(unsigned N) const {
  for (unsigned I = 0; I != Kernels.size(); ++I)
    if (!Kernels[I].SpecializationOf && N-- == 0)
      return I;
  return std::nullopt;
}

std::optional<unsigned> ArtifactEntry::getSpecialization(unsigned Index) const {
  for (unsigned I = 0; I != Kernels.size(); ++I)
    if (Kernels[I].SpecializationOf == Index)
      return I;
  return std::nullopt;
}

/// The lines of note \p Key, trimmed, empty ones left out.
static llvm::SmallVector<llvm::StringRef>
getNoteLines(const std::map<std::string, std::string> &Notes, llvm::StringRef Key) {
  llvm::SmallVector<llvm::StringRef> Lines;
  auto It = Notes.find(Key.str());
  if (It == Notes.end())
    return Lines;
  llvm::StringRef(It->second).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef &L : Lines)
    L = L.trim();
  llvm::erase_if(Lines, [](llvm::StringRef L) { return L.empty(); });
  return Lines;
}

std::vector<std::string> KernelArtifact::getSharedLibraries() const {
  std::vector<std::string> Libs;
  for (llvm::StringRef L : getNoteLines(Notes, kSharedLibrariesNote))
    Libs.push_back(L.str());
  return Libs;
}

std::vector<std::string> KernelArtifact::getMissingCPUFeatures(
    const llvm::StringMap<bool> &Host) const {
  std::vector<std::string> Missing;
  for (llvm::StringRef F : getNoteLines(Notes, kCPUFeaturesNote))
    if (auto It = Host.find(F); It != Host.end() && !It->second)
      Missing.push_back(F.str());
  return Missing;
}

std::vector<const std::string *> KernelArtifact::getHostLinkedObjects() const {
  if (HostObject.empty())
    return {};
  if (DeviceFmt == DeviceFormat::Object && !DeviceCode.empty())
    return {&HostObject, &DeviceCode};
  return {&HostObject};
}

llvm::Error KernelArtifact::finishDeviceCode() {
  if (!FinishDeviceCode)
    return llvm::Error::success();
  // Cleared first: what it holds (an LLVM module, a target machine) goes
  // when it returns.
  auto Finish = std::move(FinishDeviceCode);
  FinishDeviceCode = nullptr;
  return Finish(*this);
}

const ArtifactEntry *KernelArtifact::findEntry(llvm::StringRef Name) const {
  for (const ArtifactEntry &E : Entries)
    if (E.Name == Name)
      return &E;
  return nullptr;
}

llvm::Error KernelArtifact::missingEntry(llvm::StringRef Name) const {
  std::string Known;
  for (const ArtifactEntry &E : Entries)
    Known += (Known.empty() ? "" : ", ") + E.Name;
  return llvm::createStringError("no entry point '" + Name +
                                 "' in the artifact; it has: " +
                                 (Known.empty() ? "none" : Known));
}

namespace {
class Writer {
public:
  void u64(uint64_t V) {
    for (int I = 0; I != 8; ++I)
      Out += char((V >> (8 * I)) & 0xff);
  }
  void str(llvm::StringRef S) {
    u64(S.size());
    Out += S;
  }
  void strs(const std::vector<std::string> &V) {
    u64(V.size());
    for (const std::string &S : V)
      str(S);
  }
  void u32s(const std::vector<uint32_t> &V) {
    u64(V.size());
    for (uint32_t X : V)
      u64(X);
  }
  /// An optional section: \p Tag, then \p Write for every kernel of
  /// \p Entries in order; left out when \p Has holds for none of them.
  template <typename HasFn, typename WriteFn>
  void section(const char (&Tag)[8], const std::vector<ArtifactEntry> &Entries,
               HasFn Has, WriteFn Write) {
    bool Any = false;
    for (const ArtifactEntry &E : Entries)
      for (const ArtifactKernel &K : E.Kernels)
        Any |= Has(K);
    if (!Any)
      return;
    Out.append(Tag, sizeof(Tag));
    for (const ArtifactEntry &E : Entries)
      for (const ArtifactKernel &K : E.Kernels)
        Write(K);
  }
  std::string Out;
};

class Reader {
public:
  explicit Reader(llvm::StringRef B) : Buf(B) {}
  bool u64(uint64_t &V) {
    if (Buf.size() < 8)
      return fail();
    V = 0;
    for (int I = 0; I != 8; ++I)
      V |= uint64_t(uint8_t(Buf[I])) << (8 * I);
    Buf = Buf.drop_front(8);
    return true;
  }
  bool str(std::string &S) {
    uint64_t N;
    if (!u64(N) || N > Buf.size())
      return fail();
    S = Buf.take_front(N).str();
    Buf = Buf.drop_front(N);
    return true;
  }
  bool strs(std::vector<std::string> &V) {
    uint64_t N;
    if (!u64(N) || N > Buf.size())
      return fail();
    V.resize(N);
    for (std::string &S : V)
      if (!str(S))
        return false;
    return true;
  }
  bool u32s(std::vector<uint32_t> &V) {
    uint64_t N;
    if (!u64(N) || N > Buf.size())
      return fail();
    for (uint64_t I = 0; I != N; ++I) {
      uint64_t X;
      if (!u64(X))
        return false;
      V.push_back(uint32_t(X));
    }
    return true;
  }
  /// The optional section \p Tag starts, when what is left starts with it:
  /// \p Read for every kernel of \p A in order; its first error.
  llvm::Error section(const char (&Tag)[8], KernelArtifact &A,
                      llvm::function_ref<llvm::Error(ArtifactKernel &)> Read) {
    if (!Buf.starts_with(llvm::StringRef(Tag, sizeof(Tag))))
      return llvm::Error::success();
    Buf = Buf.drop_front(sizeof(Tag));
    for (ArtifactEntry &E : A.Entries)
      for (ArtifactKernel &K : E.Kernels)
        if (llvm::Error Err = Read(K))
          return Err;
    return llvm::Error::success();
  }
  bool fail() {
    Failed = true;
    return false;
  }
  llvm::StringRef Buf;
  bool Failed = false;
};
} // namespace

std::string KernelArtifact::serialize() const {
  Writer W;
  W.Out.append(kMagic, sizeof(kMagic));
  W.u64(kVersion);
  W.str(Target);
  W.str(ExecBackend);
  W.str(getDeviceFormatInfo(DeviceFmt).Name);
  W.str(DeviceArch);
  W.str(DeviceCode);
  W.str(DeviceSource);
  W.str(HostObject);
  W.str(HostIR);
  W.u64(Entries.size());
  for (const ArtifactEntry &E : Entries) {
    W.str(E.Name);
    W.str(E.Symbol);
    W.u64(E.Params.size());
    for (const ArtifactParam &P : E.Params) {
      W.str(P.Name);
      W.u64(uint64_t(P.K) | uint64_t(P.TypeCode) << 8 | uint64_t(P.Bits) << 16);
      W.str(P.DType);
      W.strs(P.Shape);
      W.strs(P.Strides);
    }
    W.u64(E.Kernels.size());
    for (const ArtifactKernel &K : E.Kernels) {
      W.str(K.Symbol);
      W.u64(K.GridRank);
      W.u64(uint64_t(K.Threads));
      W.u64(uint64_t(K.SharedBytes));
      W.u64(K.NumArgs);
    }
  }
  W.u64(Notes.size());
  for (const auto &[K, V] : Notes) {
    W.str(K);
    W.str(V);
  }
  W.section(
      kLaunchTag, Entries,
      [](const ArtifactKernel &K) { return !K.Launch.empty(); },
      [&](const ArtifactKernel &K) {
        const KernelLaunch &L = K.Launch;
        W.u64(L.Bindings.size());
        for (const KernelLaunch::Binding &B : L.Bindings) {
          W.u64(uint64_t(B.K) | uint64_t(B.Writable) << 8);
          W.str(B.Param);
          W.u64(B.Group);
          W.u64(B.Slot);
        }
        W.u64(L.Uniforms.size());
        for (const KernelLaunch::UniformField &U : L.Uniforms) {
          W.str(U.Name);
          W.str(U.DType);
          W.u64(U.Offset);
        }
        W.u64(L.UniformBytes);
        W.strs(L.Grid);
      });
  W.section(
      kArgBytesTag, Entries,
      [](const ArtifactKernel &K) { return !K.ArgBytes.empty(); },
      [&](const ArtifactKernel &K) { W.u32s(K.ArgBytes); });
  W.section(
      kTensorMapTag, Entries,
      [](const ArtifactKernel &K) { return !K.TensorMaps.empty(); },
      [&](const ArtifactKernel &K) {
        W.u64(K.TensorMaps.size());
        for (const ArtifactTensorMap &M : K.TensorMaps) {
          W.u64(M.Arg);
          W.u64(M.Tensor);
          W.str(M.Name);
          W.u64(uint64_t(M.TypeCode) | uint64_t(M.Bits) << 8 |
                uint64_t(M.NaNFill) << 16 | uint64_t(M.Optional) << 17);
          W.u32s(M.Box);
          W.u64(M.Swizzle);
          W.u64(M.L2Promotion);
        }
      });
  auto Specialized = [](const ArtifactKernel &K) {
    return K.SpecializationOf || K.Deferred;
  };
  W.section(kSpecializeTag, Entries, Specialized, [&](const ArtifactKernel &K) {
    // 0: none, else the general kernel's index + 1; the deferred flag.
    W.u64(K.SpecializationOf ? uint64_t(*K.SpecializationOf) + 1 : 0);
    W.u64(K.Deferred);
  });
  bool AnySpecialized = false;
  for (const ArtifactEntry &E : Entries)
    for (const ArtifactKernel &K : E.Kernels)
      AnySpecialized |= Specialized(K);
  if (AnySpecialized)
    W.str(DeferredDeviceSource);
  if (!HostLibrary.empty()) {
    W.Out.append(kHostLibraryTag, sizeof(kHostLibraryTag));
    W.str(HostLibrary);
  }
  return W.Out;
}

llvm::Expected<KernelArtifact> KernelArtifact::deserialize(llvm::StringRef Bytes) {
  auto Corrupt = [](const llvm::Twine &Why) {
    return llvm::createStringError("corrupt Tile artifact: " + Why);
  };
  if (Bytes.size() < sizeof(kMagic) ||
      Bytes.take_front(sizeof(kMagic)) != llvm::StringRef(kMagic, sizeof(kMagic)))
    return Corrupt("bad magic (not a Tile artifact)");
  Reader R(Bytes.drop_front(sizeof(kMagic)));
  KernelArtifact A;
  uint64_t Version = 0, Fmt = 0, NEntries = 0, NNotes = 0;
  if (!R.u64(Version))
    return Corrupt("truncated header");
  if (Version != kVersion && Version != 1)
    return Corrupt("version " + llvm::Twine(Version) + ", expected " +
                   llvm::Twine(kVersion));
  std::string FmtName;
  R.str(A.Target) && R.str(A.ExecBackend) &&
      (Version == 1 ? R.u64(Fmt) : R.str(FmtName) && R.str(A.DeviceArch)) &&
      R.str(A.DeviceCode) && R.str(A.DeviceSource) && R.str(A.HostObject) &&
      R.str(A.HostIR) && R.u64(NEntries);
  if (R.Failed || NEntries > R.Buf.size())
    return Corrupt("truncated");
  if (Version == 1) {
    if (Fmt >= NumDeviceFormats)
      return Corrupt("unknown device format " + llvm::Twine(Fmt));
    A.DeviceFmt = DeviceFormat(Fmt);
  } else if (const DeviceFormatInfo *F = lookupDeviceFormat(FmtName)) {
    A.DeviceFmt = F->Format;
  } else {
    return Corrupt("unknown device format '" + FmtName +
                   "' (a target backend that declares it registers it)");
  }
  for (uint64_t I = 0; I != NEntries && !R.Failed; ++I) {
    ArtifactEntry E;
    uint64_t NP = 0, NK = 0;
    R.str(E.Name) && R.str(E.Symbol) && R.u64(NP);
    if (NP > R.Buf.size())
      return Corrupt("truncated");
    for (uint64_t J = 0; J != NP && !R.Failed; ++J) {
      ArtifactParam P;
      uint64_t Packed = 0;
      R.str(P.Name) && R.u64(Packed) && R.str(P.DType) && R.strs(P.Shape) &&
          R.strs(P.Strides);
      if ((Packed & 0xff) > 2)
        return Corrupt("bad parameter kind");
      P.K = ArtifactParam::Kind(Packed & 0xff);
      P.TypeCode = (Packed >> 8) & 0xff;
      P.Bits = (Packed >> 16) & 0xff;
      E.Params.push_back(std::move(P));
    }
    R.u64(NK);
    if (NK > R.Buf.size())
      return Corrupt("truncated");
    for (uint64_t J = 0; J != NK && !R.Failed; ++J) {
      ArtifactKernel K;
      uint64_t Rank = 0, Threads = 0, Shared = 0, NArgs = 0;
      R.str(K.Symbol) && R.u64(Rank) && R.u64(Threads) && R.u64(Shared) &&
          R.u64(NArgs);
      K.GridRank = Rank;
      K.Threads = int64_t(Threads);
      K.SharedBytes = int64_t(Shared);
      K.NumArgs = NArgs;
      E.Kernels.push_back(std::move(K));
    }
    A.Entries.push_back(std::move(E));
  }
  R.u64(NNotes);
  if (R.Failed || NNotes > R.Buf.size())
    return Corrupt("truncated");
  for (uint64_t I = 0; I != NNotes && !R.Failed; ++I) {
    std::string K, V;
    R.str(K) && R.str(V);
    A.Notes[K] = V;
  }
  if (R.Failed)
    return Corrupt("truncated");
  if (Version == 1) {
    // What version 1 kept in notes.
    if (auto It = A.Notes.find("cubin.arch"); It != A.Notes.end()) {
      A.DeviceArch = It->second;
      A.Notes.erase(It);
    }
    for (auto It = A.Notes.begin(); It != A.Notes.end();)
      It = llvm::StringRef(It->first).starts_with("time.") ? A.Notes.erase(It)
                                                           : std::next(It);
  }
  // The optional sections, each a record per kernel.
  auto ReadLaunch = [&](ArtifactKernel &K) -> llvm::Error {
    KernelLaunch &L = K.Launch;
    uint64_t NB = 0, NU = 0, Bytes = 0;
    if (!R.u64(NB) || NB > R.Buf.size())
      return Corrupt("truncated");
    for (uint64_t I = 0; I != NB && !R.Failed; ++I) {
      KernelLaunch::Binding B;
      uint64_t Packed = 0, Group = 0, Slot = 0;
      R.u64(Packed) && R.str(B.Param) && R.u64(Group) && R.u64(Slot);
      if ((Packed & 0xff) > 1 || (Packed >> 8) > 1)
        return Corrupt("bad binding kind");
      B.K = KernelLaunch::Binding::Kind(Packed & 0xff);
      B.Writable = Packed >> 8;
      B.Group = uint32_t(Group);
      B.Slot = uint32_t(Slot);
      L.Bindings.push_back(std::move(B));
    }
    if (!R.u64(NU) || NU > R.Buf.size())
      return Corrupt("truncated");
    for (uint64_t I = 0; I != NU && !R.Failed; ++I) {
      KernelLaunch::UniformField U;
      uint64_t Offset = 0;
      R.str(U.Name) && R.str(U.DType) && R.u64(Offset);
      U.Offset = uint32_t(Offset);
      L.Uniforms.push_back(std::move(U));
    }
    R.u64(Bytes) && R.strs(L.Grid);
    L.UniformBytes = uint32_t(Bytes);
    if (R.Failed)
      return Corrupt("truncated");
    return llvm::Error::success();
  };
  auto ReadArgBytes = [&](ArtifactKernel &K) -> llvm::Error {
    if (!R.u32s(K.ArgBytes))
      return Corrupt("truncated");
    return llvm::Error::success();
  };
  auto ReadTensorMaps = [&](ArtifactKernel &K) -> llvm::Error {
    uint64_t N = 0;
    if (!R.u64(N) || N > R.Buf.size())
      return Corrupt("truncated");
    for (uint64_t I = 0; I != N && !R.Failed; ++I) {
      ArtifactTensorMap M;
      uint64_t Arg = 0, Tensor = 0, Packed = 0, Rank = 0, Swizzle = 0, L2 = 0;
      R.u64(Arg) && R.u64(Tensor) && R.str(M.Name) && R.u64(Packed) &&
          R.u64(Rank);
      if (R.Failed || Rank > R.Buf.size())
        return Corrupt("truncated");
      if (Packed >> 18)
        return Corrupt("bad tensor map flags");
      for (uint64_t D = 0; D != Rank && !R.Failed; ++D) {
        uint64_t B = 0;
        R.u64(B);
        M.Box.push_back(uint32_t(B));
      }
      R.u64(Swizzle) && R.u64(L2);
      M.Arg = unsigned(Arg);
      M.Tensor = unsigned(Tensor);
      M.TypeCode = Packed & 0xff;
      M.Bits = (Packed >> 8) & 0xff;
      M.NaNFill = (Packed >> 16) & 1;
      M.Optional = (Packed >> 17) & 1;
      M.Swizzle = uint32_t(Swizzle);
      M.L2Promotion = uint32_t(L2);
      K.TensorMaps.push_back(std::move(M));
    }
    if (R.Failed)
      return Corrupt("truncated");
    return llvm::Error::success();
  };
  if (llvm::Error Err = R.section(kLaunchTag, A, ReadLaunch))
    return std::move(Err);
  if (llvm::Error Err = R.section(kArgBytesTag, A, ReadArgBytes))
    return std::move(Err);
  if (llvm::Error Err = R.section(kTensorMapTag, A, ReadTensorMaps))
    return std::move(Err);
  bool HasSpecialize =
      R.Buf.starts_with(llvm::StringRef(kSpecializeTag, sizeof(kSpecializeTag)));
  auto ReadSpecialize = [&](ArtifactKernel &K) -> llvm::Error {
    uint64_t Of = 0, Deferred = 0;
    if (!R.u64(Of) || !R.u64(Deferred))
      return Corrupt("truncated");
    if (Deferred > 1 || Of > 0xffffffffu)
      return Corrupt("bad specialization record");
    if (Of)
      K.SpecializationOf = unsigned(Of - 1);
    K.Deferred = Deferred;
    return llvm::Error::success();
  };
  if (llvm::Error Err = R.section(kSpecializeTag, A, ReadSpecialize))
    return std::move(Err);
  if (HasSpecialize && !R.str(A.DeferredDeviceSource))
    return Corrupt("truncated deferred device source");
  for (const ArtifactEntry &E : A.Entries)
    for (const ArtifactKernel &K : E.Kernels)
      if (K.SpecializationOf && (*K.SpecializationOf >= E.Kernels.size() ||
                                 E.Kernels[*K.SpecializationOf].SpecializationOf))
        return Corrupt("kernel '" + K.Symbol + "' specializes kernel #" +
                       llvm::Twine(*K.SpecializationOf) + ", which entry '" +
                       E.Name + "' does not have as a general kernel");
  if (R.Buf.starts_with(llvm::StringRef(kHostLibraryTag, sizeof(kHostLibraryTag)))) {
    R.Buf = R.Buf.drop_front(sizeof(kHostLibraryTag));
    if (!R.str(A.HostLibrary))
      return Corrupt("truncated host library");
    if (A.HostLibrary.empty())
      return Corrupt("empty host library (an artifact without one has no "
                     "host library section)");
  }
  if (!R.Buf.empty())
    return Corrupt(llvm::Twine(R.Buf.size()) + " trailing bytes");
  return A;
}

llvm::Error KernelArtifact::writeToFile(llvm::StringRef Path) const {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
  if (EC)
    return llvm::createStringError("cannot write '" + Path + "': " + EC.message());
  OS << serialize();
  return llvm::Error::success();
}

llvm::Expected<KernelArtifact> KernelArtifact::readFromFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!Buf)
    return llvm::createStringError("cannot read '" + Path +
                                   "': " + Buf.getError().message());
  auto A = deserialize((*Buf)->getBuffer());
  if (!A)
    return llvm::createStringError("'" + Path + "': " + toString(A.takeError()));
  return A;
}
