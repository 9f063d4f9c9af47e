//===- Printer.cpp - Writing the Tile textual format ----------------------===//
//
// The canonical form: two-space indentation, one statement a line, minimal
// parentheses (by the parser's precedence table), loop bounds as
// (begin, end), op attributes in declared order with defaults omitted.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Printer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

static unsigned getPrecedence(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::LogicalOr: return 1;
  case BinaryOp::LogicalAnd: return 2;
  case BinaryOp::Or: return 3;
  case BinaryOp::Xor: return 4;
  case BinaryOp::And: return 5;
  case BinaryOp::Eq:
  case BinaryOp::Ne: return 6;
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge: return 7;
  case BinaryOp::Shl:
  case BinaryOp::Shr: return 8;
  case BinaryOp::Add:
  case BinaryOp::Sub: return 9;
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Rem: return 10;
  }
  return 0;
}

/// Unary operators and primaries bind tighter than any binary operator.
static constexpr unsigned kUnaryPrec = 11;

static void printExprPrec(const Expr &E, llvm::raw_ostream &OS,
                          unsigned MinPrec);

static void printExprList(llvm::ArrayRef<ExprPtr> Es, llvm::raw_ostream &OS) {
  llvm::ListSeparator LS;
  for (const ExprPtr &E : Es) {
    OS << LS;
    printExprPrec(*E, OS, 1);
  }
}

static void printExprPrec(const Expr &E, llvm::raw_ostream &OS,
                          unsigned MinPrec) {
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    const auto &L = cast<IntLitExpr>(E);
    if (L.getDType() == DType::I1) {
      OS << (L.getValue() ? "true" : "false");
      return;
    }
    // A negative literal binds like a unary minus.
    bool Paren = L.getValue() < 0 && MinPrec > kUnaryPrec;
    OS << (Paren ? "(" : "") << L.getValue() << (Paren ? ")" : "");
    return;
  }
  case Expr::Kind::FloatLit: {
    double V = cast<FloatLitExpr>(E).getValue();
    if (std::isinf(V)) {
      OS << (V < 0 ? "-" : "") << "inf<" << getDTypeName(E.getDType())
         << ">()";
      return;
    }
    bool Paren = std::signbit(V) && MinPrec > kUnaryPrec;
    OS << (Paren ? "(" : "") << formatFloat(V) << (Paren ? ")" : "");
    return;
  }
  case Expr::Kind::Ref: {
    const Value *V = cast<RefExpr>(E).getValue();
    if (V->getKind() != Value::Kind::Dim &&
        V->getKind() != Value::Kind::Tunable)
      OS << '%';
    OS << V->getName();
    return;
  }
  case Expr::Kind::Load: {
    const auto &L = cast<LoadExpr>(E);
    OS << '%' << L.getBuffer()->getName();
    if (L.getBuffer()->getScope() != MemScope::Var) {
      OS << '[';
      printExprList(L.getIndices(), OS);
      OS << ']';
    }
    return;
  }
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    unsigned P = getPrecedence(B.getOp());
    bool Paren = P < MinPrec;
    if (Paren)
      OS << '(';
    printExprPrec(*B.getLHS(), OS, P);
    OS << ' ' << getBinaryOpSpelling(B.getOp()) << ' ';
    // Left-associative: the right operand needs a strictly higher binding.
    printExprPrec(*B.getRHS(), OS, P + 1);
    if (Paren)
      OS << ')';
    return;
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    OS << (U.getOp() == UnaryOp::Neg ? "-" : "!");
    // Keep `-(-3)` from printing as `--3`, which reads back differently.
    const Expr *X = U.getOperand();
    bool ParenLit =
        (isa<IntLitExpr>(X) && cast<IntLitExpr>(X)->getValue() < 0) ||
        (isa<FloatLitExpr>(X) && std::signbit(cast<FloatLitExpr>(X)->getValue()));
    bool LitOperand = isa<IntLitExpr>(X) || isa<FloatLitExpr>(X);
    if (ParenLit || LitOperand) {
      // `-(3)` keeps a unary minus on a literal distinct from the literal -3.
      OS << '(';
      printExprPrec(*X, OS, 1);
      OS << ')';
      return;
    }
    printExprPrec(*X, OS, kUnaryPrec);
    return;
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    OS << getIntrinsicName(C.getIntrinsic()) << '(';
    printExprList(C.getArgs(), OS);
    OS << ')';
    return;
  }
  case Expr::Kind::Cast: {
    const auto &C = cast<CastExpr>(E);
    OS << "cast<" << getDTypeName(C.getDType()) << ">(";
    printExprPrec(*C.getOperand(), OS, 1);
    OS << ')';
    return;
  }
  case Expr::Kind::Inf:
    OS << "inf<" << getDTypeName(E.getDType()) << ">()";
    return;
  }
}

