//===- Builder.h - Building Tile IR in C++ ----------------------*- C++ -*-===//
//
// Builder constructs the same IR the parser does, from C++: functions with
// buffer and scalar parameters, kernels, loops, allocations, lets, stores,
// ifs, tile ops (by name through the OpRegistry, or with typed helpers) and
// scalar expressions. Like llvm::IRBuilder it keeps an insertion point (a
// block and a position in it); structured statements take their bodies as
// callbacks, or return the statement so the caller can move the insertion
// point into it:
//
//   Builder B(M);
//   B.createFunction("gemm");
//   BufferValue *A = B.addBufferParam("A", DType::F16, {"M", "K"});
//   ...
//   B.createKernel(
//       {B.ceildiv(B.dim("N"), 128), B.ceildiv(B.dim("M"), 128)}, 128,
//       {"bx", "by"}, [&](llvm::ArrayRef<Value *> Idx) {
//         BufferValue *As = B.createShared("As", DType::F16, {128, 32});
//         ...
//         B.createFor(LoopKind::Pipelined, "k", 0, B.ceildiv(B.dim("K"), 32),
//                     {{"stages", Attribute::getInt(3)}}, [&](Value *K) {
//                       B.createCopy({A, {B.mul(Idx[1], 128), B.mul(K, 32)}},
//                                    As);
//                       B.createGemm(As, Bs, Cf);
//                     });
//       });
//
// Literals follow the parser's typing rules. A C++ integer or floating-point
// literal passed where an expression is expected is untyped: it takes the
// type its context asks for (the other operand of a binary operator, the
// element type of a stored-to buffer, i32 for indices and bounds, i1 for
// conditions) and otherwise defaults to i32 (integers) or f32 (floats).
// Expressions built by the builder are typed.
//
// Misuse (a redefined name, a use out of scope, an unknown op or attribute,
// a literal that cannot take its context's type, a wrong number of indices)
// is a programming error and asserts. Type errors between typed operands are
// left to the verifier, as for parsed text.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_BUILDER_H
#define TILE_IR_BUILDER_H

#include "tile/IR/IR.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <type_traits>

namespace tile {

/// An expression argument of a Builder call: an expression built earlier, a
/// scalar value (a dimension, parameter, index, loop variable or let), a var
/// buffer (read as its value), `true`/`false`, or an untyped integer or
/// floating-point literal. Copies are deep.
class ExprArg {
public:
  /// No expression: an omitted extent or step.
  ExprArg() = default;
  ExprArg(ExprPtr E);
  template <typename T,
            std::enable_if_t<std::is_base_of_v<Expr, T> &&
                                 !std::is_same_v<T, Expr>,
                             int> = 0>
  ExprArg(std::unique_ptr<T> E) : ExprArg(ExprPtr(std::move(E))) {}
  /// A scalar value, or a var buffer. Other buffers must be indexed with
  /// Builder::load.
  ExprArg(Value *V);
  /// An untyped integer literal.
  template <typename T, std::enable_if_t<std::is_integral_v<T> &&
                                             !std::is_same_v<T, bool>,
                                         int> = 0>
  ExprArg(T V) : K(Kind::IntLit), Int(static_cast<int64_t>(V)) {}
  /// An untyped floating-point literal.
  ExprArg(double V) : K(Kind::FloatLit), Float(V) {}
  /// `true` or `false`: an i1 literal (exactly bool; pointers do not convert).
  template <typename T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  ExprArg(T V) : K(Kind::BoolLit), Int(V) {}

  ExprArg(const ExprArg &O);
  ExprArg(ExprArg &&) = default;
  ExprArg &operator=(const ExprArg &O);
  ExprArg &operator=(ExprArg &&) = default;
  ~ExprArg();

