//===- BackendEmitter.cpp - Backend descriptors from TableGen -------------===//
//
// -gen-exec-backends: from include/tile/Exec/ExecutionBackends.td, the
// DeviceFormat and ExecBackendKind enums and the constant tables of
// libTileExec (formats, execution backends, their probes).
//
// -gen-target-backends: from a list of target backend descriptors (the
// combined lib/Target/*/<B>.td, or a single test backend), the enums, the
// kind/alias/attribute tables, the feature table with implications closed,
// constexpr attribute predicates, the execution-compatibility table with
// each contract, the backend descriptors and the registration function.
//
// Everything that can be decided from the descriptors is decided here and
// reported as a located error: duplicate names, kinds shared without
// mutually exclusive and covering variant predicates (proved by evaluating
// the predicates over every value of the attributes they read), backends
// without an execution backend, contracts that cannot be met, unknown
// attributes, values and references. Output is sorted by name.
//
//===----------------------------------------------------------------------===//

#include "EmitterUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"
#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using tile::tblgen::cppIdent;
using tile::tblgen::quote;

static cl::OptionCategory BackendCat("Options for -gen-target-backends");
static cl::opt<std::string> RegisterFnName(
    "target-register-fn",
    cl::desc("Name of the generated registration function"),
    cl::init("registerAllTargetBackends"), cl::cat(BackendCat));
static cl::opt<std::string> RegisterEmulatorsFnName(
    "target-register-emulators-fn",
    cl::desc("Name of the generated function that registers the backends' "
             "emulators"),
    cl::init("registerAllTargetEmulators"), cl::cat(BackendCat));
