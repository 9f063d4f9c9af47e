//===- PassEmitter.cpp - Pass registry and docs from TableGen -------------===//
//
// -gen-pass-defs: factory declarations (GET_TILE_PASS_DECLS) and a constant
// PassInfo table with its registration function (GET_TILE_PASS_TABLE) for
// every pass of one PassGroup (-pass-group=RECORD, or all when there is
// only one). -gen-pass-docs: Markdown reference.
//
//===----------------------------------------------------------------------===//

#include "EmitterUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"
#include <set>

using namespace llvm;
using tile::tblgen::cppIdent;
using tile::tblgen::emitDocEntryHeader;
using tile::tblgen::quote;

static cl::OptionCategory PassCat("Options for -gen-pass-*");
static cl::opt<std::string>
    PassGroupName("pass-group",
                  cl::desc("PassGroup record whose passes are emitted"),
                  cl::cat(PassCat));

static void checkPass(const Record *R) {
  StringRef Name = R->getValueAsString("Name");
  if (Name.empty() || !all_of(Name, [](char C) {
        return isLower(C) || isDigit(C) || C == '-';
      }))
    PrintFatalError(R->getFieldLoc("Name"),
                    "pass name '" + Name +
                        "' must use lower-case letters, digits and '-'");
  if (R->getValueAsString("Constructor").empty())
    PrintFatalError(R->getLoc(), "pass '" + Name + "' has no Constructor");
  StringMap<bool> Seen;
  for (const Record *O : R->getValueAsListOfDefs("Options")) {
    StringRef OName = O->getValueAsString("Name");
    StringRef Type = O->getValueAsString("Type");
    StringRef Dflt = O->getValueAsString("Default");
    if (!Seen.try_emplace(OName, true).second)
      PrintFatalError(R->getFieldLoc("Options"),
                      "pass '" + Name + "' declares option '" + OName +
                          "' twice");
    if (Type != "int" && Type != "bool" && Type != "string")
      PrintFatalError(R->getFieldLoc("Options"),
                      "option '" + OName + "' of pass '" + Name +
                          "' has type '" + Type +
                          "'; expected int, bool or string");
    StringRef Attr = O->getValueAsString("FuncAttr");
    if (!Attr.empty() &&
        (!Attr.starts_with("pass.") || Attr.size() == 5 ||
         !all_of(Attr.drop_front(5),
                 [](char C) { return isLower(C) || isDigit(C) || C == '_'; })))
      PrintFatalError(R->getFieldLoc("Options"),
                      "function attribute '" + Attr + "' of option '" + OName +
                          "' of pass '" + Name +
                          "' must be named pass.<name>, with lower-case "
                          "letters, digits and '_'");
    std::vector<StringRef> Values = O->getValueAsListOfStrings("Values");
    if (!Values.empty() && Type != "string")
      PrintFatalError(R->getFieldLoc("Options"),
                      "option '" + OName + "' of pass '" + Name +
                          "' lists values but is a " + Type +
                          "; only a string option takes a list of values");
    if (!Values.empty() && !is_contained(Values, Dflt))
      PrintFatalError(R->getFieldLoc("Options"),
                      "default '" + Dflt + "' of option '" + OName +
                          "' of pass '" + Name + "' is not one of its values (" +
                          join(Values, ", ") + ")");
    if (any_of(Values, [](StringRef V) { return V.empty() || V.contains('|'); }))
      PrintFatalError(R->getFieldLoc("Options"),
                      "a value of option '" + OName + "' of pass '" + Name +
                          "' is empty or contains '|'");
    int64_t I;
    if ((Type == "bool" && Dflt != "true" && Dflt != "false") ||
        (Type == "int" && Dflt.getAsInteger(10, I)))
      PrintFatalError(R->getFieldLoc("Options"),
                      "default '" + Dflt + "' of option '" + OName +
                          "' of pass '" + Name + "' is not a valid " + Type);
  }
}

static std::vector<const Record *> collectPasses(const RecordKeeper &RK,
                                                 const Record *&Group) {
  Group = nullptr;
  std::vector<const Record *> Groups = RK.getAllDerivedDefinitions("PassGroup");
  if (!PassGroupName.empty()) {
    Group = RK.getDef(PassGroupName);
    if (!Group || !Group->isSubClassOf("PassGroup"))
      PrintFatalError("no PassGroup record named '" + PassGroupName + "'");
  } else if (Groups.size() == 1) {
    Group = Groups.front();
  } else {
    PrintFatalError("several PassGroups are defined; pass -pass-group=NAME");
  }
  std::vector<const Record *> Passes;
  StringMap<const Record *> Names;
  for (const Record *R : RK.getAllDerivedDefinitions("Pass")) {
    checkPass(R);
    auto [It, New] = Names.try_emplace(R->getValueAsString("Name"), R);
    if (!New) {
      PrintError(R->getLoc(), "duplicate pass name '" +
                                  R->getValueAsString("Name") + "'");
      PrintFatalNote(It->second->getLoc(), "previous declaration is here");
    }
    if (R->getValueAsDef("Group") == Group)
      Passes.push_back(R);
  }
  llvm::sort(Passes, [](const Record *A, const Record *B) {
    return A->getValueAsString("Name") < B->getValueAsString("Name");
  });
  return Passes;
}

