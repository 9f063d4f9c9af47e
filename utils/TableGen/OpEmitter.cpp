//===- OpEmitter.cpp - Op registry and docs from TableGen -----------------===//
//
// -gen-op-defs: for the ops of one dialect (-op-dialect=NAME), an enum of op
// codes (GET_TILE_OP_ENUM) and a constant OpInfo table with its
// registration function (GET_TILE_OP_TABLE).
// -gen-op-docs: Markdown reference for the same ops.
//
// Declarations are checked here so that mistakes surface as located errors
// at build time, not as parser misbehaviour at run time.
//
//===----------------------------------------------------------------------===//

#include "EmitterUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include <set>
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;
using tile::tblgen::cppIdent;
using tile::tblgen::emitDocEntryHeader;
using tile::tblgen::quote;

static cl::OptionCategory OpCat("Options for -gen-op-*");
static cl::opt<std::string>
    OpDialect("op-dialect", cl::desc("Dialect whose ops are emitted"),
              cl::cat(OpCat));

namespace {

struct ArgDesc {
  std::string Name;
  bool IsOperand;
  const Record *Def; // OperandKind or Attr record
};

struct OpDesc {
  const Record *R;
  std::string Name; // full name as written
  std::string Mnemonic;
  std::string Dialect;
  std::vector<ArgDesc> Operands;
  std::vector<ArgDesc> Attrs;
  std::vector<std::string> FormatTokens;
};

} // namespace

/// Splits a format into tokens: `$name`, a backquoted literal, `attr-dict`.
static std::vector<std::string> tokenizeFormat(const Record *R, StringRef F) {
  std::vector<std::string> Toks;
  SmallVector<StringRef> Parts;
  F.split(Parts, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    if (P == "attr-dict" || (P.size() > 1 && P.front() == '$')) {
      Toks.push_back(P.str());
      continue;
    }
    if (P.size() >= 3 && P.front() == '`' && P.back() == '`') {
      Toks.push_back(P.str());
      continue;
    }
    PrintFatalError(R->getFieldLoc("Format"),
                    "bad token '" + P + "' in format of '" + R->getName() +
                        "': expected $name, `literal` or attr-dict");
  }
  return Toks;
}

static OpDesc describeOp(const Record *R) {
  OpDesc D;
  D.R = R;
  const Record *Dia = R->getValueAsDef("OpDialect");
  D.Dialect = Dia->getValueAsString("Name").str();
  D.Mnemonic = R->getValueAsString("Mnemonic").str();
  D.Name = D.Dialect == "tile" ? D.Mnemonic : D.Dialect + "." + D.Mnemonic;
  if (D.Mnemonic.empty() ||
      !all_of(D.Mnemonic, [](char C) { return isAlnum(C) || C == '_'; }))
    PrintFatalError(R->getLoc(), "op '" + R->getName() + "' has mnemonic '" +
                                     D.Mnemonic +
                                     "'; use letters, digits and '_'");

  const DagInit *Args = R->getValueAsDag("Arguments");
  StringSet<> Seen;
  for (unsigned I = 0, E = Args->getNumArgs(); I != E; ++I) {
    StringRef Name = Args->getArgNameStr(I);
    const auto *DI = dyn_cast<DefInit>(Args->getArg(I));
    if (Name.empty() || !DI)
      PrintFatalError(R->getFieldLoc("Arguments"),
                      "argument " + Twine(I) + " of '" + R->getName() +
                          "' must be a named operand kind or attribute");
    if (!Seen.insert(Name).second)
      PrintFatalError(R->getFieldLoc("Arguments"),
                      "duplicate argument '" + Name + "' in '" +
                          R->getName() + "'");
    const Record *Def = DI->getDef();
    if (Def->isSubClassOf("OperandKind")) {
      D.Operands.push_back({Name.str(), true, Def});
    } else if (Def->isSubClassOf("Attr")) {
      StringRef Dflt = Def->getValueAsString("Default");
      if (Def->getValueAsString("Kind") == "Enum" && !Dflt.empty() &&
          !is_contained(Def->getValueAsListOfStrings("Values"), Dflt))
        PrintFatalError(R->getFieldLoc("Arguments"),
                        "default '" + Dflt + "' of enum attribute '" + Name +
                            "' in '" + R->getName() +
                            "' is not one of its values");
      D.Attrs.push_back({Name.str(), false, Def});
    } else {
      PrintFatalError(R->getFieldLoc("Arguments"),
                      "argument '" + Name + "' of '" + R->getName() +
                          "' is neither an OperandKind nor an Attr");
    }
  }

  for (StringRef W : R->getValueAsListOfStrings("Writes"))
    if (!any_of(D.Operands, [&](const ArgDesc &A) { return A.Name == W; }))
      PrintFatalError(R->getFieldLoc("Writes"),
                      "'" + R->getName() + "' writes '" + W +
                          "', which is not one of its operands");
  D.FormatTokens = tokenizeFormat(R, R->getValueAsString("Format"));
  StringSet<> Used;
  bool HasAttrDict = false;
  for (const std::string &T : D.FormatTokens) {
    if (T == "attr-dict") {
      HasAttrDict = true;
      continue;
    }
    if (T.front() != '$')
      continue;
    StringRef N = StringRef(T).drop_front();
    if (!Seen.contains(N))
      PrintFatalError(R->getFieldLoc("Format"),
                      "format of '" + R->getName() + "' names '$" + N +
                          "', which is not one of its arguments");
    if (!Used.insert(N).second)
      PrintFatalError(R->getFieldLoc("Format"),
                      "format of '" + R->getName() + "' names '$" + N +
                          "' twice");
  }
  for (const ArgDesc &A : D.Operands)
    if (!Used.contains(A.Name))
      PrintFatalError(R->getFieldLoc("Format"),
                      "format of '" + R->getName() + "' does not place operand '$" +
                          A.Name + "'");
  if (!HasAttrDict)
    PrintFatalError(R->getFieldLoc("Format"),
                    "format of '" + R->getName() + "' has no attr-dict");
  return D;
}

