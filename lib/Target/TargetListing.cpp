//===- TargetListing.cpp - Human-readable target tables -------------------===//

#include "tile/Target/TargetListing.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;

static std::string joinOr(llvm::ArrayRef<std::string> Names,
                          llvm::StringRef None = "none") {
  return Names.empty() ? None.str() : llvm::join(Names, ", ");
}

static std::string describeAttr(const TargetAttrInfo &A) {
  std::string S = "-" + std::string(A.Name) + "=";
  if (A.NumValues) {
    std::vector<std::string> Vals(A.Values, A.Values + A.NumValues);
    S += llvm::join(Vals, "|");
  } else {
    S += "<" + getTargetAttrTypeName(A.Type).str() + ">";
  }
  S += A.Default ? " (default " + std::string(A.Default) + ")"
                 : std::string(" (no default)");
  if (A.Summary && *A.Summary)
    S += ": " + std::string(A.Summary);
  return S;
}

/// Each feature a backend can enable, with the condition ("fp8 (arch >=
/// sm_89)"); a feature enabled unconditionally on some kind shows none.
static std::string describeFeatures(const TargetBackendInfo &B) {
  std::vector<std::string> Out;
  for (auto [I, F] : llvm::enumerate(B.featureTable())) {
    uint64_t Bit = uint64_t(1) << I;
    bool Always = false;
    std::vector<std::string> Conds;
    for (const BackendKindInfo &BK : B.kinds())
      for (const FeatureCondition &FC : BK.features()) {
        if (!(FC.Features & Bit))
          continue;
        if (!FC.When)
          Always = true;
        else if (!llvm::is_contained(Conds, FC.WhenText))
          Conds.push_back(FC.WhenText);
      }
    if (!Always && Conds.empty())
      continue;
    std::string S = F.Name;
    if (!Always)
      S += " (" + llvm::join(Conds, " or ") + ")";
    Out.push_back(S);
  }
  llvm::sort(Out);
  return joinOr(Out);
}

void tile::printTargets(const TargetRegistry &R, llvm::raw_ostream &OS,
                        bool ProbeAvailability) {
  std::vector<const TargetKindInfo *> Kinds(R.getKinds().begin(),
                                            R.getKinds().end());
  llvm::sort(Kinds, [](const TargetKindInfo *A, const TargetKindInfo *B) {
    return llvm::StringRef(A->Name) < B->Name;
  });
  OS << "Target kinds:\n";
  for (const TargetKindInfo *K : Kinds) {
    std::vector<std::string> Owners;
    for (const TargetBackendInfo *B : R.getBackendsForKind(*K)) {
      const BackendKindInfo *BK = B->findKind(*K);
      Owners.push_back(std::string(B->Name) +
                       (BK->VariantText
                            ? " (" + std::string(BK->VariantText) + ")"
                            : std::string()));
    }
    OS << "  " << K->Name << (Owners.size() == 1 ? ": backend " : ": backends ")
       << llvm::join(Owners, ", ");
    if (K->DefaultHost)
      OS << "; default host";
    OS << "\n";
    if (K->Summary && *K->Summary)
      OS << "    " << K->Summary << "\n";
    std::vector<std::string> Aliases(K->Aliases, K->Aliases + K->NumAliases);
    OS << "    aliases: " << joinOr(Aliases) << "\n";
    if (K->NumAttrs == 0)
      OS << "    attributes: none\n";
    for (const TargetAttrInfo &A : K->attrs())
      OS << "    " << describeAttr(A) << "\n";
  }

  std::vector<const TargetBackendInfo *> Backends(R.getBackends().begin(),
                                                  R.getBackends().end());
  llvm::sort(Backends,
             [](const TargetBackendInfo *A, const TargetBackendInfo *B) {
               return llvm::StringRef(A->Name) < B->Name;
             });
  OS << "\nTarget backends:\n";
  for (const TargetBackendInfo *B : Backends) {
    OS << "  " << B->Name << ": " << B->Summary << "\n";
    std::vector<std::string> Kinds;
    for (const BackendKindInfo &BK : B->kinds())
      Kinds.push_back(BK.Kind->Name);
    OS << "    kinds: " << llvm::join(Kinds, ", ") << "\n";
    OS << "    features: " << describeFeatures(*B) << "\n";
    std::vector<std::string> Dialects;
    for (const DialectInfo &D : B->dialects())
      Dialects.push_back(D.Name);
    OS << "    dialects: " << joinOr(Dialects) << "\n";
    std::vector<std::string> Outs;
    for (const DeviceOutputInfo &O : B->outputs())
      Outs.push_back(std::string(getDeviceFormatInfo(O.Format).Name) + " (" +
                     getOutputModeName(O.Mode).str() + ")");
    OS << "    outputs: " << llvm::join(Outs, ", ") << "\n";
    OS << "    entry points: pipeline " << B->PipelineName
       << ", device codegen " << B->DeviceCodeGenName << ", host codegen "
       << (B->HostCodeGenName ? B->HostCodeGenName : "none") << ", emulator "
       << (B->EmulatorName ? B->EmulatorName : "none") << "\n";
    std::vector<std::string> Execs;
    for (const ExecCompatInfo &C : B->execBackends()) {
      std::vector<std::string> Formats;
      for (DeviceFormat F : C.formats())
        Formats.push_back(getDeviceFormatInfo(F).Name);
      Execs.push_back(std::string(getExecBackendInfo(C.Exec).Name) + " [" +
                      llvm::join(Formats, ", ") + "]");
    }
    OS << "    execution backends (auto order): "
       << (B->CompileOnly ? std::string("none (compile-only)")
                          : llvm::join(Execs, ", "))
       << "\n";
  }

  OS << "\nExecution backends:\n";
  for (const ExecBackendInfo &E : getExecBackends()) {
    std::vector<std::string> Formats;
    for (DeviceFormat F : E.consumes())
      Formats.push_back(getDeviceFormatInfo(F).Name);
    OS << "  " << E.Name << ": " << E.Summary << "\n"
       << "    consumes " << llvm::join(Formats, ", ") << "; host codegen "
       << (E.NeedsHostCodeGen ? "needed" : "not needed") << "; device compile "
       << getDeviceCompileName(E.Compile) << "\n";
    if (!ProbeAvailability)
      continue;
    ExecAvailability A = R.getAvailability(E.Kind);
    OS << "    " << (A.Available ? "available: " : "not available: ")
       << A.Reason << "\n";
  }
}
