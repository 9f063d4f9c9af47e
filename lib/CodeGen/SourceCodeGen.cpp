//===- SourceCodeGen.cpp - Shading-language source from Tile IR -----------===//
//
// One printer for every source target: it walks the SIMT-lowered kernels
// and asks the SourceTarget for every piece of syntax. Expressions keep the
// language's semantics: integer `/` and `%` truncate (both target languages
// do the same), floordiv/floormod/ceildiv round as their names say (small
// helper functions emitted once per type), conversions saturate as the
// target's conversions do, and i1 is the language's bool.
//
// A kernel body is printed before its signature, because the signature
// binds only what the body used.
//
//===----------------------------------------------------------------------===//

#include "tile/CodeGen/SourceCodeGen.h"
#include "ArtifactEntries.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <map>
#include <set>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

SourceEmitter::~SourceEmitter() = default;
SourceTarget::~SourceTarget() = default;

std::string SourceTarget::getBinary(BinaryOp Op, DType T, llvm::StringRef L,
                                    llvm::StringRef R) const {
  if (Op == BinaryOp::Xor && isBool(T))
    return ("(" + L + " != " + R + ")").str();
  return ("(" + L + " " + getBinaryOpSpelling(Op) + " " + R + ")").str();
}

llvm::Error SourceTarget::emitTargetOp(SourceEmitter &, const OpStmt &Op) const {
  return llvm::createStringError("op '" + Op.getName() + "' is not supported by target " +
                                 getTargetDescription());
}

std::string SourceTarget::getMathCall(Intrinsic I, DType T,
                                      llvm::ArrayRef<std::string> Args) const {
  if (I == Intrinsic::Abs && isUnsigned(T))
    return Args[0];
  std::string S = getMathFunction(I, T).str() + "(";
  for (size_t A = 0; A != Args.size(); ++A)
    S += (A ? ", " : "") + Args[A];
  return S + ")";
}

llvm::StringRef SourceTarget::getMathFunction(Intrinsic I, DType T) const {
  switch (I) {
  case Intrinsic::Min: return "min";
  case Intrinsic::Max: return "max";
  case Intrinsic::Abs: return isFloat(T) ? "fabs" : "abs";
  case Intrinsic::Exp: return "exp";
  case Intrinsic::Exp2: return "exp2";
  case Intrinsic::Log: return "log";
  case Intrinsic::Log2: return "log2";
  case Intrinsic::Sqrt: return "sqrt";
  case Intrinsic::Rsqrt: return "rsqrt";
  case Intrinsic::Tanh: return "tanh";
  default: llvm_unreachable("not a math function");
  }
}

std::string SourceTarget::getBindingLoad(SourceEmitter &, const SourceBinding &B,
                                         llvm::StringRef Offset) const {
  return B.Name + "[" + Offset.str() + "]";
}

std::vector<std::string> SourceTarget::getBindingStore(SourceEmitter &,
                                                       const SourceBinding &B,
                                                       llvm::StringRef Offset,
                                                       llvm::StringRef V) const {
  return {B.Name + "[" + Offset.str() + "] = " + V.str() + ";"};
}

std::string SourceTarget::getUniformRef(const SourceKernel &K,
                                        const SourceUniformField &F) const {
  return K.UniformVar + "." + F.Name;
}

std::string SourceTarget::formatFloatDigits(double V, bool Short) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (Short)
    OS << llvm::format("%.5g", V);
  else
    OS << llvm::format("%.9g", double(float(V)));
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

std::string SourceTarget::formatFunction(llvm::StringRef Head,
                                         llvm::ArrayRef<std::string> Body) {
  std::string S = Head.str() + " {\n";
  for (const std::string &L : Body)
    S += "  " + L + "\n";
  return S + "}\n";
}

ReservedWords::ReservedWords(llvm::ArrayRef<const char *> Words) {
  for (const char *W : Words)
    Set.insert(W);
}

bool ReservedWords::contains(llvm::StringRef Name) const {
  return Set.count(Name) || Name.starts_with("__");
}

//===----------------------------------------------------------------------===//
// Dtype checks
//===----------------------------------------------------------------------===//

/// What a statement is called in messages: its op name, or the statement.
static std::string describeStmt(const Stmt &S) {
  switch (S.getKind()) {
  case Stmt::Kind::Op: return "op '" + cast<OpStmt>(S).getName().str() + "'";
  case Stmt::Kind::Alloc: return "'alloc'";
  case Stmt::Kind::Let: return "'let'";
  case Stmt::Kind::Store: return "store";
  case Stmt::Kind::For: return "loop";
  case Stmt::Kind::If: return "'if'";
  case Stmt::Kind::Kernel: return "'kernel'";
  }
  llvm_unreachable("unknown statement");
}

static DTypeUse bufferUse(const BufferValue &B) {
  return B.getScope() == MemScope::Global ? DTypeUse::GlobalBuffer
         : B.getScope() == MemScope::Var  ? DTypeUse::Value
                                          : DTypeUse::OnChipBuffer;
}

