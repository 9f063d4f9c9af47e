//===- ToolOptions.cpp - What every Tile tool's command line shares -------===//

#include "tile/Tools/ToolOptions.h"
#include "tile/Support/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile;
namespace cl = llvm::cl;

void tile::printToolVersion(llvm::raw_ostream &OS) {
  OS << "Tile version " << getTileVersionString() << "\n"
     << "  LLVM version " << LLVM_VERSION_STRING << "\n";
}

/// LLVM's own options of every tool: -help and its variants, -version.
static bool isGenericOption(llvm::StringRef Name) {
  return Name.starts_with("help") || Name == "version" ||
         Name == "print-options" || Name == "print-all-options";
}

void tile::initToolOptions(llvm::ArrayRef<cl::OptionCategory *> Categories,
                           llvm::ArrayRef<llvm::StringRef> AlsoShown) {
  auto &Opts = cl::getRegisteredOptions();
  // Every tool reads LLVM's remark options (tile/IR/Remarks.h).
  llvm::SmallVector<llvm::StringRef, 8> Shown(AlsoShown);
  Shown.append({"pass-remarks", "pass-remarks-missed", "pass-remarks-analysis"});
  for (llvm::StringRef Name : Shown)
    if (cl::Option *O = Opts.lookup(Name); O && !Categories.empty()) {
      O->addCategory(*Categories.front()); // replaces the general category
      O->setHiddenFlag(cl::NotHidden);     // LLVM registers them hidden
    }
  for (auto &[Name, O] : Opts) {
    bool Shown = isGenericOption(Name) ||
                 llvm::any_of(O->Categories, [&](cl::OptionCategory *C) {
                   return llvm::is_contained(Categories, C);
                 });
    // Hidden, not ReallyHidden (cl::HideUnrelatedOptions): -help-hidden
    // still lists it.
    if (!Shown && O->getOptionHiddenFlag() == cl::NotHidden)
      O->setHiddenFlag(cl::Hidden);
  }
  cl::SetVersionPrinter(printToolVersion);
}
