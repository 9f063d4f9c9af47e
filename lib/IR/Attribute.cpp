//===- Attribute.cpp - Constant attribute values --------------------------===//

#include "tile/IR/Attribute.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <cstdio>

using namespace tile;

Attribute Attribute::getInt(int64_t V) {
  Attribute A;
  A.K = Kind::Int;
  A.I = V;
  return A;
}
Attribute Attribute::getFloat(double V) {
  Attribute A;
  A.K = Kind::Float;
  A.F = V;
  return A;
}
Attribute Attribute::getBool(bool V) {
  Attribute A;
  A.K = Kind::Bool;
  A.I = V;
  return A;
}
Attribute Attribute::getString(llvm::StringRef V) {
  Attribute A;
  A.K = Kind::String;
  A.S = V.str();
  return A;
}
Attribute Attribute::getIdent(llvm::StringRef V) {
  Attribute A;
  A.K = Kind::Ident;
  A.S = V.str();
  return A;
}
Attribute Attribute::getList(std::vector<Attribute> Elems) {
  Attribute A;
  A.K = Kind::List;
  A.Elems = std::move(Elems);
  return A;
}
Attribute Attribute::getCall(llvm::StringRef Callee, std::vector<Attribute> Args) {
  Attribute A;
  A.K = Kind::Call;
  A.S = Callee.str();
  A.Elems = std::move(Args);
  return A;
}

namespace tile {
/// Shortest decimal text that reads back as \p V and lexes as a float.
std::string formatFloat(double V) {
  if (std::isnan(V))
    return "nan";
  char Buf[64];
  for (int P = 1; P <= 17; ++P) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", P, V);
    if (std::strtod(Buf, nullptr) == V)
      break;
  }
  std::string S = Buf;
  if (S.find_first_of(".eEn") == std::string::npos)
    S += ".0";
  // "1e+20" -> "1e20" keeps the lexer's grammar simple.
  size_t Plus = S.find("e+");
  if (Plus != std::string::npos)
    S.erase(Plus + 1, 1);
  // The lexer needs a digit after '.', and "1e5" must stay a float.
  return S;
}
} // namespace tile

void Attribute::print(llvm::raw_ostream &OS) const {
  switch (K) {
  case Kind::Int:
    OS << I;
    return;
  case Kind::Float:
    OS << formatFloat(F);
    return;
  case Kind::Bool:
    OS << (I ? "true" : "false");
    return;
  case Kind::String:
    OS << '"' << S << '"';
    return;
  case Kind::Ident:
    OS << S;
    return;
  case Kind::List:
  case Kind::Call: {
    if (K == Kind::Call)
      OS << S << '(';
    else
      OS << '[';
    llvm::ListSeparator LS;
    for (const Attribute &E : Elems) {
      OS << LS;
      E.print(OS);
    }
    OS << (K == Kind::Call ? ')' : ']');
    return;
  }
  }
}

std::string Attribute::str() const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  print(OS);
  return Out;
}

bool Attribute::operator==(const Attribute &O) const {
  if (K != O.K)
    return false;
  switch (K) {
  case Kind::Int:
  case Kind::Bool:
    return I == O.I;
  case Kind::Float:
    return F == O.F || (std::isnan(F) && std::isnan(O.F));
  case Kind::String:
  case Kind::Ident:
    return S == O.S;
  case Kind::List:
  case Kind::Call:
    return S == O.S && Elems == O.Elems;
  }
  return false;
}

void AttributeList::set(llvm::StringRef Name, Attribute V, llvm::SMLoc Loc) {
  for (NamedAttribute &A : Attrs)
    if (A.Name == Name) {
      A.Value = std::move(V);
      return;
    }
  Attrs.push_back({Name.str(), std::move(V), Loc});
}

const NamedAttribute *AttributeList::getNamed(llvm::StringRef Name) const {
  for (const NamedAttribute &A : Attrs)
    if (A.Name == Name)
      return &A;
  return nullptr;
}

const Attribute *AttributeList::get(llvm::StringRef Name) const {
  const NamedAttribute *A = getNamed(Name);
  return A ? &A->Value : nullptr;
}

void AttributeList::printDict(llvm::raw_ostream &OS) const {
  OS << '{';
  llvm::ListSeparator LS;
  for (const NamedAttribute &A : Attrs) {
    OS << LS << A.Name << " = ";
    A.Value.print(OS);
  }
  OS << '}';
}