bool tile::checkSourceDTypes(const Module &M, const SourceTarget &T,
                             DiagnosticEngine &Diag) {
  bool OK = true;
  for (const auto &F : M.getFunctions()) {
    for (const auto &P : F->getParams())
      if (!P->isBuffer()) {
        std::string Why = T.checkDType(P->getDType(), DTypeUse::Uniform);
        if (!Why.empty()) {
          Diag.error(P->getLoc(), "scalar parameter '%" + P->getName() + "' has dtype " +
                                      getDTypeName(P->getDType()) +
                                      ", which target " + T.getTargetDescription() +
                                      " does not support: " + Why);
          OK = false;
        }
      }
    // Buffers whose dtype a statement's check covered.
    llvm::SmallPtrSet<const Value *, 16> Checked;
    walkStmts(F->getBody(), [&](const Stmt &CS) {
      Stmt &S = const_cast<Stmt &>(CS);
      // The first unsupported use in the statement's own slots.
      std::string Found, What, Why;
      auto Check = [&](DType Ty, DTypeUse U, const llvm::Twine &Desc) {
        if (!Found.empty())
          return;
        std::string W = T.checkDType(Ty, U);
        if (W.empty())
          return;
        Found = getDTypeName(Ty).str();
        What = Desc.str();
        Why = W;
      };
      auto CheckBuffer = [&](const BufferValue &B) {
        Checked.insert(&B);
        Check(B.getDType(), bufferUse(B), "buffer '%" + B.getName() + "'");
      };
      if (auto *A = dyn_cast<AllocStmt>(&S))
        CheckBuffer(*A->getBuffer());
      if (auto *St = dyn_cast<StoreStmt>(&S))
        CheckBuffer(*St->getBuffer());
      if (auto *L = dyn_cast<LetStmt>(&S))
        Check(L->getVar()->getDType(), DTypeUse::Value, "'%" + L->getVar()->getName() + "'");
      if (auto *Fo = dyn_cast<ForStmt>(&S))
        for (const LoopDim &D : Fo->getDims())
          Check(D.Var->getDType(), DTypeUse::Value, "'%" + D.Var->getName() + "'");
      if (auto *Op = dyn_cast<OpStmt>(&S))
        for (const OpOperand &O : Op->getOperands())
          if (O.Kind == OperandKind::Region)
            CheckBuffer(*O.R.Buf);
      forEachExprSlot(S, [&](ExprPtr &E) {
        std::function<void(const Expr &)> Visit = [&](const Expr &X) {
          if (const auto *L = dyn_cast<LoadExpr>(&X))
            CheckBuffer(*L->getBuffer());
          Check(X.getDType(), DTypeUse::Value, "a value");
          forEachChild(X, Visit);
        };
        Visit(*E);
      });
      if (Found.empty())
        return;
      Diag.error(S.getLoc(), describeStmt(S) + " uses " + Found + " (" + What +
                                 "), which target " + T.getTargetDescription() +
                                 " does not support: " + Why);
      OK = false;
    });
    // A buffer parameter no statement uses is still bound by the kernel
    // signature, so its dtype must be expressible too.
    for (const auto &P : F->getParams()) {
      if (!P->isBuffer() || Checked.count(P.get()))
        continue;
      std::string Why = T.checkDType(P->getDType(), DTypeUse::GlobalBuffer);
      if (Why.empty())
        continue;
      Diag.error(P->getLoc(), "buffer parameter '%" + P->getName() + "' has dtype " +
                                  getDTypeName(P->getDType()) + ", which target " +
                                  T.getTargetDescription() +
                                  " does not support (it is bound even though "
                                  "no statement uses it): " + Why);
      OK = false;
    }
  }
  return OK;
}

//===----------------------------------------------------------------------===//
// Launch expressions
//===----------------------------------------------------------------------===//

/// Function-level lets, for inlining into kernels and launch expressions.
static void collectHostLets(const Block &B,
                            llvm::DenseMap<const Value *, const Expr *> &Lets) {
  for (const StmtPtr &S : B.Stmts)
    if (const auto *L = dyn_cast<LetStmt>(S.get()))
      Lets[L->getVar()] = L->getInit();
}