  bool isNull() const { return K == Kind::None; }
  /// An untyped literal, whose type its context chooses.
  bool isUntypedLiteral() const {
    return K == Kind::IntLit || K == Kind::FloatLit;
  }

private:
  friend class Builder;
  enum class Kind { None, Expr, Value, IntLit, FloatLit, BoolLit };
  Kind K = Kind::None;
  ExprPtr E;
  Value *V = nullptr;
  int64_t Int = 0;
  double Float = 0;
};

/// A region operand: a whole buffer (`%A`), offsets whose extents come from
/// the other operand (`%A[%i * 64, 0]`), or offsets with explicit extents
/// (`%A[%i : 64, 0 : 32]`). A null extent (`{}`) leaves that one inferred.
class RegionArg {
public:
  RegionArg(BufferValue *Buf) : Buf(Buf) {}
  RegionArg(BufferValue *Buf, std::vector<ExprArg> Offsets,
            std::vector<ExprArg> Extents = {})
      : Buf(Buf), Offsets(std::move(Offsets)), Extents(std::move(Extents)) {}

private:
  friend class Builder;
  BufferValue *Buf;
  std::vector<ExprArg> Offsets;
  std::vector<ExprArg> Extents;
};

/// An operand of Builder::createOp: a region or an expression, checked
/// against the op's declaration. A buffer names the whole buffer where the op
/// wants a region.
class OpArg {
public:
  OpArg(RegionArg R) : K(Kind::Region), R(std::move(R)) {}
  OpArg(BufferValue *B) : K(Kind::Buffer), R(B) {}
  OpArg(ExprArg E) : K(Kind::Expr), R(nullptr), E(std::move(E)) {}
  OpArg(ExprPtr E) : OpArg(ExprArg(std::move(E))) {}
  OpArg(Value *V);
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  OpArg(T V) : OpArg(ExprArg(V)) {}

private:
  friend class Builder;
  enum class Kind { Region, Buffer, Expr };
  Kind K;
  RegionArg R;
  ExprArg E;
};

/// A dimension of a parameter's shape or strides: a constant or the name of
/// a symbolic dimension (`M`), created on first use.
struct DimArg {
  DimArg(int64_t V) : IsSymbol(false), Const(V) {}
  DimArg(int V) : DimArg(int64_t(V)) {}
  DimArg(llvm::StringRef Name) : IsSymbol(true), Name(Name) {}
  DimArg(const char *Name) : DimArg(llvm::StringRef(Name)) {}
  bool IsSymbol;
  int64_t Const = 0;
  llvm::StringRef Name;
};

/// Options of `gemm`. Attributes left at their declared default are not
/// set, as the parser leaves them unset when not written.
struct GemmOptions {
  bool TransposeA = false;
  bool TransposeB = false;
  /// square, full_row or full_col; empty for the declared default.
  llvm::StringRef Policy;
  bool ClearAccum = false;
};

class Builder {
public:
  /// Builds into \p M. There is no insertion point until createFunction or
  /// setInsertionPoint* gives one.
  explicit Builder(Module &M) : M(M) {}

  Module &getModule() const { return M; }
  TileContext &getContext() const { return M.getContext(); }

  /// Every node created from now on carries \p L (default: none).
  void setLoc(llvm::SMLoc L) { Loc = L; }
  llvm::SMLoc getLoc() const { return Loc; }

  //===--- Insertion point ------------------------------------------------===//

  /// A position in a block: before statement Before, or at the end when
  /// Before is null. Like llvm::IRBuilder's, it stays before the same
  /// statement as statements are inserted.
  struct InsertPoint {
    Function *Func = nullptr;
    Block *Blk = nullptr;
    Stmt *Before = nullptr;
    bool isSet() const { return Blk != nullptr; }
  };

  /// The function holding the insertion point (or the last one created).
  Function *getFunction() const { return IP.Func; }
  Block *getInsertionBlock() const { return IP.Blk; }
  InsertPoint saveIP() const { return IP; }
  void restoreIP(const InsertPoint &P) { IP = P; }
  void clearInsertionPoint() { IP.Blk = nullptr; }

  /// \p B must be a block of a function of the module (a function body or a
  /// block nested in one); the builder finds which. A block not (yet) in the
  /// module is accepted, but then names are checked against that block only.
  void setInsertionPointToEnd(Block &B);
  void setInsertionPointToStart(Block &B);
  /// Before statement \p Index of \p B (at the end for B.Stmts.size()).
  void setInsertionPoint(Block &B, size_t Index);
  /// Before / after statement \p S (of the current function, or of another
  /// function of the module).
  void setInsertionPointBefore(Stmt &S);
  void setInsertionPointAfter(Stmt &S);

