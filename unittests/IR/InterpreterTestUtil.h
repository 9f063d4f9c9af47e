//===- InterpreterTestUtil.h - Helpers for the interpreter tests -*- C++ -*-===//
//-*-===//
//
// A fixture that parses and verifies kernels from strings (named
// "test.tile" in diagnostics) and runs them with located errors.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_IR_INTERPRETERTESTUTIL_H
#define TILE_UNITTESTS_IR_INTERPRETERTESTUTIL_H

#include "tile/IR/Interpreter.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <memory>
#include <string>
#include <vector>

#define ASSERT_SUCCEEDED(X)                                                    \
  do {                                                                         \
    if (llvm::Error E_ = (X))                                                  \
      FAIL() << llvm::toString(std::move(E_));                                 \
  } while (0)

#define EXPECT_SUCCEEDED(X)                                                    \
  do {                                                                         \
    if (llvm::Error E_ = (X))                                                  \
      ADD_FAILURE() << llvm::toString(std::move(E_));                          \
  } while (0)

namespace tile {
namespace interptest {

/// \p Tmpl with "$0", "$1", ... replaced by \p Args.
inline std::string substitute(std::string Tmpl,
                              const std::vector<std::string> &Args) {
  for (size_t I = Args.size(); I-- > 0;) {
    std::string Key = "$" + std::to_string(I);
    for (size_t P = Tmpl.find(Key); P != std::string::npos;
         P = Tmpl.find(Key, P + Args[I].size()))
      Tmpl.replace(P, Key.size(), Args[I]);
  }
  return Tmpl;
}

inline std::string boolStr(bool B) { return B ? "true" : "false"; }

class InterpreterTest : public ::testing::Test {
protected:
  /// Parses and verifies \p Text; returns its first function.
  const Function &parse(llvm::StringRef Text) {
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diag(&SM, &OS);
    Modules.push_back(parseModuleString(Text, "test.tile", SM, Ctx, Diag));
    // Functions with tunable parameters run in their default config.
    if (!Modules.back() || !verifyModule(*Modules.back(), Diag) ||
        Modules.back()->getFunctions().empty() ||
        [&] {
          llvm::Error E = specializeAndVerifyModule(*Modules.back(), {}, Diag);
          OS << llvm::toString(std::move(E));
          return !Errors.empty();
        }()) {
      ADD_FAILURE() << "invalid test program:\n" << Errors;
      Modules.back() = std::make_unique<Module>(Ctx);
      Modules.back()->addFunction(std::make_unique<Function>("invalid"));
    }
    return *Modules.back()->getFunctions().front();
  }

  /// The function named \p Name of the module parsed last.
  const Function &lookup(llvm::StringRef Name) {
    const Function *F = Modules.back()->lookupFunction(Name);
    EXPECT_TRUE(F) << "no function @" << Name.str();
    return F ? *F : *Modules.back()->getFunctions().front();
  }

  llvm::Error run(const Function &F, std::vector<ArgValue> Args,
                  InterpretOptions Opts = {}) {
    Opts.SM = &SM;
    return interpretFunction(F, Args, Opts);
  }

  /// The whole error message of a run that must fail.
  std::string runErrorFull(const Function &F, std::vector<ArgValue> Args) {
    llvm::Error E = run(F, std::move(Args));
    if (!E) {
      ADD_FAILURE() << "expected an error";
      return "";
    }
    return llvm::toString(std::move(E));
  }

  /// The first line (`file:line:col: error: message`) of the error.
  std::string runError(const Function &F, std::vector<ArgValue> Args) {
    std::string S = runErrorFull(F, std::move(Args));
    return S.substr(0, S.find('\n'));
  }

  llvm::SourceMgr SM;
  TileContext Ctx;
  std::vector<std::unique_ptr<Module>> Modules;
};

} // namespace interptest
} // namespace tile

#endif // TILE_UNITTESTS_IR_INTERPRETERTESTUTIL_H