static llvm::Expected<std::string>
printLaunch(const Expr &E, const llvm::DenseMap<const Value *, const Expr *> &Lets) {
  auto Unsupported = [&](llvm::StringRef What) -> llvm::Expected<std::string> {
    return llvm::createStringError(
        "a grid size " + What +
        " cannot be computed by the execution backend, which launches "
        "without host code; grid sizes may use integer arithmetic, min, max, "
        "ceildiv, floordiv and floormod of symbolic dimensions and integer "
        "scalars");
  };
  if (!isInteger(E.getDType()) || isBool(E.getDType()))
    return Unsupported("of type " + getDTypeName(E.getDType()).str());
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    int64_t V = cast<IntLitExpr>(E).getValue();
    return V < 0 ? "(0 - " + std::to_string(-(V + 1)) + " - 1)" : std::to_string(V);
  }
  case Expr::Kind::Ref: {
    const Value *V = cast<RefExpr>(E).getValue();
    if (V->getKind() == Value::Kind::Dim || V->getKind() == Value::Kind::Param)
      return V->getName().str();
    if (const Expr *Init = Lets.lookup(V)) {
      auto S = printLaunch(*Init, Lets);
      if (!S)
        return S.takeError();
      return "(" + *S + ")";
    }
    return Unsupported("using '%" + V->getName().str() + "'");
  }
  case Expr::Kind::Cast: {
    const Expr &X = *cast<CastExpr>(E).getOperand();
    if (!isInteger(X.getDType()) || isBool(X.getDType()))
      return Unsupported("converting from " + getDTypeName(X.getDType()).str());
    return printLaunch(X, Lets);
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    if (U.getOp() != UnaryOp::Neg)
      return Unsupported("with '!'");
    auto X = printLaunch(*U.getOperand(), Lets);
    if (!X)
      return X.takeError();
    return "(-" + *X + ")";
  }
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    switch (B.getOp()) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      break;
    default:
      return Unsupported("with '" + getBinaryOpSpelling(B.getOp()).str() + "'");
    }
    auto L = printLaunch(*B.getLHS(), Lets);
    if (!L)
      return L.takeError();
    auto R = printLaunch(*B.getRHS(), Lets);
    if (!R)
      return R.takeError();
    return "(" + *L + " " + getBinaryOpSpelling(B.getOp()).str() + " " + *R + ")";
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    switch (C.getIntrinsic()) {
    case Intrinsic::Min:
    case Intrinsic::Max:
    case Intrinsic::CeilDiv:
    case Intrinsic::FloorDiv:
    case Intrinsic::FloorMod:
      break;
    default:
      return Unsupported("calling '" + getIntrinsicName(C.getIntrinsic()).str() + "'");
    }
    auto A = printLaunch(*C.getArgs()[0], Lets);
    if (!A)
      return A.takeError();
    auto B = printLaunch(*C.getArgs()[1], Lets);
    if (!B)
      return B.takeError();
    return getIntrinsicName(C.getIntrinsic()).str() + "(" + *A + ", " + *B + ")";
  }
  case Expr::Kind::Load:
    return Unsupported("reading a buffer");
  default:
    return Unsupported("of this form");
  }
}

llvm::Expected<std::string> tile::printLaunchExpr(const Expr &E) {
  llvm::DenseMap<const Value *, const Expr *> NoLets;
  return printLaunch(E, NoLets);
}

//===----------------------------------------------------------------------===//
// The printer
//===----------------------------------------------------------------------===//

namespace {

/// Names in use, with a fresh-name generator that avoids reserved words.
class NameTable {
public:
  explicit NameTable(const SourceTarget &T) : T(T) {}
  std::string fresh(llvm::StringRef Base) {
    std::string B = Base.empty() ? "v" : Base.str();
    for (char &C : B)
      if (!llvm::isAlnum(C) && C != '_')
        C = '_';
    if (llvm::isDigit(B.front()) || B.front() == '_')
      B = "v" + B;
    std::string N = B;
    for (unsigned I = 1; Used.count(N) || T.isReserved(N) ||
                         llvm::StringRef(N).starts_with("tile_");
         ++I)
      N = B + "_" + std::to_string(I);
    Used.insert(N);
    Log.push_back(N);
    return N;
  }
  void reserve(llvm::StringRef N) { Used.insert(N); }
  /// Names given since \p Mark are free again (their scope ended).
  size_t mark() const { return Log.size(); }
  void release(size_t Mark) {
    while (Log.size() > Mark) {
      Used.erase(Log.back());
      Log.pop_back();
    }
  }

private:
  const SourceTarget &T;
  llvm::StringSet<> Used;
  std::vector<std::string> Log;
};

/// Module-wide state: names, helpers, the output sections.
struct ModuleState {
  explicit ModuleState(const SourceTarget &T) : Names(T) {}
  NameTable Names;
  /// (intrinsic, dtype) -> helper name, and the helpers' text.
  std::map<std::pair<unsigned, unsigned>, std::string> Helpers;
  std::string HelperText;
};

/// Per-function layout: bindings and uniforms shared by its kernels.
struct FunctionLayout {
  std::vector<SourceBinding> Buffers;
  llvm::DenseMap<const Value *, unsigned> BufferIndex;
  std::vector<SourceUniformField> Uniforms;
  llvm::DenseMap<const Value *, unsigned> UniformIndex;
  uint32_t UniformBytes = 0;
  unsigned UniformSlot = 0;
  std::string UniformStruct, UniformVar;
  llvm::DenseMap<const Value *, const Expr *> HostLets;
};

class KernelPrinter : public SourceEmitter {
public:
  KernelPrinter(const SourceTarget &T, ModuleState &MS, const FunctionLayout &FL,
                SourceKernel &K, DiagnosticEngine &Diag)
      : T(T), MS(MS), FL(FL), K(K), Diag(Diag), Names(MS.Names) {}

  /// Prints the body; false after reporting an error.
  bool run() {
    const KernelStmt &KS = *K.Kernel;
    for (const auto &B : KS.getBlockIndices())
      K.BlockIdx.push_back(name(B.get()));
    if (const Value *Tid = KS.getThreadIndex())
      K.ThreadIdx = name(Tid);
    Indent = 1;
    printBlock(KS.getBody());
    return !Failed;
  }

  std::string takeBody() { return std::move(Body); }

