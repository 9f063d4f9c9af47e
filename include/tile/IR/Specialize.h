//===- Specialize.h - Choosing values for tunable parameters ----*- C++ -*-===//
//
// A function may declare compile-time parameters (TunableDecl): constants
// an autotuner or the user (`--param NAME=V`) chooses. A config gives each
// one a value; specializing a function for a config replaces every use of
// a tunable (expressions, shapes, attribute values) by its value and folds
// the integer arithmetic of constants that results, so that a shape
// written `[BM, BK / 2]` becomes a literal shape. The specialized function
// has no tunables and is verified and compiled like any other.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_SPECIALIZE_H
#define TILE_IR_SPECIALIZE_H

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>

namespace tile {

/// A value for some of a function's tunables, by name; those it does not
/// name keep their defaults.
using TunableConfig = std::map<std::string, int64_t>;

/// "BM=128 STAGES=3", or "default" for an empty config.
std::string formatConfig(const TunableConfig &C);

/// Parses `NAME=V` assignments (`--param`) into a config.
llvm::Expected<TunableConfig>
parseParamAssignments(llvm::ArrayRef<std::string> Assignments);

/// Every value of \p F's tunables: \p C completed with the defaults.
TunableConfig getFullConfig(const Function &F, const TunableConfig &C = {});

/// The configs an autotuner explores: the product of every tunable's
/// candidates (its default alone when it lists none), in declaration order.
/// Stops after \p Limit configs.
std::vector<TunableConfig> enumerateConfigs(const Function &F,
                                            size_t Limit = 4096);

/// \p F with its tunables replaced by the values of \p C (defaults for
/// those \p C does not name). An error when \p C names a parameter \p F
/// does not declare, or gives one a value its type cannot hold. Entries of
/// \p C are checked against \p F only when \p Strict; otherwise those that
/// name no tunable of \p F are ignored (a module-wide `--param`).
llvm::Expected<std::unique_ptr<Function>>
specializeFunction(const Function &F, const TunableConfig &C,
                   bool Strict = true);

/// Specializes every function of \p M that has tunables in place, with
/// \p C for each (each entry of \p C must name a tunable of some function).
llvm::Error specializeModule(Module &M, const TunableConfig &C);

/// specializeModule, then the verifier on each specialized function. A
/// function that is not valid in config \p C has its errors reported to
/// \p Diag, with a note naming the config, and the result is an error
/// that says so.
llvm::Error specializeAndVerifyModule(Module &M, const TunableConfig &C,
                                      DiagnosticEngine &Diag);

/// Whether any function of \p M still declares tunables.
bool hasTunables(const Module &M);

} // namespace tile

#endif // TILE_IR_SPECIALIZE_H