static cl::opt<std::string> EnumNamespace(
    "target-namespace",
    cl::desc("C++ namespace of the generated backend/kind/feature enums"),
    cl::init("tile::targets"), cl::cat(BackendCat));

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isCppIdentifier(StringRef S) {
  return !S.empty() && (isAlpha(S.front()) || S.front() == '_') &&
         all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

/// Names written in target strings: kinds, aliases, attributes.
static bool isTargetWord(StringRef S) {
  return !S.empty() && isAlpha(S.front()) &&
         all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

static std::string joinQuoted(ArrayRef<std::string> Names) {
  std::string Out;
  ListSeparator LS;
  for (const std::string &N : Names)
    Out += (Twine(LS) + "'" + N + "'").str();
  return Out;
}

static std::string hex64(uint64_t V) {
  std::string S;
  raw_string_ostream OS(S);
  OS << format_hex(V, 18);
  return S;
}

/// C++ name from a record's CppName field, or derived from its Name.
static std::string cppNameOf(const Record *R) {
  StringRef C = R->getValueAsString("CppName");
  return C.empty() ? cppIdent(R->getValueAsString("Name")) : C.str();
}

static std::vector<const Record *> sortedByName(ArrayRef<const Record *> Rs) {
  std::vector<const Record *> Out(Rs.begin(), Rs.end());
  // Ties (duplicate names, reported later) keep declaration order.
  llvm::sort(Out, [](const Record *A, const Record *B) {
    StringRef NA = A->getValueAsString("Name"), NB = B->getValueAsString("Name");
    return NA != NB ? NA < NB : A->getID() < B->getID();
  });
  return Out;
}

/// Reports a second declaration of a name with a note at the first.
template <typename Map>
static bool checkUnique(Map &Seen, StringRef Name, const Record *R,
                        const Twine &What) {
  auto [It, New] = Seen.try_emplace(Name, R);
  if (New)
    return true;
  PrintError(R->getLoc(), "duplicate " + What + " name '" + Name + "'");
  PrintNote(It->second->getLoc(), "first declared here");
  return false;
}

/// The fields of execution backend \p E that make its descriptor: formats,
/// the probe and the executor factory (shared or a backend's own).
static void checkExecBackendFields(const Record *E) {
  StringRef Name = E->getValueAsString("Name");
  if (E->getValueAsListOfDefs("Consumes").empty())
    PrintError(E->getLoc(),
               "execution backend '" + Name + "' consumes no device format");
  if (!isCppIdentifier(E->getValueAsString("Probe")))
    PrintError(E->getLoc(), "execution backend '" + Name +
                                "' needs a Probe: the C++ name of its "
                                "availability probe");
  StringRef Factory = E->getValueAsString("Executor");
  if (!Factory.empty() && !isCppIdentifier(Factory))
    PrintError(E->getFieldLoc("Executor"),
               "Executor of execution backend '" + Name + "' ('" + Factory +
                   "') is not an unqualified C++ identifier");
}

//===----------------------------------------------------------------------===//
// -gen-exec-backends
//===----------------------------------------------------------------------===//

static void emitExecBackends(const RecordKeeper &RK, raw_ostream &OS) {
  std::vector<const Record *> Formats =
      sortedByName(RK.getAllDerivedDefinitions("DeviceFormat"));
  std::vector<const Record *> Execs =
      sortedByName(RK.getAllDerivedDefinitions("ExecutionBackend"));

  StringMap<const Record *> Names, CppNames;
  for (const Record *F : Formats) {
    checkUnique(Names, F->getValueAsString("Name"), F, "device format");
    if (!isCppIdentifier(cppNameOf(F)))
      PrintError(F->getLoc(), "device format '" + F->getValueAsString("Name") +
                                  "' needs a CppName that is a C++ identifier");
    checkUnique(CppNames, cppNameOf(F), F, "device format C++");
  }
  Names.clear();
  CppNames.clear();
  for (const Record *E : Execs) {
    StringRef Name = E->getValueAsString("Name");
    checkUnique(Names, Name, E, "execution backend");
    checkUnique(CppNames, cppNameOf(E), E, "execution backend C++");
    checkExecBackendFields(E);
  }
  if (ErrorsPrinted)
    return;

  emitSourceFileHeader("Tile device formats and execution backends", OS, RK);
  OS << "#ifdef GET_TILE_DEVICE_FORMAT_ENUM\n#undef GET_TILE_DEVICE_FORMAT_ENUM\n"
     << "namespace tile {\n/// What device codegen produces and an execution "
        "backend consumes.\nenum class DeviceFormat : unsigned {\n";
  for (const Record *F : Formats)
    OS << "  " << cppNameOf(F) << ", // " << F->getValueAsString("Name") << "\n";
  OS << "};\nconstexpr unsigned NumDeviceFormats = " << Formats.size()
     << ";\n} // namespace tile\n#endif // GET_TILE_DEVICE_FORMAT_ENUM\n\n";

  OS << "#ifdef GET_TILE_EXEC_BACKEND_ENUM\n#undef GET_TILE_EXEC_BACKEND_ENUM\n"
     << "namespace tile {\nenum class ExecBackendKind : unsigned {\n";
  for (const Record *E : Execs)
    OS << "  " << cppNameOf(E) << ", // " << E->getValueAsString("Name") << "\n";
  OS << "};\nconstexpr unsigned NumExecBackends = " << Execs.size()
     << ";\n} // namespace tile\n#endif // GET_TILE_EXEC_BACKEND_ENUM\n\n";

  // The probes and factories the descriptors name, defined in libTileExec.
  std::set<std::string> Probes, Factories;
  for (const Record *E : Execs) {
    Probes.insert(E->getValueAsString("Probe").str());
    if (!E->getValueAsString("Executor").empty())
      Factories.insert(E->getValueAsString("Executor").str());
  }
  auto EmitEntryPoints = [&] {
    for (const std::string &P : Probes)
      OS << "ExecAvailability " << P << "();\n";
    for (const std::string &F : Factories)
      OS << "llvm::Expected<std::unique_ptr<Executor>> " << F
         << "(const ExecutorOptions &);\n";
  };
  OS << "#ifdef GET_TILE_EXEC_BACKEND_ENTRY_POINTS\n"
     << "#undef GET_TILE_EXEC_BACKEND_ENTRY_POINTS\nnamespace tile {\n";
  EmitEntryPoints();
  OS << "} // namespace tile\n#endif // GET_TILE_EXEC_BACKEND_ENTRY_POINTS\n\n";

  OS << "#ifdef GET_TILE_EXEC_BACKEND_TABLE\n#undef GET_TILE_EXEC_BACKEND_TABLE\n"
     << "namespace tile {\n";
  EmitEntryPoints();
  OS << "namespace {\n\n// Device formats, sorted by name (index == enum).\n"
     << "constexpr DeviceFormatInfo kDeviceFormatTable[] = {\n";
  for (const Record *F : Formats)
    OS << "  {DeviceFormat::" << cppNameOf(F) << ", "
       << quote(F->getValueAsString("Name")) << ", "
       << quote(F->getValueAsString("Summary")) << ", "
       << (F->getValueAsBit("IsText") ? "true" : "false") << "},\n";
  OS << "};\n\n";
  for (const Record *E : Execs) {
    OS << "constexpr DeviceFormat k" << cppNameOf(E) << "Consumes[] = {";
    ListSeparator LS;
    for (const Record *F : E->getValueAsListOfDefs("Consumes"))
      OS << LS << "DeviceFormat::" << cppNameOf(F);
    OS << "};\n";
  }
  OS << "\n// Execution backends, sorted by name (index == enum).\n"
     << "constexpr ExecBackendInfo kExecBackendTable[] = {\n";
  for (const Record *E : Execs) {
    std::string Id = cppNameOf(E);
    OS << "  {ExecBackendKind::" << Id << ", "
       << quote(E->getValueAsString("Name")) << ",\n   "
       << quote(E->getValueAsString("Summary")) << ",\n   k" << Id
       << "Consumes, " << E->getValueAsListOfDefs("Consumes").size() << ", "
       << (E->getValueAsBit("NeedsHostCodeGen") ? "true" : "false")
       << ", DeviceCompile::"
       << cppIdent(E->getValueAsDef("Compile")->getValueAsString("Name"))
       << ", " << E->getValueAsString("Probe") << ", "
       << (E->getValueAsString("Executor").empty()
               ? StringRef("nullptr")
               : E->getValueAsString("Executor"))
       << "},\n";
  }
  OS << "};\n\n} // namespace\n} // namespace tile\n"
     << "#endif // GET_TILE_EXEC_BACKEND_TABLE\n";
}

//===----------------------------------------------------------------------===//
// -gen-target-backends: model
//===----------------------------------------------------------------------===//

namespace {

struct AttrDesc {
  const Record *R;
  std::string Name;
  std::string Type; // string, int, bool
  std::string Default;
  /// Allowed values; for bool, {false, true}.
  std::vector<std::string> Values;
  std::string Summary;

  bool isEnumerated() const { return !Values.empty(); }
  int findValue(StringRef V) const {
    for (auto [I, X] : enumerate(Values))
      if (X == V)
        return I;
    return -1;
  }
};

struct BackendDesc;

struct KindDesc {
  const Record *R;
  std::string Name;
  std::string Summary;
  std::vector<std::string> Aliases;
  std::vector<AttrDesc> Attrs;
  bool DefaultHost = false;
  unsigned Index = 0;
  std::vector<BackendDesc *> Owners;

  int findAttr(StringRef N) const {
    for (auto [I, A] : enumerate(Attrs))
      if (A.Name == N)
        return I;
    return -1;
  }
};

struct FeatureDesc {
  const Record *R;
  std::string Name;
  std::string Summary;
  unsigned Bit = 0;
  uint64_t Closure = 0;
};

struct FeatureCond {
  const FeatureDesc *Feature;
  const Record *When; // predicate record
};

struct ExecCompat {
  const Record *Exec;
  std::vector<const Record *> Formats; // contract: formats it will consume
};

struct BackendDesc {
  const Record *R;
  std::string Name;
  std::string Id; // C++ identifier
  std::string Summary;
  std::vector<KindDesc *> Kinds;
  const Record *Variant = nullptr;
  std::vector<FeatureCond> Features;
  std::vector<const Record *> Dialects;
  std::string Pipeline, PassPipeline, RegisterPasses, DeviceCodeGen, HostCodeGen;
  std::string Emulator;
  std::string StorageBytes;
  std::vector<std::pair<const Record *, std::string>> Outputs; // format, mode
  std::vector<ExecCompat> Exec;
  bool HostCapable = false;
  bool CompileOnly = false;
  /// Pipeline is generated over PassPipeline.
  bool GeneratedPipeline = false;
  std::vector<std::pair<std::string, uint64_t>> OpRequirements;
  std::vector<const Record *> Limits; // ResourceLimit records, in order
};

/// Evaluation, C++ emission and text of attribute predicates against the
/// attributes of one kind. Predicates may only read enumerated attributes.
class PredicateCompiler {
public:
  explicit PredicateCompiler(const KindDesc &K) : K(K) {}

  /// Reports every problem in \p P; \p Where says whose predicate it is.
  bool check(const Record *P, const Twine &Where) const {
    if (P->getName() == "AttrAlways")
      return true;
    if (P->isSubClassOf("AttrNot"))
      return check(P->getValueAsDef("Pred"), Where);
    if (P->isSubClassOf("AttrAllOf") || P->isSubClassOf("AttrAnyOf")) {
      bool OK = true;
      for (const Record *Q : P->getValueAsListOfDefs("Preds"))
        OK &= check(Q, Where);
      return OK;
    }
    if (!P->isSubClassOf("AttrIn") && !P->isSubClassOf("AttrAtLeast") &&
        !P->isSubClassOf("AttrBelow")) {
      PrintError(P->getLoc(), "predicate '" + P->getName() + "' in " + Where +
                                  " is not AttrAlways, AttrIn, AttrAtLeast, "
                                  "AttrBelow, AttrNot, AttrAllOf or AttrAnyOf");
      return false;
    }
    StringRef AttrName = P->getValueAsString("Attr");
    int AI = K.findAttr(AttrName);
    if (AI < 0) {
      std::vector<std::string> Names;
      for (const AttrDesc &A : K.Attrs)
        Names.push_back(A.Name);
      PrintError(P->getLoc(),
                 "predicate in " + Where + " reads attribute '" + AttrName +
                     "', which target kind '" + K.Name + "' does not have" +
                     (Names.empty() ? std::string(" (it has no attributes)")
                                    : "; its attributes: " + join(Names, ", ")));
      return false;
    }
    const AttrDesc &A = K.Attrs[AI];
    if (!A.isEnumerated()) {
      PrintError(P->getLoc(), "predicate in " + Where + " reads attribute '" +
                                  AttrName + "' of target kind '" + K.Name +
                                  "', which lists no allowed values; "
                                  "predicates may only read enumerated "
                                  "attributes");
      return false;
    }
    std::vector<StringRef> Vals;
    if (P->isSubClassOf("AttrIn"))
      Vals = P->getValueAsListOfStrings("Values");
    else
      Vals.push_back(P->getValueAsString("Value"));
    bool OK = true;
    for (StringRef V : Vals)
      if (A.findValue(V) < 0) {
        PrintError(P->getLoc(), "predicate in " + Where + " compares '" +
                                    AttrName + "' with '" + V +
                                    "', which is not one of its values (" +
                                    join(A.Values, ", ") + ")");
        OK = false;
      }
    return OK;
  }

  /// Attributes \p P reads, as indices into the kind's attributes.
  void collectAttrs(const Record *P, std::set<unsigned> &Out) const {
    if (P->isSubClassOf("AttrNot"))
      return collectAttrs(P->getValueAsDef("Pred"), Out);
    if (P->isSubClassOf("AttrAllOf") || P->isSubClassOf("AttrAnyOf")) {
      for (const Record *Q : P->getValueAsListOfDefs("Preds"))
        collectAttrs(Q, Out);
      return;
    }
    if (P->isSubClassOf("AttrIn") || P->isSubClassOf("AttrAtLeast") ||
        P->isSubClassOf("AttrBelow"))
      Out.insert(K.findAttr(P->getValueAsString("Attr")));
  }

  /// \p V[i]: position of attribute i's value in its Values, -1 if unset.
  bool eval(const Record *P, ArrayRef<int> V) const {
    if (P->getName() == "AttrAlways")
      return true;
    if (P->isSubClassOf("AttrNot"))
      return !eval(P->getValueAsDef("Pred"), V);
    if (P->isSubClassOf("AttrAllOf"))
      return all_of(P->getValueAsListOfDefs("Preds"),
                    [&](const Record *Q) { return eval(Q, V); });
    if (P->isSubClassOf("AttrAnyOf"))
      return any_of(P->getValueAsListOfDefs("Preds"),
                    [&](const Record *Q) { return eval(Q, V); });
    unsigned AI = K.findAttr(P->getValueAsString("Attr"));
    const AttrDesc &A = K.Attrs[AI];
    int X = V[AI];
    if (P->isSubClassOf("AttrIn"))
      return any_of(P->getValueAsListOfStrings("Values"),
                    [&](StringRef S) { return X >= 0 && A.findValue(S) == X; });
    int Pos = A.findValue(P->getValueAsString("Value"));
    if (P->isSubClassOf("AttrAtLeast"))
      return X >= 0 && X >= Pos;
    return X >= 0 && X < Pos; // AttrBelow
  }

  std::string cpp(const Record *P) const {
    if (P->getName() == "AttrAlways")
      return "true";
    if (P->isSubClassOf("AttrNot"))
      return "!" + cpp(P->getValueAsDef("Pred"));
    if (P->isSubClassOf("AttrAllOf") || P->isSubClassOf("AttrAnyOf")) {
      bool All = P->isSubClassOf("AttrAllOf");
      std::vector<const Record *> Qs = P->getValueAsListOfDefs("Preds");
      if (Qs.empty())
        return All ? "true" : "false";
      std::string S = "(";
      ListSeparator LS(All ? " && " : " || ");
      for (const Record *Q : Qs)
        S += (Twine(LS) + cpp(Q)).str();
      return S + ")";
    }
    unsigned AI = K.findAttr(P->getValueAsString("Attr"));
    const AttrDesc &A = K.Attrs[AI];
    std::string Var = "V[" + std::to_string(AI) + "]";
    if (P->isSubClassOf("AttrIn")) {
      std::string S = "(";
      ListSeparator LS(" || ");
      for (StringRef Val : P->getValueAsListOfStrings("Values"))
        S += (Twine(LS) + Var + " == " + Twine(A.findValue(Val))).str();
      return S == "(" ? "false" : S + ")";
    }
    int Pos = A.findValue(P->getValueAsString("Value"));
    if (P->isSubClassOf("AttrAtLeast"))
      return "(" + Var + " >= " + std::to_string(Pos) + ")";
    return "(" + Var + " >= 0 && " + Var + " < " + std::to_string(Pos) + ")";
  }

  /// Readable form for listings and messages; nested conjunctions and
  /// disjunctions are parenthesized.
  static std::string text(const Record *P, bool Nested = false) {
    if (P->getName() == "AttrAlways")
      return "always";
    if (P->isSubClassOf("AttrNot"))
      return "not (" + text(P->getValueAsDef("Pred")) + ")";
    if (P->isSubClassOf("AttrAllOf") || P->isSubClassOf("AttrAnyOf")) {
      bool All = P->isSubClassOf("AttrAllOf");
      std::string S;
      ListSeparator LS(All ? " and " : " or ");
      for (const Record *Q : P->getValueAsListOfDefs("Preds"))
        S += (Twine(LS) + text(Q, /*Nested=*/true)).str();
      if (S.empty())
        return All ? "always" : "never";
      return Nested ? "(" + S + ")" : S;
    }
    StringRef Attr = P->getValueAsString("Attr");
    if (P->isSubClassOf("AttrIn")) {
      std::vector<StringRef> Vals = P->getValueAsListOfStrings("Values");
      if (Vals.size() == 1)
        return (Attr + " == " + Vals[0]).str();
      return (Attr + " in {" + join(Vals, ", ") + "}").str();
    }
    StringRef Op = P->isSubClassOf("AttrAtLeast") ? " >= " : " < ";
    return (Attr + Op + P->getValueAsString("Value")).str();
  }

private:
  const KindDesc &K;
};

class TargetBackendEmitter {
public:
  explicit TargetBackendEmitter(const RecordKeeper &RK) : RK(RK) {}
  void run(raw_ostream &OS);

private:
  void collectFeatures();
  void collectKinds();
  void collectBackends();
  void collectOpRequirements();
  void collectOwnedExecution();
  void checkKindOwnership();
  void checkVariants(KindDesc &K);
  void collectLimits(const Record *R, BackendDesc &B, const std::string &Where);
  void emitLimits(raw_ostream &OS, const BackendDesc &B, const KindDesc &K);

  void emitEnums(raw_ostream &OS);
  void emitTable(raw_ostream &OS);
  void emitEmulatorTable(raw_ostream &OS);
  void emitOwnedExecution(raw_ostream &OS);

  /// Whether \p R (a DeviceFormat or ExecutionBackend) is declared by a
  /// target backend's file rather than shared in ExecutionBackends.td.
  bool isOwned(const Record *R) const { return OwnedIndex.count(R); }
  /// A reference to format \p F in a generated table: its enumerator, or a
  /// placeholder the registration function overwrites with the value
  /// libTileExec assigned (recorded in Patches as `Target = value;`).
  std::string formatRef(const Record *F, const std::string &Target);
  std::string execRef(const Record *E, const std::string &Target);

  const RecordKeeper &RK;
  /// Formats and execution backends the backends' own files declare, in
  /// name order, and their positions in those lists.
  std::vector<const Record *> OwnedFormats, OwnedExecs;
  std::map<const Record *, unsigned> OwnedIndex;
  std::vector<std::string> Patches;
  std::vector<FeatureDesc> Features;
  std::map<const Record *, FeatureDesc *> FeatureOf;
  std::vector<KindDesc> Kinds;
  std::map<const Record *, KindDesc *> KindOf;
  std::vector<BackendDesc> Backends;
};

} // namespace

void TargetBackendEmitter::collectFeatures() {
  std::vector<const Record *> Rs =
      sortedByName(RK.getAllDerivedDefinitions("TargetFeature"));
  StringMap<const Record *> Seen;
  for (const Record *R : Rs) {
    StringRef Name = R->getValueAsString("Name");
    if (!checkUnique(Seen, Name, R, "target feature"))
      continue;
    if (!isTargetWord(Name))
      PrintError(R->getLoc(), "target feature name '" + Name +
                                  "' must be letters, digits and '_'");
    FeatureDesc F;
    F.R = R;
    F.Name = Name.str();
    F.Summary = R->getValueAsString("Summary").str();
    F.Bit = Features.size();
    Features.push_back(F);
  }
  if (Features.size() > 64) {
    PrintError(Features[64].R->getLoc(),
               "more than 64 target features in one backend list");
    Features.resize(64);
  }
  for (FeatureDesc &F : Features)
    FeatureOf[F.R] = &F;
  // Close the implications: a worklist walk from each feature.
  for (FeatureDesc &F : Features) {
    std::vector<const Record *> Work{F.R};
    while (!Work.empty()) {
      const Record *R = Work.back();
      Work.pop_back();
      auto It = FeatureOf.find(R);
      if (It == FeatureOf.end())
        continue; // a duplicate, already reported
      uint64_t Bit = uint64_t(1) << It->second->Bit;
      if (F.Closure & Bit)
        continue;
      F.Closure |= Bit;
      for (const Record *I : R->getValueAsListOfDefs("Implies"))
        Work.push_back(I);
    }
  }
}

void TargetBackendEmitter::collectKinds() {
  std::vector<const Record *> Rs =
      sortedByName(RK.getAllDerivedDefinitions("TargetKind"));
  StringMap<const Record *> Words; // kind names and aliases
  for (const Record *R : Rs) {
    KindDesc K;
    K.R = R;
    K.Name = R->getValueAsString("Name").str();
    K.Summary = R->getValueAsString("Summary").str();
    K.DefaultHost = R->getValueAsBit("DefaultHost");
    if (!isTargetWord(K.Name))
      PrintError(R->getLoc(), "target kind name '" + K.Name +
                                  "' must start with a letter and use "
                                  "letters, digits and '_'");
    auto [It, New] = Words.try_emplace(K.Name, R);
    if (!New) {
      PrintError(R->getLoc(), "duplicate target kind name '" + K.Name + "'");
      PrintNote(It->second->getLoc(), "first declared here");
      continue;
    }
    for (StringRef A : R->getValueAsListOfStrings("Aliases")) {
      if (!isTargetWord(A))
        PrintError(R->getFieldLoc("Aliases"),
                   "alias '" + A + "' of target kind '" + K.Name +
                       "' must start with a letter and use letters, digits "
                       "and '_'");
      K.Aliases.push_back(A.str());
    }
    llvm::sort(K.Aliases);
    for (const Record *AR : R->getValueAsListOfDefs("Attrs")) {
      AttrDesc A;
      A.R = AR;
      A.Name = AR->getValueAsString("Name").str();
      A.Type = AR->getValueAsDef("Type")->getValueAsString("Name").str();
      A.Default = AR->getValueAsString("Default").str();
      A.Summary = AR->getValueAsString("Summary").str();
      for (StringRef V : AR->getValueAsListOfStrings("Values"))
        A.Values.push_back(V.str());
      std::string Where =
          "attribute '" + A.Name + "' of target kind '" + K.Name + "'";
      if (!isTargetWord(A.Name))
        PrintError(AR->getLoc(), "name of " + Where +
                                     " must start with a letter and use "
                                     "letters, digits and '_'");
      if (K.findAttr(A.Name) >= 0)
        PrintError(AR->getLoc(), "duplicate " + Where);
      if (A.Type == "bool") {
        if (!A.Values.empty())
          PrintError(AR->getLoc(),
                     "bool " + Where + " cannot list values (they are "
                                       "false and true)");
        A.Values = {"false", "true"};
      }
      auto IsInt = [](StringRef V) {
        int64_t X;
        return !V.getAsInteger(10, X);
      };
      if (A.Type == "int") {
        for (const std::string &V : A.Values)
          if (!IsInt(V))
            PrintError(AR->getLoc(),
                       "value '" + V + "' of int " + Where +
                           " is not an integer");
        if (!A.Default.empty() && !IsInt(A.Default))
          PrintError(AR->getLoc(), "default '" + A.Default + "' of int " +
                                       Where + " is not an integer");
      }
      std::set<std::string> Uniq(A.Values.begin(), A.Values.end());
      if (Uniq.size() != A.Values.size())
        PrintError(AR->getLoc(), Where + " lists a value twice");
      if (!A.Default.empty() && A.isEnumerated() && A.findValue(A.Default) < 0)
        PrintError(AR->getLoc(), "default '" + A.Default + "' of " + Where +
                                     " is not one of its values (" +
                                     join(A.Values, ", ") + ")");
      K.Attrs.push_back(std::move(A));
    }
    Kinds.push_back(std::move(K));
  }
  // Aliases share one namespace with kind names.
  for (KindDesc &K : Kinds)
    for (const std::string &A : K.Aliases) {
      auto [It, New] = Words.try_emplace(A, K.R);
      if (New)
        continue;
      PrintError(K.R->getFieldLoc("Aliases"),
                 "alias '" + A + "' of target kind '" + K.Name +
                     "' is already a target kind or alias");
      PrintNote(It->second->getLoc(), "'" + A + "' declared here");
    }
  for (auto [I, K] : enumerate(Kinds)) {
    K.Index = I;
    KindOf[K.R] = &K;
  }
  const KindDesc *Host = nullptr;
  for (const KindDesc &K : Kinds) {
    if (!K.DefaultHost)
      continue;
    if (Host) {
      PrintError(K.R->getLoc(), "target kinds '" + Host->Name + "' and '" +
                                    K.Name + "' are both the default host");
      PrintNote(Host->R->getLoc(), "'" + Host->Name + "' declared here");
    }
    Host = &K;
  }
}

void TargetBackendEmitter::collectBackends() {
  std::vector<const Record *> Rs =
      sortedByName(RK.getAllDerivedDefinitions("TargetBackend"));
  StringMap<const Record *> Seen;
  StringMap<const Record *> Ids;
  for (const Record *R : Rs) {
    BackendDesc B;
    B.R = R;
    B.Name = R->getValueAsString("Name").str();
    B.Id = cppIdent(B.Name);
    B.Summary = R->getValueAsString("Summary").str();
    if (!checkUnique(Seen, B.Name, R, "target backend"))
      continue;
    if (!isCppIdentifier(B.Name))
      PrintError(R->getLoc(), "target backend name '" + B.Name +
                                  "' must be a C++ identifier");

    for (const Record *KR : R->getValueAsListOfDefs("Kinds")) {
      KindDesc *K = KindOf.count(KR) ? KindOf[KR] : nullptr;
      if (!K)
        continue; // duplicate kind, reported
      if (is_contained(B.Kinds, K)) {
        PrintError(R->getFieldLoc("Kinds"), "target backend '" + B.Name +
                                                "' lists kind '" + K->Name +
                                                "' twice");
        continue;
      }
      B.Kinds.push_back(K);
    }
    if (R->getValueAsListOfDefs("Kinds").empty())
      PrintError(R->getLoc(),
                 "target backend '" + B.Name + "' owns no target kind");

    B.Variant = R->getValueAsOptionalDef("Variant");
    std::string Where = "target backend '" + B.Name + "'";
    for (KindDesc *K : B.Kinds) {
      PredicateCompiler PC(*K);
      if (B.Variant)
        PC.check(B.Variant, "the variant predicate of " + Where);
    }

    for (const Record *FW : R->getValueAsListOfDefs("Features")) {
      const Record *FR = FW->getValueAsDef("Feature");
      auto It = FeatureOf.find(FR);
      if (It == FeatureOf.end())
        continue;
      const Record *When = FW->getValueAsDef("When");
      for (KindDesc *K : B.Kinds)
        PredicateCompiler(*K).check(When, "the condition of feature '" +
                                              It->second->Name + "' of " +
                                              Where);
      B.Features.push_back({It->second, When});
    }

    for (const Record *D : R->getValueAsListOfDefs("Dialects")) {
      StringRef Fn = D->getValueAsString("RegisterFn");
      if (!isCppIdentifier(Fn))
        PrintError(R->getFieldLoc("Dialects"),
                   "dialect '" + D->getValueAsString("Name") + "' of " +
                       Where + " has no RegisterFn to register its ops");
      if (is_contained(B.Dialects, D))
        PrintError(R->getFieldLoc("Dialects"),
                   Where + " lists dialect '" + D->getValueAsString("Name") +
                       "' twice");
      else
        B.Dialects.push_back(D);
    }

    auto EntryPoint = [&](StringRef Field, bool Required) {
      std::string V = R->getValueAsString(Field).str();
      if (V.empty() && !Required)
        return V;
      if (V.empty())
        PrintError(R->getLoc(),
                   Where + " names no " + Field +
                       " entry point (a C++ function in namespace tile)" +
                       (Field == "Pipeline"
                            ? "; or name a PassPipeline, whose passes the "
                              "generated table then runs"
                            : ""));
      else if (!isCppIdentifier(V))
        PrintError(R->getFieldLoc(Field),
                   Field + " entry point '" + V + "' of " + Where +
                       " is not an unqualified C++ identifier");
      return V;
    };
    // Without a Pipeline, the generated table runs PassPipeline's passes
    // (runBackendPipeline) in a run<Id>Pipeline of its own.
    B.PassPipeline = EntryPoint("PassPipeline", false);
    B.Pipeline = EntryPoint("Pipeline", B.PassPipeline.empty());
    if (B.Pipeline.empty() && !B.PassPipeline.empty()) {
      B.Pipeline = "run" + B.Id + "Pipeline";
      B.GeneratedPipeline = true;
    }
    B.RegisterPasses = EntryPoint("RegisterPasses", false);
    B.DeviceCodeGen = EntryPoint("DeviceCodeGen", true);
    B.HostCodeGen = EntryPoint("HostCodeGen", false);
    B.Emulator = EntryPoint("Emulator", false);
    B.StorageBytes = EntryPoint("StorageBytes", false);
    B.HostCapable = R->getValueAsBit("HostCapable");

    for (const Record *O : R->getValueAsListOfDefs("Outputs")) {
      const Record *F = O->getValueAsDef("Format");
      std::string Mode = O->getValueAsDef("Mode")->getValueAsString("Name").str();
      if (any_of(B.Outputs, [&](auto &P) { return P.first == F; }))
        PrintError(R->getFieldLoc("Outputs"),
                   Where + " lists output format '" +
                       F->getValueAsString("Name") + "' twice");
      else
        B.Outputs.push_back({F, Mode});
    }
    if (B.Outputs.empty())
      PrintError(R->getLoc(), Where + " declares no device output format");

    std::vector<const Record *> Execs =
        R->getValueAsListOfDefs("ExecutionBackends");
    B.CompileOnly = R->getValueAsBit("CompileOnly");
    if (B.CompileOnly && !Execs.empty())
      PrintError(R->getFieldLoc("CompileOnly"),
                 Where + " is CompileOnly but lists execution backends; a "
                         "backend whose output something runs is not "
                         "compile-only");
    else if (Execs.empty() && !B.CompileOnly)
      PrintError(R->getLoc(),
                 Where + " declares no execution backend; list the "
                         "execution backends that can run its output in "
                         "ExecutionBackends, or set CompileOnly while "
                         "nothing runs it yet");
    for (const Record *E : Execs) {
      StringRef EName = E->getValueAsString("Name");
      if (any_of(B.Exec, [&](const ExecCompat &C) { return C.Exec == E; })) {
        PrintError(R->getFieldLoc("ExecutionBackends"),
                   Where + " lists execution backend '" + EName + "' twice");
        continue;
      }
      if (E->getValueAsBit("NeedsHostCodeGen") && B.HostCodeGen.empty())
        PrintError(R->getFieldLoc("ExecutionBackends"),
                   "execution backend '" + EName +
                       "' needs host code, but " + Where +
                       " has no HostCodeGen entry point");
      ExecCompat C;
      C.Exec = E;
      std::vector<const Record *> Consumes = E->getValueAsListOfDefs("Consumes");
      for (auto &[F, Mode] : B.Outputs)
        if (is_contained(Consumes, F))
          C.Formats.push_back(F);
      if (C.Formats.empty() && !B.Outputs.empty()) {
        std::vector<std::string> Out, In;
        for (auto &P : B.Outputs)
          Out.push_back(P.first->getValueAsString("Name").str());
        for (const Record *F : Consumes)
          In.push_back(F->getValueAsString("Name").str());
        PrintError(R->getFieldLoc("ExecutionBackends"),
                   "execution backend '" + EName + "' consumes none of the "
                   "formats " + Where + " produces (it produces " +
                       join(Out, ", ") + "; '" + EName + "' consumes " +
                       join(In, ", ") + ")");
      }
      B.Exec.push_back(std::move(C));
    }
    collectLimits(R, B, Where);
    Backends.push_back(std::move(B));
  }
  for (BackendDesc &B : Backends)
    for (KindDesc *K : B.Kinds)
      K->Owners.push_back(&B);
}

/// The file \p R is declared in, as the TableGen source manager names it.
static StringRef fileOf(const Record *R) {
  unsigned Buf = SrcMgr.FindBufferContainingLoc(R->getLoc().front());
  return SrcMgr.getMemoryBuffer(Buf)->getBufferIdentifier();
}

/// Whether \p R is one of libTileExec's shared formats or execution
/// backends, declared in include/tile/Exec/ExecutionBackends.td.
static bool isSharedExecRecord(const Record *R) {
  SmallString<128> Path(fileOf(R));
  std::replace(Path.begin(), Path.end(), '\\', '/');
  return StringRef(Path).ends_with("tile/Exec/ExecutionBackends.td");
}

static StringRef baseName(StringRef Path) {
  size_t Slash = Path.find_last_of("/\\");
  return Slash == StringRef::npos ? Path : Path.drop_front(Slash + 1);
}

/// Device formats and execution backends declared outside
/// ExecutionBackends.td belong to the target backends of the file that
/// declares them: only those backends may use them, and at least one must,
/// since libTileExec's tables know them only through that file's
/// registration function.
void TargetBackendEmitter::collectOwnedExecution() {
  StringMap<const Record *> FormatNames, ExecNames;
  for (const Record *F :
       sortedByName(RK.getAllDerivedDefinitions("DeviceFormat"))) {
    checkUnique(FormatNames, F->getValueAsString("Name"), F, "device format");
    if (!isSharedExecRecord(F))
      OwnedFormats.push_back(F);
  }
  for (const Record *E :
       sortedByName(RK.getAllDerivedDefinitions("ExecutionBackend"))) {
    checkUnique(ExecNames, E->getValueAsString("Name"), E,
                "execution backend");
    if (!isSharedExecRecord(E))
      OwnedExecs.push_back(E);
  }
  for (auto [I, F] : enumerate(OwnedFormats))
    OwnedIndex[F] = I;
  for (auto [I, E] : enumerate(OwnedExecs))
    OwnedIndex[E] = I;

  // Who uses each owned record, and from which file.
  std::map<const Record *, std::vector<const Record *>> Users;
  for (const BackendDesc &B : Backends) {
    for (auto &[F, Mode] : B.Outputs)
      Users[F].push_back(B.R);
    for (const ExecCompat &C : B.Exec)
      Users[C.Exec].push_back(B.R);
  }
  for (const Record *E : OwnedExecs)
    for (const Record *F : E->getValueAsListOfDefs("Consumes"))
      Users[F].push_back(E);

  std::set<StringRef> BackendFiles;
  for (const BackendDesc &B : Backends)
    BackendFiles.insert(fileOf(B.R));
  auto Check = [&](const Record *R, StringRef What, StringRef Use) {
    StringRef Name = R->getValueAsString("Name");
    StringRef File = fileOf(R);
    if (!BackendFiles.count(File)) {
      PrintError(R->getLoc(),
                 What + " '" + Name + "' is declared in " + baseName(File) +
                     ", which declares no target backend: libTileExec's "
                     "tables would not know it. Declare a backend's own " +
                     What + " in that backend's .td, and a shared one in "
                     "include/tile/Exec/ExecutionBackends.td");
      return;
    }
    bool UsedHere = false;
    for (const Record *U : Users[R]) {
      if (fileOf(U) == File) {
        UsedHere = true;
        continue;
      }
      PrintError(U->getLoc(),
                 "'" + U->getValueAsString("Name") + "' uses " + What + " '" +
                     Name + "', which " + baseName(File) +
                     " declares for its own target backends; declare " +
                     What + "s that several backends share in "
                     "include/tile/Exec/ExecutionBackends.td");
      PrintNote(R->getLoc(), "'" + Name + "' declared here");
    }
    if (!UsedHere)
      PrintError(R->getLoc(),
                 What + " '" + Name + "' is declared in " + baseName(File) +
                     ", where no target backend " + Use +
                     " it: declare a backend's own " + What +
                     " in that backend's .td, and a shared one in "
                     "include/tile/Exec/ExecutionBackends.td");
  };
  for (const Record *F : OwnedFormats)
    Check(F, "device format", "produces (nor execution backend consumes)");
  for (const Record *E : OwnedExecs) {
    Check(E, "execution backend", "lists");
    StringRef Name = E->getValueAsString("Name");
    checkExecBackendFields(E);
    if (!E->getValueAsString("CppName").empty())
      PrintError(E->getFieldLoc("CppName"),
                 "execution backend '" + Name + "' is declared by a target "
                 "backend's file and has no ExecBackendKind enumerator; "
                 "remove its CppName (code looks it up by name)");
  }
  for (const Record *F : OwnedFormats)
    if (!F->getValueAsString("CppName").empty())
      PrintError(F->getFieldLoc("CppName"),
                 "device format '" + F->getValueAsString("Name") +
                     "' is declared by a target backend's file and has no "
                     "DeviceFormat enumerator; remove its CppName (code "
                     "looks it up by name)");
}

std::string TargetBackendEmitter::formatRef(const Record *F,
                                            const std::string &Target) {
  if (!isOwned(F))
    return "DeviceFormat::" + cppNameOf(F);
  Patches.push_back(Target + " = OwnedFormat" +
                    std::to_string(OwnedIndex[F]) + ";");
  return "DeviceFormat(~0u)";
}

std::string TargetBackendEmitter::execRef(const Record *E,
                                          const std::string &Target) {
  if (!isOwned(E))
    return "ExecBackendKind::" + cppNameOf(E);
  Patches.push_back(Target + " = OwnedExec" + std::to_string(OwnedIndex[E]) +
                    ";");
  return "ExecBackendKind(~0u)";
}

void TargetBackendEmitter::collectLimits(const Record *R, BackendDesc &B,
                                         const std::string &Where) {
  for (const Record *L : R->getValueAsListOfDefs("Limits")) {
    std::string What = "limit '" +
                       L->getValueAsDef("Kind")->getValueAsString("Name").str() +
                       "' of " + Where;
    if (L->getValueAsInt("Value") <= 0)
      PrintError(R->getFieldLoc("Limits"), What + " is not positive");
    StringRef Attr = L->getValueAsString("FromAttr");
    for (KindDesc *K : B.Kinds) {
      PredicateCompiler(*K).check(L->getValueAsDef("When"), "the condition of " + What);
      int AI = Attr.empty() ? 0 : K->findAttr(Attr);
      if (!Attr.empty() && (AI < 0 || K->Attrs[AI].Type != "int"))
        PrintError(R->getFieldLoc("Limits"),
                   What + " reads '" + Attr + "', which is not an int "
                   "attribute of kind '" + K->Name + "'");
    }
    B.Limits.push_back(L);
  }
}

void TargetBackendEmitter::collectOpRequirements() {
  for (const Record *R : RK.getAllDerivedDefinitions("OpNeedsFeatures")) {
    const Record *Op = R->getValueAsDef("TheOp");
    const Record *Dia = Op->getValueAsDef("OpDialect");
    std::string DName = Dia->getValueAsString("Name").str();
    std::string Mn = Op->getValueAsString("Mnemonic").str();
    std::string OpName = DName == "tile" ? Mn : DName + "." + Mn;
    uint64_t Mask = 0;
    for (const Record *F : R->getValueAsListOfDefs("Features"))
      if (FeatureOf.count(F))
        Mask |= FeatureOf[F]->Closure;
    bool Used = false;
    for (BackendDesc &B : Backends)
      if (is_contained(B.Dialects, Dia)) {
        B.OpRequirements.push_back({OpName, Mask});
        Used = true;
      }
    if (!Used)
      PrintError(R->getLoc(), "op '" + OpName + "' needs features, but no "
                              "target backend lowers its dialect '" +
                                  DName + "'");
  }
  for (BackendDesc &B : Backends)
    llvm::sort(B.OpRequirements);
}

void TargetBackendEmitter::checkKindOwnership() {
  for (KindDesc &K : Kinds) {
    if (K.Owners.empty()) {
      PrintError(K.R->getLoc(), "target kind '" + K.Name +
                                    "' is not owned by any target backend");
      continue;
    }
    if (K.DefaultHost)
      for (BackendDesc *B : K.Owners)
        if (!B->HostCapable)
          PrintError(K.R->getLoc(),
                     "target kind '" + K.Name + "' is the default host, but "
                     "its target backend '" + B->Name + "' is not HostCapable");
    if (K.Owners.size() == 1 && !K.Owners[0]->Variant)
      continue;
    bool AllHavePredicates = true;
    for (BackendDesc *B : K.Owners) {
      if (B->Variant)
        continue;
      AllHavePredicates = false;
      std::vector<std::string> Others;
      for (BackendDesc *O : K.Owners)
        if (O != B)
          Others.push_back(O->Name);
      PrintError(B->R->getLoc(),
                 "target kind '" + K.Name + "' is owned by target backend '" +
                     B->Name + "' and by " + joinQuoted(Others) + ", but '" +
                     B->Name + "' has no Variant predicate; give every owner "
                     "of a shared kind a mutually exclusive Variant");
    }
    if (AllHavePredicates)
      checkVariants(K);
  }
}

/// Evaluates the owners' variant predicates at every combination of the
/// attribute values they read: each combination must select exactly one.
void TargetBackendEmitter::checkVariants(KindDesc &K) {
  PredicateCompiler PC(K);
  std::set<unsigned> Read;
  for (BackendDesc *B : K.Owners)
    PC.collectAttrs(B->Variant, Read);
  if (Read.count(unsigned(-1)))
    return; // unknown attribute, reported
  std::vector<unsigned> Dims(Read.begin(), Read.end());
  // Each read attribute ranges over its values, plus "unset" if it has no
  // default.
  std::vector<std::vector<int>> Domains;
  uint64_t Points = 1;
  for (unsigned AI : Dims) {
    const AttrDesc &A = K.Attrs[AI];
    std::vector<int> D;
    if (A.Default.empty())
      D.push_back(-1);
    for (unsigned I = 0; I != A.Values.size(); ++I)
      D.push_back(I);
    Points *= D.size();
    Domains.push_back(std::move(D));
  }
  if (Points > (1u << 16)) {
    PrintError(K.R->getLoc(), "the variant predicates of target kind '" +
                                  K.Name + "' read too many attribute values "
                                           "to check (" + Twine(Points) + ")");
    return;
  }
  std::vector<int> V(K.Attrs.size(), -1);
  std::vector<unsigned> Pos(Dims.size(), 0);
  for (uint64_t P = 0; P != Points; ++P) {
    for (unsigned D = 0; D != Dims.size(); ++D)
      V[Dims[D]] = Domains[D][Pos[D]];
    std::string Target = K.Name;
    for (unsigned AI : Dims)
      if (V[AI] >= 0)
        Target += " -" + K.Attrs[AI].Name + "=" + K.Attrs[AI].Values[V[AI]];
    std::vector<BackendDesc *> Match;
    for (BackendDesc *B : K.Owners)
      if (PC.eval(B->Variant, V))
        Match.push_back(B);
    if (Match.size() > 1) {
      // Report at the later declaration, with a note at the earlier one.
      BackendDesc *First = Match[0], *Second = Match[1];
      if (First->R->getID() > Second->R->getID())
        std::swap(First, Second);
      PrintError(Second->R->getFieldLoc("Variant"),
                 "variant predicates of target backends '" + First->Name +
                     "' (" + PredicateCompiler::text(First->Variant) +
                     ") and '" + Second->Name + "' (" +
                     PredicateCompiler::text(Second->Variant) +
                     ") both accept target '" + Target +
                     "'; make them mutually exclusive");
      PrintNote(First->R->getFieldLoc("Variant"),
                "variant predicate of '" + First->Name + "'");
      return;
    }
    if (Match.empty()) {
      std::vector<std::string> Owners;
      for (BackendDesc *B : K.Owners)
        Owners.push_back(B->Name);
      PrintError(K.R->getLoc(),
                 "no variant predicate of " + joinQuoted(Owners) +
                     " accepts target '" + Target + "' of kind '" + K.Name +
                     "'; the predicates must cover every value");
      return;
    }
    // Next combination (odometer).
    for (unsigned D = 0; D != Dims.size(); ++D) {
      if (++Pos[D] < Domains[D].size())
        break;
      Pos[D] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// -gen-target-backends: emission
//===----------------------------------------------------------------------===//

static StringRef attrTypeEnum(StringRef T) {
  return T == "int" ? "Int" : T == "bool" ? "Bool" : "String";
}

void TargetBackendEmitter::emitEnums(raw_ostream &OS) {
  OS << "#ifdef GET_TILE_TARGET_ENUMS\n#undef GET_TILE_TARGET_ENUMS\n"
     << "namespace " << EnumNamespace << " {\n\n";
  OS << "/// Target backends, sorted by name.\nenum class Backend : unsigned {\n";
  for (const BackendDesc &B : Backends)
    OS << "  " << B.Id << ",\n";
  OS << "};\n\n/// Target kinds, sorted by name.\nenum class Kind : unsigned {\n";
  for (const KindDesc &K : Kinds)
    OS << "  " << cppIdent(K.Name) << ", // " << K.Name << "\n";
  OS << "};\n\n/// Target features: bit positions in BackendContext's feature "
        "mask.\nenum class Feature : unsigned {\n";
  for (const FeatureDesc &F : Features)
    OS << "  " << cppIdent(F.Name) << " = " << F.Bit << ", // " << F.Name
       << "\n";
  OS << "};\n\n} // namespace " << EnumNamespace
     << "\n#endif // GET_TILE_TARGET_ENUMS\n\n";
}

void TargetBackendEmitter::emitTable(raw_ostream &OS) {
  OS << "#ifdef GET_TILE_TARGET_BACKEND_TABLE\n"
     << "#undef GET_TILE_TARGET_BACKEND_TABLE\n";
  if (!OwnedFormats.empty() || !OwnedExecs.empty())
    OS << "#include <mutex>\n#include <string>\n";
  OS << "namespace tile {\n\n";

  // Entry points and dialect registration, resolved at link time.
  std::set<std::string> Pipelines, Builders, PassRegistrations, CodeGens,
      DialectFns;
  for (const BackendDesc &B : Backends) {
    Pipelines.insert(B.Pipeline);
    if (!B.PassPipeline.empty())
      Builders.insert(B.PassPipeline);
    if (!B.RegisterPasses.empty())
      PassRegistrations.insert(B.RegisterPasses);
    CodeGens.insert(B.DeviceCodeGen);
    if (!B.HostCodeGen.empty())
      CodeGens.insert(B.HostCodeGen);
    for (const Record *D : B.Dialects)
      DialectFns.insert(D->getValueAsString("RegisterFn").str());
  }
  OS << "// Entry points, defined in each backend's library.\n";
  for (const std::string &F : Pipelines)
    if (none_of(Backends, [&](const BackendDesc &B) {
          return B.GeneratedPipeline && B.Pipeline == F;
        }))
      OS << "llvm::Error " << F << "(const BackendContext &, Module &);\n";
  for (const std::string &F : Builders)
    OS << "void " << F << "(const BackendContext &, PassManager &);\n";
  for (const std::string &F : PassRegistrations)
    OS << "void " << F << "(PassRegistry &);\n";
  std::set<std::string> StorageFns;
  for (const BackendDesc &B : Backends)
    if (!B.StorageBytes.empty())
      StorageFns.insert(B.StorageBytes);
  for (const std::string &F : StorageFns)
    OS << "unsigned " << F << "(const BackendContext &, DType);\n";
  for (const std::string &F : CodeGens)
    OS << "llvm::Error " << F
       << "(const BackendContext &, const Module &, KernelArtifact &);\n";
  for (const std::string &F : DialectFns)
    OS << "void " << F << "(OpRegistry &);\n";
  if (any_of(Backends, [](const BackendDesc &B) { return B.GeneratedPipeline; })) {
    OS << "\n// Pipelines of the backends that declare only their pass list: "
          "its passes,\n// run by the shared pass manager "
          "(tile/Transforms/PassManager.h).\n"
       << "llvm::Error runBackendPipeline(const BackendContext &, Module &,\n"
       << "                               void (*)(const BackendContext &, "
          "PassManager &),\n"
       << "                               llvm::StringRef);\n";
    for (const BackendDesc &B : Backends)
      if (B.GeneratedPipeline)
        OS << "llvm::Error " << B.Pipeline
           << "(const BackendContext &Ctx, Module &M) {\n"
           << "  return runBackendPipeline(Ctx, M, " << B.PassPipeline << ", "
           << quote(B.Name) << ");\n}\n";
  }
  OS << "\nnamespace {\n\n";

  OS << "//===--- Target features (implications closed) ---===//\n\n"
     << "constexpr TargetFeatureInfo kFeatures[] = {\n";
  for (const FeatureDesc &F : Features)
    OS << "  {" << quote(F.Name) << ", " << quote(F.Summary) << ", "
       << hex64(F.Closure) << "},\n";
  if (Features.empty())
    OS << "  {nullptr, nullptr, 0},\n";
  OS << "};\n\n";

  OS << "//===--- Target kinds, aliases and attributes ---===//\n\n";
  for (const KindDesc &K : Kinds) {
    std::string KId = cppIdent(K.Name);
    if (!K.Aliases.empty()) {
      OS << "constexpr const char *k" << KId << "Aliases[] = {";
      ListSeparator LS;
      for (const std::string &A : K.Aliases)
        OS << LS << quote(A);
      OS << "};\n";
    }
    for (const AttrDesc &A : K.Attrs) {
      if (A.Type == "bool" || A.Values.empty())
        continue;
      OS << "constexpr const char *k" << KId << "_" << cppIdent(A.Name)
         << "Values[] = {";
      ListSeparator LS;
      for (const std::string &V : A.Values)
        OS << LS << quote(V);
      OS << "};\n";
    }
    if (!K.Attrs.empty()) {
      OS << "constexpr TargetAttrInfo k" << KId << "Attrs[] = {\n";
      for (const AttrDesc &A : K.Attrs) {
        bool HasValues = A.Type != "bool" && !A.Values.empty();
        OS << "  {" << quote(A.Name) << ", TargetAttrType::"
           << attrTypeEnum(A.Type) << ", "
           << (A.Default.empty() ? std::string("nullptr") : quote(A.Default))
           << ", "
           << (HasValues ? "k" + KId + "_" + cppIdent(A.Name) + "Values"
                         : std::string("nullptr"))
           << ", " << (HasValues ? A.Values.size() : 0) << ", "
           << quote(A.Summary) << "},\n";
      }
      OS << "};\n";
    }
  }
  OS << "\nconstexpr TargetKindInfo kKinds[] = {\n";
  for (const KindDesc &K : Kinds) {
    std::string KId = cppIdent(K.Name);
    OS << "  {" << quote(K.Name) << ", " << quote(K.Summary) << ", "
       << (K.Aliases.empty() ? std::string("nullptr") : "k" + KId + "Aliases")
       << ", " << K.Aliases.size() << ", "
       << (K.Attrs.empty() ? std::string("nullptr") : "k" + KId + "Attrs")
       << ", " << K.Attrs.size() << ", "
       << (K.DefaultHost ? "true" : "false") << "},\n";
  }
  if (Kinds.empty())
    OS << "  {nullptr, nullptr, nullptr, 0, nullptr, 0, false},\n";
  OS << "};\n\n";

  OS << "//===--- Attribute predicates ---===//\n"
     << "// V[i] is the position of attribute i's value in its list of "
        "values, or -1\n// when it is unset.\n\n";
  for (const BackendDesc &B : Backends)
    for (const KindDesc *K : B.Kinds) {
      PredicateCompiler PC(*K);
      std::string Base = B.Id + "_" + cppIdent(K->Name);
      if (B.Variant)
        OS << "/// " << K->Name << ": " << PredicateCompiler::text(B.Variant)
           << "\nconstexpr bool is" << Base << "Variant(const int *V) {\n"
           << "  return " << PC.cpp(B.Variant) << ";\n}\n";
      for (auto [I, FC] : enumerate(B.Features))
        if (FC.When->getName() != "AttrAlways")
          OS << "/// " << FC.Feature->Name << " on " << K->Name << ": "
             << PredicateCompiler::text(FC.When) << "\nconstexpr bool has"
             << Base << "Feature" << I << "(const int *V) {\n  return "
             << PC.cpp(FC.When) << ";\n}\n";
    }
  OS << "\n";

  // Tables that name an owned format or execution backend hold
  // placeholders until registration, so they are not constexpr.
  const char *Const = OwnedFormats.empty() && OwnedExecs.empty()
                          ? "constexpr "
                          : "";
  emitOwnedExecution(OS);
  OS << "//===--- Execution compatibility and contracts ---===//\n\n";
  for (const BackendDesc &B : Backends) {
    for (const ExecCompat &C : B.Exec) {
      std::string Array = "k" + B.Id + "_" + cppNameOf(C.Exec) + "Formats";
      OS << Const << "DeviceFormat " << Array << "[] = {";
      ListSeparator LS;
      for (auto [I, F] : enumerate(C.Formats))
        OS << LS << formatRef(F, Array + "[" + std::to_string(I) + "]");
      OS << "};\n";
    }
    if (B.Exec.empty())
      continue;
    OS << Const << "ExecCompatInfo k" << B.Id << "Exec[] = {\n";
    for (auto [I, C] : enumerate(B.Exec)) {
      std::string EId = cppNameOf(C.Exec);
      OS << "  {"
         << execRef(C.Exec, "k" + B.Id + "Exec[" + std::to_string(I) + "].Exec")
         << ", k" << B.Id << "_" << EId
         << "Formats, " << C.Formats.size() << ", "
         << (C.Exec->getValueAsBit("NeedsHostCodeGen") ? "true" : "false")
         << ", DeviceCompile::"
         << cppIdent(C.Exec->getValueAsDef("Compile")->getValueAsString("Name"))
         << "},\n";
    }
    OS << "};\n";
  }
  OS << "\n";

  OS << "//===--- Target backends ---===//\n\n";
  for (const BackendDesc &B : Backends) {
    for (const KindDesc *K : B.Kinds) {
      std::string Base = B.Id + "_" + cppIdent(K->Name);
      if (B.Features.empty())
        continue;
      OS << "constexpr FeatureCondition k" << Base << "Features[] = {\n";
      for (auto [I, FC] : enumerate(B.Features)) {
        bool Always = FC.When->getName() == "AttrAlways";
        OS << "  {" << hex64(FC.Feature->Closure) << ", "
           << (Always ? std::string("nullptr")
                      : "has" + Base + "Feature" + std::to_string(I))
           << ", " << quote(PredicateCompiler::text(FC.When)) << "}, // "
           << FC.Feature->Name << "\n";
      }
      OS << "};\n";
    }
    for (const KindDesc *K : B.Kinds)
      emitLimits(OS, B, *K);
    OS << "constexpr BackendKindInfo k" << B.Id << "Kinds[] = {\n";
    for (const KindDesc *K : B.Kinds) {
      std::string Base = B.Id + "_" + cppIdent(K->Name);
      OS << "  {&kKinds[" << K->Index << "], "
         << (B.Variant ? "is" + Base + "Variant" : std::string("nullptr"))
         << ", "
         << (B.Variant ? quote(PredicateCompiler::text(B.Variant))
                       : std::string("nullptr"))
         << ", "
         << (B.Features.empty() ? std::string("nullptr")
                                : "k" + Base + "Features")
         << ", " << B.Features.size() << ", "
         << (B.Limits.empty() ? std::string("nullptr") : "k" + Base + "Limits")
         << ", " << B.Limits.size() << "},\n";
    }
    OS << "};\n";
    if (!B.Dialects.empty()) {
      OS << "constexpr DialectInfo k" << B.Id << "Dialects[] = {";
      ListSeparator LS;
      for (const Record *D : B.Dialects)
        OS << LS << "{" << quote(D->getValueAsString("Name")) << ", "
           << D->getValueAsString("RegisterFn") << "}";
      OS << "};\n";
    }
    if (!B.Outputs.empty()) {
      OS << Const << "DeviceOutputInfo k" << B.Id << "Outputs[] = {";
      ListSeparator LS;
      for (auto [I, Out] : enumerate(B.Outputs))
        OS << LS << "{"
           << formatRef(Out.first, "k" + B.Id + "Outputs[" +
                                       std::to_string(I) + "].Format")
           << ", OutputMode::"
           << (Out.second == "source" ? "SourceOnly" : "Compiled") << "}";
      OS << "};\n";
    }
    if (!B.OpRequirements.empty()) {
      OS << "constexpr OpFeatureRequirement k" << B.Id << "OpRequirements[] = {\n";
      for (auto &[Op, Mask] : B.OpRequirements)
        OS << "  {" << quote(Op) << ", " << hex64(Mask) << "},\n";
      OS << "};\n";
    }
    OS << "\n";
  }

  auto Arr = [](bool NonEmpty, const std::string &Name, size_t N) {
    return NonEmpty ? Name + ", " + std::to_string(N)
                    : std::string("nullptr, 0");
  };
  OS << "constexpr TargetBackendInfo kBackends[] = {\n";
  for (const BackendDesc &B : Backends) {
    OS << "  {" << quote(B.Name) << ", " << quote(B.Summary) << ",\n"
       << "   k" << B.Id << "Kinds, " << B.Kinds.size() << ",\n"
       << "   kFeatures, " << Features.size() << ",\n"
       << "   " << Arr(!B.Dialects.empty(), "k" + B.Id + "Dialects", B.Dialects.size())
       << ",\n   "
       << Arr(!B.OpRequirements.empty(), "k" + B.Id + "OpRequirements",
              B.OpRequirements.size())
       << ",\n   " << B.Pipeline << ", " << quote(B.Pipeline) << ",\n   "
       << (B.PassPipeline.empty() ? "nullptr" : B.PassPipeline) << ", "
       << (B.RegisterPasses.empty() ? "nullptr" : B.RegisterPasses) << ",\n   "
       << B.DeviceCodeGen << ", " << quote(B.DeviceCodeGen) << ",\n   "
       << (B.HostCodeGen.empty() ? "nullptr, nullptr"
                                 : B.HostCodeGen + ", " + quote(B.HostCodeGen))
       << ",\n   "
       << Arr(!B.Outputs.empty(), "k" + B.Id + "Outputs", B.Outputs.size())
       << ",\n   " << Arr(!B.Exec.empty(), "k" + B.Id + "Exec", B.Exec.size())
       << ",\n   " << (B.HostCapable ? "true" : "false") << ",\n   "
       << (B.Emulator.empty() ? "nullptr" : quote(B.Emulator)) << ",\n   "
       << (B.StorageBytes.empty() ? "nullptr" : B.StorageBytes) << ",\n   "
       << (B.CompileOnly ? "true" : "false") << "},\n";
  }
  OS << "};\n\n";

  if (!OwnedFormats.empty() || !OwnedExecs.empty()) {
    OS << "/// Adds the formats and execution backends this list declares to "
          "libTileExec's\n/// tables and writes the values they got into "
          "the tables above; once per\n/// process.\n"
       << "llvm::Error registerOwnedExecution() {\n"
       << "  static std::once_flag Once;\n  static std::string Failure;\n"
       << "  std::call_once(Once, [] {\n";
    for (auto [I, F] : enumerate(OwnedFormats))
      OS << "    llvm::Expected<DeviceFormat> F" << I
         << " = registerDeviceFormat(kOwnedFormats[" << I << "]);\n"
         << "    if (!F" << I << ") {\n      Failure = llvm::toString(F" << I
         << ".takeError());\n      return;\n    }\n"
         << "    OwnedFormat" << I << " = *F" << I << ";\n";
    std::vector<std::string> ConsumePatches = std::move(Patches);
    Patches.clear();
    // Consumes arrays of owned execution backends come first: they must
    // hold real values before registerExecBackend reads them.
    for (auto [I, E] : enumerate(OwnedExecs)) {
      std::string Array = "kOwnedExec" + std::to_string(I) + "Consumes";
      for (auto [J, F] : enumerate(E->getValueAsListOfDefs("Consumes")))
        if (isOwned(F))
          OS << "    " << Array << "[" << J << "] = OwnedFormat"
             << OwnedIndex[F] << ";\n";
    }
    for (auto [I, E] : enumerate(OwnedExecs))
      OS << "    llvm::Expected<ExecBackendKind> E" << I
         << " = registerExecBackend(kOwnedExecs[" << I << "]);\n"
         << "    if (!E" << I << ") {\n      Failure = llvm::toString(E" << I
         << ".takeError());\n      return;\n    }\n"
         << "    OwnedExec" << I << " = *E" << I << ";\n";
    for (const std::string &P : ConsumePatches)
      OS << "    " << P << "\n";
    OS << "  });\n  if (!Failure.empty())\n"
       << "    return llvm::createStringError(Failure);\n"
       << "  return llvm::Error::success();\n}\n\n";
  }
  OS << "} // namespace\n\n";

  OS << "/// Registers every target backend of this list, in name order";
  if (!OwnedFormats.empty() || !OwnedExecs.empty())
    OS << ",\n/// after the device formats and execution backends it "
          "declares";
  OS << ".\nllvm::Error " << RegisterFnName << "(TargetRegistry &R) {\n";
  if (!OwnedFormats.empty() || !OwnedExecs.empty())
    OS << "  if (llvm::Error E = registerOwnedExecution())\n    return E;\n";
  if (Backends.empty())
    OS << "  (void)R;\n";
  else
    OS << "  for (const TargetBackendInfo &B : kBackends)\n"
       << "    if (llvm::Error E = R.addBackend(B))\n      return E;\n";
  OS << "  return llvm::Error::success();\n}\n\n"
     << "} // namespace tile\n#endif // GET_TILE_TARGET_BACKEND_TABLE\n";
}

/// The descriptors of the formats and execution backends this list's
/// files declare, and the variables their registered values go to.
void TargetBackendEmitter::emitOwnedExecution(raw_ostream &OS) {
  if (OwnedFormats.empty() && OwnedExecs.empty())
    return;
  OS << "//===--- Device formats and execution backends of these backends "
        "---===//\n\n";
  OS << "} // namespace\n";
  std::set<std::string> Probes, Factories;
  for (const Record *E : OwnedExecs) {
    Probes.insert(E->getValueAsString("Probe").str());
    if (!E->getValueAsString("Executor").empty())
      Factories.insert(E->getValueAsString("Executor").str());
  }
  OS << "// Probes and executor factories, defined in the backends' folders.\n";
  for (const std::string &P : Probes)
    OS << "ExecAvailability " << P << "();\n";
  for (const std::string &F : Factories)
    OS << "llvm::Expected<std::unique_ptr<Executor>> " << F
       << "(const ExecutorOptions &);\n";
  OS << "namespace {\n\n// The values libTileExec assigned them "
        "(registerOwnedExecution).\n";
  for (auto [I, F] : enumerate(OwnedFormats))
    OS << "DeviceFormat OwnedFormat" << I << " = DeviceFormat(~0u); // "
       << F->getValueAsString("Name") << "\n";
  for (auto [I, E] : enumerate(OwnedExecs))
    OS << "ExecBackendKind OwnedExec" << I << " = ExecBackendKind(~0u); // "
       << E->getValueAsString("Name") << "\n";
  if (!OwnedFormats.empty()) {
    OS << "constexpr DeviceFormatInfo kOwnedFormats[] = {\n";
    for (const Record *F : OwnedFormats)
      OS << "  {DeviceFormat(~0u), " << quote(F->getValueAsString("Name"))
         << ", " << quote(F->getValueAsString("Summary")) << ", "
         << (F->getValueAsBit("IsText") ? "true" : "false") << "},\n";
    OS << "};\n";
  }
  for (auto [I, E] : enumerate(OwnedExecs)) {
    std::vector<const Record *> Consumes = E->getValueAsListOfDefs("Consumes");
    OS << "DeviceFormat kOwnedExec" << I << "Consumes[] = {";
    ListSeparator LS;
    for (const Record *F : Consumes)
      OS << LS
         << (isOwned(F) ? std::string("DeviceFormat(~0u)")
                        : "DeviceFormat::" + cppNameOf(F));
    OS << "};\n";
  }
  if (!OwnedExecs.empty()) {
    OS << "const ExecBackendInfo kOwnedExecs[] = {\n";
    for (auto [I, E] : enumerate(OwnedExecs)) {
      StringRef Factory = E->getValueAsString("Executor");
      OS << "  {ExecBackendKind(~0u), " << quote(E->getValueAsString("Name"))
         << ",\n   " << quote(E->getValueAsString("Summary")) << ",\n   "
         << "kOwnedExec" << I << "Consumes, "
         << E->getValueAsListOfDefs("Consumes").size() << ", "
         << (E->getValueAsBit("NeedsHostCodeGen") ? "true" : "false")
         << ", DeviceCompile::"
         << cppIdent(E->getValueAsDef("Compile")->getValueAsString("Name"))
         << ", " << E->getValueAsString("Probe") << ", "
         << (Factory.empty() ? StringRef("nullptr") : Factory) << "},\n";
    }
    OS << "};\n";
  }
  OS << "\n";
}

void TargetBackendEmitter::emitEmulatorTable(raw_ostream &OS) {
  OS << "\n#ifdef GET_TILE_TARGET_EMULATOR_TABLE\n"
     << "#undef GET_TILE_TARGET_EMULATOR_TABLE\nnamespace tile {\n\n";
  std::set<std::string> Emulators;
  for (const BackendDesc &B : Backends)
    if (!B.Emulator.empty())
      Emulators.insert(B.Emulator);
  OS << "// Emulators, defined in the backends' emulator libraries.\n";
  for (const std::string &F : Emulators)
    OS << "llvm::Error " << F
       << "(const BackendContext &, const Function &, llvm::ArrayRef<ArgValue>, "
          "const EmulatorOptions &);\n";
  OS << "\n/// Registers the emulator of every backend of this list that "
        "declares one.\n"
     << "llvm::Error " << RegisterEmulatorsFnName << "(TargetRegistry &R) {\n";
  if (Emulators.empty())
    OS << "  (void)R;\n";
  for (const BackendDesc &B : Backends)
    if (!B.Emulator.empty())
      OS << "  if (llvm::Error E = R.addEmulator(" << quote(B.Name) << ", "
         << B.Emulator << "))\n    return E;\n";
  OS << "  return llvm::Error::success();\n}\n\n"
     << "} // namespace tile\n#endif // GET_TILE_TARGET_EMULATOR_TABLE\n";
}

/// The limits of \p B on kind \p K: a predicate per conditional limit,
/// then the table.
void TargetBackendEmitter::emitLimits(raw_ostream &OS, const BackendDesc &B,
                                      const KindDesc &K) {
  if (B.Limits.empty())
    return;
  PredicateCompiler PC(K);
  std::string Base = B.Id + "_" + cppIdent(K.Name);
  for (auto [I, L] : enumerate(B.Limits)) {
    const Record *When = L->getValueAsDef("When");
    if (When->getName() != "AttrAlways")
      OS << "constexpr bool applies" << Base << "Limit" << I
         << "(const int *V) {\n  return " << PC.cpp(When) << ";\n}\n";
  }
  OS << "constexpr ResourceLimitInfo k" << Base << "Limits[] = {\n";
  for (auto [I, L] : enumerate(B.Limits)) {
    const Record *When = L->getValueAsDef("When");
    bool Always = When->getName() == "AttrAlways";
    StringRef Attr = L->getValueAsString("FromAttr");
    OS << "  {ResourceKind::"
       << L->getValueAsDef("Kind")->getValueAsString("CppName") << ", "
       << L->getValueAsInt("Value") << ", "
       << (Always ? std::string("nullptr")
                  : "applies" + Base + "Limit" + std::to_string(I))
       << ", " << quote(PredicateCompiler::text(When)) << ", "
       << (Attr.empty() ? std::string("nullptr") : quote(Attr)) << ", "
       << quote(L->getValueAsString("Hint")) << "},\n";
  }
  OS << "};\n";
}

void TargetBackendEmitter::run(raw_ostream &OS) {
  collectFeatures();
  collectKinds();
  collectBackends();
  collectOpRequirements();
  collectOwnedExecution();
  checkKindOwnership();
  if (ErrorsPrinted)
    return;
  if (!isCppIdentifier(RegisterEmulatorsFnName))
    PrintFatalError("-target-register-emulators-fn='" +
                    RegisterEmulatorsFnName + "' is not a C++ identifier");
  if (!isCppIdentifier(RegisterFnName))
    PrintFatalError("-target-register-fn='" + RegisterFnName +
                    "' is not a C++ identifier");
  emitSourceFileHeader("Tile target backends", OS, RK);
  emitEnums(OS);
  emitTable(OS);
  emitEmulatorTable(OS);
}

static void emitTargetBackends(const RecordKeeper &RK, raw_ostream &OS) {
  TargetBackendEmitter(RK).run(OS);
}

/// Markdown: one table of resource limits per target backend, in name
/// order, for docs/Targets.md.
static void emitLimitDocs(const RecordKeeper &RK, raw_ostream &OS) {
  for (const Record *B :
       sortedByName(RK.getAllDerivedDefinitions("TargetBackend"))) {
    std::vector<const Record *> Limits = B->getValueAsListOfDefs("Limits");
    OS << "### " << B->getValueAsString("Name") << "\n\n";
    if (Limits.empty()) {
      OS << "No declared limits.\n\n";
      continue;
    }
    OS << "| resource | limit | when | checked |\n| --- | --- | --- | --- |\n";
    std::set<const Record *> Seen;
    for (const Record *L : Limits) {
      const Record *Kind = L->getValueAsDef("Kind");
      StringRef Attr = L->getValueAsString("FromAttr");
      std::string When = PredicateCompiler::text(L->getValueAsDef("When"));
      // The first limit of a kind that holds applies.
      if (!Seen.insert(Kind).second && When == "always")
        When = "otherwise";
      OS << "| " << Kind->getValueAsString("Name") << " | "
         << L->getValueAsInt("Value") << " " << Kind->getValueAsString("Unit")
         << (Attr.empty() ? "" : (" (or `-" + Attr + "`)").str()) << " | "
         << (When == "always" ? "" : When) << " | "
         << (Kind->getValueAsBit("Checked") ? "yes" : "no") << " |\n";
    }
    OS << "\n";
  }
}

static TableGen::Emitter::Opt X("gen-target-backends", emitTargetBackends,
                                "Generate target backend tables and their "
                                "registration function");
static TableGen::Emitter::Opt Z("gen-target-limits-docs", emitLimitDocs,
                                "Generate the resource limit tables of "
                                "docs/Targets.md");
static TableGen::Emitter::Opt Y("gen-exec-backends", emitExecBackends,
                                "Generate device format and execution "
                                "backend tables");
