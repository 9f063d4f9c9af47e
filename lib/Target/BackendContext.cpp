//===- BackendContext.cpp - Context resolution ----------------------------===//
//
// The one place a target string, a host target and an execution backend
// request become a backend, features and an execution contract.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/BackendContext.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

static std::string describe(const TargetSpec &T, const TargetBackendInfo &B) {
  return "target '" + T.str() + "' (backend " + B.Name + ")";
}

static std::string listCompatible(const TargetBackendInfo &B) {
  std::vector<std::string> Names;
  for (const ExecCompatInfo &C : B.execBackends())
    Names.push_back(getExecBackendInfo(C.Exec).Name);
  return llvm::join(Names, ", ");
}

static std::string listExecBackends() {
  std::vector<std::string> Names{"auto"};
  for (const ExecBackendInfo &E : getExecBackends())
    Names.push_back(E.Name);
  return llvm::join(Names, ", ");
}

static std::string listHostKinds(const TargetRegistry &R) {
  std::vector<std::string> Names;
  for (const TargetKindInfo *K : R.getKinds())
    for (const TargetBackendInfo *B : R.getBackendsForKind(*K))
      if (B->HostCapable) {
        Names.push_back(K->Name);
        break;
      }
  llvm::sort(Names);
  return Names.empty() ? "none" : llvm::join(Names, ", ");
}

llvm::Expected<BackendContext>
tile::resolveBackendContext(const TargetRegistry &R, llvm::StringRef Target,
                            llvm::StringRef HostTarget,
                            llvm::StringRef ExecBackend,
                            const ResolveOptions &Opts) {
  BackendContext C;
  llvm::Expected<TargetSpec> Spec = R.parseTarget(Target);
  if (!Spec)
    return Spec.takeError();
  llvm::Expected<const TargetBackendInfo *> B = R.selectBackend(*Spec);
  if (!B)
    return B.takeError();
  C.Target = std::move(*Spec);
  C.Backend = *B;

  const BackendKindInfo *BK = C.Backend->findKind(C.Target.getKind());
  for (const FeatureCondition &FC : BK->features())
    if (!FC.When || FC.When(C.Target.getValueIndices().data()))
      C.Features |= FC.Features;

  // Host target: as given, else the target itself when its backend can
  // generate host code, else the registered default host kind.
  if (HostTarget.trim().empty() && C.Backend->HostCapable) {
    C.Host = C.Target;
    C.HostBackend = C.Backend;
  } else {
    std::string HostString = HostTarget.trim().str();
    if (HostString.empty()) {
      const TargetKindInfo *HK = R.getDefaultHostKind();
      if (!HK)
        return makeError(describe(C.Target, *C.Backend) +
                         " needs a host target and no default host kind is "
                         "registered; pass one of: " + listHostKinds(R));
      HostString = HK->Name;
    }
    llvm::Expected<TargetSpec> HostSpec = R.parseTarget(HostString);
    if (!HostSpec)
      return makeError("in host target: " + llvm::toString(HostSpec.takeError()));
    llvm::Expected<const TargetBackendInfo *> HB = R.selectBackend(*HostSpec);
    if (!HB)
      return makeError("in host target: " + llvm::toString(HB.takeError()));
    if (!(*HB)->HostCapable)
      return makeError("host target '" + HostSpec->str() + "' (backend " +
                       (*HB)->Name + ") cannot generate host code; host "
                       "target kinds: " + listHostKinds(R));
    C.Host = std::move(*HostSpec);
    C.HostBackend = *HB;
  }

  // Execution backend: `auto` takes the first compatible one (available,
  // unless resolving for compilation only); a name is validated.
  llvm::StringRef Request = ExecBackend.trim();
  if (Request.empty())
    Request = "auto";
  C.ExecRequest = Request.str();
  C.ExecChecked = Opts.RequireAvailable;
  C.KeepAssembly = Opts.KeepAssembly;
  C.KeepLLVMIR = Opts.KeepLLVMIR;
  C.RunToolchain = Opts.RunToolchain;
  const TargetBackendInfo &TB = *C.Backend;
  if (TB.CompileOnly) {
    if (Opts.RequireAvailable || Request != "auto")
      return makeError(describe(C.Target, TB) +
                       " has no execution backend yet (its .td declares it "
                       "CompileOnly): it compiles, but nothing here runs "
                       "its output");
    return std::move(C);
  }
  if (Request == "auto") {
    std::vector<std::string> Reasons;
    for (const ExecCompatInfo &Compat : TB.execBackends()) {
      const ExecBackendInfo &E = getExecBackendInfo(Compat.Exec);
      if (Opts.RequireAvailable) {
        ExecAvailability A = R.getAvailability(Compat.Exec);
        if (!A.Available) {
          Reasons.push_back("'" + std::string(E.Name) + "' is not available: " +
                            A.Reason);
          continue;
        }
      }
      C.Exec = &E;
      C.Contract = &Compat;
      break;
    }
    if (!C.Exec)
      return makeError("no execution backend is available for " +
                       describe(C.Target, TB) + ": " +
                       llvm::join(Reasons, "; ") +
                       "; run where one of them is available, or resolve "
                       "for compilation only");
    return std::move(C);
  }

  const ExecBackendInfo *E = lookupExecBackend(Request);
  if (!E)
    return makeError("unknown execution backend '" + Request +
                     "'; execution backends: " + listExecBackends());
  const ExecCompatInfo *Compat = TB.findExec(E->Kind);
  if (!Compat)
    return makeError("execution backend '" + Request + "' cannot run " +
                     describe(C.Target, TB) +
                     "; compatible execution backends, in auto order: " +
                     listCompatible(TB));
  if (Opts.RequireAvailable) {
    ExecAvailability A = R.getAvailability(E->Kind);
    if (!A.Available)
      return makeError("execution backend '" + Request +
                       "' is not available: " + A.Reason +
                       "; compatible execution backends for " +
                       describe(C.Target, TB) + ": " + listCompatible(TB));
  }
  C.Exec = E;
  C.Contract = Compat;
  return std::move(C);
}

