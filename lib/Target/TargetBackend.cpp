//===- TargetBackend.cpp - Queries on generated backend descriptors -------===//

#include "tile/Target/TargetBackend.h"
#include "llvm/ADT/STLExtras.h"

using namespace tile;

llvm::StringRef tile::getTargetAttrTypeName(TargetAttrType T) {
  switch (T) {
  case TargetAttrType::String:
    return "string";
  case TargetAttrType::Int:
    return "int";
  case TargetAttrType::Bool:
    return "bool";
  }
  llvm_unreachable("unknown attribute type");
}

llvm::StringRef tile::getOutputModeName(OutputMode M) {
  return M == OutputMode::SourceOnly ? "source" : "compiled";
}

unsigned TargetAttrInfo::getNumAllowedValues() const {
  return Type == TargetAttrType::Bool ? 2 : NumValues;
}

llvm::StringRef TargetAttrInfo::getAllowedValue(unsigned I) const {
  assert(I < getNumAllowedValues() && "no such value");
  if (Type == TargetAttrType::Bool)
    return I ? "true" : "false";
  return Values[I];
}

int TargetAttrInfo::findValue(llvm::StringRef V) const {
  for (unsigned I = 0, E = getNumAllowedValues(); I != E; ++I)
    if (getAllowedValue(I) == V)
      return I;
  return -1;
}

int TargetKindInfo::findAttr(llvm::StringRef N) const {
  for (auto [I, A] : llvm::enumerate(attrs()))
    if (N == A.Name)
      return I;
  return -1;
}

const BackendKindInfo *
TargetBackendInfo::findKind(const TargetKindInfo &K) const {
  for (const BackendKindInfo &BK : kinds())
    if (BK.Kind == &K)
      return &BK;
  return nullptr;
}

const ExecCompatInfo *TargetBackendInfo::findExec(ExecBackendKind E) const {
  for (const ExecCompatInfo &C : execBackends())
    if (C.Exec == E)
      return &C;
  return nullptr;
}

bool TargetBackendInfo::hasDialect(llvm::StringRef Name) const {
  return llvm::any_of(dialects(),
                      [&](const DialectInfo &D) { return Name == D.Name; });
}

uint64_t TargetBackendInfo::getDeclaredFeatures() const {
  uint64_t Mask = 0;
  for (const BackendKindInfo &BK : kinds())
    for (const FeatureCondition &FC : BK.features())
      Mask |= FC.Features;
  return Mask;
}
