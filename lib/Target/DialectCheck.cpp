//===- DialectCheck.cpp - Dialect ops against the resolved target ---------===//

#include "tile/Target/DialectCheck.h"
#include "tile/Target/TargetRegistry.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;

namespace {

class DialectUseChecker {
public:
  DialectUseChecker(const TargetRegistry &R, const BackendContext &Ctx,
                    DiagnosticEngine &Diag)
      : R(R), Ctx(Ctx), Diag(Diag) {}

  void visit(const Block &B) {
    walkStmts(B, [&](const Stmt &S) {
      if (const auto *Op = llvm::dyn_cast<OpStmt>(&S))
        check(*Op);
    });
  }

  bool ok() const { return OK; }

private:
  std::string targetText() const {
    return "target '" + Ctx.getTarget().str() + "' (backend " +
           Ctx.getBackend().Name + ")";
  }

  void check(const OpStmt &Op) {
    const OpInfo &Info = Op.getInfo();
    if (Info.isCommon())
      return;
    const TargetBackendInfo &B = Ctx.getBackend();
    if (!B.hasDialect(Info.Dialect)) {
      std::vector<std::string> Owners;
      for (const TargetBackendInfo *O : R.getBackendsForDialect(Info.Dialect))
        Owners.push_back(O->Name);
      Diag.error(Op.getLoc(),
                 "op '" + llvm::Twine(Info.Name) + "' of dialect '" +
                     Info.Dialect + "' cannot be used with " + targetText() +
                     "; " +
                     (Owners.empty()
                          ? "no registered backend lowers dialect '" +
                                std::string(Info.Dialect) + "'"
                          : "dialect '" + std::string(Info.Dialect) +
                                "' is lowered by " +
                                (Owners.size() == 1 ? "backend " : "backends ") +
                                llvm::join(Owners, ", ")) +
                     "; use a target of " +
                     (Owners.size() == 1 ? "that backend" : "those backends") +
                     ", or common tile ops");
      OK = false;
      return;
    }
    for (const OpFeatureRequirement &Req : B.opRequirements()) {
      if (Info.Name != llvm::StringRef(Req.Op))
        continue;
      uint64_t Missing = Req.Features & ~Ctx.getFeatureMask();
      if (!Missing)
        return;
      // Name the missing features that no other missing feature implies.
      llvm::ArrayRef<TargetFeatureInfo> Table = B.featureTable();
      std::vector<std::string> Names, Quoted;
      for (auto [I, F] : llvm::enumerate(Table)) {
        uint64_t Bit = uint64_t(1) << I;
        if (!(Missing & Bit))
          continue;
        bool Implied = false;
        for (auto [J, G] : llvm::enumerate(Table))
          Implied |= J != I && (Missing >> J & 1) && (G.Closure & Bit);
        if (Implied)
          continue;
        Names.push_back(F.Name);
        Quoted.push_back("'" + std::string(F.Name) + "'");
      }
      if (Names.empty()) // features implying each other: name them all
        for (auto [I, F] : llvm::enumerate(Table))
          if (Missing >> I & 1) {
            Names.push_back(F.Name);
            Quoted.push_back("'" + std::string(F.Name) + "'");
          }
      Diag.error(Op.getLoc(),
                 "op '" + llvm::Twine(Info.Name) + "' needs target feature " +
                     llvm::join(Quoted, ", ") + ", which " + targetText() +
                     " does not have; " + whereEnabled(Names));
      OK = false;
      return;
    }
  }

  /// "feature 'wgmma' is enabled for cuda targets of backend Hopper (arch >=
  /// sm_90a)", looking through every registered backend.
  std::string whereEnabled(llvm::ArrayRef<std::string> Features) const {
    std::vector<std::string> Where;
    for (const TargetBackendInfo *O : R.getBackends())
      for (const BackendKindInfo &BK : O->kinds())
        for (const FeatureCondition &FC : BK.features()) {
          bool Covers = llvm::all_of(Features, [&](const std::string &N) {
            for (auto [I, F] : llvm::enumerate(O->featureTable()))
              if (N == F.Name)
                return ((FC.Features >> I) & 1) != 0;
            return false;
          });
          if (!Covers)
            continue;
          std::string W = std::string(BK.Kind->Name) + " targets of backend " +
                          O->Name;
          llvm::SmallVector<std::string, 2> Conds;
          if (BK.VariantText)
            Conds.push_back(BK.VariantText);
          if (FC.When && FC.WhenText &&
              !(BK.VariantText && llvm::StringRef(BK.VariantText) == FC.WhenText))
            Conds.push_back(FC.WhenText);
          if (!Conds.empty())
            W += " with " + llvm::join(Conds, " and ");
          if (!llvm::is_contained(Where, W))
            Where.push_back(W);
        }
    if (Where.empty())
      return "no registered target enables it";
    return "it is enabled for " + llvm::join(Where, "; ");
  }

  const TargetRegistry &R;
  const BackendContext &Ctx;
  DiagnosticEngine &Diag;
  bool OK = true;
};

} // namespace

bool tile::verifyDialectUse(const TargetRegistry &Registry,
                            const BackendContext &Ctx, const Module &M,
                            DiagnosticEngine &Diag) {
  DialectUseChecker Checker(Registry, Ctx, Diag);
  for (const std::unique_ptr<Function> &F : M.getFunctions())
    Checker.visit(F->getBody());
  return Checker.ok();
}
