//===- KernelCacheTest.cpp - External programs and the kernel cache -------===//
//
// An entry records the external programs that made it (ptxas, ld.lld,
// llc) with their size and modification time; a later lookup after the
// program changed reports the entry stale and rebuilds it. The TILE_*
// environment that chooses those programs is part of every key. The rest
// of the cache (hits, misses per key part, damage, concurrency, read-only
// directories) is tested through tile-jit in test/tools/tile-jit/cache.
// Tile's own build in the key names every loaded Tile library.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/KernelCache.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Verifier.h"
#include "tile/Support/FileIdentity.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <cstdlib>

using namespace tile;

namespace {

/// A scratch folder removed at the end of the test.
struct ScratchDir {
  llvm::SmallString<128> Path;
  ScratchDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tile-cache-test", Path));
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(Path); }
  std::string file(llvm::StringRef Name) const {
    llvm::SmallString<128> P(Path);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
};

void writeFile(const std::string &Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC);
  OS << Text;
}

/// Sets the modification time of \p Path to \p Seconds after the epoch.
void setModificationTime(const std::string &Path, int64_t Seconds) {
  int FD;
  ASSERT_FALSE(llvm::sys::fs::openFileForWrite(Path, FD, llvm::sys::fs::CD_OpenExisting,
                                               llvm::sys::fs::OF_Append));
  llvm::sys::TimePoint<> T{std::chrono::seconds(Seconds)};
  EXPECT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(FD, T));
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
}

TEST(KernelCache, AnEntryMadeByAChangedProgramIsStaleAndRemoved) {
  ScratchDir D;
  std::string Program = D.file("fake-assembler");
  writeFile(Program, "#!/bin/sh\n");
  setModificationTime(Program, 1000000000);
  KernelArtifact A;
  A.DeviceCode = "device code";
  recordExternalTool(A.Notes, Program);
  ASSERT_EQ(A.Notes.count("toolchain:" + Program), 1u);

  std::string Warnings;
  llvm::raw_string_ostream WOS(Warnings);
  KernelCache Cache(D.file("cache"), "test", WOS);
  ASSERT_TRUE(Cache.isEnabled());
  std::string Key(64, 'a');
  Cache.store(Key, A);
  bool Damaged = false;
  std::optional<KernelArtifact> Hit = Cache.lookup(Key, &Damaged);
  ASSERT_TRUE(Hit.has_value());
  EXPECT_EQ(Hit->DeviceCode, "device code");
  EXPECT_FALSE(Damaged);
  EXPECT_TRUE(Warnings.empty()) << Warnings;

  // Another build of the program at the same path.
  setModificationTime(Program, 1000000001);
  EXPECT_FALSE(Cache.lookup(Key, &Damaged).has_value());
  EXPECT_TRUE(Damaged);
  EXPECT_NE(Warnings.find("is stale: it was built by '" + Program + "'"),
            std::string::npos)
      << Warnings;
  // Removed: the next lookup is a plain miss, with nothing more to say.
  Damaged = false;
  Warnings.clear();
  EXPECT_FALSE(Cache.lookup(Key, &Damaged).has_value());
  EXPECT_FALSE(Damaged);
  EXPECT_TRUE(Warnings.empty()) << Warnings;

  // A program that is gone makes the entry stale too.
  recordExternalTool(A.Notes, Program);
  Cache.store(Key, A);
  ASSERT_TRUE(Cache.lookup(Key).has_value());
  llvm::sys::fs::remove(Program);
  EXPECT_FALSE(Cache.lookup(Key, &Damaged).has_value());
  EXPECT_TRUE(Damaged);
  EXPECT_NE(Warnings.find("which is now missing"), std::string::npos) << Warnings;
}

TEST(KernelCache, TheToolchainEnvironmentIsPartOfTheKey) {
  TargetRegistry Registry;
  ASSERT_FALSE(bool(registerAllTargetBackends(Registry)));
  TileContext TC;
  Registry.registerDialects(TC.getOpRegistry());
  llvm::SourceMgr SM;
  DiagnosticEngine Diag(&SM);
  std::unique_ptr<Module> M = parseModuleString(
      "func @f(%X: f32[N]) {\n  kernel grid(1) threads(1) (%b) {\n"
      "    %X[0] = 1.0\n  }\n}\n",
      "f.tile", SM, TC, Diag);
  ASSERT_TRUE(M && verifyModule(*M, Diag));
  llvm::Expected<BackendContext> Ctx =
      resolveBackendContext(Registry, "cpu", "", "orc");
  ASSERT_TRUE(bool(Ctx)) << llvm::toString(Ctx.takeError());

  ::unsetenv("TILE_PTXAS");
  std::string Base = KernelCache::computeKey(*M, *Ctx, "", "v");
  ::setenv("TILE_PTXAS", "/opt/other/ptxas", 1);
  std::string Other = KernelCache::computeKey(*M, *Ctx, "", "v");
  EXPECT_NE(Base, Other);
  EXPECT_NE(KernelCache::getToolchainEnvironment().find(
                "TILE_PTXAS=/opt/other/ptxas"),
            std::string::npos);
  ::unsetenv("TILE_PTXAS");
  EXPECT_EQ(KernelCache::computeKey(*M, *Ctx, "", "v"), Base);
  // Where the cache lives does not change what it holds.
  const char *Dir = std::getenv("TILE_CACHE_DIR");
  std::string Saved = Dir ? Dir : "";
  ::setenv("TILE_CACHE_DIR", "/somewhere/else", 1);
  EXPECT_EQ(KernelCache::computeKey(*M, *Ctx, "", "v"), Base);
  if (Dir)
    ::setenv("TILE_CACHE_DIR", Saved.c_str(), 1);
  else
    ::unsetenv("TILE_CACHE_DIR");
}

} // namespace

namespace {

TEST(KernelCache, TheToolVersionNamesEveryLoadedTileLibrary) {
  // This test links the backends: a rebuilt backend library alone (the
  // CPU backend's, say) must change every key, as a rebuilt driver does.
  std::string V = KernelCache::getToolVersion();
  // Each by its build ID, or without one (a linker not asked for it) its
  // file's size and modification time.
  for (llvm::StringRef Lib : {"libTileTargetCPU.so ", "libTileDriver.so "})
    EXPECT_TRUE(V.find((Lib + "build-id ").str()) != std::string::npos ||
                V.find((Lib + "size ").str()) != std::string::npos)
        << V;
  EXPECT_EQ(V.find("libLLVM"), std::string::npos) << V;
  EXPECT_EQ(V, KernelCache::getToolVersion());
}

} // namespace
