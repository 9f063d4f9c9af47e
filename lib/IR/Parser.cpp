//===- Parser.cpp - Reading the Tile textual format -----------------------===//
//
// A recursive-descent parser. It resolves names as it goes (values are
// lexically scoped; a name may not shadow one still in scope), gives
// untyped literals the type their context asks for, and parses tile ops
// from the assembly format declared for them in TableGen. Type rules are
// checked by the verifier, which runs after parsing.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Parser.h"
#include "Lexer.h"
#include "LiteralTyping.h"
#include "tile/IR/ScalarSemantics.h"
#include "tile/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <cmath>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// An expression, whether it is a bare literal whose type may still be
/// chosen by its context, and the depth of its tree.
struct PExpr {
  ExprPtr E;
  bool Weak = false;
  unsigned Depth = 1;
  explicit operator bool() const { return E != nullptr; }
};

/// How deep blocks, parentheses, attribute values and expression trees may
/// nest. Everything after the parser (verifier, printer, passes, the
/// destructors) walks these trees recursively: deeper input is rejected
/// with an error instead of overflowing the stack.
constexpr unsigned kMaxNesting = 200;

class Parser {
public:
  Parser(StringRef Buffer, TileContext &Ctx, DiagnosticEngine &Diag)
      : Lex(Buffer), Ctx(Ctx), Diag(Diag) {
    consume();
  }

  std::unique_ptr<Module> parseModule();

private:
  //===--- Tokens ---------------------------------------------------------===//
  void consume() {
    Tok = Lex.next();
    // No rule accepts an Error token, so the input is invalid: say what is
    // wrong with the text rather than what the grammar expected there.
    if (Tok.is(TokKind::Error))
      error(Tok.getLoc(), getLexErrorMessage(Tok));
  }
  bool consumeIf(TokKind K) {
    if (!Tok.is(K))
      return false;
    consume();
    return true;
  }
  bool consumeIfIdent(StringRef S) {
    if (!Tok.isIdent(S))
      return false;
    consume();
    return true;
  }
  bool error(SMLoc Loc, const Twine &Msg) {
    if (!Failed)
      Diag.error(Loc, Msg);
    Failed = true;
    return false;
  }
  bool error(const Twine &Msg) { return error(Tok.getLoc(), Msg); }
  std::string describeTok() const {
    if (Tok.is(TokKind::Eof))
      return "end of file";
    return "'" + Tok.Text.str() + "'";
  }
  /// Consumes a value name (`%x`): the name without `%` and where it
  /// stands; otherwise reports "expected <What>, found ..." and returns
  /// nothing.
  std::optional<std::pair<StringRef, SMLoc>> parseValueName(StringRef What) {
    if (!Tok.is(TokKind::ValueName)) {
      error("expected " + What + ", found " + describeTok());
      return std::nullopt;
    }
    std::pair<StringRef, SMLoc> Name{Tok.Text.drop_front(), Tok.getLoc()};
    consume();
    return Name;
  }
  bool expect(TokKind K, StringRef Context) {
    if (consumeIf(K))
      return true;
    return error("expected " + getTokenSpelling(K) + " " + Context +
                 ", found " + describeTok());
  }
  bool expectIdent(StringRef S, StringRef Context) {
    if (consumeIfIdent(S))
      return true;
    return error("expected '" + S + "' " + Context + ", found " + describeTok());
  }
  /// `element (, element)*` and then \p Close, which expect() requires with
  /// \p Context; with \p AllowEmpty, \p Close may come at once.
  /// \p ParseElement returns false after reporting an error.
  bool parseCommaList(TokKind Close, StringRef Context,
                      llvm::function_ref<bool()> ParseElement,
                      bool AllowEmpty = true) {
    if (!AllowEmpty || !Tok.is(Close)) {
      do {
        if (!ParseElement())
          return false;
      } while (consumeIf(TokKind::Comma));
    }
    return expect(Close, Context);
  }

  //===--- Scopes ---------------------------------------------------------===//
  Value *lookupValue(StringRef Name) const {
    for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
      auto F = It->find(Name);
      if (F != It->end())
        return F->second;
    }
    return nullptr;
  }
  /// Declares %Name in the innermost scope; an error if it is still visible.
  bool declare(Value *V, SMLoc Loc) {
    if (Value *Old = lookupValue(V->getName())) {
      error(Loc, "redefinition of '%" + V->getName() + "'");
      if (Old->getLoc().isValid())
        Diag.note(Old->getLoc(), "previous definition is here");
      return false;
    }
    Scopes.back()[V->getName()] = V;
    return true;
  }
  struct ScopeGuard {
    Parser &P;
    explicit ScopeGuard(Parser &P) : P(P) { P.Scopes.emplace_back(); }
    ~ScopeGuard() { P.Scopes.pop_back(); }
  };

  //===--- Nesting --------------------------------------------------------===//
  /// Counts one level of recursion; check ok() before going deeper.
  struct NestingGuard {
    Parser &P;
    explicit NestingGuard(Parser &P) : P(P) { ++P.Nesting; }
    ~NestingGuard() { --P.Nesting; }
    bool ok() {
      if (P.Nesting <= kMaxNesting)
        return true;
      return P.errorTooDeep(P.Tok.getLoc());
    }
  };
  bool errorTooDeep(SMLoc Loc) {
    return error(Loc, "nesting is too deep: blocks, parentheses, expressions "
                      "and attribute values may nest at most " +
                          Twine(kMaxNesting) + " levels");
  }
  /// Sets the depth of \p E, one level above its deepest operand.
  bool setDepth(PExpr &E, unsigned OperandDepth, SMLoc Loc) {
    E.Depth = OperandDepth + 1;
    return E.Depth <= kMaxNesting || errorTooDeep(Loc);
  }

  //===--- Literals -------------------------------------------------------===//
  bool parseIntTok(int64_t &V) {
    if (Tok.Text.getAsInteger(10, V))
      return error("integer '" + Tok.Text + "' is too large for 64 bits");
    return true;
  }
  bool parseFloatTok(double &V) {
    // Overflow is inexact, and getAsDouble then gives infinity.
    if (Tok.Text.getAsDouble(V) || std::isinf(V))
      return error("float '" + Tok.Text + "' is out of range");
    return true;
  }

  //===--- Grammar --------------------------------------------------------===//
  std::unique_ptr<Function> parseFunction();
  std::unique_ptr<Value> parseParam();
  bool parseTunable(Function &F);
  ExprPtr parseShapeDim();
  bool parseBlock(Block &B);
  StmtPtr parseStmt();
  StmtPtr parseAlloc(StringRef Name, SMLoc NameLoc);
  StmtPtr parseLet();
  StmtPtr parseFor();
  StmtPtr parseIf();
  StmtPtr parseKernel();
  StmtPtr parseOp(const OpInfo &Info);
  StmtPtr parseAssignment();
  bool parseAttrDict(AttributeList &Attrs);
  bool parseAttrValue(Attribute &A);
  bool parseRegion(Region &R);
  std::optional<DType> parseDTypeTok(StringRef Context);

  PExpr parseExpr(unsigned MinPrec = 1);
  PExpr parseUnary();
  PExpr parsePrimary();
  PExpr parseCallLike(StringRef Name, SMLoc Loc);
  /// Parses an expression and gives a weak literal type \p Ty.
  ExprPtr parseExprAs(DType Ty);
  ExprPtr parseIndexExpr() { return parseExprAs(DType::I32); }
  /// Gives weak literal \p E the type \p Ty, or reports why it cannot be.
  bool coerceOrError(PExpr &E, DType Ty);
  /// Parses a comma-separated list of integer expressions (indices, shapes,
  /// grid sizes) up to \p Close; bare literals become i32. \p MaxDepth, when
  /// given, receives the depth of the deepest element.
  bool parseExprList(std::vector<ExprPtr> &Out, TokKind Close, StringRef What,
                     unsigned *MaxDepth = nullptr);

  Lexer Lex;
  Token Tok;
  TileContext &Ctx;
  DiagnosticEngine &Diag;
  Function *CurFunc = nullptr;
  std::vector<llvm::StringMap<Value *>> Scopes;
  unsigned Nesting = 0;
  bool Failed = false;
};

} // namespace