static void emitPassDefs(const RecordKeeper &RK, raw_ostream &OS) {
  emitSourceFileHeader("Tile pass definitions", OS, RK);
  const Record *Group;
  std::vector<const Record *> Passes = collectPasses(RK, Group);

  OS << "#ifdef GET_TILE_PASS_DECLS\n#undef GET_TILE_PASS_DECLS\n"
     << "namespace tile {\n";
  std::set<std::string> Ctors;
  for (const Record *R : Passes)
    Ctors.insert(R->getValueAsString("Constructor").str());
  for (const std::string &C : Ctors)
    OS << "std::unique_ptr<Pass> " << C << "();\n";
  for (const Record *R : Passes)
    OS << "const PassInfo &get" << R->getName() << "PassInfo();\n";
  OS << "} // namespace tile\n#endif // GET_TILE_PASS_DECLS\n\n";

  OS << "#ifdef GET_TILE_PASS_TABLE\n#undef GET_TILE_PASS_TABLE\n"
     << "namespace tile {\nnamespace {\n";
  for (const Record *R : Passes) {
    std::vector<const Record *> Opts = R->getValueAsListOfDefs("Options");
    if (Opts.empty())
      continue;
    OS << "const PassOptionInfo k" << cppIdent(R->getValueAsString("Name"))
       << "Options[] = {\n";
    for (const Record *O : Opts)
      OS << "  {" << quote(O->getValueAsString("Name")) << ", "
         << quote(O->getValueAsString("Type")) << ", "
         << quote(O->getValueAsString("Default")) << ", "
         << quote(O->getValueAsString("Summary")) << ", "
         << (O->getValueAsString("FuncAttr").empty()
                 ? std::string("nullptr")
                 : quote(O->getValueAsString("FuncAttr")))
         << ", "
         << (O->getValueAsListOfStrings("Values").empty()
                 ? std::string("nullptr")
                 : quote(join(O->getValueAsListOfStrings("Values"), "|")))
         << "},\n";
    OS << "};\n";
  }
  OS << "const PassInfo kPasses[] = {\n";
  for (const Record *R : Passes) {
    StringRef Name = R->getValueAsString("Name");
    size_t NOpts = R->getValueAsListOfDefs("Options").size();
    OS << "  {" << quote(Name) << ", " << quote(R->getValueAsString("Summary"))
       << ",\n   " << quote(R->getValueAsString("Description").trim()) << ",\n   "
       << (NOpts ? "k" + cppIdent(Name) + "Options" : std::string("nullptr"))
       << ", " << NOpts << ", " << R->getValueAsString("Constructor")
       << "},\n";
  }
  OS << "};\n} // namespace\n\n";
  for (auto [I, R] : llvm::enumerate(Passes))
    OS << "const PassInfo &get" << R->getName() << "PassInfo() { return kPasses["
       << I << "]; }\n";
  OS << "void " << Group->getValueAsString("RegisterFn")
     << "(PassRegistry &R) { R.registerPasses(kPasses); }\n";
  OS << "} // namespace tile\n#endif // GET_TILE_PASS_TABLE\n";
}

static void emitPassDocs(const RecordKeeper &RK, raw_ostream &OS) {
  const Record *Group;
  std::vector<const Record *> Passes = collectPasses(RK, Group);
  OS << "<!-- Generated by tile-tblgen -gen-pass-docs; do not edit. -->\n";
  for (const Record *R : Passes) {
    emitDocEntryHeader(OS, R->getValueAsString("Name"),
                       R->getValueAsString("Summary"),
                       R->getValueAsString("Description"));
    std::vector<const Record *> Opts = R->getValueAsListOfDefs("Options");
    if (Opts.empty())
      continue;
    OS << "| option | type | default | meaning |\n| --- | --- | --- | --- |\n";
    for (const Record *O : Opts)
      OS << "| `" << O->getValueAsString("Name") << "` | "
         << (O->getValueAsListOfStrings("Values").empty()
                 ? O->getValueAsString("Type").str()
                 : join(O->getValueAsListOfStrings("Values"), " \\| "))
         << " | `"
         << O->getValueAsString("Default") << "` | "
         << O->getValueAsString("Summary")
         << (O->getValueAsString("FuncAttr").empty()
                 ? std::string()
                 : "; per function: `" +
                       O->getValueAsString("FuncAttr").str() + "`")
         << " |\n";
    OS << "\n";
  }
}

static TableGen::Emitter::Opt X("gen-pass-defs", emitPassDefs,
                                "Generate a pass registry table");
static TableGen::Emitter::Opt Y("gen-pass-docs", emitPassDocs,
                                "Generate pass documentation");
