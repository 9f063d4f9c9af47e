//===- ArtifactEntries.h - A function's entry in a kernel artifact -*- C++ -*-===//
//
// Device codegen and host codegen each fill in part of a function's
// ArtifactEntry, in either order; whichever comes first adds it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_ARTIFACTENTRIES_H
#define TILE_LIB_CODEGEN_ARTIFACTENTRIES_H

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/IR.h"

namespace tile {

/// The entry of \p F in \p Artifact, added (named `tile_<function>`) when
/// it has none yet.
inline ArtifactEntry &getOrAddArtifactEntry(KernelArtifact &Artifact,
                                            const Function &F) {
  ArtifactEntry *Entry = nullptr;
  for (ArtifactEntry &E : Artifact.Entries)
    if (E.Name == F.getName())
      Entry = &E;
  if (!Entry) {
    Artifact.Entries.push_back({});
    Entry = &Artifact.Entries.back();
    Entry->Name = F.getName().str();
    Entry->Symbol = "tile_" + F.getName().str();
  }
  return *Entry;
}

} // namespace tile

#endif // TILE_LIB_CODEGEN_ARTIFACTENTRIES_H
