//===- OpRegistry.cpp - Registry of tile ops ------------------------------===//

#include "tile/IR/OpRegistry.h"
#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/STLExtras.h"

using namespace tile;

const OpAttrInfo *OpInfo::findAttr(llvm::StringRef N) const {
  for (const OpAttrInfo &A : attrs())
    if (N == A.Name)
      return &A;
  return nullptr;
}

int OpInfo::findOperand(llvm::StringRef N) const {
  for (unsigned I = 0; I != NumOperands; ++I)
    if (N == Operands[I].Name)
      return I;
  return -1;
}

bool OpInfo::isCommon() const { return llvm::StringRef(Dialect) == "tile"; }

void OpRegistry::registerDialect(llvm::StringRef Dialect,
                                 llvm::ArrayRef<OpInfo> Ops) {
  if (hasDialect(Dialect))
    return;
  Dialects.push_back(Dialect.str());
  for (const OpInfo &Op : Ops) {
    bool Inserted = ByName.try_emplace(Op.Name, &Op).second;
    assert(Inserted && "op registered by two dialects");
    (void)Inserted;
    AllOps.push_back(&Op);
  }
}

const OpInfo *OpRegistry::lookup(llvm::StringRef Name) const {
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : It->second;
}

bool OpRegistry::hasDialect(llvm::StringRef Dialect) const {
  return llvm::is_contained(Dialects, Dialect);
}

#define GET_TILE_OP_TABLE
#include "tile/IR/TileOps.inc"
