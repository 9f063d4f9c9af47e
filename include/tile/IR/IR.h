//===- IR.h - The Tile IR ---------------------------------------*- C++ -*-===//
//
// Tile IR is a structured, tile-level IR: a module of functions whose bodies
// are trees of statements (kernels, loops, ifs, allocations, tile ops,
// stores) over scalar expression trees. Statements own their children and
// the values they define; expressions refer to values by pointer.
//
// Every node carries the source location it was parsed from (empty when it
// was built in C++), so that every later error can point at the source.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_IR_H
#define TILE_IR_IR_H

#include "tile/IR/Attribute.h"
#include "tile/IR/DType.h"
#include "tile/IR/OpRegistry.h"
#include "tile/IR/Remarks.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
}

namespace tile {

class Expr;
class Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// Where a buffer lives.
enum class MemScope {
  /// Device global memory: function parameters and workspaces.
  Global,
  /// Memory shared by the threads of one block.
  Shared,
  /// A register tile distributed over the block's threads by a layout.
  Fragment,
  /// Per-thread registers or stack.
  Local,
  /// A scalar variable (a rank-0 buffer).
  Var,
};

llvm::StringRef getScopeName(MemScope S);
std::optional<MemScope> parseScope(llvm::StringRef Name);

/// A named entity: a buffer, a symbolic dimension or a scalar.
class Value {
public:
  enum class Kind {
    Buffer,   ///< BufferValue
    Dim,      ///< symbolic dimension, bound from tensor shapes
    Param,    ///< scalar function parameter
    BlockIdx, ///< block index bound by a kernel
    ThreadIdx,///< thread index bound by a kernel
    LoopVar,  ///< loop induction variable
    Let,      ///< immutable binding
    Tunable,  ///< compile-time parameter of a function (TunableDecl)
  };

  Value(Kind K, llvm::StringRef Name, DType Ty, llvm::SMLoc Loc)
      : K(K), Name(Name.str()), Ty(Ty), Loc(Loc) {}
  virtual ~Value() = default;

  Kind getKind() const { return K; }
  /// The name without its sigil: "A" for %A, "M" for M.
  llvm::StringRef getName() const { return Name; }
  void setName(llvm::StringRef N) { Name = N.str(); }
  DType getDType() const { return Ty; }
  llvm::SMLoc getLoc() const { return Loc; }
  bool isBuffer() const { return K == Kind::Buffer; }

private:
  Kind K;
  std::string Name;
  DType Ty;
  llvm::SMLoc Loc;
};

/// A buffer: a function parameter or an allocation.
class BufferValue : public Value {
public:
  BufferValue(llvm::StringRef Name, DType Ty, MemScope Scope,
              std::vector<ExprPtr> Shape, std::vector<ExprPtr> Strides,
              bool IsParam, llvm::SMLoc Loc);
  ~BufferValue() override;

  MemScope getScope() const { return Scope; }
  /// Passes move buffers between scopes (e.g. fragments into shared memory).
  void setScope(MemScope S) { Scope = S; }
  bool isParam() const { return IsParam; }
  unsigned getRank() const { return Shape.size(); }
  llvm::ArrayRef<ExprPtr> getShape() const { return Shape; }
  std::vector<ExprPtr> &getShapeMutable() { return Shape; }
  /// Empty when the buffer is contiguous row-major.
  llvm::ArrayRef<ExprPtr> getStrides() const { return Strides; }
  std::vector<ExprPtr> &getStridesMutable() { return Strides; }
  /// The shape as constants, when every dimension is a literal.
  std::optional<std::vector<int64_t>> getConstShape() const;