  // SourceEmitter
  std::string printExpr(const Expr &E) override;
  std::string getName(const Value *V) override;
  std::string getFreshName(llvm::StringRef Base) override { return Names.fresh(Base); }
  std::string getElementOffset(const BufferValue *Buf,
                               llvm::ArrayRef<std::string> Indices) override;
  const SourceKernel &getKernel() const override { return K; }
  void line(const llvm::Twine &Text) override {
    Body.append(2 * Indent, ' ');
    Body += Text.str();
    Body += '\n';
  }
  void open(const llvm::Twine &Head) override {
    std::string H = Head.str();
    line(H.empty() ? "{" : H + " {");
    ++Indent;
  }
  void close(llvm::StringRef Tail = "") override {
    --Indent;
    line("}" + Tail);
  }

private:
  std::string name(const Value *V) {
    auto It = Local.find(V);
    if (It != Local.end())
      return It->second;
    return Local[V] = Names.fresh(V->getName());
  }
  void error(llvm::SMLoc Loc, const llvm::Twine &Msg) {
    if (!Failed)
      Diag.error(Loc, Msg);
    Failed = true;
  }
  void checkDType(DType Ty, DTypeUse U, llvm::SMLoc Loc, const llvm::Twine &What) {
    std::string Why = T.checkDType(Ty, U);
    if (!Why.empty())
      error(Loc, What + " uses " + getDTypeName(Ty) + ", which target " +
                     T.getTargetDescription() + " does not support: " + Why);
  }
  std::string helper(Intrinsic I, DType Ty);
  /// The element of \p Buf at \p Idx as a value.
  std::string loadElement(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx);
  /// Prints the store of \p V (printed) to the element of \p Buf at \p Idx.
  void storeElement(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx,
                    llvm::StringRef V);
  /// The printed offset of \p Buf at \p Idx, and the binding of \p Buf
  /// when it is a buffer parameter.
  std::string elementOffset(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx,
                            const SourceBinding *&Binding);
  /// \p E in a form that is evaluated once: a literal or name as is,
  /// otherwise a let before the current statement.
  std::string hoist(const Expr &E, llvm::StringRef Base);

  /// Prints \p B; its names may be reused by sibling blocks afterwards.
  void printBlock(const Block &B) {
    size_t Mark = Names.mark();
    for (const StmtPtr &S : B.Stmts)
      if (!Failed)
        printStmt(*S);
    Names.release(Mark);
  }
  void printStmt(const Stmt &S);
  void printFor(const ForStmt &F);
  void printOp(const OpStmt &Op);

  const SourceTarget &T;
  ModuleState &MS;
  const FunctionLayout &FL;
  SourceKernel &K;
  DiagnosticEngine &Diag;
  /// Kernel-local names: the module's names plus this kernel's values.
  NameTable Names;
  llvm::DenseMap<const Value *, std::string> Local;
  std::string Body;
  unsigned Indent = 0;
  bool Failed = false;

public:
  /// Buffers the body used, and whether it read the uniform block.
  llvm::DenseSet<const Value *> Used;
  bool UsedUniform = false;
};

} // namespace

std::string KernelPrinter::getName(const Value *V) {
  auto It = Local.find(V);
  if (It != Local.end())
    return It->second;
  if (auto BI = FL.BufferIndex.find(V); BI != FL.BufferIndex.end()) {
    Used.insert(V);
    return FL.Buffers[BI->second].Name;
  }
  if (auto UI = FL.UniformIndex.find(V); UI != FL.UniformIndex.end()) {
    UsedUniform = true;
    const SourceUniformField &F = FL.Uniforms[UI->second];
    std::string R = T.getUniformRef(K, F);
    if (F.StorageTy != V->getDType()) // i1 scalars travel as u32
      R = "(" + R + " != " + T.getIntLiteral(0, F.StorageTy) + ")";
    return R;
  }
  if (const Expr *Init = FL.HostLets.lookup(V))
    return "(" + printExpr(*Init) + ")";
  if (isa<BufferValue>(V)) {
    error(V->getLoc(), "global workspace '%" + V->getName() +
                           "' is not supported by target " +
                           T.getTargetDescription() +
                           " (its execution backend allocates only the "
                           "entry's tensors)");
    return "?";
  }
  return name(V);
}

std::string KernelPrinter::getElementOffset(const BufferValue *Buf,
                                            llvm::ArrayRef<std::string> Idx) {
  unsigned R = Buf->getRank();
  assert(Idx.size() == R && "index arity");
  // Strides as text, folding constants.
  std::vector<std::string> Strides(R);
  if (!Buf->getStrides().empty()) {
    for (unsigned D = 0; D != R; ++D) {
      const Expr &S = *Buf->getStrides()[D];
      Strides[D] = S.getConstInt() ? std::to_string(*S.getConstInt()) : printExpr(S);
    }
  } else {
    int64_t Const = 1;
    std::string Sym;
    for (unsigned D = R; D-- > 0;) {
      Strides[D] = Sym.empty() ? std::to_string(Const)
                               : (Const == 1 ? Sym : "(" + Sym + " * " + std::to_string(Const) + ")");
      const Expr &Dim = *Buf->getShape()[D];
      if (std::optional<int64_t> C = Dim.getConstInt())
        Const *= *C;
      else
        Sym = Sym.empty() ? printExpr(Dim) : "(" + Sym + " * " + printExpr(Dim) + ")";
    }
  }
  std::string Off;
  for (unsigned D = 0; D != R; ++D) {
    std::string Term = Strides[D] == "1" ? Idx[D] : "(" + Idx[D] + " * " + Strides[D] + ")";
    if (Strides[D] == "0")
      continue;
    Off = Off.empty() ? Term : "(" + Off + " + " + Term + ")";
  }
  return Off.empty() ? T.getIntLiteral(0, DType::I32) : Off;
}