static std::vector<OpDesc> collectOps(const RecordKeeper &RK,
                                      const Record *&Dialect) {
  Dialect = nullptr;
  for (const Record *D : RK.getAllDerivedDefinitions("Dialect"))
    if (D->getValueAsString("Name") == OpDialect)
      Dialect = D;
  if (!Dialect)
    PrintFatalError("no Dialect record named '" + OpDialect +
                    "' (pass -op-dialect=NAME)");
  std::vector<OpDesc> Ops;
  StringMap<const Record *> Names;
  for (const Record *R : RK.getAllDerivedDefinitions("Op")) {
    if (R->getValueAsDef("OpDialect") != Dialect)
      continue;
    OpDesc D = describeOp(R);
    auto [It, New] = Names.try_emplace(D.Name, R);
    if (!New) {
      PrintError(R->getLoc(), "duplicate op '" + D.Name + "'");
      PrintFatalNote(It->second->getLoc(), "previous declaration is here");
    }
    Ops.push_back(std::move(D));
  }
  // Deterministic order: by name.
  llvm::sort(Ops, [](const OpDesc &A, const OpDesc &B) { return A.Name < B.Name; });
  return Ops;
}

static void emitOpDefs(const RecordKeeper &RK, raw_ostream &OS) {
  emitSourceFileHeader("Tile op definitions", OS, RK);
  const Record *Dialect;
  std::vector<OpDesc> Ops = collectOps(RK, Dialect);
  std::string Prefix = Dialect->getValueAsString("CppPrefix").str();
  if (Prefix.empty())
    Prefix = cppIdent(OpDialect);
  std::string RegFn = Dialect->getValueAsString("RegisterFn").str();
  if (RegFn.empty())
    PrintFatalError(Dialect->getLoc(),
                    "dialect '" + OpDialect + "' has no RegisterFn");

  OS << "#ifdef GET_TILE_OP_ENUM\n#undef GET_TILE_OP_ENUM\n";
  OS << "namespace tile {\nenum class " << Prefix << "OpCode : unsigned {\n";
  for (const OpDesc &D : Ops)
    OS << "  " << cppIdent(D.Mnemonic) << ",\n";
  OS << "};\n} // namespace tile\n#endif // GET_TILE_OP_ENUM\n\n";

  OS << "#ifdef GET_TILE_OP_TABLE\n#undef GET_TILE_OP_TABLE\n";
  OS << "namespace tile {\n";
  std::set<std::string> Verifiers;
  for (const OpDesc &D : Ops) {
    StringRef V = D.R->getValueAsString("Verifier");
    if (!V.empty())
      Verifiers.insert(V.str());
  }
  for (const std::string &V : Verifiers)
    OS << "bool " << V << "(const OpStmt &, DiagnosticEngine &);\n";
  OS << "namespace {\n";
  for (const OpDesc &D : Ops) {
    std::string Id = cppIdent(D.Mnemonic);
    for (const ArgDesc &A : D.Attrs) {
      std::vector<StringRef> Vals = A.Def->getValueAsListOfStrings("Values");
      if (Vals.empty())
        continue;
      OS << "const char *const k" << Id << "_" << cppIdent(A.Name)
         << "Values[] = {";
      ListSeparator LS;
      for (StringRef V : Vals)
        OS << LS << quote(V);
      OS << "};\n";
    }
    if (!D.Operands.empty()) {
      OS << "const OpOperandInfo k" << Id << "Operands[] = {\n";
      std::vector<StringRef> Writes = D.R->getValueAsListOfStrings("Writes");
      for (const ArgDesc &A : D.Operands)
        OS << "  {" << quote(A.Name) << ", OperandKind::"
           << A.Def->getValueAsString("Kind") << ", \"\", "
           << (is_contained(Writes, A.Name) ? "true" : "false") << "},\n";
      OS << "};\n";
    }
    if (!D.Attrs.empty()) {
      OS << "const OpAttrInfo k" << Id << "Attrs[] = {\n";
      for (const ArgDesc &A : D.Attrs) {
        StringRef Dflt = A.Def->getValueAsString("Default");
        size_t NVals = A.Def->getValueAsListOfStrings("Values").size();
        OS << "  {" << quote(A.Name) << ", AttrKind::"
           << A.Def->getValueAsString("Kind") << ", "
           << (Dflt.empty() ? std::string("nullptr") : quote(Dflt)) << ", "
           << (NVals ? "k" + Id + "_" + cppIdent(A.Name) + "Values"
                     : std::string("nullptr"))
           << ", " << NVals << ", "
           << quote(A.Def->getValueAsString("Summary")) << "},\n";
      }
      OS << "};\n";
    }
  }
  OS << "const OpInfo k" << Prefix << "Ops[] = {\n";
  for (auto [Idx, D] : enumerate(Ops)) {
    std::string Id = cppIdent(D.Mnemonic);
    StringRef V = D.R->getValueAsString("Verifier");
    std::string Fmt;
    for (const std::string &T : D.FormatTokens)
      Fmt += (Fmt.empty() ? "" : " ") + T;
    OS << "  {" << quote(D.Name) << ", " << quote(D.Dialect) << ",\n   "
       << quote(D.R->getValueAsString("Summary")) << ",\n   "
       << quote(D.R->getValueAsString("Description").trim()) << ",\n   "
       << quote(D.R->getValueAsString("Example")) << ",\n   " << quote(Fmt)
       << ",\n   "
       << (D.Operands.empty() ? std::string("nullptr") : "k" + Id + "Operands")
       << ", " << D.Operands.size() << ", "
       << (D.Attrs.empty() ? std::string("nullptr") : "k" + Id + "Attrs")
       << ", " << D.Attrs.size() << ", "
       << (V.empty() ? std::string("nullptr") : V.str()) << ", " << Idx
       << ", " << (D.R->getValueAsBit("Elementwise") ? "true" : "false")
       << "},\n";
  }
  OS << "};\n} // namespace\n\n";
  OS << "void " << RegFn << "(OpRegistry &R) {\n  R.registerDialect("
     << quote(OpDialect) << ", k" << Prefix << "Ops);\n}\n";
  OS << "} // namespace tile\n#endif // GET_TILE_OP_TABLE\n";
}

