//===- Version.h - Tile's version and commit --------------------*- C++ -*-===//
//
// The version of the project (CMake's project(VERSION)) and the commit it
// was built from, as `tile-llc --version` and tileGetVersion() print them.
// The commit is refreshed at every build (cmake/GenerateVersion.cmake), so
// only the few files that include this header rebuild when it changes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_VERSION_H
#define TILE_SUPPORT_VERSION_H

#include "tile/Support/VCSRevision.inc" // TILE_VERSION, TILE_REVISION
#include <string>

namespace tile {

/// "0.1.0 (abc1234def56)", or "0.1.0" when built outside a git checkout.
inline std::string getTileVersionString() {
  std::string Revision = TILE_REVISION;
  return std::string(TILE_VERSION) +
         (Revision.empty() ? "" : " (" + Revision + ")");
}

} // namespace tile

#endif // TILE_SUPPORT_VERSION_H