bool tile::coerceLiteral(ExprPtr &E, DType Ty) {
  if (auto *I = dyn_cast<IntLitExpr>(E.get())) {
    if (isFloat(Ty)) {
      E = std::make_unique<FloatLitExpr>(double(I->getValue()), Ty, I->getLoc());
      return true;
    }
    if (isBool(Ty) && I->getValue() != 0 && I->getValue() != 1)
      return false;
    I->setDType(Ty);
    return true;
  }
  if (auto *F = dyn_cast<FloatLitExpr>(E.get())) {
    if (!isFloat(Ty))
      return false;
    F->setDType(Ty);
    return true;
  }
  return true;
}

/// "1 stride", "2 strides".
static std::string countOf(size_t N, StringRef One, StringRef Many) {
  return (Twine(N) + " " + (N == 1 ? One : Many)).str();
}

/// Unifies the types of two operands where one is a weak literal.
static void unify(PExpr &A, PExpr &B) {
  if (A.Weak && !B.Weak)
    A.Weak = !coerceLiteral(A.E, B.E->getDType());
  else if (B.Weak && !A.Weak)
    B.Weak = !coerceLiteral(B.E, A.E->getDType());
  else if (A.Weak && B.Weak && A.E->getDType() != B.E->getDType()) {
    // One int and one float literal: both float.
    coerceLiteral(A.E, DType::F32);
    coerceLiteral(B.E, DType::F32);
  }
}

//===----------------------------------------------------------------------===//
// Module, functions, parameters
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto M = std::make_unique<Module>(Ctx);
  while (!Tok.is(TokKind::Eof)) {
    if (!Tok.isIdent("func")) {
      error("expected 'func' at top level, found " + describeTok());
      return nullptr;
    }
    auto F = parseFunction();
    if (!F)
      return nullptr;
    if (Function *Old = M->lookupFunction(F->getName())) {
      error(F->getLoc(), "redefinition of function '@" + F->getName() + "'");
      Diag.note(Old->getLoc(), "previous definition is here");
      return nullptr;
    }
    M->addFunction(std::move(F));
  }
  return Failed ? nullptr : std::move(M);
}

std::unique_ptr<Function> Parser::parseFunction() {
  consume(); // func
  if (!Tok.is(TokKind::FuncName)) {
    error("expected function name like '@matmul' after 'func', found " +
          describeTok());
    return nullptr;
  }
  auto F = std::make_unique<Function>(Tok.Text.drop_front(), Tok.getLoc());
  consume();
  CurFunc = F.get();
  Scopes.clear();
  ScopeGuard Top(*this);
  if (consumeIf(TokKind::Lt) &&
      !parseCommaList(TokKind::Gt, "to end the tunable parameters",
                      [&] { return parseTunable(*F); }, /*AllowEmpty=*/false))
    return nullptr;
  if (!expect(TokKind::LParen, "to start the parameter list"))
    return nullptr;
  if (!parseCommaList(TokKind::RParen, "to end the parameter list", [&] {
        SMLoc Loc = Tok.getLoc();
        auto P = parseParam();
        if (!P || !declare(P.get(), Loc))
          return false;
        F->addParam(std::move(P));
        return true;
      }))
    return nullptr;
  if (consumeIfIdent("attributes") && !parseAttrDict(F->getAttrsMutable()))
    return nullptr;
  if (!parseBlock(F->getBodyMutable()))
    return nullptr;
  CurFunc = nullptr;
  return F;
}

std::optional<DType> Parser::parseDTypeTok(StringRef Context) {
  if (Tok.is(TokKind::Ident))
    if (std::optional<DType> T = parseDType(Tok.Text)) {
      consume();
      return T;
    }
  error("expected element type (i1, i8..i64, u8..u64, f16, bf16, f32, f64, "
        "f8e4m3, f8e5m2) " +
        Context + ", found " + describeTok());
  return std::nullopt;
}

/// Names that expressions read as something else: a symbolic dimension so
/// named could be declared but not used, and would not print back.
static bool isReservedName(StringRef Name) {
  return Name == "true" || Name == "false" || Name == "cast" ||
         Name == "inf" || parseIntrinsic(Name).has_value();
}

/// A dimension in a parameter's shape or strides: an integer or a symbol.
ExprPtr Parser::parseShapeDim() {
  SMLoc Loc = Tok.getLoc();
  if (Tok.is(TokKind::Int)) {
    int64_t V;
    if (!parseIntTok(V))
      return nullptr;
    consume();
    return std::make_unique<IntLitExpr>(V, DType::I32, Loc);
  }
  if (Tok.is(TokKind::Ident) && !parseDType(Tok.Text)) {
    if (isReservedName(Tok.Text)) {
      error("'" + Tok.Text +
            "' is a reserved word and cannot name a symbolic dimension");
      return nullptr;
    }
    if (const TunableDecl *T = CurFunc->lookupTunable(Tok.Text)) {
      consume();
      return std::make_unique<RefExpr>(T->Var.get(), Loc);
    }
    Value *D = CurFunc->getOrCreateDim(Tok.Text, Loc);
    consume();
    return std::make_unique<RefExpr>(D, Loc);
  }
  error("expected an integer or a symbolic dimension name, found " +
        describeTok());
  return nullptr;
}