  /// Restores the insertion point on destruction.
  class InsertionGuard {
  public:
    explicit InsertionGuard(Builder &B) : B(B), Saved(B.saveIP()) {}
    ~InsertionGuard() { B.restoreIP(Saved); }
    InsertionGuard(const InsertionGuard &) = delete;
    InsertionGuard &operator=(const InsertionGuard &) = delete;

  private:
    Builder &B;
    InsertPoint Saved;
  };

  /// Runs \p Fn with the insertion point at the end of \p B, then restores
  /// it: `B.buildIn(K->getBodyMutable(), [&] { ... })`.
  void buildIn(Block &B, llvm::function_ref<void()> Fn);

  /// Inserts \p S at the insertion point and returns it. The name it
  /// defines, if any, is checked like the parser's.
  Stmt *insert(StmtPtr S);

  //===--- Functions ------------------------------------------------------===//

  /// Adds `func @Name` to the module and moves the insertion point to the
  /// end of its body.
  Function *createFunction(llvm::StringRef Name,
                           llvm::ArrayRef<NamedAttribute> Attrs = {});
  /// `%Name: Ty[Shape] strides(Strides)`. Symbolic dimensions are created in
  /// order of first appearance, as the parser does.
  BufferValue *addBufferParam(llvm::StringRef Name, DType Ty,
                              llvm::ArrayRef<DimArg> Shape,
                              llvm::ArrayRef<DimArg> Strides = {});
  /// `%Name: Ty`.
  Value *addScalarParam(llvm::StringRef Name, DType Ty);
  /// The symbolic dimension \p Name of the current function (`M`); it must
  /// exist (dimensions are introduced by parameter shapes).
  Value *dim(llvm::StringRef Name) const;

  //===--- Statements -----------------------------------------------------===//

  /// `kernel grid(Grid) threads(Threads) (%BlockIdx...) thread(%ThreadIdx)
  /// attributes {Attrs}`. The insertion point stays where it was.
  KernelStmt *createKernel(llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
                           llvm::ArrayRef<llvm::StringRef> BlockIdx,
                           llvm::StringRef ThreadIdx = {},
                           llvm::ArrayRef<NamedAttribute> Attrs = {});
  /// As above, building the body with \p Body, which receives the block
  /// indices.
  KernelStmt *createKernel(llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
                           llvm::ArrayRef<llvm::StringRef> BlockIdx,
                           llvm::function_ref<void(llvm::ArrayRef<Value *>)> Body);
  /// As above with a thread index, which \p Body receives second.
  KernelStmt *
  createKernel(llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
               llvm::ArrayRef<llvm::StringRef> BlockIdx,
               llvm::StringRef ThreadIdx,
               llvm::function_ref<void(llvm::ArrayRef<Value *>, Value *)> Body);

  /// `for %Var in Kind(Lo, Hi, step = Step, Attrs...)` for a serial,
  /// pipelined or unroll loop (parallel loops: createParallel). A null Step
  /// is a unit step. As in text, a literal bound takes the other bound's
  /// type (else i32), and a literal step the bounds' type.
  ForStmt *createFor(LoopKind Kind, llvm::StringRef Var, ExprArg Lo, ExprArg Hi,
                     llvm::ArrayRef<NamedAttribute> Attrs = {});
  ForStmt *createFor(LoopKind Kind, llvm::StringRef Var, ExprArg Lo, ExprArg Hi,
                     ExprArg Step, llvm::ArrayRef<NamedAttribute> Attrs);
  ForStmt *createFor(LoopKind Kind, llvm::StringRef Var, ExprArg Lo, ExprArg Hi,
                     llvm::function_ref<void(Value *)> Body);
  ForStmt *createFor(LoopKind Kind, llvm::StringRef Var, ExprArg Lo, ExprArg Hi,
                     llvm::ArrayRef<NamedAttribute> Attrs,
                     llvm::function_ref<void(Value *)> Body);
  ForStmt *createFor(LoopKind Kind, llvm::StringRef Var, ExprArg Lo, ExprArg Hi,
                     ExprArg Step, llvm::ArrayRef<NamedAttribute> Attrs,
                     llvm::function_ref<void(Value *)> Body);

