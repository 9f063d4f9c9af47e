//===- Pass.cpp - Passes over Tile IR -------------------------------------===//

#include "tile/Transforms/Pass.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;

Pass::~Pass() = default;

const PassOptionInfo *PassInfo::findOption(llvm::StringRef N) const {
  for (const PassOptionInfo &O : options())
    if (N == O.Name)
      return &O;
  return nullptr;
}

bool PassOptionInfo::accepts(llvm::StringRef V) const {
  llvm::StringRef T = Type;
  int64_t I;
  if (T == "int")
    return !V.getAsInteger(10, I);
  if (T == "bool")
    return V == "true" || V == "false";
  if (!Values)
    return true;
  llvm::SmallVector<llvm::StringRef, 4> Vs;
  llvm::StringRef(Values).split(Vs, '|');
  return llvm::is_contained(Vs, V);
}

std::string PassOptionInfo::describeValues() const {
  llvm::StringRef T = Type;
  if (T == "int")
    return "an integer";
  if (T == "bool")
    return "true or false";
  if (!Values)
    return "a string";
  llvm::SmallVector<llvm::StringRef, 4> Vs;
  llvm::StringRef(Values).split(Vs, '|');
  return "one of " + llvm::join(Vs, ", ");
}

llvm::Error Pass::setOption(llvm::StringRef Name, llvm::StringRef Value) {
  const PassOptionInfo *O = Info.findOption(Name);
  if (!O) {
    std::string Known;
    for (const PassOptionInfo &K : Info.options())
      Known += (Known.empty() ? "" : ", ") + std::string(K.Name);
    return llvm::createStringError(
        "pass '" + llvm::Twine(Info.Name) + "' has no option '" + Name + "'" +
        (Known.empty() ? llvm::Twine(" (it takes none)")
                       : llvm::Twine("; it takes: ") + Known));
  }
  if (!O->accepts(Value))
    return llvm::createStringError("option '" + Name + "' of pass '" +
                                   Info.Name + "' takes " + O->describeValues() +
                                   ", got '" + Value + "'");
  Values[Name] = Value.str();
  return llvm::Error::success();
}

llvm::StringRef Pass::getOptionText(llvm::StringRef Name) const {
  auto It = Values.find(Name);
  if (It != Values.end())
    return It->second;
  const PassOptionInfo *O = Info.findOption(Name);
  assert(O && "pass has no such option");
  return O->Default;
}

int64_t Pass::getIntOption(llvm::StringRef Name) const {
  int64_t V = 0;
  bool Bad = getOptionText(Name).getAsInteger(10, V);
  assert(!Bad && "int option holds a non-integer");
  (void)Bad;
  return V;
}

bool Pass::getBoolOption(llvm::StringRef Name) const {
  return getOptionText(Name) == "true";
}

std::string Pass::getStringOption(llvm::StringRef Name) const {
  return getOptionText(Name).str();
}

/// The attribute of \p F that sets option \p Name, if it declares one and
/// \p F has it.
static const Attribute *getOptionAttr(const PassInfo &Info,
                                      llvm::StringRef Name,
                                      const Function &F) {
  const PassOptionInfo *O = Info.findOption(Name);
  assert(O && "pass has no such option");
  return O->FuncAttr ? F.getAttrs().get(O->FuncAttr) : nullptr;
}

int64_t Pass::getIntOption(llvm::StringRef Name, const Function &F) const {
  if (const Attribute *A = getOptionAttr(Info, Name, F);
      A && A->getKind() == Attribute::Kind::Int)
    return A->getInt();
  return getIntOption(Name);
}

bool Pass::getBoolOption(llvm::StringRef Name, const Function &F) const {
  if (const Attribute *A = getOptionAttr(Info, Name, F);
      A && A->getKind() == Attribute::Kind::Bool)
    return A->getBool();
  return getBoolOption(Name);
}

std::string Pass::getStringOption(llvm::StringRef Name, const Function &F) const {
  if (const Attribute *A = getOptionAttr(Info, Name, F);
      A && (A->getKind() == Attribute::Kind::String ||
            A->getKind() == Attribute::Kind::Ident))
    return A->getStr().str();
  return getStringOption(Name);
}

bool Pass::checkFunctionOptions(const Module &M, DiagnosticEngine &Diag,
                                llvm::StringSet<> &Checked) const {
  bool OK = true;
  for (const PassOptionInfo &O : Info.options()) {
    if (!O.FuncAttr || !Checked.insert(O.FuncAttr).second)
      continue;
    llvm::StringRef Type = O.Type;
    for (const auto &F : M.getFunctions())
      for (const NamedAttribute &A : F->getAttrs()) {
        if (A.Name != O.FuncAttr)
          continue;
        Attribute::Kind K = A.Value.getKind();
        bool IsString = K == Attribute::Kind::String || K == Attribute::Kind::Ident;
        if ((Type == "bool" && K == Attribute::Kind::Bool) ||
            (Type == "int" && K == Attribute::Kind::Int) ||
            (Type == "string" && IsString && O.accepts(A.Value.getStr())))
          continue;
        std::string Write = O.describeValues();
        if (Type == "bool")
          Write = "write true or false";
        else if (Type == "int")
          Write = "write an integer";
        else
          Write = "write " + Write;
        Diag.error(A.Loc, "function attribute '" + A.Name + "' sets option '" +
                              O.Name + "' of pass '" + Info.Name + "', a " +
                              Type + ", but is '" + A.Value.str() + "'; " + Write);
        OK = false;
      }
  }
  return OK;
}

std::string Pass::getPipelineText() const {
  std::string S = Info.Name;
  std::string Opts;
  for (const PassOptionInfo &O : Info.options()) {
    llvm::StringRef V = getOptionText(O.Name);
    if (V == O.Default)
      continue;
    Opts += (Opts.empty() ? "" : ",") + std::string(O.Name) + "=" + V.str();
  }
  if (!Opts.empty())
    S += "{" + Opts + "}";
  return S;
}

void PassRegistry::registerPasses(llvm::ArrayRef<PassInfo> Passes) {
  for (const PassInfo &P : Passes)
    ByName.try_emplace(P.Name, &P);
}

const PassInfo *PassRegistry::lookup(llvm::StringRef Name) const {
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : It->second;
}

std::vector<const PassInfo *> PassRegistry::getPasses() const {
  std::vector<const PassInfo *> Out;
  for (const auto &E : ByName)
    Out.push_back(E.second);
  llvm::sort(Out, [](const PassInfo *A, const PassInfo *B) {
    return llvm::StringRef(A->Name) < B->Name;
  });
  return Out;
}