std::unique_ptr<Value> Parser::parseParam() {
  std::optional<std::pair<StringRef, SMLoc>> N =
      parseValueName("parameter name like '%A'");
  if (!N)
    return nullptr;
  auto [Name, Loc] = *N;
  if (!expect(TokKind::Colon, "after the parameter name"))
    return nullptr;
  std::optional<DType> Ty = parseDTypeTok("in the parameter type");
  if (!Ty)
    return nullptr;
  if (!consumeIf(TokKind::LBrack))
    return std::make_unique<Value>(Value::Kind::Param, Name, *Ty, Loc);
  std::vector<ExprPtr> Shape, Strides;
  auto ShapeDimInto = [&](std::vector<ExprPtr> &Dims) {
    return [&] {
      ExprPtr D = parseShapeDim();
      if (!D)
        return false;
      Dims.push_back(std::move(D));
      return true;
    };
  };
  if (!parseCommaList(TokKind::RBrack, "to end the shape", ShapeDimInto(Shape)))
    return nullptr;
  if (Tok.isIdent("strides")) {
    SMLoc SLoc = Tok.getLoc();
    consume();
    if (!expect(TokKind::LParen, "after 'strides'"))
      return nullptr;
    if (!parseCommaList(TokKind::RParen, "to end the strides",
                        ShapeDimInto(Strides), /*AllowEmpty=*/false))
      return nullptr;
    if (Strides.size() != Shape.size()) {
      error(SLoc, "'%" + Name + "' has " +
                      countOf(Shape.size(), "dimension", "dimensions") +
                      " but " + countOf(Strides.size(), "stride", "strides"));
      return nullptr;
    }
  }
  return std::make_unique<BufferValue>(Name, *Ty, MemScope::Global,
                                       std::move(Shape), std::move(Strides),
                                       /*IsParam=*/true, Loc);
}

/// Whether \p V is a value of integer type \p Ty.
static bool fitsIntType(int64_t V, DType Ty) {
  return isUnsigned(Ty) ? V >= 0 && scalar::wrapInt(uint64_t(V), Ty) == V
                        : scalar::wrapInt(uint64_t(V), Ty) == V;
}