  /// `for %Vars... in parallel(Extents...)`.
  ForStmt *createParallel(llvm::ArrayRef<llvm::StringRef> Vars,
                          llvm::ArrayRef<ExprArg> Extents);
  ForStmt *
  createParallel(llvm::ArrayRef<llvm::StringRef> Vars,
                 llvm::ArrayRef<ExprArg> Extents,
                 llvm::function_ref<void(llvm::ArrayRef<Value *>)> Body);
  ForStmt *createParallel(llvm::StringRef Var, ExprArg Extent,
                          llvm::function_ref<void(Value *)> Body);

  /// `%Name = alloc Scope Ty[Shape] {Attrs}`.
  BufferValue *createAlloc(llvm::StringRef Name, MemScope Scope, DType Ty,
                           llvm::ArrayRef<ExprArg> Shape,
                           llvm::ArrayRef<NamedAttribute> Attrs = {});
  BufferValue *createShared(llvm::StringRef Name, DType Ty,
                            llvm::ArrayRef<ExprArg> Shape,
                            llvm::ArrayRef<NamedAttribute> Attrs = {}) {
    return createAlloc(Name, MemScope::Shared, Ty, Shape, Attrs);
  }
  BufferValue *createFragment(llvm::StringRef Name, DType Ty,
                              llvm::ArrayRef<ExprArg> Shape,
                              llvm::ArrayRef<NamedAttribute> Attrs = {}) {
    return createAlloc(Name, MemScope::Fragment, Ty, Shape, Attrs);
  }
  BufferValue *createLocal(llvm::StringRef Name, DType Ty,
                           llvm::ArrayRef<ExprArg> Shape,
                           llvm::ArrayRef<NamedAttribute> Attrs = {}) {
    return createAlloc(Name, MemScope::Local, Ty, Shape, Attrs);
  }
  /// `%Name = alloc var Ty {Attrs}`: a scalar variable.
  BufferValue *createVar(llvm::StringRef Name, DType Ty,
                         llvm::ArrayRef<NamedAttribute> Attrs = {}) {
    return createAlloc(Name, MemScope::Var, Ty, {}, Attrs);
  }

  /// `let %Name = Init`. An untyped literal keeps its default type.
  Value *createLet(llvm::StringRef Name, ExprArg Init);
  /// `%Buf[Indices] = Val`; a literal value takes the buffer's element type.
  StoreStmt *createStore(BufferValue *Buf, llvm::ArrayRef<ExprArg> Indices,
                         ExprArg Val);
  /// `%Var = Val` for a var.
  StoreStmt *createAssign(BufferValue *Var, ExprArg Val);

  /// `if Cond { }` and `if Cond { } else { }` with empty blocks; the
  /// insertion point stays where it was.
  IfStmt *createIf(ExprArg Cond);
  IfStmt *createIfElse(ExprArg Cond);
  IfStmt *createIf(ExprArg Cond, llvm::function_ref<void()> Then);
  /// An else callback that creates exactly one if builds `else if`.
  IfStmt *createIf(ExprArg Cond, llvm::function_ref<void()> Then,
                   llvm::function_ref<void()> Else);

  //===--- Tile ops -------------------------------------------------------===//

  /// The op \p Name of the registry, with operands in declared order and
  /// attributes by name (stored in declared order; all checked against the
  /// declaration, and required ones must be given). Expression operands
  /// keep default literal types, as parsed.
  OpStmt *createOp(llvm::StringRef Name, llvm::ArrayRef<OpArg> Operands,
                   llvm::ArrayRef<NamedAttribute> Attrs = {});

  OpStmt *createCopy(RegionArg Src, RegionArg Dst);
  OpStmt *createGemm(RegionArg A, RegionArg B, RegionArg C,
                     const GemmOptions &Opts = {});
  OpStmt *createFill(RegionArg Dst, ExprArg Value);
  OpStmt *createClear(RegionArg Dst);
  /// `reduce Kind Src -> Dst {dim = Dim}`; Kind is sum, max, min, abssum or
  /// absmax. Clear = false accumulates into Dst.
  OpStmt *createReduce(llvm::StringRef Kind, RegionArg Src, RegionArg Dst,
                       int64_t Dim, bool Clear = true);
  OpStmt *createCumsum(RegionArg Src, RegionArg Dst, int64_t Dim = 0,
                       bool Reverse = false);
  /// Kind is add, max or min.
  OpStmt *createAtomic(llvm::StringRef Kind, RegionArg Src, RegionArg Dst);
  OpStmt *createAtomicElem(llvm::StringRef Kind, RegionArg Dst, ExprArg Value);
  OpStmt *createBarrier();

