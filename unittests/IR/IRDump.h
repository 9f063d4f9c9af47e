//===- IRDump.h - A typed structural dump of Tile IR for tests --*- C++ -*-===//
//
// The textual format leaves out what two equal-looking modules may still
// differ in: literal and expression types, value kinds and types, attributes
// set to their default, an else block holding one if written with or
// without braces. dumpTyped writes all of it, so a test can check that IR
// built in C++ is the IR the parser builds, not just that it prints alike.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_IR_IRDUMP_H
#define TILE_UNITTESTS_IR_IRDUMP_H

#include "tile/IR/IR.h"
#include "tile/IR/Walk.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace tile {
namespace unittest {

inline void dumpTypedExpr(const Expr &E, llvm::raw_ostream &OS) {
  OS << '(';
  switch (E.getKind()) {
  case Expr::Kind::IntLit:
    OS << "int " << llvm::cast<IntLitExpr>(E).getValue();
    break;
  case Expr::Kind::FloatLit:
    OS << "float " << formatFloat(llvm::cast<FloatLitExpr>(E).getValue());
    break;
  case Expr::Kind::Ref: {
    const Value *V = llvm::cast<RefExpr>(E).getValue();
    OS << "ref " << V->getName() << '/' << unsigned(V->getKind());
    break;
  }
  case Expr::Kind::Load:
    OS << "load %" << llvm::cast<LoadExpr>(E).getBuffer()->getName();
    break;
  case Expr::Kind::Binary:
    OS << getBinaryOpSpelling(llvm::cast<BinaryExpr>(E).getOp());
    break;
  case Expr::Kind::Unary:
    OS << (llvm::cast<UnaryExpr>(E).getOp() == UnaryOp::Neg ? "neg" : "not");
    break;
  case Expr::Kind::Call:
    OS << getIntrinsicName(llvm::cast<CallExpr>(E).getIntrinsic());
    break;
  case Expr::Kind::Cast:
    OS << "cast";
    break;
  case Expr::Kind::Inf:
    OS << "inf";
    break;
  }
  OS << ':' << getDTypeName(E.getDType());
  forEachChild(E, [&](const Expr &C) {
    OS << ' ';
    dumpTypedExpr(C, OS);
  });
  OS << ')';
}

inline void dumpTypedValue(const Value &V, llvm::raw_ostream &OS) {
  OS << '%' << V.getName() << '/' << unsigned(V.getKind()) << ':'
     << getDTypeName(V.getDType());
  if (const auto *B = llvm::dyn_cast<BufferValue>(&V)) {
    OS << ' ' << getScopeName(B->getScope()) << (B->isParam() ? " param" : "")
       << " shape[";
    for (const ExprPtr &D : B->getShape())
      dumpTypedExpr(*D, OS);
    OS << "] strides[";
    for (const ExprPtr &D : B->getStrides())
      dumpTypedExpr(*D, OS);
    OS << ']';
  }
}

inline void dumpTypedAttrs(const AttributeList &A, llvm::raw_ostream &OS) {
  for (const NamedAttribute &N : A) {
    OS << ' ' << N.Name << '=' << unsigned(N.Value.getKind()) << ':';
    N.Value.print(OS);
  }
}

inline void dumpTypedBlock(const Block &B, llvm::raw_ostream &OS,
                           unsigned Indent);

inline void dumpTypedStmt(const Stmt &CS, llvm::raw_ostream &OS,
                          unsigned Indent) {
  Stmt &S = const_cast<Stmt &>(CS);
  OS.indent(Indent) << "stmt " << unsigned(S.getKind());
  if (const auto *A = llvm::dyn_cast<AllocStmt>(&S)) {
    OS << ' ';
    dumpTypedValue(*A->getBuffer(), OS);
    dumpTypedAttrs(A->getAttrs(), OS);
  } else if (const auto *L = llvm::dyn_cast<LetStmt>(&S)) {
    OS << ' ';
    dumpTypedValue(*L->getVar(), OS);
  } else if (const auto *St = llvm::dyn_cast<StoreStmt>(&S)) {
    OS << " %" << St->getBuffer()->getName();
  } else if (const auto *F = llvm::dyn_cast<ForStmt>(&S)) {
    OS << ' ' << getLoopKindName(F->getLoopKind());
    for (const LoopDim &D : F->getDims()) {
      OS << ' ';
      dumpTypedValue(*D.Var, OS);
      OS << (D.Lo ? " lo" : " nolo");
    }
    OS << (F->getStep() ? " step" : " nostep");
    dumpTypedAttrs(F->getAttrs(), OS);
  } else if (const auto *I = llvm::dyn_cast<IfStmt>(&S)) {
    OS << (I->hasElse() ? " with-else" : " no-else");
  } else if (const auto *K = llvm::dyn_cast<KernelStmt>(&S)) {
    for (const auto &V : K->getBlockIndices()) {
      OS << ' ';
      dumpTypedValue(*V, OS);
    }
    if (K->getThreadIndex()) {
      OS << " thread ";
      dumpTypedValue(*K->getThreadIndex(), OS);
    }
    dumpTypedAttrs(K->getAttrs(), OS);
  } else if (const auto *O = llvm::dyn_cast<OpStmt>(&S)) {
    OS << ' ' << O->getName();
    for (const OpOperand &Opnd : O->getOperands()) {
      if (Opnd.Kind == OperandKind::Region) {
        OS << " region %" << Opnd.R.Buf->getName() << '[';
        for (const RegionIndex &RI : Opnd.R.Indices)
          OS << (RI.Extent ? "x" : "-");
        OS << ']';
      } else {
        OS << " expr";
      }
    }
    dumpTypedAttrs(O->getAttrs(), OS);
  }
  OS << '\n';
  forEachExprSlot(S, [&](ExprPtr &E) {
    OS.indent(Indent + 2) << "= ";
    dumpTypedExpr(*E, OS);
    OS << '\n';
  });
  for (Block *N : getNestedBlocks(S))
    dumpTypedBlock(*N, OS, Indent + 2);
}

inline void dumpTypedBlock(const Block &B, llvm::raw_ostream &OS,
                           unsigned Indent) {
  OS.indent(Indent) << "{\n";
  for (const StmtPtr &S : B.Stmts)
    dumpTypedStmt(*S, OS, Indent + 2);
  OS.indent(Indent) << "}\n";
}

/// Every node of \p F with its type, kind and attributes.
inline std::string dumpTyped(const Function &F) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "func @" << F.getName();
  dumpTypedAttrs(F.getAttrs(), OS);
  OS << '\n';
  for (const auto &D : F.getDims()) {
    OS << "  dim ";
    dumpTypedValue(*D, OS);
    OS << '\n';
  }
  for (const auto &P : F.getParams()) {
    OS << "  param ";
    dumpTypedValue(*P, OS);
    OS << '\n';
  }
  dumpTypedBlock(F.getBody(), OS, 2);
  return Out;
}

inline std::string dumpTyped(const Module &M) {
  std::string Out;
  for (const auto &F : M.getFunctions())
    Out += dumpTyped(*F);
  return Out;
}

} // namespace unittest
} // namespace tile

#endif // TILE_UNITTESTS_IR_IRDUMP_H