void tile::printExpr(const Expr &E, llvm::raw_ostream &OS) {
  printExprPrec(E, OS, 1);
}

void tile::printRegion(const Region &R, llvm::raw_ostream &OS) {
  OS << '%' << R.Buf->getName();
  if (R.isWholeBuffer())
    return;
  OS << '[';
  llvm::ListSeparator LS;
  for (const RegionIndex &I : R.Indices) {
    OS << LS;
    printExpr(*I.Offset, OS);
    if (I.Extent) {
      OS << " : ";
      printExpr(*I.Extent, OS);
    }
  }
  OS << ']';
}

namespace {
class StmtPrinter {
public:
  explicit StmtPrinter(llvm::raw_ostream &OS) : OS(OS) {}

  void printBlock(const Block &B, unsigned Indent) {
    OS << "{\n";
    for (const StmtPtr &S : B.Stmts)
      print(*S, Indent + 2);
    OS.indent(Indent) << '}';
  }

  void print(const Stmt &S, unsigned Indent) {
    OS.indent(Indent);
    printNoIndent(S, Indent);
    OS << '\n';
  }

  void printNoIndent(const Stmt &S, unsigned Indent) {
    switch (S.getKind()) {
    case Stmt::Kind::Alloc: {
      const auto &A = cast<AllocStmt>(S);
      const BufferValue *B = A.getBuffer();
      OS << '%' << B->getName() << " = alloc " << getScopeName(B->getScope())
         << ' ' << getDTypeName(B->getDType());
      if (B->getScope() != MemScope::Var) {
        OS << '[';
        printExprList(B->getShape(), OS);
        OS << ']';
      }
      if (!A.getAttrs().empty()) {
        OS << ' ';
        A.getAttrs().printDict(OS);
      }
      return;
    }
    case Stmt::Kind::Let: {
      const auto &L = cast<LetStmt>(S);
      OS << "let %" << L.getVar()->getName() << " = ";
      printExpr(*L.getInit(), OS);
      return;
    }
    case Stmt::Kind::Store: {
      const auto &St = cast<StoreStmt>(S);
      OS << '%' << St.getBuffer()->getName();
      if (St.getBuffer()->getScope() != MemScope::Var) {
        OS << '[';
        printExprList(St.getIndices(), OS);
        OS << ']';
      }
      OS << " = ";
      printExpr(*St.getValue(), OS);
      return;
    }
    case Stmt::Kind::For: {
      const auto &F = cast<ForStmt>(S);
      OS << "for ";
      llvm::ListSeparator LS;
      for (const LoopDim &D : F.getDims())
        OS << LS << '%' << D.Var->getName();
      OS << " in " << getLoopKindName(F.getLoopKind()) << '(';
      llvm::ListSeparator LS2;
      for (const LoopDim &D : F.getDims()) {
        if (D.Lo) {
          OS << LS2;
          printExpr(*D.Lo, OS);
        }
        OS << LS2;
        printExpr(*D.Hi, OS);
      }
      if (F.getStep()) {
        OS << LS2 << "step = ";
        printExpr(*F.getStep(), OS);
      }
      for (const NamedAttribute &A : F.getAttrs()) {
        OS << LS2 << A.Name << " = ";
        A.Value.print(OS);
      }
      OS << ") ";
      printBlock(F.getBody(), Indent);
      return;
    }
    case Stmt::Kind::If: {
      const auto &I = cast<IfStmt>(S);
      OS << "if ";
      printExpr(*I.getCond(), OS);
      OS << ' ';
      printBlock(I.getThen(), Indent);
      if (!I.hasElse())
        return;
      OS << " else ";
      const Block &E = I.getElse();
      if (E.Stmts.size() == 1 && isa<IfStmt>(*E.Stmts.front())) {
        printNoIndent(*E.Stmts.front(), Indent);
        return;
      }
      printBlock(E, Indent);
      return;
    }
    case Stmt::Kind::Kernel: {
      const auto &K = cast<KernelStmt>(S);
      OS << "kernel grid(";
      printExprList(K.getGrid(), OS);
      OS << ") threads(";
      printExpr(*K.getThreads(), OS);
      OS << ") (";
      llvm::ListSeparator LS;
      for (const auto &V : K.getBlockIndices())
        OS << LS << '%' << V->getName();
      OS << ')';
      if (const Value *T = K.getThreadIndex())
        OS << " thread(%" << T->getName() << ')';
      if (!K.getAttrs().empty()) {
        OS << " attributes ";
        K.getAttrs().printDict(OS);
      }
      OS << ' ';
      printBlock(K.getBody(), Indent);
      return;
    }
    case Stmt::Kind::Op:
      printOp(cast<OpStmt>(S));
      return;
    }
  }