std::string KernelPrinter::elementOffset(const BufferValue *Buf,
                                         llvm::ArrayRef<ExprPtr> Idx,
                                         const SourceBinding *&Binding) {
  auto BI = FL.BufferIndex.find(Buf);
  Binding = BI == FL.BufferIndex.end() ? nullptr : &FL.Buffers[BI->second];
  std::vector<std::string> I;
  for (const ExprPtr &E : Idx)
    I.push_back(printExpr(*E));
  return getElementOffset(Buf, I);
}

std::string KernelPrinter::loadElement(const BufferValue *Buf,
                                       llvm::ArrayRef<ExprPtr> Idx) {
  std::string N = getName(Buf);
  if (Buf->getScope() == MemScope::Var)
    return N;
  const SourceBinding *B;
  std::string Off = elementOffset(Buf, Idx, B);
  return B ? T.getBindingLoad(*this, *B, Off) : N + "[" + Off + "]";
}

void KernelPrinter::storeElement(const BufferValue *Buf, llvm::ArrayRef<ExprPtr> Idx,
                                 llvm::StringRef V) {
  std::string N = getName(Buf);
  if (Buf->getScope() == MemScope::Var) {
    line(N + " = " + V + ";");
    return;
  }
  const SourceBinding *B;
  std::string Off = elementOffset(Buf, Idx, B);
  if (!B) {
    line(N + "[" + Off + "] = " + V + ";");
    return;
  }
  for (const std::string &L : T.getBindingStore(*this, *B, Off, V))
    line(L);
}

std::string KernelPrinter::helper(Intrinsic I, DType Ty) {
  auto Key = std::make_pair(unsigned(I), unsigned(Ty));
  auto It = MS.Helpers.find(Key);
  if (It != MS.Helpers.end())
    return It->second;
  // Values never get the tile_ prefix (NameTable::fresh); helpers own it.
  std::string Name = ("tile_" + getIntrinsicName(I) + "_" + getDTypeName(Ty)).str();
  MS.Names.reserve(Name);
  std::string Zero = T.getIntLiteral(0, Ty), One = T.getIntLiteral(1, Ty);
  auto Bin = [&](BinaryOp Op, llvm::StringRef L, llvm::StringRef R) {
    return T.getBinary(Op, Ty, L, R);
  };
  std::vector<std::string> Body;
  Body.push_back(T.getLetDecl("q", Ty, Bin(BinaryOp::Div, "a", "b")));
  Body.push_back(T.getLetDecl("r", Ty, Bin(BinaryOp::Rem, "a", "b")));
  std::string NonZero = Bin(BinaryOp::Ne, "r", Zero);
  std::string Result;
  if (isUnsigned(Ty)) {
    Result = I == Intrinsic::FloorDiv ? "q"
             : I == Intrinsic::FloorMod
                 ? "r"
                 : T.getSelect(NonZero, Bin(BinaryOp::Add, "q", One), "q");
  } else {
    // The sign of r differs from b's exactly when truncation rounded up.
    std::string SignsDiffer = T.getBinary(BinaryOp::Ne, DType::I1,
                                          Bin(BinaryOp::Lt, "r", Zero),
                                          Bin(BinaryOp::Lt, "b", Zero));
    std::string Adjust = T.getBinary(BinaryOp::LogicalAnd, DType::I1, NonZero, SignsDiffer);
    std::string Up = T.getBinary(
        BinaryOp::LogicalAnd, DType::I1, NonZero,
        T.getBinary(BinaryOp::Eq, DType::I1, Bin(BinaryOp::Lt, "r", Zero),
                    Bin(BinaryOp::Lt, "b", Zero)));
    if (I == Intrinsic::FloorDiv)
      Result = T.getSelect(Adjust, Bin(BinaryOp::Sub, "q", One), "q");
    else if (I == Intrinsic::FloorMod)
      Result = T.getSelect(Adjust, Bin(BinaryOp::Add, "r", "b"), "r");
    else
      Result = T.getSelect(Up, Bin(BinaryOp::Add, "q", One), "q");
  }
  Body.push_back(T.getReturn(Result));
  MS.HelperText += T.getFunction(Name, Ty, {{"a", Ty}, {"b", Ty}}, Body);
  MS.HelperText += "\n";
  return MS.Helpers[Key] = Name;
}