  /// `%Buf[Offsets]` or, with extents, `%Buf[Offsets : Extents]`.
  static RegionArg region(BufferValue *Buf, std::vector<ExprArg> Offsets,
                          std::vector<ExprArg> Extents = {}) {
    return RegionArg(Buf, std::move(Offsets), std::move(Extents));
  }

  //===--- Expressions ----------------------------------------------------===//

  /// Typed literals.
  ExprPtr getInt(int64_t V, DType Ty = DType::I32);
  ExprPtr getFloat(double V, DType Ty = DType::F32);
  ExprPtr getBool(bool V);
  /// `inf<Ty>()`.
  ExprPtr inf(DType Ty);
  /// A use of a scalar value, or the value of a var.
  ExprPtr ref(Value *V);
  /// `%Buf[Indices]`.
  ExprPtr load(BufferValue *Buf, llvm::ArrayRef<ExprArg> Indices);

  /// A binary operator; the result has the (unified) operand type, or i1
  /// for comparisons and logical operators.
  ExprPtr binary(BinaryOp Op, ExprArg L, ExprArg R);
  ExprPtr add(ExprArg L, ExprArg R) { return binary(BinaryOp::Add, std::move(L), std::move(R)); }
  ExprPtr sub(ExprArg L, ExprArg R) { return binary(BinaryOp::Sub, std::move(L), std::move(R)); }
  ExprPtr mul(ExprArg L, ExprArg R) { return binary(BinaryOp::Mul, std::move(L), std::move(R)); }
  ExprPtr div(ExprArg L, ExprArg R) { return binary(BinaryOp::Div, std::move(L), std::move(R)); }
  ExprPtr rem(ExprArg L, ExprArg R) { return binary(BinaryOp::Rem, std::move(L), std::move(R)); }
  ExprPtr bitAnd(ExprArg L, ExprArg R) { return binary(BinaryOp::And, std::move(L), std::move(R)); }
  ExprPtr bitOr(ExprArg L, ExprArg R) { return binary(BinaryOp::Or, std::move(L), std::move(R)); }
  ExprPtr bitXor(ExprArg L, ExprArg R) { return binary(BinaryOp::Xor, std::move(L), std::move(R)); }
  ExprPtr shl(ExprArg L, ExprArg R) { return binary(BinaryOp::Shl, std::move(L), std::move(R)); }
  ExprPtr shr(ExprArg L, ExprArg R) { return binary(BinaryOp::Shr, std::move(L), std::move(R)); }
  ExprPtr logicalAnd(ExprArg L, ExprArg R) { return binary(BinaryOp::LogicalAnd, std::move(L), std::move(R)); }
  ExprPtr logicalOr(ExprArg L, ExprArg R) { return binary(BinaryOp::LogicalOr, std::move(L), std::move(R)); }
  ExprPtr eq(ExprArg L, ExprArg R) { return binary(BinaryOp::Eq, std::move(L), std::move(R)); }
  ExprPtr ne(ExprArg L, ExprArg R) { return binary(BinaryOp::Ne, std::move(L), std::move(R)); }
  ExprPtr lt(ExprArg L, ExprArg R) { return binary(BinaryOp::Lt, std::move(L), std::move(R)); }
  ExprPtr le(ExprArg L, ExprArg R) { return binary(BinaryOp::Le, std::move(L), std::move(R)); }
  ExprPtr gt(ExprArg L, ExprArg R) { return binary(BinaryOp::Gt, std::move(L), std::move(R)); }
  ExprPtr ge(ExprArg L, ExprArg R) { return binary(BinaryOp::Ge, std::move(L), std::move(R)); }

  /// `-X`. On a literal this is a negation (`-(3)`), not the literal -3:
  /// pass -3 for that.
  ExprPtr neg(ExprArg X);
  /// `!X`; an untyped literal becomes i1.
  ExprPtr logicalNot(ExprArg X);