  void printOp(const OpStmt &Op) {
    const OpInfo &Info = Op.getInfo();
    OS << Info.Name;
    llvm::SmallVector<llvm::StringRef> Toks;
    llvm::StringRef(Info.Format).split(Toks, ' ', -1, false);
    llvm::SmallVector<llvm::StringRef> InPlace;
    for (llvm::StringRef T : Toks) {
      if (T == "attr-dict") {
        AttributeList Rest;
        for (const NamedAttribute &A : Op.getAttrs()) {
          if (llvm::is_contained(InPlace, A.Name))
            continue;
          const OpAttrInfo *AI = Info.findAttr(A.Name);
          if (AI && AI->Default && A.Value == getDefaultValue(*AI))
            continue; // default values are not printed
          Rest.set(A.Name, A.Value);
        }
        if (!Rest.empty()) {
          OS << ' ';
          Rest.printDict(OS);
        }
        continue;
      }
      if (T.front() == '`') {
        llvm::StringRef Lit = T.drop_front().drop_back();
        if (Lit != ",")
          OS << ' ';
        OS << Lit;
        continue;
      }
      llvm::StringRef Name = T.drop_front();
      OS << ' ';
      int OI = Info.findOperand(Name);
      if (OI >= 0) {
        const OpOperand &O = Op.getOperand(OI);
        if (O.Kind == OperandKind::Region)
          printRegion(O.R, OS);
        else
          printExpr(*O.E, OS);
        continue;
      }
      InPlace.push_back(Name);
      Op.getAttrOrDefault(Name).print(OS);
    }
  }

private:
  llvm::raw_ostream &OS;
};
} // namespace

void tile::printStmt(const Stmt &S, llvm::raw_ostream &OS, unsigned Indent) {
  StmtPrinter(OS).print(S, Indent);
}

void tile::printFunction(const Function &F, llvm::raw_ostream &OS) {
  OS << "func @" << F.getName();
  if (!F.getTunables().empty()) {
    OS << '<';
    llvm::ListSeparator TS;
    for (const TunableDecl &T : F.getTunables()) {
      OS << TS << T.getName() << ": " << getDTypeName(T.Var->getDType())
         << " = " << T.Default;
      if (!T.Candidates.empty()) {
        OS << " in [";
        llvm::ListSeparator CS;
        for (int64_t C : T.Candidates)
          OS << CS << C;
        OS << ']';
      }
    }
    OS << '>';
  }
  OS << '(';
  llvm::ListSeparator LS;
  for (const auto &P : F.getParams()) {
    OS << LS << '%' << P->getName() << ": " << getDTypeName(P->getDType());
    const auto *B = dyn_cast<BufferValue>(P.get());
    if (!B)
      continue;
    OS << '[';
    printExprList(B->getShape(), OS);
    OS << ']';
    if (!B->getStrides().empty()) {
      OS << " strides(";
      printExprList(B->getStrides(), OS);
      OS << ')';
    }
  }
  OS << ')';
  if (!F.getAttrs().empty()) {
    OS << " attributes ";
    F.getAttrs().printDict(OS);
  }
  OS << ' ';
  StmtPrinter(OS).printBlock(F.getBody(), 0);
  OS << '\n';
}

void tile::printModule(const Module &M, llvm::raw_ostream &OS) {
  bool First = true;
  for (const auto &F : M.getFunctions()) {
    if (!First)
      OS << '\n';
    First = false;
    printFunction(*F, OS);
  }
}

std::string tile::toString(const Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printModule(M, OS);
  return S;
}

std::string tile::toString(const Expr &E) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printExpr(E, OS);
  return S;
}