  static bool classof(const Value *V) { return V->getKind() == Kind::Buffer; }

private:
  MemScope Scope;
  std::vector<ExprPtr> Shape;
  std::vector<ExprPtr> Strides;
  bool IsParam;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class BinaryOp {
  Add, Sub, Mul, Div, Rem,
  And, Or, Xor, Shl, Shr,
  LogicalAnd, LogicalOr,
  Eq, Ne, Lt, Le, Gt, Ge,
};

enum class UnaryOp { Neg, Not };

/// Built-in functions callable in expressions.
enum class Intrinsic {
  Min, Max, Abs, Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Tanh,
  CeilDiv, FloorDiv, FloorMod, Select,
};

llvm::StringRef getBinaryOpSpelling(BinaryOp Op);
bool isComparison(BinaryOp Op);
llvm::StringRef getIntrinsicName(Intrinsic I);
std::optional<Intrinsic> parseIntrinsic(llvm::StringRef Name);
/// Number of arguments the intrinsic takes.
unsigned getIntrinsicArity(Intrinsic I);

class Expr {
public:
  enum class Kind { IntLit, FloatLit, Ref, Load, Binary, Unary, Call, Cast, Inf };

  Expr(Kind K, DType Ty, llvm::SMLoc Loc) : K(K), Ty(Ty), Loc(Loc) {}
  virtual ~Expr() = default;

  Kind getKind() const { return K; }
  DType getDType() const { return Ty; }
  void setDType(DType T) { Ty = T; }
  llvm::SMLoc getLoc() const { return Loc; }
  void setLoc(llvm::SMLoc L) { Loc = L; }