  /// An intrinsic call, with the parser's literal typing: select's condition
  /// becomes i1 and its arms are unified; binary intrinsics unify their
  /// operands; unary ones (but abs) make a literal f32.
  ExprPtr call(Intrinsic Fn, llvm::ArrayRef<ExprArg> Args);
  ExprPtr min(ExprArg A, ExprArg B);
  ExprPtr max(ExprArg A, ExprArg B);
  ExprPtr ceildiv(ExprArg A, ExprArg B);
  ExprPtr floordiv(ExprArg A, ExprArg B);
  ExprPtr floormod(ExprArg A, ExprArg B);
  ExprPtr abs(ExprArg X);
  ExprPtr exp(ExprArg X);
  ExprPtr exp2(ExprArg X);
  ExprPtr log(ExprArg X);
  ExprPtr log2(ExprArg X);
  ExprPtr sqrt(ExprArg X);
  ExprPtr rsqrt(ExprArg X);
  ExprPtr tanh(ExprArg X);
  ExprPtr select(ExprArg Cond, ExprArg T, ExprArg F);

  /// `cast<To>(X)`. An untyped integer literal takes type \p To when both
  /// are integers; otherwise a literal keeps its default type.
  ExprPtr cast(DType To, ExprArg X);

  /// \p A as an expression; an untyped literal takes type \p Ty (asserting
  /// that it can).
  ExprPtr build(ExprArg A, DType Ty);
  /// \p A as an expression; an untyped literal keeps its default type.
  ExprPtr build(ExprArg A);

private:
  /// An expression and whether it is an untyped literal (the parser's PExpr).
  struct Typed {
    ExprPtr E;
    bool Untyped = false;
  };
  Typed resolve(ExprArg &&A);
  Typed resolveCopy(const ExprArg &A);
  static void coerce(Typed &T, DType Ty);
  static void unify(Typed &A, Typed &B);
  ExprPtr callImpl(Intrinsic Fn, std::vector<Typed> Args);
  Region buildRegion(const RegionArg &R);
  AttributeList makeAttrs(llvm::ArrayRef<NamedAttribute> Attrs) const;
  OpStmt *createOpImpl(const OpInfo &Info, std::vector<OpArg> Operands,
                       llvm::ArrayRef<NamedAttribute> Attrs);
  /// createOpImpl with attributes equal to their declared default left out.
  OpStmt *createCommonOp(llvm::StringRef Name, std::vector<OpArg> Operands,
                         std::vector<NamedAttribute> Attrs);
  ForStmt *createForImpl(LoopKind Kind, llvm::StringRef Var, ExprArg Lo,
                         ExprArg Hi, ExprArg Step,
                         llvm::ArrayRef<NamedAttribute> Attrs);
  KernelStmt *createKernelImpl(llvm::ArrayRef<ExprArg> Grid, ExprArg Threads,
                               llvm::ArrayRef<llvm::StringRef> BlockIdx,
                               llvm::StringRef ThreadIdx,
                               llvm::ArrayRef<NamedAttribute> Attrs);
  /// Inserts \p S without checks.
  Stmt *insertUnchecked(StmtPtr S);
  /// Points at the end of \p B, in the current function.
  void setInsertionPointToEndOfNested(Block &B) {
    IP.Blk = &B;
    IP.Before = nullptr;
  }
  /// The index of the insertion point in its block.
  size_t getInsertionIndex() const;
  Function *findFunctionOf(const Block &B) const;

  /// What the parser's scopes would hold at the insertion point.
  struct Scope;
  Scope computeScope() const;
  /// Asserts that \p Name may be defined at the insertion point; with
  /// \p Nested, in a scope opened there (loop variables, block indices).
  void checkNewName(const Scope &S, llvm::StringRef Name, bool Nested) const;
  /// Asserts that every value \p S uses (not counting values it defines) is
  /// in scope at the insertion point.
  void checkUses(const Scope &Sc, Stmt &S) const;

  Module &M;
  InsertPoint IP;
  llvm::SMLoc Loc;
};

} // namespace tile

#endif // TILE_IR_BUILDER_H