std::string KernelPrinter::printExpr(const Expr &E) {
  DType Ty = E.getDType();
  checkDType(Ty, DTypeUse::Value, E.getLoc(), "an expression");
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    int64_t V = cast<IntLitExpr>(E).getValue();
    if (isBool(Ty))
      return V ? "true" : "false";
    if (isFloat(Ty))
      return T.getFloatLiteral(double(V), Ty);
    return T.getIntLiteral(V, Ty);
  }
  case Expr::Kind::FloatLit: {
    double V = cast<FloatLitExpr>(E).getValue();
    if (std::isinf(V))
      return T.getInfinity(Ty, V < 0);
    if (std::isnan(V)) {
      error(E.getLoc(), "a NaN literal cannot be printed for target " +
                            T.getTargetDescription());
      return "?";
    }
    return T.getFloatLiteral(V, Ty);
  }
  case Expr::Kind::Inf:
    return T.getInfinity(Ty, false);
  case Expr::Kind::Ref:
    return getName(cast<RefExpr>(E).getValue());
  case Expr::Kind::Load: {
    const auto &L = cast<LoadExpr>(E);
    return loadElement(L.getBuffer(), L.getIndices());
  }
  case Expr::Kind::Cast: {
    const Expr &X = *cast<CastExpr>(E).getOperand();
    DType From = X.getDType();
    std::string S = printExpr(X);
    if (From == Ty)
      return S;
    if (isBool(Ty))
      return T.getBinary(BinaryOp::Ne, From, S,
                         isFloat(From) ? T.getFloatLiteral(0, From)
                                       : T.getIntLiteral(0, From));
    if (isBool(From))
      return T.getSelect(S,
                         isFloat(Ty) ? T.getFloatLiteral(1, Ty) : T.getIntLiteral(1, Ty),
                         isFloat(Ty) ? T.getFloatLiteral(0, Ty) : T.getIntLiteral(0, Ty));
    return T.getConversion(S, From, Ty);
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    std::string X = printExpr(*U.getOperand());
    if (U.getOp() == UnaryOp::Neg)
      return "(-" + X + ")";
    return (isBool(Ty) ? "(!" : "(~") + X + ")";
  }
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    std::string L = printExpr(*B.getLHS()), R = printExpr(*B.getRHS());
    return T.getBinary(B.getOp(), B.getLHS()->getDType(), L, R);
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    std::vector<std::string> Args;
    for (const ExprPtr &A : C.getArgs())
      Args.push_back(printExpr(*A));
    switch (C.getIntrinsic()) {
    case Intrinsic::Select:
      return T.getSelect(Args[0], Args[1], Args[2]);
    case Intrinsic::CeilDiv:
    case Intrinsic::FloorDiv:
    case Intrinsic::FloorMod:
      return helper(C.getIntrinsic(), Ty) + "(" + Args[0] + ", " + Args[1] + ")";
    case Intrinsic::Min:
    case Intrinsic::Max:
      if (isBool(Ty))
        return T.getBinary(C.getIntrinsic() == Intrinsic::Max ? BinaryOp::LogicalOr
                                                             : BinaryOp::LogicalAnd,
                           Ty, Args[0], Args[1]);
      return T.getMathCall(C.getIntrinsic(), Ty, Args);
    default:
      return T.getMathCall(C.getIntrinsic(), C.getArgs()[0]->getDType(), Args);
    }
  }
  }
  llvm_unreachable("unknown expression");
}

std::string KernelPrinter::hoist(const Expr &E, llvm::StringRef Base) {
  std::string S = printExpr(E);
  if (isa<IntLitExpr>(E) || isa<RefExpr>(E))
    return S;
  std::string N = Names.fresh(Base);
  line(T.getLetDecl(N, E.getDType(), S));
  return N;
}

void KernelPrinter::printFor(const ForStmt &F) {
  // Bounds and step are evaluated once, before the loop, as in Tile.
  unsigned Opened = 0;
  for (const LoopDim &D : F.getDims()) {
    DType Ty = D.Var->getDType();
    checkDType(Ty, DTypeUse::Value, F.getLoc(), "loop");
    std::string Lo = D.Lo ? hoist(*D.Lo, D.Var->getName().str() + "_begin")
                          : T.getIntLiteral(0, Ty);
    std::string Hi = hoist(*D.Hi, D.Var->getName().str() + "_end");
    std::string Step = F.getStep() ? hoist(*F.getStep(), D.Var->getName().str() + "_step")
                                   : T.getIntLiteral(1, Ty);
    open(T.getForHead(name(D.Var.get()), Ty, Lo, Hi, Step));
    ++Opened;
  }
  printBlock(F.getBody());
  while (Opened--)
    close();
}

void KernelPrinter::printOp(const OpStmt &Op) {
  if (Op.getName() == "barrier") {
    line(T.getBarrier());
    return;
  }
  if (Op.getName() == "atomic_elem") {
    const Region &Dst = Op.getOperand("dst").R;
    const BufferValue *Buf = Dst.Buf;
    std::vector<std::string> Idx;
    for (const RegionIndex &I : Dst.Indices)
      Idx.push_back(printExpr(*I.Offset));
    std::string Off = Buf->getScope() == MemScope::Var ? "" : getElementOffset(Buf, Idx);
    getName(Buf);
    const Expr &ValE = *Op.getOperand("value").E;
    std::string V = printExpr(ValE);
    if (ValE.getDType() != Buf->getDType())
      V = T.getConversion(V, ValE.getDType(), Buf->getDType());
    std::string Why;
    std::vector<std::string> Lines = T.getAtomicUpdate(
        *this, Buf, Off, Op.getAttrOrDefault("kind").getStr(), V, Why);
    if (!Why.empty()) {
      error(Op.getLoc(), "op 'atomic_elem' on " + getDTypeName(Buf->getDType()) +
                             " is not supported by target " +
                             T.getTargetDescription() + ": " + Why);
      return;
    }
    for (const std::string &L : Lines)
      line(L);
    return;
  }
  if (llvm::StringRef(Op.getInfo().Dialect) != "tile") {
    if (llvm::Error E = T.emitTargetOp(*this, Op))
      error(Op.getLoc(), llvm::toString(std::move(E)));
    return;
  }
  error(Op.getLoc(), "op '" + Op.getName() +
                         "' reached source code generation for target " +
                         T.getTargetDescription() +
                         "; the pipeline must lower it first");
}