  /// Deep copy; values are shared (expressions never own values).
  ExprPtr clone() const;
  /// The value of an integer literal, if this is one.
  std::optional<int64_t> getConstInt() const;

private:
  Kind K;
  DType Ty;
  llvm::SMLoc Loc;
};

/// An integer or boolean literal (`128`, `true`).
class IntLitExpr : public Expr {
public:
  IntLitExpr(int64_t V, DType Ty, llvm::SMLoc Loc = {})
      : Expr(Kind::IntLit, Ty, Loc), V(V) {}
  int64_t getValue() const { return V; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::IntLit; }

private:
  int64_t V;
};

class FloatLitExpr : public Expr {
public:
  FloatLitExpr(double V, DType Ty, llvm::SMLoc Loc = {})
      : Expr(Kind::FloatLit, Ty, Loc), V(V) {}
  double getValue() const { return V; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::FloatLit; }

private:
  double V;
};

/// A use of a scalar value (dim, param, block/thread index, loop var, let).
class RefExpr : public Expr {
public:
  RefExpr(Value *V, llvm::SMLoc Loc = {})
      : Expr(Kind::Ref, V->getDType(), Loc), V(V) {}
  Value *getValue() const { return V; }
  void setValue(Value *NV) { V = NV; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Ref; }

private:
  Value *V;
};

/// A read of one buffer element: `%A[%i, %j]`, or `%acc` for a var.
class LoadExpr : public Expr {
public:
  LoadExpr(BufferValue *Buf, std::vector<ExprPtr> Indices, llvm::SMLoc Loc = {})
      : Expr(Kind::Load, Buf->getDType(), Loc), Buf(Buf),
        Indices(std::move(Indices)) {}
  BufferValue *getBuffer() const { return Buf; }
  void setBuffer(BufferValue *B) { Buf = B; }
  llvm::ArrayRef<ExprPtr> getIndices() const { return Indices; }
  std::vector<ExprPtr> &getIndicesMutable() { return Indices; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Load; }

private:
  BufferValue *Buf;
  std::vector<ExprPtr> Indices;
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(BinaryOp Op, ExprPtr L, ExprPtr R, DType Ty, llvm::SMLoc Loc = {})
      : Expr(Kind::Binary, Ty, Loc), Op(Op), L(std::move(L)), R(std::move(R)) {}
  BinaryOp getOp() const { return Op; }
  const Expr *getLHS() const { return L.get(); }
  const Expr *getRHS() const { return R.get(); }
  ExprPtr &getLHSMutable() { return L; }
  ExprPtr &getRHSMutable() { return R; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Binary; }

private:
  BinaryOp Op;
  ExprPtr L, R;
};

class UnaryExpr : public Expr {
public:
  UnaryExpr(UnaryOp Op, ExprPtr X, DType Ty, llvm::SMLoc Loc = {})
      : Expr(Kind::Unary, Ty, Loc), Op(Op), X(std::move(X)) {}
  UnaryOp getOp() const { return Op; }
  const Expr *getOperand() const { return X.get(); }
  ExprPtr &getOperandMutable() { return X; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Unary; }

private:
  UnaryOp Op;
  ExprPtr X;
};

/// `min(a, b)`, `exp(x)`, `select(c, a, b)`, `ceildiv(a, b)`, ...
class CallExpr : public Expr {
public:
  CallExpr(Intrinsic Fn, std::vector<ExprPtr> Args, DType Ty,
           llvm::SMLoc Loc = {})
      : Expr(Kind::Call, Ty, Loc), Fn(Fn), Args(std::move(Args)) {}
  Intrinsic getIntrinsic() const { return Fn; }
  llvm::ArrayRef<ExprPtr> getArgs() const { return Args; }
  std::vector<ExprPtr> &getArgsMutable() { return Args; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Call; }

private:
  Intrinsic Fn;
  std::vector<ExprPtr> Args;
};

/// `cast<f16>(x)`.
class CastExpr : public Expr {
public:
  CastExpr(DType To, ExprPtr X, llvm::SMLoc Loc = {})
      : Expr(Kind::Cast, To, Loc), X(std::move(X)) {}
  const Expr *getOperand() const { return X.get(); }
  ExprPtr &getOperandMutable() { return X; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Cast; }

private:
  ExprPtr X;
};

/// `inf<f32>()`: positive infinity of a float type.
class InfExpr : public Expr {
public:
  InfExpr(DType Ty, llvm::SMLoc Loc = {}) : Expr(Kind::Inf, Ty, Loc) {}
  static bool classof(const Expr *E) { return E->getKind() == Kind::Inf; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// A sequence of statements in braces.
struct Block {
  std::vector<StmtPtr> Stmts;
  llvm::SMLoc LBrace, RBrace;

  Block();
  Block(Block &&);
  Block &operator=(Block &&);
  ~Block();
  Block clone() const;
};

/// A buffer region named by an op: `%A`, `%A[%i * 64, 0]` (extents taken
/// from the other operand) or `%A[%i : 64, 0 : 32]` (explicit extents).
struct RegionIndex {
  ExprPtr Offset;
  /// Null when the extent is inferred.
  ExprPtr Extent;
};

struct Region {
  BufferValue *Buf = nullptr;
  /// Empty for the whole buffer.
  std::vector<RegionIndex> Indices;
  llvm::SMLoc Loc;

  bool isWholeBuffer() const { return Indices.empty(); }
  Region clone() const;
};

/// An operand of a tile op: a region or a scalar expression.
struct OpOperand {
  OperandKind Kind = OperandKind::Expr;
  Region R;
  ExprPtr E;
  llvm::SMLoc getLoc() const { return Kind == OperandKind::Region ? R.Loc : E->getLoc(); }
  OpOperand clone() const;
};

class Stmt {
public:
  enum class Kind { Alloc, Let, Store, For, If, Kernel, Op };

  Stmt(Kind K, llvm::SMLoc Loc) : K(K), Loc(Loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return K; }
  llvm::SMLoc getLoc() const { return Loc; }

  /// Deep copy. Values defined inside are copied and uses inside the copy
  /// are remapped to them.
  StmtPtr clone() const;

private:
  Kind K;
  llvm::SMLoc Loc;
};

/// `%As = alloc shared f16[128, 32] {layout = swizzle(128)}`
class AllocStmt : public Stmt {
public:
  AllocStmt(std::unique_ptr<BufferValue> Buf, AttributeList Attrs,
            llvm::SMLoc Loc = {})
      : Stmt(Kind::Alloc, Loc), Buf(std::move(Buf)), Attrs(std::move(Attrs)) {}
  BufferValue *getBuffer() const { return Buf.get(); }
  const AttributeList &getAttrs() const { return Attrs; }
  AttributeList &getAttrsMutable() { return Attrs; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Alloc; }

private:
  std::unique_ptr<BufferValue> Buf;
  AttributeList Attrs;
};

/// `let %x = expr`: binds %x for the rest of the enclosing block.
class LetStmt : public Stmt {
public:
  LetStmt(std::unique_ptr<Value> Var, ExprPtr Init, llvm::SMLoc Loc = {})
      : Stmt(Kind::Let, Loc), Var(std::move(Var)), Init(std::move(Init)) {}
  Value *getVar() const { return Var.get(); }
  const Expr *getInit() const { return Init.get(); }
  ExprPtr &getInitMutable() { return Init; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Let; }

private:
  std::unique_ptr<Value> Var;
  ExprPtr Init;
};

/// `%C[%i, %j] = expr`, or `%acc = expr` for a var.
class StoreStmt : public Stmt {
public:
  StoreStmt(BufferValue *Buf, std::vector<ExprPtr> Indices, ExprPtr Val,
            llvm::SMLoc Loc = {})
      : Stmt(Kind::Store, Loc), Buf(Buf), Indices(std::move(Indices)),
        Val(std::move(Val)) {}
  BufferValue *getBuffer() const { return Buf; }
  void setBuffer(BufferValue *B) { Buf = B; }
  llvm::ArrayRef<ExprPtr> getIndices() const { return Indices; }
  std::vector<ExprPtr> &getIndicesMutable() { return Indices; }
  const Expr *getValue() const { return Val.get(); }
  ExprPtr &getValueMutable() { return Val; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Store; }

private:
  BufferValue *Buf;
  std::vector<ExprPtr> Indices;
  ExprPtr Val;
};

enum class LoopKind { Serial, Parallel, Pipelined, Unroll };
llvm::StringRef getLoopKindName(LoopKind K);
std::optional<LoopKind> parseLoopKind(llvm::StringRef Name);

/// One induction variable of a loop with its range. Parallel loops range
/// over [0, Hi) and have no Lo.
struct LoopDim {
  std::unique_ptr<Value> Var;
  ExprPtr Lo;
  ExprPtr Hi;
};

/// `for %k in pipelined(0, ceildiv(K, 32), stages = 3) { ... }`
/// `for %i, %j in parallel(128, 64) { ... }`
class ForStmt : public Stmt {
public:
  ForStmt(LoopKind LK, std::vector<LoopDim> Dims, ExprPtr Step,
          AttributeList Attrs, Block Body, llvm::SMLoc Loc = {});
  LoopKind getLoopKind() const { return LK; }
  llvm::ArrayRef<LoopDim> getDims() const { return Dims; }
  std::vector<LoopDim> &getDimsMutable() { return Dims; }
  /// Null for a unit step.
  const Expr *getStep() const { return Step.get(); }
  ExprPtr &getStepMutable() { return Step; }
  const AttributeList &getAttrs() const { return Attrs; }
  AttributeList &getAttrsMutable() { return Attrs; }
  const Block &getBody() const { return Body; }
  Block &getBodyMutable() { return Body; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::For; }

private:
  LoopKind LK;
  std::vector<LoopDim> Dims;
  ExprPtr Step;
  AttributeList Attrs;
  Block Body;
};

class IfStmt : public Stmt {
public:
  IfStmt(ExprPtr Cond, Block Then, std::optional<Block> Else,
         llvm::SMLoc Loc = {});
  const Expr *getCond() const { return Cond.get(); }
  ExprPtr &getCondMutable() { return Cond; }
  const Block &getThen() const { return Then; }
  Block &getThenMutable() { return Then; }
  bool hasElse() const { return Else.has_value(); }
  const Block &getElse() const { return *Else; }
  Block &getElseMutable() { return *Else; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::If; }

private:
  ExprPtr Cond;
  Block Then;
  std::optional<Block> Else;
};

/// `kernel grid(gx, gy) threads(128) (%bx, %by) thread(%tx) { ... }`
class KernelStmt : public Stmt {
public:
  KernelStmt(std::vector<ExprPtr> Grid, ExprPtr Threads,
             std::vector<std::unique_ptr<Value>> BlockIdx,
             std::unique_ptr<Value> ThreadIdx, AttributeList Attrs, Block Body,
             llvm::SMLoc Loc = {});
  llvm::ArrayRef<ExprPtr> getGrid() const { return Grid; }
  std::vector<ExprPtr> &getGridMutable() { return Grid; }
  const Expr *getThreads() const { return Threads.get(); }
  ExprPtr &getThreadsMutable() { return Threads; }
  llvm::ArrayRef<std::unique_ptr<Value>> getBlockIndices() const { return BlockIdx; }
  /// One block index per grid dimension; a pass that changes the grid's
  /// rank changes both together.
  std::vector<std::unique_ptr<Value>> &getBlockIndicesMutable() { return BlockIdx; }
  /// Null when the kernel does not use the thread index.
  Value *getThreadIndex() const { return ThreadIdx.get(); }
  /// Removes the thread index binding (once no expression refers to it).
  std::unique_ptr<Value> takeThreadIndex() { return std::move(ThreadIdx); }
  /// Binds a thread index (the kernel must have none).
  void setThreadIndex(std::unique_ptr<Value> V) {
    assert(!ThreadIdx && "kernel already binds a thread index");
    ThreadIdx = std::move(V);
  }
  const AttributeList &getAttrs() const { return Attrs; }
  AttributeList &getAttrsMutable() { return Attrs; }
  const Block &getBody() const { return Body; }
  Block &getBodyMutable() { return Body; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Kernel; }

private:
  std::vector<ExprPtr> Grid;
  ExprPtr Threads;
  std::vector<std::unique_ptr<Value>> BlockIdx;
  std::unique_ptr<Value> ThreadIdx;
  AttributeList Attrs;
  Block Body;
};

/// A tile op from the registry: `copy %A[%by * 128, %k * 32] -> %As`,
/// `gemm %As, %Bs -> %Cf {transpose_b = true}`.
class OpStmt : public Stmt {
public:
  OpStmt(const OpInfo *Info, std::vector<OpOperand> Operands,
         AttributeList Attrs, llvm::SMLoc Loc = {})
      : Stmt(Kind::Op, Loc), Info(Info), Operands(std::move(Operands)),
        Attrs(std::move(Attrs)) {}
  const OpInfo &getInfo() const { return *Info; }
  llvm::StringRef getName() const { return Info->Name; }
  llvm::ArrayRef<OpOperand> getOperands() const { return Operands; }
  std::vector<OpOperand> &getOperandsMutable() { return Operands; }
  const OpOperand &getOperand(unsigned I) const { return Operands[I]; }
  /// The operand declared under \p Name in TableGen.
  const OpOperand &getOperand(llvm::StringRef Name) const;
  const AttributeList &getAttrs() const { return Attrs; }
  AttributeList &getAttrsMutable() { return Attrs; }
  /// The attribute's value, or its declared default. The reference stays
  /// valid while the op keeps the attribute (defaults: for the process).
  const Attribute &getAttrOrDefault(llvm::StringRef Name) const;
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Op; }

private:
  const OpInfo *Info;
  std::vector<OpOperand> Operands;
  AttributeList Attrs;
};

//===----------------------------------------------------------------------===//
// Functions and modules
//===----------------------------------------------------------------------===//

/// A compile-time parameter of a function, `BM: i32 = 128 in [64, 128]`:
/// a constant of integer type whose value a config chooses. Expressions
/// refer to it by name (a RefExpr to \p Var); attribute values name it as a
/// bare identifier. specializeFunction (tile/IR/Specialize.h) replaces it
/// with a value.
struct TunableDecl {
  /// Kind::Tunable: the name, integer type and location of the declaration.
  std::unique_ptr<Value> Var;
  int64_t Default = 0;
  /// The values an autotuner explores; empty: only the default.
  std::vector<int64_t> Candidates;
  llvm::StringRef getName() const { return Var->getName(); }
};

/// `func @name<BM: i32 = 128 in [64, 128]>(%A: f16[M, K], %alpha: f32)
/// attributes {...} { ... }`
class Function {
public:
  Function(llvm::StringRef Name, llvm::SMLoc Loc = {})
      : Name(Name.str()), Loc(Loc) {}

