//===- InstrTimingEmitter.cpp - Measured instruction timings --------------===//
//
// -gen-instr-timings: the InstrTiming records (tile/Target/InstrTiming.td)
// as the initializers of a table (GET_TILE_INSTR_TIMINGS), each
// `{"cpu", "INSTR", rthroughput, latency, "source"},`, sorted by CPU and
// instruction. Each number must be positive and each (CPU, instruction)
// recorded once.
//
//===----------------------------------------------------------------------===//

#include "EmitterUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"
#include <cmath>

using namespace llvm;
using tile::tblgen::quote;

/// Field \p Field of \p R as a positive number.
static double getPositive(const Record *R, StringRef Field) {
  StringRef Text = R->getValueAsString(Field);
  double V;
  if (Text.trim().getAsDouble(V) || !(V > 0) || !std::isfinite(V))
    PrintFatalError(R->getLoc(), Field + " of instruction timing '" +
                                               R->getName() + "' must be a positive "
                                               "number, not '" + Text + "'");
  return V;
}

static void emitInstrTimings(const RecordKeeper &RK, raw_ostream &OS) {
  emitSourceFileHeader("Tile measured instruction timings", OS, RK);
  std::vector<const Record *> Timings = RK.getAllDerivedDefinitions("InstrTiming");
  auto Key = [](const Record *R) {
    return (R->getValueAsString("CPU") + "/" + R->getValueAsString("Instr")).str();
  };
  // Sorted by key, then in the order written (a record's ID).
  llvm::sort(Timings, [&](const Record *A, const Record *B) {
    return std::make_pair(Key(A), A->getID()) < std::make_pair(Key(B), B->getID());
  });
  StringMap<const Record *> Seen;
  OS << "#ifdef GET_TILE_INSTR_TIMINGS\n#undef GET_TILE_INSTR_TIMINGS\n";
  for (const Record *R : Timings) {
    for (StringRef F : {"CPU", "Instr", "Source"})
      if (R->getValueAsString(F).trim().empty())
        PrintFatalError(R->getLoc(), "instruction timing '" + R->getName() +
                                         "' has no " + F);
    auto [It, New] = Seen.try_emplace(Key(R), R);
    if (!New) {
      PrintError(R->getLoc(), "instruction timing of " + R->getValueAsString("Instr") +
                                  " on " + R->getValueAsString("CPU") + " given twice");
      PrintFatalNote(It->second->getLoc(), "first given here");
    }
    double RThroughput = getPositive(R, "RThroughput");
    double Latency = getPositive(R, "Latency");
    OS << "{" << quote(R->getValueAsString("CPU")) << ", "
       << quote(R->getValueAsString("Instr")) << ", "
       << format("%g", RThroughput) << ", " << format("%g", Latency) << ", "
       << quote(R->getValueAsString("Source")) << "},\n";
  }
  OS << "#endif // GET_TILE_INSTR_TIMINGS\n";
}

static TableGen::Emitter::Opt X("gen-instr-timings", emitInstrTimings,
                                "Generate a table of measured instruction timings");