void KernelPrinter::printStmt(const Stmt &S) {
  switch (S.getKind()) {
  case Stmt::Kind::Alloc: {
    const BufferValue *Buf = cast<AllocStmt>(S).getBuffer();
    checkDType(Buf->getDType(), bufferUse(*Buf), S.getLoc(), "'alloc'");
    if (Buf->getScope() == MemScope::Global) {
      error(S.getLoc(), "global workspace '%" + Buf->getName() +
                            "' inside a kernel is not supported by target " +
                            T.getTargetDescription());
      return;
    }
    if (Buf->getScope() == MemScope::Var) {
      line(T.getVarDecl(name(Buf), Buf->getDType()));
      return;
    }
    std::optional<std::vector<int64_t>> Shape = Buf->getConstShape();
    if (!Shape) {
      error(S.getLoc(), "on-chip buffer '%" + Buf->getName() +
                            "' has a non-constant shape");
      return;
    }
    uint64_t N = 1;
    for (int64_t D : *Shape)
      N *= uint64_t(D);
    if (Buf->getScope() == MemScope::Shared) {
      // Module-scoped in some languages: named in the module's table.
      std::string SN = MS.Names.fresh(Buf->getName());
      Names.reserve(SN);
      Local[Buf] = SN;
      K.Shared.push_back({Buf, SN, N});
      K.SharedBytes += int64_t(N) * T.getStorageBytes(Buf->getDType());
      return;
    }
    line(T.getArrayDecl(name(Buf), Buf->getDType(), N));
    return;
  }
  case Stmt::Kind::Let: {
    const auto &L = cast<LetStmt>(S);
    checkDType(L.getVar()->getDType(), DTypeUse::Value, S.getLoc(), "'let'");
    std::string Init = printExpr(*L.getInit());
    line(T.getLetDecl(name(L.getVar()), L.getVar()->getDType(), Init));
    return;
  }
  case Stmt::Kind::Store: {
    const auto &St = cast<StoreStmt>(S);
    std::string V = printExpr(*St.getValue());
    storeElement(St.getBuffer(), St.getIndices(), V);
    return;
  }
  case Stmt::Kind::For:
    printFor(cast<ForStmt>(S));
    return;
  case Stmt::Kind::If: {
    const auto &I = cast<IfStmt>(S);
    open("if (" + printExpr(*I.getCond()) + ")");
    printBlock(I.getThen());
    if (I.hasElse()) {
      --Indent;
      line("} else {");
      ++Indent;
      printBlock(I.getElse());
    }
    close();
    return;
  }
  case Stmt::Kind::Op:
    printOp(cast<OpStmt>(S));
    return;
  case Stmt::Kind::Kernel:
    error(S.getLoc(), "nested kernel");
    return;
  }
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// Whether anything in \p F writes \p B.
static bool isWritten(const Function &F, const BufferValue *B) {
  bool W = false;
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (const auto *St = dyn_cast<StoreStmt>(&S))
      W |= St->getBuffer() == B;
    if (const auto *Op = dyn_cast<OpStmt>(&S))
      for (unsigned I = 0; I != Op->getOperands().size(); ++I) {
        const OpOperand &O = Op->getOperand(I);
        if (O.Kind != OperandKind::Region || O.R.Buf != B)
          continue;
        W |= Op->getInfo().operands()[I].Written;
      }
  });
  return W;
}

