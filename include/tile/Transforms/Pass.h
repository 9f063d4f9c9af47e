//===- Pass.h - Passes over Tile IR -----------------------------*- C++ -*-===//
//
// A pass transforms a Module in place. Passes are declared in TableGen
// (PassBase.td): the generated PassInfo gives the pass its name, summary,
// options and factory, and a PassRegistry maps names to them so that
// pipelines can be written as text (`tile-opt -passes=a,b{opt=1}`).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASS_H
#define TILE_TRANSFORMS_PASS_H

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace tile {

class BackendContext;
class Pass;

struct PassOptionInfo {
  const char *Name;
  /// "int", "bool" or "string".
  const char *Type;
  const char *Default;
  const char *Summary;
  /// The function attribute (`pass.<name>`) that sets the option for one
  /// function, or null.
  const char *FuncAttr;
  /// The values a string option takes, separated by '|' ("auto|on|off"),
  /// or null for any.
  const char *Values = nullptr;

  /// Whether \p V is a value the option takes (its type's, and one of
  /// Values where it lists them).
  bool accepts(llvm::StringRef V) const;
  /// What the option takes, for an error: "true or false", "an integer",
  /// "one of auto, on, off" or "a string".
  std::string describeValues() const;
};

struct PassInfo {
  const char *Name;
  const char *Summary;
  const char *Description;
  const PassOptionInfo *Options;
  unsigned NumOptions;
  std::unique_ptr<Pass> (*Create)();

  llvm::ArrayRef<PassOptionInfo> options() const { return {Options, NumOptions}; }
  const PassOptionInfo *findOption(llvm::StringRef Name) const;
};

/// What a pass may consult besides the module.
struct PassState {
  DiagnosticEngine &Diag;
  /// The resolved target, when the pass runs in a backend pipeline (null in
  /// tile-opt without -target).
  const BackendContext *Backend = nullptr;
};

class Pass {
public:
  explicit Pass(const PassInfo &Info) : Info(Info) {}
  virtual ~Pass();

  const PassInfo &getInfo() const { return Info; }
  llvm::StringRef getName() const { return Info.Name; }

  /// Transforms \p M. Returns false after reporting errors to S.Diag.
  virtual bool run(Module &M, PassState &S) = 0;

  /// This pass's optimization remarks, reported to \p M's context.
  RemarkEmitter getRemarks(Module &M) const {
    return RemarkEmitter(M.getContext().getRemarks(), getName());
  }

  /// Sets option \p Name from text, checking the declared type.
  llvm::Error setOption(llvm::StringRef Name, llvm::StringRef Value);
  /// `name{opt=value,...}` with the options that differ from defaults.
  std::string getPipelineText() const;

protected:
  int64_t getIntOption(llvm::StringRef Name) const;
  bool getBoolOption(llvm::StringRef Name) const;
  std::string getStringOption(llvm::StringRef Name) const;
  /// Option \p Name for function \p F: the function's attribute that the
  /// option declares (FuncAttr), when \p F has it, else the pass's value.
  /// The pass manager has checked the attribute's type
  /// (checkFunctionOptions).
  int64_t getIntOption(llvm::StringRef Name, const Function &F) const;
  bool getBoolOption(llvm::StringRef Name, const Function &F) const;
  /// A string option: the attribute's string or bare word.
  std::string getStringOption(llvm::StringRef Name, const Function &F) const;

public:
  /// Reports, at the attribute, each function attribute of \p M that sets
  /// an option of this pass with a value of another type, or, for a string
  /// option that lists its values, with none of them. Attributes that
  /// no option of this pass declares are left alone (another pipeline's
  /// pass may read them), and so are those in \p Checked, to which the
  /// ones checked here are added (passes sharing an attribute report it
  /// once).
  bool checkFunctionOptions(const Module &M, DiagnosticEngine &Diag,
                            llvm::StringSet<> &Checked) const;

private:
  llvm::StringRef getOptionText(llvm::StringRef Name) const;

  const PassInfo &Info;
  llvm::StringMap<std::string> Values;
};

/// Maps pass names to their PassInfo. Filled explicitly, like OpRegistry.
class PassRegistry {
public:
  void registerPasses(llvm::ArrayRef<PassInfo> Passes);
  const PassInfo *lookup(llvm::StringRef Name) const;
  /// All passes, sorted by name.
  std::vector<const PassInfo *> getPasses() const;

private:
  llvm::StringMap<const PassInfo *> ByName;
};

/// Registers the passes of lib/Transforms (generated from Passes.td).
void registerTransformsPasses(PassRegistry &R);

} // namespace tile

#endif // TILE_TRANSFORMS_PASS_H