  llvm::StringRef getName() const { return Name; }
  llvm::SMLoc getLoc() const { return Loc; }

  /// Parameters in order: BufferValue (global) or scalar Param values.
  llvm::ArrayRef<std::unique_ptr<Value>> getParams() const { return Params; }
  void addParam(std::unique_ptr<Value> P) { Params.push_back(std::move(P)); }
  /// Symbolic dimensions in order of first appearance.
  llvm::ArrayRef<std::unique_ptr<Value>> getDims() const { return Dims; }
  Value *getOrCreateDim(llvm::StringRef Name, llvm::SMLoc Loc = {});
  Value *lookupDim(llvm::StringRef Name) const;
  /// Compile-time parameters in order of declaration.
  llvm::ArrayRef<TunableDecl> getTunables() const { return Tunables; }
  void addTunable(TunableDecl T) { Tunables.push_back(std::move(T)); }
  const TunableDecl *lookupTunable(llvm::StringRef Name) const;
  /// Drops the declarations (once no expression refers to them).
  void clearTunables() { Tunables.clear(); }

  const AttributeList &getAttrs() const { return Attrs; }
  AttributeList &getAttrsMutable() { return Attrs; }
  const Block &getBody() const { return Body; }
  Block &getBodyMutable() { return Body; }

  std::unique_ptr<Function> clone() const;

private:
  std::string Name;
  llvm::SMLoc Loc;
  std::vector<std::unique_ptr<Value>> Params;
  std::vector<std::unique_ptr<Value>> Dims;
  std::vector<TunableDecl> Tunables;
  AttributeList Attrs;
  Block Body;
};

class TileContext;

class Module {
public:
  explicit Module(TileContext &Ctx) : Ctx(&Ctx) {}
  TileContext &getContext() const { return *Ctx; }
  llvm::ArrayRef<std::unique_ptr<Function>> getFunctions() const { return Funcs; }
  Function *addFunction(std::unique_ptr<Function> F);
  /// Puts \p New in the place of \p Old (a function of this module).
  Function *replaceFunction(const Function *Old, std::unique_ptr<Function> New);
  Function *lookupFunction(llvm::StringRef Name) const;
  std::unique_ptr<Module> clone() const;

private:
  TileContext *Ctx;
  std::vector<std::unique_ptr<Function>> Funcs;
};

/// Owns the registries everything else consults. Create one per compilation
/// (or per thread); it has no global state.
class TileContext {
public:
  /// Registers the common ops.
  TileContext();
  OpRegistry &getOpRegistry() { return Ops; }
  const OpRegistry &getOpRegistry() const { return Ops; }