static void emitOpDocs(const RecordKeeper &RK, raw_ostream &OS) {
  const Record *Dialect;
  std::vector<OpDesc> Ops = collectOps(RK, Dialect);
  OS << "<!-- Generated by tile-tblgen -gen-op-docs; do not edit. -->\n";
  OS << "# Dialect `" << OpDialect << "`\n\n"
     << Dialect->getValueAsString("Summary") << "\n\n";
  for (const OpDesc &D : Ops) {
    emitDocEntryHeader(OS, D.Name, D.R->getValueAsString("Summary"),
                       D.R->getValueAsString("Description"));
    OS << "Syntax: `" << D.Name;
    for (const std::string &T : D.FormatTokens) {
      if (T == "attr-dict")
        OS << " {attributes}";
      else if (T.front() == '`')
        OS << " " << StringRef(T).drop_front().drop_back();
      else
        OS << " " << T;
    }
    OS << "`\n\n";
    StringRef Ex = D.R->getValueAsString("Example");
    if (!Ex.empty())
      OS << "Example:\n\n```\n" << Ex << "\n```\n\n";
    if (!D.Operands.empty()) {
      OS << "| operand | kind |\n| --- | --- |\n";
      for (const ArgDesc &A : D.Operands)
        OS << "| `" << A.Name << "` | " << A.Def->getValueAsString("Kind")
           << " |\n";
      OS << "\n";
    }
    if (!D.Attrs.empty()) {
      OS << "| attribute | kind | default | meaning |\n| --- | --- | --- | --- |\n";
      for (const ArgDesc &A : D.Attrs) {
        std::string Kind = A.Def->getValueAsString("Kind").str();
        std::vector<StringRef> Vals = A.Def->getValueAsListOfStrings("Values");
        if (!Vals.empty())
          Kind += " (" + join(Vals, ", ") + ")";
        StringRef Dflt = A.Def->getValueAsString("Default");
        OS << "| `" << A.Name << "` | " << Kind << " | "
           << (Dflt.empty() ? "required" : ("`" + Dflt + "`").str()) << " | "
           << A.Def->getValueAsString("Summary") << " |\n";
      }
      OS << "\n";
    }
  }
}

static TableGen::Emitter::Opt X("gen-op-defs", emitOpDefs,
                                "Generate an op registry table");
static TableGen::Emitter::Opt Y("gen-op-docs", emitOpDocs,
                                "Generate op reference documentation");
