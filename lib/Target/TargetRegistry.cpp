//===- TargetRegistry.cpp - Registered backends and target strings --------===//
//
// Registration (with the cross-list checks tile-tblgen cannot make), target
// string parsing and validation, and selection of the one backend that
// accepts a target.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/TargetRegistry.h"
#include "tile/IR/OpRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

static std::string quoteList(llvm::ArrayRef<std::string> Names) {
  std::string S;
  llvm::ListSeparator LS;
  for (const std::string &N : Names)
    S += (llvm::Twine(LS) + "'" + N + "'").str();
  return S;
}

TargetRegistry::TargetRegistry()
    : Availability([](ExecBackendKind K) { return getExecAvailability(K); }) {}

ExecAvailability TargetRegistry::getAvailability(ExecBackendKind K) const {
  return Availability(K);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Calls \p F with the value indices of every target of kind \p K that
/// differs in an enumerated attribute (unset included when there is no
/// default). Returns false when there are too many to enumerate.
static bool forEachEnumeratedTarget(
    const TargetKindInfo &K,
    llvm::function_ref<bool(llvm::ArrayRef<int>)> F) {
  std::vector<std::vector<int>> Domains;
  uint64_t Points = 1;
  for (const TargetAttrInfo &A : K.attrs()) {
    std::vector<int> D;
    if (!A.Default || !A.isEnumerated())
      D.push_back(-1);
    for (unsigned I = 0, E = A.getNumAllowedValues(); I != E; ++I)
      D.push_back(I);
    Points *= D.size();
    Domains.push_back(std::move(D));
  }
  if (Points > (1u << 16))
    return false;
  std::vector<int> V(Domains.size());
  std::vector<unsigned> Pos(Domains.size(), 0);
  for (uint64_t P = 0; P != Points; ++P) {
    for (unsigned I = 0; I != Domains.size(); ++I)
      V[I] = Domains[I][Pos[I]];
    if (!F(V))
      return true;
    for (unsigned I = 0; I != Domains.size(); ++I) {
      if (++Pos[I] < Domains[I].size())
        break;
      Pos[I] = 0;
    }
  }
  return true;
}

static std::string describeTarget(const TargetKindInfo &K,
                                  llvm::ArrayRef<int> V) {
  std::string S = K.Name;
  for (auto [I, A] : llvm::enumerate(K.attrs()))
    if (V[I] >= 0)
      S += (" -" + llvm::Twine(A.Name) + "=" + A.getAllowedValue(V[I])).str();
  return S;
}

llvm::Error TargetRegistry::checkSharedKind(const TargetKindInfo &K,
                                            const TargetBackendInfo &New) const {
  llvm::SmallVector<const TargetBackendInfo *, 4> Owners =
      getBackendsForKind(K);
  Owners.push_back(&New);
  std::vector<std::string> Names;
  for (const TargetBackendInfo *B : Owners)
    Names.push_back(B->Name);
  for (const TargetBackendInfo *B : Owners)
    if (!B->findKind(K)->Variant)
      return makeError("target kind '" + llvm::Twine(K.Name) +
                       "' would be owned by target backends " +
                       quoteList(Names) + ", but '" + B->Name +
                       "' has no variant predicate; backends sharing a kind "
                       "need mutually exclusive variant predicates");
  std::string Overlap;
  bool Checked = forEachEnumeratedTarget(K, [&](llvm::ArrayRef<int> V) {
    const TargetBackendInfo *First = nullptr;
    for (const TargetBackendInfo *B : Owners) {
      if (!B->findKind(K)->Variant(V.data()))
        continue;
      if (First) {
        Overlap = "the variant predicates of target backends '" +
                  std::string(First->Name) + "' (" +
                  First->findKind(K)->VariantText + ") and '" + B->Name +
                  "' (" + B->findKind(K)->VariantText +
                  ") both accept target '" + describeTarget(K, V) + "'";
        return false;
      }
      First = B;
    }
    return true;
  });
  if (!Checked)
    return makeError("target kind '" + llvm::Twine(K.Name) +
                     "' has too many attribute values to check its variants");
  if (!Overlap.empty())
    return makeError(llvm::Twine(Overlap) + "; cannot register '" + New.Name +
                     "'");
  return llvm::Error::success();
}

llvm::Error TargetRegistry::addEmulator(llvm::StringRef Backend,
                                        EmulatorFn Fn) {
  const TargetBackendInfo *B = lookupBackend(Backend);
  if (!B)
    return makeError("cannot register an emulator for target backend '" +
                     Backend + "': no such backend is registered");
  if (!B->EmulatorName)
    return makeError("cannot register an emulator for target backend '" +
                     Backend + "': its .td declares none");
  if (!Fn || !Emulators.try_emplace(B, Fn).second)
    return makeError("target backend '" + Backend + "' " +
                     (Fn ? "already has an emulator" : "given a null emulator"));
  return llvm::Error::success();
}

llvm::Error TargetRegistry::addBackend(const TargetBackendInfo &B) {
  if (lookupBackend(B.Name))
    return makeError("target backend '" + llvm::Twine(B.Name) +
                     "' is already registered");
  if (B.NumKinds == 0)
    return makeError("target backend '" + llvm::Twine(B.Name) +
                     "' owns no target kind");
  if (B.NumExec == 0 && !B.CompileOnly)
    return makeError("target backend '" + llvm::Twine(B.Name) +
                     "' declares no execution backend and is not "
                     "compile-only");
  if (B.NumExec != 0 && B.CompileOnly)
    return makeError("target backend '" + llvm::Twine(B.Name) +
                     "' is compile-only but declares execution backends");
  for (const ExecCompatInfo &C : B.execBackends())
    if (C.NeedsHostCodeGen && !B.HostCodeGen)
      return makeError("execution backend '" +
                       llvm::Twine(getExecBackendInfo(C.Exec).Name) +
                       "' needs host code, but target backend '" + B.Name +
                       "' has no host codegen");
  for (const BackendKindInfo &BK : B.kinds()) {
    const TargetKindInfo &K = *BK.Kind;
    llvm::SmallVector<const char *, 4> KindWords{K.Name};
    llvm::append_range(KindWords, K.aliases());
    for (const char *W : KindWords) {
      const TargetKindInfo *Old = lookupKind(W);
      if (!Old || Old == &K)
        continue;
      std::vector<std::string> Owners;
      for (const TargetBackendInfo *O : getBackendsForKind(*Old))
        Owners.push_back(O->Name);
      return makeError(
          "target kind '" + llvm::Twine(K.Name) + "' of backend '" + B.Name +
          "' uses the name '" + W + "', already taken by kind '" + Old->Name +
          "' of backend " + quoteList(Owners) +
          "; a variant of an existing kind must reuse that kind's declaration");
    }
    if (lookupKind(K.Name))
      if (llvm::Error E = checkSharedKind(K, B))
        return E;
  }

  Backends.push_back(&B);
  for (const BackendKindInfo &BK : B.kinds()) {
    const TargetKindInfo &K = *BK.Kind;
    if (lookupKind(K.Name))
      continue;
    Kinds.push_back(&K);
    Words[K.Name] = &K;
    for (const char *A : K.aliases())
      Words[A] = &K;
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

const TargetBackendInfo *
TargetRegistry::lookupBackend(llvm::StringRef Name) const {
  for (const TargetBackendInfo *B : Backends)
    if (Name == B->Name)
      return B;
  return nullptr;
}

const TargetKindInfo *TargetRegistry::lookupKind(llvm::StringRef Word) const {
  auto It = Words.find(Word);
  return It == Words.end() ? nullptr : It->second;
}

llvm::SmallVector<const TargetBackendInfo *, 2>
TargetRegistry::getBackendsForKind(const TargetKindInfo &K) const {
  llvm::SmallVector<const TargetBackendInfo *, 2> Out;
  for (const TargetBackendInfo *B : Backends)
    if (B->findKind(K))
      Out.push_back(B);
  return Out;
}

llvm::SmallVector<const TargetBackendInfo *, 2>
TargetRegistry::getBackendsForDialect(llvm::StringRef Dialect) const {
  llvm::SmallVector<const TargetBackendInfo *, 2> Out;
  for (const TargetBackendInfo *B : Backends)
    if (B->hasDialect(Dialect))
      Out.push_back(B);
  return Out;
}

const TargetKindInfo *TargetRegistry::getDefaultHostKind() const {
  for (const TargetKindInfo *K : Kinds)
    if (K->DefaultHost)
      return K;
  return nullptr;
}

std::string TargetRegistry::listKinds() const {
  std::vector<std::string> Names;
  for (const TargetKindInfo *K : Kinds)
    Names.push_back(K->Name);
  llvm::sort(Names);
  return llvm::join(Names, ", ");
}

std::string TargetRegistry::listAliases() const {
  std::vector<std::string> Names;
  for (const TargetKindInfo *K : Kinds)
    for (const char *A : K->aliases())
      Names.push_back((llvm::Twine(A) + " (" + K->Name + ")").str());
  llvm::sort(Names);
  return Names.empty() ? "none" : llvm::join(Names, ", ");
}

void TargetRegistry::registerDialects(OpRegistry &Ops) const {
  for (const TargetBackendInfo *B : Backends)
    for (const DialectInfo &D : B->dialects())
      D.Register(Ops);
}

//===----------------------------------------------------------------------===//
// Target strings
//===----------------------------------------------------------------------===//

static std::string allowedValues(const TargetAttrInfo &A) {
  std::vector<std::string> Vals;
  for (unsigned I = 0, E = A.getNumAllowedValues(); I != E; ++I)
    Vals.push_back(A.getAllowedValue(I).str());
  return llvm::join(Vals, ", ");
}

static std::string attrNames(const TargetKindInfo &K) {
  if (K.NumAttrs == 0)
    return "it has no attributes";
  std::vector<std::string> Names;
  for (const TargetAttrInfo &A : K.attrs())
    Names.push_back(A.Name);
  return "its attributes: " + llvm::join(Names, ", ");
}

llvm::Expected<TargetSpec>
TargetRegistry::parseTarget(llvm::StringRef Target) const {
  llvm::SmallVector<llvm::StringRef, 4> Words;
  llvm::SplitString(Target, Words, " \t\n");
  if (Words.empty())
    return makeError("empty target string; expected a target kind (" +
                     llvm::Twine(listKinds()) + ") or an alias (" +
                     listAliases() + ")");
  const TargetKindInfo *K = lookupKind(Words[0]);
  if (!K)
    return makeError("unknown target kind '" + Words[0] + "' in target '" +
                     Target.trim() + "'; known kinds: " + listKinds() +
                     "; aliases: " + listAliases() +
                     " (tile-llc -print-targets lists their attributes)");

  TargetSpec S;
  S.Kind = K;
  S.Requested = Target.trim().str();
  S.Values.resize(K->NumAttrs);
  S.Explicit.resize(K->NumAttrs, false);
  S.ValueIdx.resize(K->NumAttrs, -1);
  for (llvm::StringRef W : llvm::drop_begin(Words)) {
    auto [NameEq, Value] = W.split('=');
    bool HasValue = W.contains('=');
    llvm::StringRef Name = NameEq;
    if (!Name.consume_front("-") || Name.empty() || Name.starts_with("-"))
      return makeError("malformed attribute '" + W + "' in target '" +
                       S.Requested + "'; write -name=value (" +
                       attrNames(*K) + ")");
    int AI = K->findAttr(Name);
    if (AI < 0)
      return makeError("target kind '" + llvm::Twine(K->Name) +
                       "' has no attribute '" + Name + "' (in target '" +
                       S.Requested + "'); " + attrNames(*K));
    const TargetAttrInfo &A = K->Attrs[AI];
    if (S.Explicit[AI])
      return makeError("attribute '" + Name + "' is given twice in target '" +
                       S.Requested + "'");
    if (!HasValue) {
      if (A.Type != TargetAttrType::Bool)
        return makeError(
            "attribute '" + Name + "' of target kind '" + K->Name +
            "' needs a value: -" + Name + "=<" +
            getTargetAttrTypeName(A.Type) + ">" +
            (A.isEnumerated() ? "; allowed values: " + allowedValues(A)
                              : std::string()));
      Value = "true";
    }
    if (A.Type == TargetAttrType::Int) {
      int64_t X;
      if (Value.getAsInteger(10, X))
        return makeError("attribute '" + Name + "' of target kind '" +
                         K->Name + "' takes an integer, not '" + Value + "'");
    }
    if (A.isEnumerated() && A.findValue(Value) < 0)
      return makeError("invalid value '" + Value + "' for attribute '" + Name +
                       "' of target kind '" + K->Name +
                       "'; allowed values: " + allowedValues(A));
    S.Values[AI] = Value.str();
    S.Explicit[AI] = true;
  }
  for (auto [I, A] : llvm::enumerate(K->attrs())) {
    if (!S.Values[I] && A.Default)
      S.Values[I] = std::string(A.Default);
    if (S.Values[I] && A.isEnumerated())
      S.ValueIdx[I] = A.findValue(*S.Values[I]);
  }
  return S;
}

llvm::Expected<const TargetBackendInfo *>
TargetRegistry::selectBackend(const TargetSpec &T) const {
  const TargetKindInfo &K = T.getKind();
  llvm::SmallVector<const TargetBackendInfo *, 2> Owners =
      getBackendsForKind(K);
  llvm::SmallVector<const TargetBackendInfo *, 2> Match;
  for (const TargetBackendInfo *B : Owners) {
    const BackendKindInfo *BK = B->findKind(K);
    if (!BK->Variant || BK->Variant(T.getValueIndices().data()))
      Match.push_back(B);
  }
  if (Match.size() == 1) {
    // An attribute that sets a resource limit sets a positive one.
    for (const ResourceLimitInfo &L : Match.front()->findKind(K)->limits())
      if (L.FromAttr)
        if (std::optional<llvm::StringRef> A = T.getAttr(L.FromAttr))
          if (int64_t V; !A->getAsInteger(10, V) && V <= 0)
            return makeError("attribute '" + llvm::Twine(L.FromAttr) +
                             "' of target kind '" + K.Name +
                             "' sets a resource limit and must be positive, "
                             "not '" + *A + "'");
    return Match.front();
  }
  std::vector<std::string> Described;
  for (const TargetBackendInfo *B : Owners) {
    const BackendKindInfo *BK = B->findKind(K);
    Described.push_back(std::string(B->Name) + " (" +
                        (BK->VariantText ? BK->VariantText : "always") + ")");
  }
  return makeError(
      llvm::Twine(Match.empty() ? "no target backend accepts"
                                : "more than one target backend accepts") +
      " target '" + T.str() + "'; backends of kind '" + K.Name +
      "': " + llvm::join(Described, ", "));
}

//===----------------------------------------------------------------------===//
// TargetSpec
//===----------------------------------------------------------------------===//

std::optional<llvm::StringRef>
TargetSpec::getAttr(llvm::StringRef Name) const {
  int I = Kind->findAttr(Name);
  if (I < 0 || !Values[I])
    return std::nullopt;
  return llvm::StringRef(*Values[I]);
}

bool TargetSpec::isExplicit(llvm::StringRef Name) const {
  int I = Kind->findAttr(Name);
  return I >= 0 && Explicit[I];
}

std::string TargetSpec::str() const {
  std::string S = Kind->Name;
  for (auto [I, A] : llvm::enumerate(Kind->attrs()))
    if (Values[I])
      S += (" -" + llvm::Twine(A.Name) + "=" + *Values[I]).str();
  return S;
}
