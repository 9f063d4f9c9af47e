//===- CAPIImpl.h - What the C API's handles are --------------*- C++ -*-===//
//
// The structs behind the opaque handles of include/tile-c/Tile.h and the
// helpers that turn llvm::Error into a TileErrorRef. Private to lib/CAPI.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CAPI_CAPIIMPL_H
#define TILE_LIB_CAPI_CAPIIMPL_H

#include "tile-c/Tile.h"
#include "tile/Exec/Executor.h"
#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>
#include <optional>
#include <string>

struct TileOpaqueError {
  TileErrorKind Kind;
  std::string Message;
};

struct TileOpaqueContext {
  tile::TargetRegistry Registry;
};

struct TileOpaqueModule {
  TileOpaqueContext *Ctx;
  /// Each module has its own IR context and source manager, so that later
  /// stages report errors located in this module's text.
  tile::TileContext IRCtx;
  llvm::SourceMgr SM;
  std::unique_ptr<tile::Module> M;
};

struct TileOpaqueTarget {
  TileOpaqueContext *Ctx;
  std::optional<tile::BackendContext> BC;
  std::string Name;
};

struct TileOpaqueArtifact {
  tile::KernelArtifact A;
  /// The serialized bytes, made on first request.
  std::optional<std::string> Data;
};

struct TileOpaqueExecutor {
  std::unique_ptr<tile::Executor> E;
};

struct TileOpaqueProgram {
  std::unique_ptr<tile::LoadedArtifact> L;
};

struct TileOpaqueLaunch {
  std::unique_ptr<tile::PreparedEntry> P;
};

namespace tile::capi {

inline TileErrorRef makeError(TileErrorKind K, const llvm::Twine &Msg) {
  return new TileOpaqueError{K, Msg.str()};
}

/// \p E as a TileErrorRef of kind \p K (NULL for success).
inline TileErrorRef wrap(llvm::Error E, TileErrorKind K) {
  if (!E)
    return nullptr;
  return makeError(K, llvm::toString(std::move(E)));
}

/// The error for a NULL handle or pointer argument \p What of \p Fn.
inline TileErrorRef nullArgument(const char *Fn, const char *What) {
  return makeError(TILE_ERROR_INVALID_CALL,
                   llvm::Twine(Fn) + ": " + What + " is NULL");
}

} // namespace tile::capi

#endif // TILE_LIB_CAPI_CAPIIMPL_H