/// `NAME: type = default [in [c0, c1, ...]]`
bool Parser::parseTunable(Function &F) {
  SMLoc Loc = Tok.getLoc();
  if (!Tok.is(TokKind::Ident) || parseDType(Tok.Text))
    return error("expected a tunable parameter name like 'BM', found " +
                 describeTok());
  StringRef Name = Tok.Text;
  if (isReservedName(Name))
    return error("'" + Name +
                 "' is a reserved word and cannot name a tunable parameter");
  if (const TunableDecl *Old = F.lookupTunable(Name)) {
    error(Loc, "redefinition of tunable parameter '" + Name + "'");
    Diag.note(Old->Var->getLoc(), "previous definition is here");
    return false;
  }
  consume();
  if (!expect(TokKind::Colon, "after the tunable parameter name"))
    return false;
  SMLoc TyLoc = Tok.getLoc();
  std::optional<DType> Ty = parseDTypeTok("in the tunable parameter's type");
  if (!Ty)
    return false;
  if (!isInteger(*Ty) || isBool(*Ty))
    return error(TyLoc, "tunable parameter '" + Name +
                            "' must have an integer type (i8..i64, u8..u64), "
                            "not " + getDTypeName(*Ty));
  auto ParseValue = [&](int64_t &V, StringRef What) {
    SMLoc VLoc = Tok.getLoc();
    bool Neg = consumeIf(TokKind::Minus);
    if (!Tok.is(TokKind::Int))
      return error("expected an integer " + What + " of tunable parameter '" +
                   Name + "', found " + describeTok());
    if (!parseIntTok(V))
      return false;
    consume();
    V = Neg ? -V : V;
    if (!fitsIntType(V, *Ty))
      return error(VLoc, Twine(V) + " does not fit the type " +
                             getDTypeName(*Ty) + " of tunable parameter '" +
                             Name + "'");
    return true;
  };
  TunableDecl T;
  T.Var = std::make_unique<Value>(Value::Kind::Tunable, Name, *Ty, Loc);
  if (!expect(TokKind::Equal, "and a default value after the tunable "
                              "parameter's type") ||
      !ParseValue(T.Default, "default"))
    return false;
  if (consumeIfIdent("in")) {
    SMLoc ListLoc = Tok.getLoc();
    if (!expect(TokKind::LBrack, "to start the candidate values") ||
        !parseCommaList(TokKind::RBrack, "to end the candidate values", [&] {
          SMLoc CLoc = Tok.getLoc();
          int64_t C;
          if (!ParseValue(C, "candidate"))
            return false;
          if (llvm::is_contained(T.Candidates, C))
            return error(CLoc, "candidate " + Twine(C) +
                                   " of tunable parameter '" + Name +
                                   "' is listed twice");
          T.Candidates.push_back(C);
          return true;
        }, /*AllowEmpty=*/false))
      return false;
    if (!llvm::is_contained(T.Candidates, T.Default))
      return error(ListLoc, "the default " + Twine(T.Default) +
                                " of tunable parameter '" + Name +
                                "' is not one of its candidates");
  }
  F.addTunable(std::move(T));
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Parser::parseBlock(Block &B) {
  NestingGuard N(*this);
  if (!N.ok())
    return false;
  B.LBrace = Tok.getLoc();
  if (!expect(TokKind::LBrace, "to start a block"))
    return false;
  ScopeGuard G(*this);
  while (!Tok.is(TokKind::RBrace)) {
    if (Tok.is(TokKind::Eof))
      return error("expected '}' to end the block, found end of file");
    StmtPtr S = parseStmt();
    if (!S)
      return false;
    B.Stmts.push_back(std::move(S));
  }
  B.RBrace = Tok.getLoc();
  consume();
  return true;
}

StmtPtr Parser::parseStmt() {
  if (Tok.is(TokKind::ValueName)) {
    // `%x = alloc ...`, `%x = expr` (var) or `%x[...] = expr`.
    Token NameTok = Tok;
    consume();
    if (Tok.is(TokKind::Equal)) {
      consume();
      if (Tok.isIdent("alloc"))
        return parseAlloc(NameTok.Text.drop_front(), NameTok.getLoc());
    }
    Lex.resetTo(NameTok.Text.data());
    consume();
    return parseAssignment();
  }
  if (!Tok.is(TokKind::Ident)) {
    error("expected a statement, found " + describeTok());
    return nullptr;
  }
  if (Tok.Text == "let")
    return parseLet();
  if (Tok.Text == "for")
    return parseFor();
  if (Tok.Text == "if")
    return parseIf();
  if (Tok.Text == "kernel")
    return parseKernel();
  if (const OpInfo *Info = Ctx.getOpRegistry().lookup(Tok.Text))
    return parseOp(*Info);
  StringRef Name = Tok.Text;
  if (Name.contains('.')) {
    StringRef Dialect = Name.split('.').first;
    if (!Ctx.getOpRegistry().hasDialect(Dialect)) {
      error("unknown op '" + Name + "': dialect '" + Dialect +
            "' is not registered (is the backend that provides it linked?)");
      return nullptr;
    }
  }
  error("unknown statement or op '" + Name + "'");
  return nullptr;
}

StmtPtr Parser::parseAlloc(StringRef Name, SMLoc NameLoc) {
  SMLoc Loc = NameLoc;
  consume(); // alloc
  if (!Tok.is(TokKind::Ident) || !parseScope(Tok.Text)) {
    error("expected memory scope (global, shared, fragment, local, var) "
          "after 'alloc', found " +
          describeTok());
    return nullptr;
  }
  MemScope Scope = *parseScope(Tok.Text);
  consume();
  std::optional<DType> Ty = parseDTypeTok("after the memory scope");
  if (!Ty)
    return nullptr;
  std::vector<ExprPtr> Shape;
  if (Scope == MemScope::Var) {
    if (Tok.is(TokKind::LBrack)) {
      error("a 'var' is a scalar and takes no shape");
      return nullptr;
    }
  } else {
    if (!expect(TokKind::LBrack, "to start the shape"))
      return nullptr;
    if (!parseExprList(Shape, TokKind::RBrack, "shape"))
      return nullptr;
  }
  AttributeList Attrs;
  if (Tok.is(TokKind::LBrace) && !parseAttrDict(Attrs))
    return nullptr;
  auto Buf = std::make_unique<BufferValue>(Name, *Ty, Scope, std::move(Shape),
                                           std::vector<ExprPtr>(),
                                           /*IsParam=*/false, NameLoc);
  if (!declare(Buf.get(), NameLoc))
    return nullptr;
  return std::make_unique<AllocStmt>(std::move(Buf), std::move(Attrs), Loc);
}

StmtPtr Parser::parseAssignment() {
  SMLoc Loc = Tok.getLoc();
  StringRef Name = Tok.Text.drop_front();
  consume();
  Value *V = lookupValue(Name);
  if (!V) {
    error(Loc, "use of undefined value '%" + Name + "'");
    return nullptr;
  }
  auto *Buf = dyn_cast<BufferValue>(V);
  if (!Buf) {
    error(Loc, "cannot assign to '%" + Name +
                   "': only buffers and vars can be written");
    return nullptr;
  }
  std::vector<ExprPtr> Indices;
  if (consumeIf(TokKind::LBrack)) {
    if (Buf->getScope() == MemScope::Var) {
      error(Loc, "'%" + Name + "' is a var; assign it without indices");
      return nullptr;
    }
    if (!parseExprList(Indices, TokKind::RBrack, "index list"))
      return nullptr;
  } else if (Buf->getScope() != MemScope::Var) {
    error(Loc, "'%" + Name + "' is a buffer; index it to store an element");
    return nullptr;
  }
  if (!expect(TokKind::Equal, "in assignment"))
    return nullptr;
  ExprPtr Val = parseExprAs(Buf->getDType());
  if (!Val)
    return nullptr;
  return std::make_unique<StoreStmt>(Buf, std::move(Indices), std::move(Val),
                                     Loc);
}

StmtPtr Parser::parseLet() {
  SMLoc Loc = Tok.getLoc();
  consume();
  std::optional<std::pair<StringRef, SMLoc>> N =
      parseValueName("a value name like '%x' after 'let'");
  if (!N)
    return nullptr;
  auto [Name, NameLoc] = *N;
  if (!expect(TokKind::Equal, "after the let name"))
    return nullptr;
  PExpr Init = parseExpr();
  if (!Init)
    return nullptr;
  auto V = std::make_unique<Value>(Value::Kind::Let, Name,
                                   Init.E->getDType(), NameLoc);
  if (!declare(V.get(), NameLoc))
    return nullptr;
  return std::make_unique<LetStmt>(std::move(V), std::move(Init.E), Loc);
}

StmtPtr Parser::parseFor() {
  SMLoc Loc = Tok.getLoc();
  consume();
  std::vector<std::pair<StringRef, SMLoc>> Names;
  do {
    std::optional<std::pair<StringRef, SMLoc>> N =
        parseValueName("loop variable like '%i'");
    if (!N)
      return nullptr;
    Names.push_back(*N);
  } while (consumeIf(TokKind::Comma));
  if (!expectIdent("in", "after the loop variables"))
    return nullptr;
  SMLoc KindLoc = Tok.getLoc();
  std::optional<LoopKind> LK;
  if (Tok.is(TokKind::Ident))
    LK = parseLoopKind(Tok.Text);
  if (!LK) {
    error("expected loop kind (serial, parallel, pipelined, unroll), found " +
          describeTok());
    return nullptr;
  }
  consume();
  if (!expect(TokKind::LParen, "after the loop kind"))
    return nullptr;
  // Positional bounds, then `name = value` options. Bare literals among
  // the bounds and the step take the type of the other bounds (serial(0, %n)
  // with an i64 %n counts in i64), or i32.
  std::vector<PExpr> Bounds;
  AttributeList Attrs;
  PExpr Step;
  bool First = true;
  while (!Tok.is(TokKind::RParen)) {
    if (!First && !expect(TokKind::Comma, "between loop bounds"))
      return nullptr;
    First = false;
    if (Tok.is(TokKind::Ident)) {
      // An option if followed by '='.
      const char *Save = Tok.Text.data();
      Token IdTok = Tok;
      consume();
      if (Tok.is(TokKind::Equal)) {
        consume();
        if (IdTok.Text == "step") {
          if (Step) {
            error(IdTok.getLoc(), "duplicate loop option 'step'");
            return nullptr;
          }
          Step = parseExpr();
          if (!Step)
            return nullptr;
          continue;
        }
        Attribute A;
        if (!parseAttrValue(A))
          return nullptr;
        if (Attrs.get(IdTok.Text)) {
          error(IdTok.getLoc(), "duplicate loop option '" + IdTok.Text + "'");
          return nullptr;
        }
        Attrs.set(IdTok.Text, A, IdTok.getLoc());
        continue;
      }
      Lex.resetTo(Save);
      consume();
    }
    if (!Attrs.empty() || Step) {
      error("loop bounds must come before loop options");
      return nullptr;
    }
    PExpr B = parseExpr();
    if (!B)
      return nullptr;
    Bounds.push_back(std::move(B));
  }
  consume(); // )
  if (*LK != LoopKind::Parallel && Bounds.size() == 2)
    unify(Bounds[0], Bounds[1]);
  for (PExpr &B : Bounds)
    if (!coerceOrError(B, DType::I32))
      return nullptr;
  if (Step) {
    DType BoundTy = Bounds.empty() ? DType::I32 : Bounds.back().E->getDType();
    if (!isInteger(BoundTy) || isBool(BoundTy))
      BoundTy = DType::I32; // the verifier reports the bad bound
    if (!coerceOrError(Step, BoundTy))
      return nullptr;
  }
  std::vector<LoopDim> Dims;
  if (*LK == LoopKind::Parallel) {
    if (Step) {
      error(KindLoc, "parallel loops take no step");
      return nullptr;
    }
    if (Bounds.size() != Names.size()) {
      error(KindLoc, "parallel loop has " +
                         countOf(Names.size(), "variable", "variables") +
                         " but " + countOf(Bounds.size(), "extent", "extents"));
      return nullptr;
    }
    for (PExpr &B : Bounds) {
      LoopDim D;
      D.Hi = std::move(B.E);
      Dims.push_back(std::move(D));
    }
  } else {
    if (Names.size() != 1) {
      error(Names[1].second, "only parallel loops bind several variables");
      return nullptr;
    }
    if (Bounds.empty() || Bounds.size() > 2) {
      error(KindLoc, getLoopKindName(*LK) +
                         " loop takes (end) or (begin, end), got " +
                         countOf(Bounds.size(), "bound", "bounds"));
      return nullptr;
    }
    LoopDim D;
    if (Bounds.size() == 1) {
      DType Ty = Bounds[0].E->getDType();
      if (!isInteger(Ty) || isBool(Ty))
        Ty = DType::I32; // the verifier reports the bad bound
      D.Lo = std::make_unique<IntLitExpr>(0, Ty, KindLoc);
      D.Hi = std::move(Bounds[0].E);
    } else {
      D.Lo = std::move(Bounds[0].E);
      D.Hi = std::move(Bounds[1].E);
    }
    Dims.push_back(std::move(D));
  }
  ScopeGuard G(*this);
  for (auto [D, N] : llvm::zip(Dims, Names)) {
    DType Ty = D.Hi->getDType();
    if (!isInteger(Ty) || isBool(Ty))
      Ty = DType::I32; // the verifier reports the bad bound
    D.Var = std::make_unique<Value>(Value::Kind::LoopVar, N.first, Ty, N.second);
    if (!declare(D.Var.get(), N.second))
      return nullptr;
  }
  Block Body;
  if (!parseBlock(Body))
    return nullptr;
  return std::make_unique<ForStmt>(*LK, std::move(Dims), std::move(Step.E),
                                   std::move(Attrs), std::move(Body), Loc);
}

StmtPtr Parser::parseIf() {
  SMLoc Loc = Tok.getLoc();
  consume();
  ExprPtr Cond = parseExprAs(DType::I1);
  if (!Cond)
    return nullptr;
  Block Then;
  if (!parseBlock(Then))
    return nullptr;
  std::optional<Block> Else;
  if (consumeIfIdent("else")) {
    Else.emplace();
    if (Tok.isIdent("if")) {
      // `else if` is an else block holding one if.
      Else->LBrace = Tok.getLoc();
      StmtPtr Nested = parseIf();
      if (!Nested)
        return nullptr;
      Else->Stmts.push_back(std::move(Nested));
    } else if (!parseBlock(*Else)) {
      return nullptr;
    }
  }
  return std::make_unique<IfStmt>(std::move(Cond), std::move(Then),
                                  std::move(Else), Loc);
}

StmtPtr Parser::parseKernel() {
  SMLoc Loc = Tok.getLoc();
  consume();
  if (!expectIdent("grid", "after 'kernel'") ||
      !expect(TokKind::LParen, "after 'grid'"))
    return nullptr;
  std::vector<ExprPtr> Grid;
  SMLoc GridLoc = Tok.getLoc();
  if (!parseExprList(Grid, TokKind::RParen, "grid"))
    return nullptr;
  if (Grid.empty() || Grid.size() > 3) {
    error(GridLoc, "a kernel grid has 1 to 3 dimensions, got " +
                       Twine(Grid.size()));
    return nullptr;
  }
  if (!expectIdent("threads", "after the grid") ||
      !expect(TokKind::LParen, "after 'threads'"))
    return nullptr;
  ExprPtr Threads = parseIndexExpr();
  if (!Threads || !expect(TokKind::RParen, "after the thread count"))
    return nullptr;
  ScopeGuard G(*this);
  std::vector<std::unique_ptr<Value>> Idx;
  SMLoc IdxLoc = Tok.getLoc();
  if (!expect(TokKind::LParen, "to start the block index names"))
    return nullptr;
  do {
    std::optional<std::pair<StringRef, SMLoc>> N =
        parseValueName("block index name like '%bx'");
    if (!N)
      return nullptr;
    Idx.push_back(std::make_unique<Value>(Value::Kind::BlockIdx, N->first,
                                          DType::I32, N->second));
    if (!declare(Idx.back().get(), N->second))
      return nullptr;
  } while (consumeIf(TokKind::Comma));
  if (!expect(TokKind::RParen, "to end the block index names"))
    return nullptr;
  if (Idx.size() != Grid.size()) {
    error(IdxLoc, "kernel binds " +
                      countOf(Idx.size(), "block index", "block indices") +
                      " for a grid of " +
                      countOf(Grid.size(), "dimension", "dimensions"));
    return nullptr;
  }
  std::unique_ptr<Value> Tid;
  if (consumeIfIdent("thread")) {
    if (!expect(TokKind::LParen, "after 'thread'"))
      return nullptr;
    std::optional<std::pair<StringRef, SMLoc>> N =
        parseValueName("thread index name like '%tx'");
    if (!N)
      return nullptr;
    Tid = std::make_unique<Value>(Value::Kind::ThreadIdx, N->first, DType::I32,
                                  N->second);
    if (!declare(Tid.get(), N->second))
      return nullptr;
    if (!expect(TokKind::RParen, "after the thread index name"))
      return nullptr;
  }
  AttributeList Attrs;
  if (consumeIfIdent("attributes") && !parseAttrDict(Attrs))
    return nullptr;
  Block Body;
  if (!parseBlock(Body))
    return nullptr;
  return std::make_unique<KernelStmt>(std::move(Grid), std::move(Threads),
                                      std::move(Idx), std::move(Tid),
                                      std::move(Attrs), std::move(Body), Loc);
}

bool Parser::parseRegion(Region &R) {
  R.Loc = Tok.getLoc();
  if (!Tok.is(TokKind::ValueName))
    return error("expected a buffer like '%A' or '%A[...]', found " +
                 describeTok());
  StringRef Name = Tok.Text.drop_front();
  Value *V = lookupValue(Name);
  if (!V)
    return error("use of undefined value '%" + Name + "'");
  R.Buf = dyn_cast<BufferValue>(V);
  if (!R.Buf)
    return error("'%" + Name + "' is a scalar, not a buffer");
  consume();
  if (!consumeIf(TokKind::LBrack))
    return true;
  do {
    RegionIndex I;
    I.Offset = parseIndexExpr();
    if (!I.Offset)
      return false;
    if (consumeIf(TokKind::Colon)) {
      I.Extent = parseIndexExpr();
      if (!I.Extent)
        return false;
    }
    R.Indices.push_back(std::move(I));
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::RBrack, "to end the region");
}

StmtPtr Parser::parseOp(const OpInfo &Info) {
  SMLoc Loc = Tok.getLoc();
  consume();
  std::vector<OpOperand> Operands(Info.NumOperands);
  AttributeList Attrs;
  llvm::SmallVector<StringRef> Toks;
  StringRef(Info.Format).split(Toks, ' ', -1, false);
  for (StringRef T : Toks) {
    if (T == "attr-dict") {
      if (Tok.is(TokKind::LBrace)) {
        AttributeList Dict;
        if (!parseAttrDict(Dict))
          return nullptr;
        for (const NamedAttribute &A : Dict) {
          if (Attrs.get(A.Name)) {
            error(A.Loc, "attribute '" + A.Name + "' of '" + Info.Name +
                             "' is already given in place");
            return nullptr;
          }
          Attrs.set(A.Name, A.Value, A.Loc);
        }
      }
      continue;
    }
    if (T.front() == '`') {
      StringRef Lit = T.drop_front().drop_back();
      if (Tok.Text != Lit) {
        error("expected '" + Lit + "' in '" + Info.Name + "', found " +
              describeTok());
        return nullptr;
      }
      consume();
      continue;
    }
    StringRef Name = T.drop_front();
    int OI = Info.findOperand(Name);
    if (OI >= 0) {
      OpOperand &O = Operands[OI];
      O.Kind = Info.Operands[OI].Kind;
      if (O.Kind == OperandKind::Region) {
        if (!parseRegion(O.R))
          return nullptr;
      } else {
        PExpr E = parseExpr();
        if (!E)
          return nullptr;
        O.E = std::move(E.E);
      }
      continue;
    }
    // An attribute written in place (an enum keyword).
    SMLoc ALoc = Tok.getLoc();
    Attribute A;
    if (!parseAttrValue(A))
      return nullptr;
    Attrs.set(Name, A, ALoc);
  }
  // Check attributes against the declaration.
  for (const NamedAttribute &A : Attrs) {
    const OpAttrInfo *AI = Info.findAttr(A.Name);
    if (!AI) {
      std::string Known;
      for (const OpAttrInfo &K : Info.attrs())
        Known += (Known.empty() ? "" : ", ") + std::string(K.Name);
      error(A.Loc, "'" + Twine(Info.Name) + "' has no attribute '" + A.Name +
                       "'" +
                       (Known.empty() ? Twine(" (it takes none)")
                                      : Twine("; it takes: ") + Known));
      return nullptr;
    }
    const Attribute &V = A.Value;
    bool OK = true;
    StringRef Want;
    switch (AI->Kind) {
    case AttrKind::Int:
      OK = V.getKind() == Attribute::Kind::Int;
      Want = "an integer";
      break;
    case AttrKind::Float:
      OK = V.getKind() == Attribute::Kind::Float ||
           V.getKind() == Attribute::Kind::Int;
      Want = "a number";
      break;
    case AttrKind::Bool:
      OK = V.getKind() == Attribute::Kind::Bool;
      Want = "true or false";
      break;
    case AttrKind::String:
      OK = V.getKind() == Attribute::Kind::String;
      Want = "a string";
      break;
    case AttrKind::IntList:
      OK = V.getKind() == Attribute::Kind::List &&
           llvm::all_of(V.getElements(), [](const Attribute &E) {
             return E.getKind() == Attribute::Kind::Int;
           });
      Want = "a list of integers";
      break;
    case AttrKind::Enum:
      OK = V.getKind() == Attribute::Kind::Ident &&
           llvm::is_contained(AI->enumValues(), V.getStr());
      break;
    case AttrKind::Any:
      break;
    }
    if (!OK) {
      if (AI->Kind == AttrKind::Enum) {
        error(A.Loc, "'" + V.str() + "' is not a valid " + A.Name + " for '" +
                         Info.Name + "'; expected one of: " +
                         llvm::join(AI->enumValues(), ", "));
      } else {
        error(A.Loc, "attribute '" + A.Name + "' of '" + Info.Name +
                         "' must be " + Want + ", got '" + V.str() + "'");
      }
      return nullptr;
    }
  }
  for (const OpAttrInfo &AI : Info.attrs())
    if (!AI.Default && !Attrs.get(AI.Name)) {
      error(Loc, "'" + Twine(Info.Name) + "' requires attribute '" + AI.Name +
                     "'");
      return nullptr;
    }
  // Canonical attribute order: as declared.
  AttributeList Ordered;
  for (const OpAttrInfo &AI : Info.attrs())
    if (const NamedAttribute *A = Attrs.getNamed(AI.Name))
      Ordered.set(A->Name, A->Value, A->Loc);
  return std::make_unique<OpStmt>(&Info, std::move(Operands),
                                  std::move(Ordered), Loc);
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

bool Parser::parseAttrDict(AttributeList &Attrs) {
  if (!expect(TokKind::LBrace, "to start attributes"))
    return false;
  if (consumeIf(TokKind::RBrace))
    return true;
  do {
    if (!Tok.is(TokKind::Ident))
      return error("expected attribute name, found " + describeTok());
    StringRef Name = Tok.Text;
    SMLoc Loc = Tok.getLoc();
    consume();
    if (Attrs.get(Name))
      return error(Loc, "duplicate attribute '" + Name + "'");
    if (!expect(TokKind::Equal, "after the attribute name"))
      return false;
    Attribute A;
    if (!parseAttrValue(A))
      return false;
    Attrs.set(Name, A, Loc);
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::RBrace, "to end attributes");
}

bool Parser::parseAttrValue(Attribute &A) {
  auto AttrValueInto = [&](std::vector<Attribute> &Values) {
    return [&] {
      Attribute V;
      if (!parseAttrValue(V))
        return false;
      Values.push_back(std::move(V));
      return true;
    };
  };
  NestingGuard N(*this);
  if (!N.ok())
    return false;
  bool Neg = consumeIf(TokKind::Minus);
  if (Tok.is(TokKind::Int)) {
    int64_t V;
    if (!parseIntTok(V))
      return false;
    A = Attribute::getInt(Neg ? -V : V);
    consume();
    return true;
  }
  if (Tok.is(TokKind::Float)) {
    double V;
    if (!parseFloatTok(V))
      return false;
    A = Attribute::getFloat(Neg ? -V : V);
    consume();
    return true;
  }
  if (Neg)
    return error("expected a number after '-', found " + describeTok());
  if (Tok.is(TokKind::String)) {
    A = Attribute::getString(Tok.Text.drop_front().drop_back());
    consume();
    return true;
  }
  if (Tok.is(TokKind::LBrack)) {
    consume();
    std::vector<Attribute> Elems;
    if (!parseCommaList(TokKind::RBrack, "to end the list", AttrValueInto(Elems)))
      return false;
    A = Attribute::getList(std::move(Elems));
    return true;
  }
  if (Tok.is(TokKind::Ident)) {
    StringRef Name = Tok.Text;
    consume();
    if (Name == "true" || Name == "false") {
      A = Attribute::getBool(Name == "true");
      return true;
    }
    if (!consumeIf(TokKind::LParen)) {
      A = Attribute::getIdent(Name);
      return true;
    }
    std::vector<Attribute> Args;
    if (!parseCommaList(TokKind::RParen, "to end the attribute arguments",
                        AttrValueInto(Args)))
      return false;
    A = Attribute::getCall(Name, std::move(Args));
    return true;
  }
  return error("expected an attribute value, found " + describeTok());
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {
struct BinOpDesc {
  TokKind Tok;
  BinaryOp Op;
  unsigned Prec;
};
constexpr BinOpDesc kBinOps[] = {
    {TokKind::PipePipe, BinaryOp::LogicalOr, 1},
    {TokKind::AmpAmp, BinaryOp::LogicalAnd, 2},
    {TokKind::Pipe, BinaryOp::Or, 3},
    {TokKind::Caret, BinaryOp::Xor, 4},
    {TokKind::Amp, BinaryOp::And, 5},
    {TokKind::EqEq, BinaryOp::Eq, 6},
    {TokKind::Ne, BinaryOp::Ne, 6},
    {TokKind::Lt, BinaryOp::Lt, 7},
    {TokKind::Le, BinaryOp::Le, 7},
    {TokKind::Gt, BinaryOp::Gt, 7},
    {TokKind::Ge, BinaryOp::Ge, 7},
    {TokKind::Shl, BinaryOp::Shl, 8},
    {TokKind::Shr, BinaryOp::Shr, 8},
    {TokKind::Plus, BinaryOp::Add, 9},
    {TokKind::Minus, BinaryOp::Sub, 9},
    {TokKind::Star, BinaryOp::Mul, 10},
    {TokKind::Slash, BinaryOp::Div, 10},
    {TokKind::Percent, BinaryOp::Rem, 10},
};
const BinOpDesc *findBinOp(TokKind K) {
  for (const BinOpDesc &D : kBinOps)
    if (D.Tok == K)
      return &D;
  return nullptr;
}
} // namespace

bool Parser::coerceOrError(PExpr &E, DType Ty) {
  if (!E.Weak || coerceLiteral(E.E, Ty))
    return true;
  return error(E.E->getLoc(),
               "literal cannot be used as a value of type " + getDTypeName(Ty));
}

ExprPtr Parser::parseExprAs(DType Ty) {
  PExpr E = parseExpr();
  if (!E || !coerceOrError(E, Ty))
    return nullptr;
  return std::move(E.E);
}

bool Parser::parseExprList(std::vector<ExprPtr> &Out, TokKind Close,
                           StringRef What, unsigned *MaxDepth) {
  if (!parseCommaList(Close, ("to end the " + What).str(), [&] {
        PExpr E = parseExpr();
        if (!E || !coerceOrError(E, DType::I32))
          return false;
        if (MaxDepth)
          *MaxDepth = std::max(*MaxDepth, E.Depth);
        Out.push_back(std::move(E.E));
        return true;
      }))
    return false;
  return true;
}

PExpr Parser::parseExpr(unsigned MinPrec) {
  NestingGuard N(*this);
  if (!N.ok())
    return {};
  PExpr LHS = parseUnary();
  if (!LHS)
    return {};
  while (const BinOpDesc *D = findBinOp(Tok.Kind)) {
    if (D->Prec < MinPrec)
      break;
    SMLoc OpLoc = Tok.getLoc();
    consume();
    PExpr RHS = parseExpr(D->Prec + 1);
    if (!RHS)
      return {};
    unify(LHS, RHS);
    DType Ty = isComparison(D->Op) ? DType::I1 : LHS.E->getDType();
    if (D->Op == BinaryOp::LogicalAnd || D->Op == BinaryOp::LogicalOr)
      Ty = DType::I1;
    LHS.E = std::make_unique<BinaryExpr>(D->Op, std::move(LHS.E),
                                         std::move(RHS.E), Ty, OpLoc);
    LHS.Weak = false;
    if (!setDepth(LHS, std::max(LHS.Depth, RHS.Depth), OpLoc))
      return {};
  }
  return LHS;
}

PExpr Parser::parseUnary() {
  SMLoc Loc = Tok.getLoc();
  if (consumeIf(TokKind::Minus)) {
    if (Tok.is(TokKind::Int) || Tok.is(TokKind::Float)) {
      // A negative literal.
      PExpr P = parsePrimary();
      if (!P)
        return {};
      if (auto *I = dyn_cast<IntLitExpr>(P.E.get()))
        P.E = std::make_unique<IntLitExpr>(-I->getValue(), I->getDType(), Loc);
      else if (auto *F = dyn_cast<FloatLitExpr>(P.E.get()))
        P.E = std::make_unique<FloatLitExpr>(-F->getValue(), F->getDType(), Loc);
      return P;
    }
    // Each operator nests its operand one level deeper.
    NestingGuard N(*this);
    if (!N.ok())
      return {};
    PExpr X = parseUnary();
    if (!X)
      return {};
    DType Ty = X.E->getDType();
    PExpr U{std::make_unique<UnaryExpr>(UnaryOp::Neg, std::move(X.E), Ty, Loc),
            false};
    if (!setDepth(U, X.Depth, Loc))
      return {};
    return U;
  }
  if (consumeIf(TokKind::Bang)) {
    NestingGuard N(*this);
    if (!N.ok())
      return {};
    PExpr X = parseUnary();
    if (!X)
      return {};
    if (X.Weak)
      coerceLiteral(X.E, DType::I1);
    PExpr U{std::make_unique<UnaryExpr>(UnaryOp::Not, std::move(X.E),
                                        DType::I1, Loc),
            false};
    if (!setDepth(U, X.Depth, Loc))
      return {};
    return U;
  }
  return parsePrimary();
}

PExpr Parser::parsePrimary() {
  SMLoc Loc = Tok.getLoc();
  switch (Tok.Kind) {
  case TokKind::Int: {
    int64_t V;
    if (!parseIntTok(V))
      return {};
    consume();
    return {std::make_unique<IntLitExpr>(V, DType::I32, Loc), true};
  }
  case TokKind::Float: {
    double V;
    if (!parseFloatTok(V))
      return {};
    consume();
    return {std::make_unique<FloatLitExpr>(V, DType::F32, Loc), true};
  }
  case TokKind::LParen: {
    consume();
    PExpr E = parseExpr();
    if (!E || !expect(TokKind::RParen, "to close the parenthesis"))
      return {};
    return E;
  }
  case TokKind::ValueName: {
    StringRef Name = Tok.Text.drop_front();
    consume();
    Value *V = lookupValue(Name);
    if (!V) {
      error(Loc, "use of undefined value '%" + Name + "'");
      return {};
    }
    auto *Buf = dyn_cast<BufferValue>(V);
    if (!Buf) {
      if (Tok.is(TokKind::LBrack)) {
        error("'%" + Name + "' is a scalar and cannot be indexed");
        return {};
      }
      return {std::make_unique<RefExpr>(V, Loc), false};
    }
    std::vector<ExprPtr> Indices;
    if (consumeIf(TokKind::LBrack)) {
      if (Buf->getScope() == MemScope::Var) {
        error(Loc, "'%" + Name + "' is a var; read it without indices");
        return {};
      }
      unsigned IndexDepth = 0;
      if (!parseExprList(Indices, TokKind::RBrack, "index list", &IndexDepth))
        return {};
      PExpr L{std::make_unique<LoadExpr>(Buf, std::move(Indices), Loc), false};
      if (!setDepth(L, IndexDepth, Loc))
        return {};
      return L;
    } else if (Buf->getScope() != MemScope::Var) {
      error(Loc, "buffer '%" + Name +
                     "' used as a scalar; index it like '%" + Name + "[...]'");
      return {};
    }
    return {std::make_unique<LoadExpr>(Buf, std::move(Indices), Loc), false};
  }
  case TokKind::Ident: {
    StringRef Name = Tok.Text;
    consume();
    if (Name == "true" || Name == "false")
      return {std::make_unique<IntLitExpr>(Name == "true", DType::I1, Loc),
              false};
    if (Tok.is(TokKind::LParen) || Tok.is(TokKind::Lt))
      return parseCallLike(Name, Loc);
    if (const TunableDecl *T = CurFunc->lookupTunable(Name))
      return {std::make_unique<RefExpr>(T->Var.get(), Loc), false};
    if (Value *D = CurFunc->lookupDim(Name))
      return {std::make_unique<RefExpr>(D, Loc), false};
    error(Loc, "unknown symbolic dimension '" + Name +
                   "' (dimensions are introduced by parameter shapes)");
    return {};
  }
  default:
    error("expected an expression, found " + describeTok());
    return {};
  }
}

PExpr Parser::parseCallLike(StringRef Name, SMLoc Loc) {
  if (Name == "cast" || Name == "inf") {
    if (!expect(TokKind::Lt, ("after '" + Name + "'").str()))
      return {};
    std::optional<DType> Ty = parseDTypeTok(("in '" + Name + "<...>'").str());
    if (!Ty || !expect(TokKind::Gt, "after the type") ||
        !expect(TokKind::LParen, "to start the arguments"))
      return {};
    if (Name == "inf") {
      if (!expect(TokKind::RParen, "after 'inf<T>('"))
        return {};
      return {std::make_unique<InfExpr>(*Ty, Loc), false};
    }
    PExpr X = parseExpr();
    if (!X || !expect(TokKind::RParen, "to end the cast"))
      return {};
    if (X.Weak)
      coerceLiteral(X.E, isFloat(X.E->getDType()) || isFloat(*Ty)
                             ? X.E->getDType()
                             : *Ty);
    PExpr C{std::make_unique<CastExpr>(*Ty, std::move(X.E), Loc), false};
    if (!setDepth(C, X.Depth, Loc))
      return {};
    return C;
  }
  std::optional<Intrinsic> Fn = parseIntrinsic(Name);
  if (!Fn) {
    error(Loc, "unknown function '" + Name + "'");
    return {};
  }
  if (!expect(TokKind::LParen, ("after '" + Name + "'").str()))
    return {};
  std::vector<PExpr> Args;
  if (!parseCommaList(TokKind::RParen,
                      ("to end the arguments of '" + Name + "'").str(), [&] {
                        PExpr A = parseExpr();
                        if (!A)
                          return false;
                        Args.push_back(std::move(A));
                        return true;
                      }))
    return {};
  unsigned Arity = getIntrinsicArity(*Fn);
  if (Args.size() != Arity) {
    error(Loc, "'" + Name + "' takes " + Twine(Arity) + " argument" +
                   (Arity == 1 ? "" : "s") + ", got " + Twine(Args.size()));
    return {};
  }
  DType Ty;
  if (*Fn == Intrinsic::Select) {
    if (Args[0].Weak)
      coerceLiteral(Args[0].E, DType::I1);
    unify(Args[1], Args[2]);
    Ty = Args[1].E->getDType();
  } else if (Arity == 2) {
    unify(Args[0], Args[1]);
    Ty = Args[0].E->getDType();
  } else {
    if (Args[0].Weak && *Fn != Intrinsic::Abs)
      coerceLiteral(Args[0].E, DType::F32);
    Ty = Args[0].E->getDType();
  }
  std::vector<ExprPtr> Es;
  unsigned ArgDepth = 0;
  for (PExpr &A : Args) {
    ArgDepth = std::max(ArgDepth, A.Depth);
    Es.push_back(std::move(A.E));
  }
  PExpr Call{std::make_unique<CallExpr>(*Fn, std::move(Es), Ty, Loc), false};
  if (!setDepth(Call, ArgDepth, Loc))
    return {};
  return Call;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> tile::parseModule(llvm::SourceMgr &SM,
                                          unsigned BufferID, TileContext &Ctx,
                                          DiagnosticEngine &Diag) {
  Ctx.setSourceMgr(&SM);
  Parser P(SM.getMemoryBuffer(BufferID)->getBuffer(), Ctx, Diag);
  return P.parseModule();
}

std::unique_ptr<Module> tile::parseModuleString(llvm::StringRef Text,
                                                llvm::StringRef Name,
                                                llvm::SourceMgr &SM,
                                                TileContext &Ctx,
                                                DiagnosticEngine &Diag) {
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, Name), llvm::SMLoc());
  return parseModule(SM, ID, Ctx, Diag);
}

std::unique_ptr<Module> tile::parseSourceFile(llvm::StringRef Path,
                                              llvm::SourceMgr &SM,
                                              TileContext &Ctx,
                                              DiagnosticEngine &Diag) {
  auto BufOrErr = llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!BufOrErr) {
    Diag.error(SMLoc(), "cannot read '" + Path + "': " +
                            BufOrErr.getError().message());
    return nullptr;
  }
  unsigned ID = SM.AddNewSourceBuffer(std::move(*BufOrErr), SMLoc());
  std::unique_ptr<Module> M = parseModule(SM, ID, Ctx, Diag);
  if (!M || !verifyModule(*M, Diag))
    return nullptr;
  return M;
}