llvm::Error tile::makeNotImplementedError(const BackendContext &Ctx,
                                          llvm::StringRef What) {
  return makeError(What + " is not implemented yet for " +
                   describe(Ctx.getTarget(), Ctx.getBackend()));
}

bool BackendContext::hasFeature(llvm::StringRef Name) const {
  for (auto [I, F] : llvm::enumerate(Backend->featureTable()))
    if (Name == F.Name)
      return hasFeature(unsigned(I));
  return false;
}

std::vector<llvm::StringRef> BackendContext::getFeatureNames() const {
  std::vector<llvm::StringRef> Names;
  for (auto [I, F] : llvm::enumerate(Backend->featureTable()))
    if (hasFeature(unsigned(I)))
      Names.push_back(F.Name);
  llvm::sort(Names);
  return Names;
}

void BackendContext::print(llvm::raw_ostream &OS) const {
  auto Line = [&](llvm::StringRef Key) -> llvm::raw_ostream & {
    OS << Key << ":";
    OS.indent(20 - std::min<size_t>(Key.size() + 1, 19));
    return OS;
  };
  Line("target") << Target.str() << "\n";
  Line("requested") << Target.getRequested() << "\n";
  Line("backend") << Backend->Name << "\n";
  const BackendKindInfo *BK = Backend->findKind(Target.getKind());
  Line("kind") << Target.getKind().Name;
  if (BK->VariantText)
    OS << " (variant: " << BK->VariantText << ")";
  OS << "\n";
  std::vector<llvm::StringRef> Feats = getFeatureNames();
  Line("features") << (Feats.empty() ? "none" : llvm::join(Feats, ", "))
                   << "\n";
  std::vector<std::string> Dialects;
  for (const DialectInfo &D : Backend->dialects())
    Dialects.push_back(D.Name);
  Line("dialects") << (Dialects.empty() ? "none" : llvm::join(Dialects, ", "))
                   << "\n";
  Line("pipeline") << Backend->PipelineName << "\n";
  Line("device codegen") << Backend->DeviceCodeGenName << "\n";
  Line("host codegen")
      << (Backend->HostCodeGenName ? Backend->HostCodeGenName : "none") << "\n";
  Line("emulator")
      << (Backend->EmulatorName ? Backend->EmulatorName : "none") << "\n";
  std::vector<std::string> Outs;
  for (const DeviceOutputInfo &O : Backend->outputs())
    Outs.push_back((llvm::Twine(getDeviceFormatInfo(O.Format).Name) + " (" +
                    getOutputModeName(O.Mode) + ")")
                       .str());
  Line("outputs") << llvm::join(Outs, ", ") << "\n";
  Line("host target") << Host.str() << " (backend " << HostBackend->Name
                      << ")\n";
  if (!Exec) {
    Line("execution backend") << "none (compile-only backend)\n";
    return;
  }
  Line("execution backend") << Exec->Name << " (requested " << ExecRequest
                            << ", availability "
                            << (ExecChecked ? "checked" : "not checked")
                            << ")\n";
  std::vector<std::string> Formats;
  for (DeviceFormat F : Contract->formats())
    Formats.push_back(getDeviceFormatInfo(F).Name);
  Line("contract") << "consumes " << llvm::join(Formats, ", ")
                   << "; host codegen "
                   << (Contract->NeedsHostCodeGen ? "needed" : "not needed")
                   << "; device compile "
                   << getDeviceCompileName(Contract->Compile) << "\n";
}
