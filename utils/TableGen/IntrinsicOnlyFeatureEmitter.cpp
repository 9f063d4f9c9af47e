//===- IntrinsicOnlyFeatureEmitter.cpp - CPU features code never needs ----===//
//
// -gen-intrinsic-only-features: the names of the IntrinsicOnlyFeatures
// records (tile/Target/IntrinsicOnlyFeature.td) as the initializers of a
// sorted table of strings (GET_TILE_INTRINSIC_ONLY_FEATURES), one
// `"name",` a line. Each record has a reason and at least one name; a
// name is given once.
//
//===----------------------------------------------------------------------===//

#include "EmitterUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"
#include <map>

using namespace llvm;
using tile::tblgen::quote;

static void emitIntrinsicOnlyFeatures(const RecordKeeper &RK, raw_ostream &OS) {
  emitSourceFileHeader("Tile CPU features whose instructions only intrinsics emit", OS, RK);
  std::map<std::string, const Record *> Names; // sorted
  // In the order written, so that the second of two is the one reported.
  std::vector<const Record *> Records = RK.getAllDerivedDefinitions("IntrinsicOnlyFeatures");
  llvm::sort(Records, [](const Record *A, const Record *B) { return A->getID() < B->getID(); });
  for (const Record *R : Records) {
    if (R->getValueAsString("Why").trim().empty())
      PrintFatalError(R->getLoc(), "intrinsic-only features '" + R->getName() +
                                       "' give no reason");
    std::vector<StringRef> List = R->getValueAsListOfStrings("Names");
    if (List.empty())
      PrintFatalError(R->getLoc(), "intrinsic-only features '" + R->getName() +
                                       "' name no feature");
    for (StringRef N : List) {
      if (N.trim().empty() || N.trim() != N)
        PrintFatalError(R->getLoc(), "intrinsic-only features '" + R->getName() +
                                         "' name the feature '" + N +
                                         "': a feature's name has no spaces");
      auto [It, New] = Names.try_emplace(N.str(), R);
      if (!New) {
        PrintError(R->getLoc(), "intrinsic-only feature " + N + " given twice");
        PrintFatalNote(It->second->getLoc(), "first given here");
      }
    }
  }
  OS << "#ifdef GET_TILE_INTRINSIC_ONLY_FEATURES\n"
        "#undef GET_TILE_INTRINSIC_ONLY_FEATURES\n";
  for (const auto &[N, R] : Names)
    OS << quote(N) << ",\n";
  OS << "#endif // GET_TILE_INTRINSIC_ONLY_FEATURES\n";
}

static TableGen::Emitter::Opt X("gen-intrinsic-only-features", emitIntrinsicOnlyFeatures,
                                "Generate the sorted names of CPU features whose "
                                "instructions only intrinsics emit");
