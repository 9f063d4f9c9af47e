//===- ToolOptions.h - What every Tile tool's command line shares -*- C++ -*-===//
//
// The tools' -help lists their own options only: every option the process
// registers besides (libLLVM's several hundred: -aarch64-neon-syntax,
// -amdgpu-*, ...) moves to -help-hidden, where it stays usable. -version
// prints Tile's version and commit before LLVM's.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TOOLOPTIONS_H
#define TILE_TOOLS_TOOLOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace tile {

/// Call before cl::ParseCommandLineOptions. Options in \p Categories and
/// LLVM's generic ones (-help, -version) stay in -help; \p AlsoShown names
/// registered options of LLVM's that the tool documents as its own
/// (tile-opt's -print-after-all, -time-passes), which join the first
/// category, as do LLVM's -pass-remarks* options, which every tool reads;
/// every other option is hidden (-help-hidden lists it).
void initToolOptions(llvm::ArrayRef<llvm::cl::OptionCategory *> Categories,
                     llvm::ArrayRef<llvm::StringRef> AlsoShown = {});

/// What -version prints: "Tile version 0.1.0 (<commit>)" and LLVM's
/// version.
void printToolVersion(llvm::raw_ostream &OS);

} // namespace tile

#endif // TILE_TOOLS_TOOLOPTIONS_H