  /// The source manager of the text modules in this context were parsed
  /// from (set by the parser), so that later stages can report located
  /// errors; null for IR built in C++.
  llvm::SourceMgr *getSourceMgr() const { return SM; }
  void setSourceMgr(llvm::SourceMgr *S) {
    SM = S;
    Remarks.setSourceMgr(S);
  }

  /// Where passes and backends report optimization remarks; off until a
  /// tool sets a filter.
  RemarkEngine &getRemarks() { return Remarks; }

  /// Where passes that infer fragment layouts print them (tile-opt and
  /// tile-llc -print-layouts); null when nobody asked.
  llvm::raw_ostream *getLayoutOutput() const { return LayoutOS; }
  void setLayoutOutput(llvm::raw_ostream *OS) { LayoutOS = OS; }

private:
  OpRegistry Ops;
  llvm::SourceMgr *SM = nullptr;
  RemarkEngine Remarks;
  llvm::raw_ostream *LayoutOS = nullptr;
};

/// The declared default of an op attribute, as an Attribute.
const Attribute &getDefaultValue(const OpAttrInfo &AI);

/// The extent of each dimension of \p R: its explicit extents, the buffer's
/// shape for a whole buffer, or, for an index list without extents, the
/// non-unit extents of \p Other aligned to the right (leading dimensions
/// are points). A null entry means extent 1.
std::vector<const Expr *> getRegionExtentExprs(const Region &R,
                                               const Region *Other);

} // namespace tile

#endif // TILE_IR_IR_H