llvm::Error tile::emitSourceKernels(const Module &M, const SourceTarget &T,
                                    DiagnosticEngine &Diag,
                                    KernelArtifact &Artifact) {
  ModuleState MS(T);
  std::string Decls, Kernels;
  llvm::raw_string_ostream DeclOS(Decls), KernelOS(Kernels);
  bool Failed = false;
  for (const auto &F : M.getFunctions()) {
    ArtifactEntry *Entry = &getOrAddArtifactEntry(Artifact, *F);
    // Without host code, the parameter descriptions are what the execution
    // backend checks arguments against.
    if (Entry->Params.empty())
      for (const auto &P : F->getParams()) {
        ArtifactParam AP;
        AP.Name = P->getName().str();
        AP.DType = getDTypeName(P->getDType()).str();
        std::tie(AP.TypeCode, AP.Bits) = getDLPackType(P->getDType());
        auto Spell = [](const ExprPtr &D) {
          return D->getConstInt() ? std::to_string(*D->getConstInt())
                                  : cast<RefExpr>(*D).getValue()->getName().str();
        };
        if (const auto *Buf = dyn_cast<BufferValue>(P.get())) {
          AP.K = ArtifactParam::Kind::Tensor;
          for (const ExprPtr &D : Buf->getShape())
            AP.Shape.push_back(Spell(D));
          for (const ExprPtr &D : Buf->getStrides())
            AP.Strides.push_back(Spell(D));
        } else {
          AP.K = isFloat(P->getDType()) ? ArtifactParam::Kind::Float
                                        : ArtifactParam::Kind::Int;
        }
        Entry->Params.push_back(std::move(AP));
      }
    // The function's bindings: buffer parameters in order, then the uniform
    // block of its scalars and symbolic dimensions.
    FunctionLayout FL;
    collectHostLets(F->getBody(), FL.HostLets);
    for (const auto &P : F->getParams())
      if (const auto *B = dyn_cast<BufferValue>(P.get())) {
        FL.BufferIndex[B] = FL.Buffers.size();
        FL.Buffers.push_back({B, MS.Names.fresh(B->getName()),
                              unsigned(FL.Buffers.size()), isWritten(*F, B)});
      }
    auto AddUniform = [&](const Value *V) {
      DType St = isBool(V->getDType()) ? DType::U32 : V->getDType();
      FL.UniformIndex[V] = FL.Uniforms.size();
      FL.Uniforms.push_back({V, V->getName().str(), St, uint32_t(4 * FL.Uniforms.size())});
    };
    for (const auto &P : F->getParams())
      if (!P->isBuffer())
        AddUniform(P.get());
    for (const auto &D : F->getDims())
      AddUniform(D.get());
    // Field names are members: unique among themselves and not reserved.
    {
      NameTable Fields(T);
      for (SourceUniformField &U : FL.Uniforms)
        U.Name = Fields.fresh(U.Name);
    }
    FL.UniformBytes = FL.Uniforms.empty() ? 0 : (4 * FL.Uniforms.size() + 15) / 16 * 16;
    FL.UniformSlot = FL.Buffers.size();
    if (!FL.Uniforms.empty()) {
      FL.UniformStruct = MS.Names.fresh("Uniforms");
      FL.UniformVar = MS.Names.fresh("u");
    }
    T.emitFunctionDecls(DeclOS, FL.Buffers, FL.Uniforms, FL.UniformBytes,
                        FL.UniformSlot, FL.UniformStruct, FL.UniformVar);

    unsigned Index = 0;
    walkStmts(F->getBody(), [&](const Stmt &S) {
      const auto *KS = dyn_cast<KernelStmt>(&S);
      if (!KS || Failed)
        return;
      SourceKernel SK;
      SK.Func = F.get();
      SK.Kernel = KS;
      SK.Symbol = "tile_" + F->getName().str() + "_kernel" + std::to_string(Index++);
      MS.Names.reserve(SK.Symbol);
      SK.Threads = KS->getThreads()->getConstInt().value_or(1);
      SK.Uniforms = FL.Uniforms;
      SK.UniformBytes = FL.UniformBytes;
      SK.UniformSlot = FL.UniformSlot;
      SK.UniformStruct = FL.UniformStruct;
      SK.UniformVar = FL.UniformVar;
      KernelPrinter P(T, MS, FL, SK, Diag);
      if (!P.run()) {
        Failed = true;
        return;
      }
      for (const SourceBinding &B : FL.Buffers)
        if (P.Used.count(B.Buf))
          SK.Buffers.push_back(B);
      SK.UsesUniforms = P.UsedUniform;
      ArtifactKernel AK;
      AK.Symbol = SK.Symbol;
      AK.GridRank = KS->getGrid().size();
      AK.Threads = SK.Threads;
      AK.SharedBytes = SK.SharedBytes;
      AK.NumArgs = SK.Buffers.size() + (SK.UsesUniforms ? 1 : 0);
      for (const ExprPtr &G : KS->getGrid()) {
        llvm::Expected<std::string> L = printLaunch(*G, FL.HostLets);
        if (!L) {
          Diag.error(G->getLoc(), llvm::toString(L.takeError()));
          Failed = true;
          return;
        }
        AK.Launch.Grid.push_back(*L);
      }
      for (const SourceBinding &B : SK.Buffers) {
        KernelLaunch::Binding LB;
        LB.K = KernelLaunch::Binding::Kind::Buffer;
        LB.Param = B.Buf->getName().str();
        LB.Slot = B.Slot;
        LB.Writable = B.Writable;
        AK.Launch.Bindings.push_back(std::move(LB));
      }
      if (SK.UsesUniforms) {
        KernelLaunch::Binding LB;
        LB.K = KernelLaunch::Binding::Kind::Uniform;
        LB.Slot = SK.UniformSlot;
        AK.Launch.Bindings.push_back(std::move(LB));
        for (const SourceUniformField &U : SK.Uniforms)
          AK.Launch.Uniforms.push_back(
              {U.V->getName().str(), getDTypeName(U.StorageTy).str(), U.Offset});
        AK.Launch.UniformBytes = SK.UniformBytes;
      }
      T.emitModuleShared(KernelOS, SK);
      T.emitKernelBegin(KernelOS, SK);
      KernelOS << P.takeBody() << "}\n\n";
      Entry->Kernels.push_back(std::move(AK));
    });
    if (Failed)
      break;
  }
  if (Failed)
    return llvm::createStringError(T.getLanguage() + " code generation failed for target " +
                                   T.getTargetDescription());
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  T.emitPrologue(OS);
  if (!MS.HelperText.empty())
    OS << MS.HelperText;
  OS << Decls << Kernels;
  Artifact.DeviceSource = Out;
  Artifact.DeviceCode = Out;
  return llvm::Error::success();
}
