//===- TileTableGen.cpp - tile-tblgen entry point -------------------------===//
//
// The main of tile-tblgen. Emitters register their -gen-* actions with
// llvm::TableGen::Emitter::Opt in their own files; with no action given, the
// parsed records are printed (as llvm-tblgen does).
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;

static void printRecords(const RecordKeeper &Records, raw_ostream &OS) {
  OS << Records;
}

static TableGen::Emitter::Opt PrintRecordsOpt("print-records", printRecords,
                                              "Print all records (default)",
                                              /*ByDefault=*/true);

static bool tileTableGenMain(TableGenOutputFiles &OutFiles,
                             const RecordKeeper &Records) {
  TableGen::Emitter::ApplyCallback(Records, OutFiles, "");
  return false;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv);
  return TableGenMain(argv[0], MultiFileTableGenMainFn(tileTableGenMain));
}
