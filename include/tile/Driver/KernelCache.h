//===- KernelCache.h - Compiled kernels on disk -----------------*- C++ -*-===//
//
// A cache of KernelArtifacts on disk, so that a second compile of the same
// kernel for the same target loads the first one's result. An entry's key
// is a hash of everything that decides the code: the specialized IR as
// printed, the resolved BackendContext, this machine's CPU where the
// target says `native`, Tile's own build, the options that change code,
// and the environment that chooses and configures external programs
// (every TILE_* variable but TILE_CACHE_DIR: TILE_PTXAS, TILE_LD_LLD,
// TILE_LLC, ...). The external programs a backend ran (ptxas, ld.lld,
// llc) are recorded in the entry with their size and modification time
// (tile/Support/FileIdentity.h); an entry whose program changed since is
// stale, reported and rebuilt.
//
// Entries are published atomically (a unique temporary file, then a
// rename) with a BLAKE3 checksum of their contents: a truncated or
// corrupted entry is reported, removed and rebuilt, never loaded. One
// process compiles a cold key while the others wait on its lock file
// (llvm::LockFileManager) and then load its entry. An entry's host code
// is stored linked into a shared object (KernelArtifact::HostLibrary),
// which a hit loads with dlopen rather than linking objects through ORC.
// A directory that
// cannot be written degrades to compiling without the cache, with a
// warning.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_KERNELCACHE_H
#define TILE_DRIVER_KERNELCACHE_H

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <thread>

namespace tile {

/// How a lookup went, for --print-compile-time and remarks.
enum class CacheOutcome {
  Disabled, ///< no cache (--no-cache, or the directory is not usable)
  Hit,      ///< loaded from disk
  Miss,     ///< compiled, then published
  Rebuilt,  ///< the entry was corrupted, truncated or stale: compiled again
};
llvm::StringRef getCacheOutcomeName(CacheOutcome O);

class KernelCache;

/// The publication of an entry on a thread of its own, so that its
/// link (an ld.lld process, tens of milliseconds) overlaps the load and
/// the run of the kernel; the entry's lock is held until it is stored.
/// wait() (or the destructor) joins it and prints its warnings.
class CachePublication {
public:
  CachePublication() = default;
  CachePublication(const CachePublication &) = delete;
  ~CachePublication();
  void wait();

private:
  friend class KernelCache;
  std::thread Worker;
  std::string Log;
  llvm::raw_ostream *Warnings = nullptr;
};

/// How KernelCache::getOrCompile publishes what it compiled.
struct CachePublishOptions {
  /// ld.lld, to store the host code linked into a host library
  /// (KernelArtifact::HostLibrary); empty: as objects.
  std::string Linker;
  /// Publishes on this CachePublication's thread; null: before returning.
  CachePublication *Background = nullptr;
  /// How long to wait for another process compiling the same key.
  unsigned WaitSeconds = 300;
};

class KernelCache {
public:
  /// $TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile/kernels, else
  /// ~/.cache/tile/kernels.
  static std::string getDefaultDirectory();

  /// Tile's build as part of keys: the GNU build ID (read in memory; the
  /// file's size and modification time where there is none) of the binary
  /// holding this code and of every Tile library loaded (libTile*.so), so
  /// that a rebuilt compiler, or one rebuilt backend library, never loads
  /// an older build's kernels.
  static std::string getToolVersion();

  /// A cache in \p Dir (created when missing). When it cannot be written,
  /// a warning goes to \p Warnings and the cache is disabled. Warnings
  /// are written `<Tool>: warning: ...`.
  KernelCache(llvm::StringRef Dir, llvm::StringRef Tool,
              llvm::raw_ostream &Warnings);

  bool isEnabled() const { return Enabled; }
  llvm::StringRef getDirectory() const { return Dir; }

  /// The TILE_* environment variables (but TILE_CACHE_DIR), sorted, one a
  /// line: part of every key.
  static std::string getToolchainEnvironment();

  /// The key of \p M (specialized, not yet lowered) for \p Ctx; \p Options
  /// are the options that change code, \p ToolVersion Tile's build
  /// (getToolVersion() when empty). 64 hex digits.
  static std::string computeKey(const Module &M, const BackendContext &Ctx,
                                llvm::StringRef Options,
                                llvm::StringRef ToolVersion = "");

  /// The artifact under \p Key, or nothing. A damaged entry, or one made
  /// by an external program that has changed since, is removed with a
  /// warning, and \p Damaged is set.
  std::optional<KernelArtifact> lookup(llvm::StringRef Key,
                                       bool *Damaged = nullptr);

  /// Publishes \p A under \p Key: written to a unique temporary file in the
  /// directory, then renamed over the entry. A failure is a warning.
  void store(llvm::StringRef Key, const KernelArtifact &A);

  /// The artifact under \p Key: loaded, or made by \p Compile and
  /// published (publish()) as \p PO says. While one process compiles a
  /// key, others wait for it and load its entry. Compile errors are
  /// returned and nothing is stored.
  llvm::Expected<KernelArtifact>
  getOrCompile(llvm::StringRef Key,
               llvm::function_ref<llvm::Expected<KernelArtifact>()> Compile,
               CacheOutcome &Outcome, const CachePublishOptions &PO = {});

  /// Links \p A's host code into a host library with \p Linker (when
  /// given and \p A has host code; a failure is a warning, and the entry
  /// keeps its objects), then store()s it.
  void publish(llvm::StringRef Key, KernelArtifact A, llvm::StringRef Linker);

  /// The path of \p Key's entry.
  std::string getEntryPath(llvm::StringRef Key) const;

private:
  void warn(const llvm::Twine &Msg);

  std::string Dir;
  std::string Tool;
  llvm::raw_ostream *Warnings;
  bool Enabled = false;
};

class TargetRegistry;
class DiagnosticEngine;
struct CompileTimings;

/// How a tool uses the cache.
struct KernelCacheOptions {
  /// false: --no-cache.
  bool Enabled = true;
  /// Empty: KernelCache::getDefaultDirectory().
  std::string Directory;
  /// Empty: KernelCache::getToolVersion().
  std::string ToolVersion;
  /// The tool's options that change code, as text.
  std::string Options;
  /// The name warnings carry.
  std::string Tool = "tile";
};

/// compileModule through the cache: \p M (verified, specialized) is
/// compiled only on a miss, and then published with its host code linked
/// into a host library where an ld.lld is found (else a missed remark,
/// `kernel-cache`, says why not): on \p Background's thread when given.
/// The lookup's time is the "kernel cache" stage of \p Timings; \p Summary
/// receives "kernel cache: hit (<entry>)" (or miss, rebuilt, disabled).
/// Warnings go to \p Warnings.
llvm::Expected<KernelArtifact>
compileModuleCached(const TargetRegistry &Registry, const BackendContext &Ctx,
                    Module &M, DiagnosticEngine &Diag, CompileTimings &Timings,
                    const KernelCacheOptions &Opts, llvm::raw_ostream &Warnings,
                    std::string &Summary,
                    CachePublication *Background = nullptr);

} // namespace tile

#endif // TILE_DRIVER_KERNELCACHE_H
