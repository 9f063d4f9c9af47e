//===- Interpreter.cpp - The reference interpreter of Tile IR -------------===//
//
// Two phases. Compilation walks the function once: it gives every scalar
// value a slot (one per thread for values bound in per-thread code) and
// every buffer an id, flattens expressions into a node array, groups
// thread-dependent statements into runs, resolves each op's regions and
// attributes, and rejects ops it cannot run. Execution then walks the
// compiled tree. A run-time fault is recorded once and unwinds the run.
//
// Tile ops gather their operands into dense row-major arrays, compute in
// f64 and scatter the result: the definitions in TileOps.td, transcribed.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Interpreter.h"
#include "tile/Support/Memory.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/ExecutionCore.h"
#include "tile/IR/Printer.h"
#include "tile/IR/ScalarSemantics.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <unistd.h>

using namespace tile;
using namespace tile::scalar;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// TensorArg
//===----------------------------------------------------------------------===//

TensorArg TensorArg::filled(std::vector<int64_t> Shape, double Fill) {
  TensorArg T;
  T.Shape = std::move(Shape);
  T.Data.assign(size_t(T.getNumElements()), Fill);
  return T;
}

int64_t TensorArg::getNumElements() const {
  int64_t N = 1;
  for (int64_t D : Shape)
    N *= D;
  return N;
}

std::vector<int64_t> TensorArg::getEffectiveStrides() const {
  if (!Strides.empty())
    return Strides;
  std::vector<int64_t> S(Shape.size());
  int64_t Step = 1;
  for (size_t D = Shape.size(); D-- > 0;) {
    S[D] = Step;
    Step *= Shape[D];
  }
  return S;
}

double &TensorArg::at(llvm::ArrayRef<int64_t> Index) {
  assert(Index.size() == Shape.size() && "one index per dimension");
  std::vector<int64_t> S = getEffectiveStrides();
  int64_t Off = 0;
  for (size_t D = 0; D != Index.size(); ++D) {
    assert(Index[D] >= 0 && Index[D] < Shape[D] && "index out of range");
    Off += Index[D] * S[D];
  }
  return Data[size_t(Off)];
}

double TensorArg::at(llvm::ArrayRef<int64_t> Index) const {
  return const_cast<TensorArg *>(this)->at(Index);
}

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

double tile::roundToDType(double V, DType T) {
  const llvm::fltSemantics *Sem = nullptr;
  switch (T) {
  case DType::F32:
    return double(float(V));
  case DType::F16:
    Sem = &llvm::APFloat::IEEEhalf();
    break;
  case DType::BF16:
    Sem = &llvm::APFloat::BFloat();
    break;
  case DType::F8E4M3:
    Sem = &llvm::APFloat::Float8E4M3FN();
    break;
  case DType::F8E5M2:
    Sem = &llvm::APFloat::Float8E5M2();
    break;
  default:
    return V;
  }
  llvm::APFloat A(V);
  bool LosesInfo;
  A.convert(*Sem, llvm::APFloat::rmNearestTiesToEven, &LosesInfo);
  A.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &LosesInfo);
  return A.convertToDouble();
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::string tile::renderLocatedMessage(const llvm::SourceMgr *SM, SMLoc Loc,
                                       const Twine &Msg) {
  if (!SM || !Loc.isValid() || !SM->FindBufferContainingLoc(Loc))
    return Msg.str();
  std::string S;
  llvm::raw_string_ostream OS(S);
  SM->PrintMessage(OS, Loc, llvm::SourceMgr::DK_Error, Msg, /*Ranges=*/{},
                   /*FixIts=*/{}, /*ShowColors=*/false);
  return llvm::StringRef(S).rtrim().str();
}

namespace {

/// The double a buffer of type \p T stores for \p V.
double toStored(Scalar V, DType T) {
  return isFloat(T) ? V.F : intToDouble(V.I, T);
}

/// Converts a stored element of type \p From to type \p To. NaN in an
/// integer buffer marks an unwritten element and stays NaN.
double convertElement(double V, DType From, DType To) {
  return execution::convertElement(V, From, To, castExact, toStored);
}

//===----------------------------------------------------------------------===//
// The compiled program
//===----------------------------------------------------------------------===//

/// One expression node. Children are ArgIds[FirstArg, FirstArg + NumArgs).
struct Node : ExprNode {
  /// Slot nodes: the value has one slot per thread.
  bool PerThread = false;
};

/// Where a scalar value lives: Slots[Base], or Slots[Base + thread].
struct SlotRef {
  uint32_t Base = 0;
  bool PerThread = false;
};

/// A buffer at run time. Its id is fixed at compilation; an allocation
/// (re)creates its storage each time it executes.
struct Buffer {
  const BufferValue *Decl = nullptr;
  DType Ty = DType::F32;
  std::vector<int64_t> Shape, Strides;
  double *Data = nullptr;
  std::vector<double> Storage;
  /// A local array of per-thread code allocated outside it: each thread's
  /// copy is this many elements after the previous thread's.
  int64_t ThreadStride = 0;
  bool isGlobal() const { return Decl->getScope() == MemScope::Global; }
  llvm::StringRef getName() const { return Decl->getName(); }
};

/// An op's region: offsets and extents as expression nodes (-1: extent 1).
struct XRegion {
  uint32_t Buf = 0;
  bool Whole = false;
  llvm::SmallVector<uint32_t, 4> Off;
  llvm::SmallVector<int32_t, 4> Ext;
  SMLoc Loc;
};

enum class OpKind {
  Copy,
  Gemm,
  Fill,
  Clear,
  Reduce,
  Cumsum,
  Atomic,
  AtomicElem,
  Barrier
};
enum class Combine { Sum, Max, Min, AbsSum, AbsMax };

struct OpDesc {
  const char *Name;
  OpKind Kind;
};
constexpr OpDesc kOps[] = {
    {"copy", OpKind::Copy},       {"gemm", OpKind::Gemm},
    {"fill", OpKind::Fill},       {"clear", OpKind::Clear},
    {"reduce", OpKind::Reduce},   {"cumsum", OpKind::Cumsum},
    {"atomic", OpKind::Atomic},   {"atomic_elem", OpKind::AtomicElem},
    {"barrier", OpKind::Barrier},
};

std::optional<Combine> parseCombine(llvm::StringRef S) {
  return llvm::StringSwitch<std::optional<Combine>>(S)
      .Case("sum", Combine::Sum)
      .Case("add", Combine::Sum)
      .Case("max", Combine::Max)
      .Case("min", Combine::Min)
      .Case("abssum", Combine::AbsSum)
      .Case("absmax", Combine::AbsMax)
      .Default(std::nullopt);
}

/// An executable statement. Which fields are used depends on the kind.
struct XStmt {
  enum class Kind { Let, Store, Alloc, For, If, Kernel, Op, Run };
  Kind K;
  const Stmt *Src = nullptr;
  /// Let: its value. For: the loop variables. Kernel: the block indices.
  llvm::SmallVector<SlotRef, 3> Vars;
  /// Let: init. Store: indices then value. Alloc: shape. For: (lo, hi) per
  /// dimension (lo unused for parallel loops), then the step. If: cond.
  /// Kernel: grid. Op: the value operand.
  llvm::SmallVector<uint32_t, 4> Exprs;
  /// Store, Alloc: the buffer.
  uint32_t Buf = 0;
  /// For: the kind of loop and whether it has a step.
  LoopKind Loop = LoopKind::Serial;
  bool HasStep = false;
  /// Kernel and Run: the number of threads. Kernel: the thread index.
  int64_t Threads = 1;
  std::optional<SlotRef> Tx;
  /// Op.
  OpKind Op = OpKind::Barrier;
  llvm::SmallVector<XRegion, 3> Regions;
  Combine Comb = Combine::Sum;
  int64_t Dim = 0;
  /// gemm: transpose_a, transpose_b, clear_accum; reduce: clear; cumsum:
  /// reverse.
  bool TransposeA = false, TransposeB = false, ClearAccum = false;
  bool Clear = true, Reverse = false;
  /// For, If (then), Kernel, Run: the body. If: the else block.
  std::vector<XStmt> Body, Else;
  bool HasElse = false;

  XStmt(Kind K, const Stmt *Src) : K(K), Src(Src) {}
};

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

/// The reference interpreter: the execution core's scalar evaluator over
/// block-level state, where a thread is the one running a per-thread run.
class Interpreter
    : public execution::CompiledFunction<Interpreter, Node, SlotRef>,
      public execution::ScalarEvaluator<Interpreter, Node> {
  friend class execution::CompiledFunction<Interpreter, Node, SlotRef>;
  friend class execution::ScalarEvaluator<Interpreter, Node>;

public:
  Interpreter(const Function &F, const InterpretOptions &Opts)
      : F(F), Opts(Opts) {}

  llvm::Error run(llvm::ArrayRef<ArgValue> Args);

private:
  //===--- Errors ---------------------------------------------------------===//

  std::string render(SMLoc Loc, const Twine &Msg) const {
    return renderLocatedMessage(Opts.SM, Loc, Msg);
  }

  llvm::Error makeError(SMLoc Loc, const Twine &Msg) const {
    return execution::makeRuntimeError(Opts.SM, Loc, Msg);
  }

  /// Records the first run-time fault; execution unwinds after it.
  void fail(SMLoc Loc, const Twine &Msg) {
    if (Failed)
      return;
    Failed = true;
    FailMsg = render(Loc, Msg);
  }

  //===--- Compilation ----------------------------------------------------===//

  SlotRef newSlot(const Value *V, bool PerThread) {
    SlotRef S{NumSlots, PerThread};
    NumSlots += PerThread ? uint32_t(CurThreads) : 1;
    SlotOf[V] = S;
    return S;
  }

  uint32_t newBuffer(const BufferValue *B) {
    uint32_t Id = Buffers.size();
    Buffers.emplace_back();
    Buffers.back().Decl = B;
    Buffers.back().Ty = B->getDType();
    BufferOf[B] = Id;
    return Id;
  }

  bool dependsOnThread(const Expr &E) const {
    bool Found = false;
    forEachUse(E, [&](const Value *V) { Found |= ThreadDep.contains(V); });
    return Found;
  }

  // The execution core's CompiledFunction.
  void resolveSlot(Node &N, const SlotRef &Slot) {
    N.Index = Slot.Base;
    N.PerThread = Slot.PerThread;
  }
  void resolveBuffer(Node &N, uint32_t Buf) { N.Index = Buf; }
  void addOperand(Node &, const Node &) {}

  llvm::Error compileBlock(const Block &B, bool PerThread,
                           std::vector<XStmt> &Out);
  llvm::Expected<XStmt> compileStmt(const Stmt &S, bool PerThread);
  llvm::Expected<XStmt> compileKernel(const KernelStmt &K);
  llvm::Expected<XStmt> compileOp(const OpStmt &Op);
  llvm::Expected<XRegion> compileRegion(const Region &R, const Region *Other);
  bool headerDependsOnThread(const Stmt &S) const;

  //===--- Arguments ------------------------------------------------------===//

  llvm::Error bindArguments(llvm::ArrayRef<ArgValue> Args);

  //===--- Execution ------------------------------------------------------===//

  Scalar eval(uint32_t Id) { return evalScalar(Id, CurTx); }
  int64_t evalInt(uint32_t Id) { return eval(Id).I; }
  /// The element address of \p Buf at the indices computed by \p Idx, or -1
  /// after reporting an out-of-range access.
  int64_t elementAddress(const Buffer &Buf, const uint32_t *Idx, unsigned N,
                         SMLoc Loc, const char *What);
  /// The element address of \p Buf at \p Idx, or -1 after reporting an
  /// out-of-range access.
  int64_t elementAddress(const Buffer &Buf, llvm::ArrayRef<int64_t> Idx,
                         SMLoc Loc, const char *What);

  // The execution core's ScalarEvaluator.
  Scalar slotValue(const Node &N, int64_t Thread) {
    return Slots[N.Index + (N.PerThread ? uint32_t(Thread) : 0)];
  }
  Scalar loadValue(const Node &N, llvm::ArrayRef<int64_t> Idx, int64_t Thread);
  Scalar castValue(Scalar V, DType From, DType To) {
    return castExact(V, From, To);
  }
  void fault(const Node &N, const Twine &Msg, int64_t) { fail(N.Loc, Msg); }
  void write(Buffer &B, int64_t Addr, double V) {
    if (isFloat(B.Ty)) {
      if (Opts.RoundStores)
        V = roundToDType(V, B.Ty);
    } else if (!std::isnan(V)) {
      V = intToDouble(wrapInt(uint64_t(doubleToIntBits(V)), B.Ty), B.Ty);
    }
    B.Data[Addr] = V;
  }
  uint32_t slotIndex(SlotRef S) const {
    return S.Base + (S.PerThread ? uint32_t(CurTx) : 0);
  }

  void execBlock(const std::vector<XStmt> &Stmts);
  void exec(const XStmt &S);
  void execFor(const XStmt &S);
  void execKernel(const XStmt &S);
  void execAlloc(const XStmt &S);
  void execOp(const XStmt &S);

  //===--- Tile ops -------------------------------------------------------===//

  /// A region resolved at run time.
  struct Window {
    Buffer *B = nullptr;
    llvm::SmallVector<int64_t, 4> Off, Ext;
    int64_t size() const {
      int64_t N = 1;
      for (int64_t E : Ext)
        N *= E;
      return N;
    }
  };

  bool resolve(const XRegion &R, const XStmt &Op, Window &W);
  /// Calls \p Fn with the address of each element of \p W in row-major
  /// order, or -1 for an element outside its (global) buffer.
  template <typename Fn> void forEachElement(const Window &W, Fn &&F);
  /// \p W's elements in row-major order; those outside read as 0.
  std::vector<double> gather(const Window &W);
  /// Writes \p Vals (of type \p From) into \p W, converting; elements
  /// outside the buffer are dropped.
  void scatter(const Window &W, llvm::ArrayRef<double> Vals, DType From);
  bool checkSameShape(const XStmt &Op, const Window &Src, const Window &Dst);
  llvm::StringRef opName(const XStmt &S) const {
    return cast<OpStmt>(S.Src)->getName();
  }

  void execCopy(const XStmt &S);
  void execFill(const XStmt &S, bool Zero);
  void execGemm(const XStmt &S);
  void execReduce(const XStmt &S);
  void execCumsum(const XStmt &S);
  void execAtomic(const XStmt &S);
  void execAtomicElem(const XStmt &S);

  const Function &F;
  const InterpretOptions &Opts;

  // Compilation state (with CompiledFunction's).
  llvm::DenseSet<const Value *> ThreadDep;
  const Value *CurThreadIdx = nullptr;
  int64_t CurThreads = 1;

  // The program.
  std::vector<XStmt> Body;
  std::vector<Buffer> Buffers;

  // Run-time state: the thread running a per-thread run.
  int64_t CurTx = 0;
};

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// Whether the statement's own expressions (not nested blocks) use the
/// thread index or a value derived from it.
bool Interpreter::headerDependsOnThread(const Stmt &S) const {
  auto Any = [&](auto Exprs) {
    for (const Expr *E : Exprs)
      if (E && dependsOnThread(*E))
        return true;
    return false;
  };
  switch (S.getKind()) {
  case Stmt::Kind::Let:
    return dependsOnThread(*cast<LetStmt>(S).getInit());
  case Stmt::Kind::Store: {
    const auto &St = cast<StoreStmt>(S);
    llvm::SmallVector<const Expr *, 4> Es{St.getValue()};
    for (const ExprPtr &I : St.getIndices())
      Es.push_back(I.get());
    return Any(Es);
  }
  case Stmt::Kind::For: {
    const auto &Fo = cast<ForStmt>(S);
    llvm::SmallVector<const Expr *, 4> Es{Fo.getStep()};
    for (const LoopDim &D : Fo.getDims())
      Es.append({D.Lo.get(), D.Hi.get()});
    return Any(Es);
  }
  case Stmt::Kind::If:
    return dependsOnThread(*cast<IfStmt>(S).getCond());
  case Stmt::Kind::Op: {
    llvm::SmallVector<const Expr *, 8> Es;
    for (const OpOperand &O : cast<OpStmt>(S).getOperands()) {
      if (O.Kind == OperandKind::Expr) {
        Es.push_back(O.E.get());
        continue;
      }
      for (const RegionIndex &I : O.R.Indices)
        Es.append({I.Offset.get(), I.Extent.get()});
    }
    return Any(Es);
  }
  case Stmt::Kind::Alloc:
  case Stmt::Kind::Kernel:
    return false;
  }
  return false;
}

static bool isBarrier(const Stmt &S) {
  const auto *Op = dyn_cast<OpStmt>(&S);
  return Op && Op->getName() == "barrier";
}

/// In a kernel with a thread index, consecutive statements that depend on
/// it form a run that each thread executes in turn; a barrier ends a run.
/// Inside a run (\p PerThread) everything executes per thread as written.
llvm::Error Interpreter::compileBlock(const Block &B, bool PerThread,
                                      std::vector<XStmt> &Out) {
  std::optional<size_t> Run;
  for (const StmtPtr &SP : B.Stmts) {
    const Stmt &S = *SP;
    bool Dep = !PerThread && CurThreadIdx && headerDependsOnThread(S);
    if (!PerThread && isBarrier(S)) {
      Run.reset();
      continue;
    }
    auto X = compileStmt(S, PerThread || Dep);
    if (!X)
      return X.takeError();
    if (!Dep) {
      Run.reset();
      Out.push_back(std::move(*X));
      continue;
    }
    if (!Run) {
      Out.emplace_back(XStmt::Kind::Run, &S);
      Out.back().Threads = CurThreads;
      Run = Out.size() - 1;
    }
    Out[*Run].Body.push_back(std::move(*X));
  }
  return llvm::Error::success();
}

llvm::Expected<XStmt> Interpreter::compileStmt(const Stmt &S, bool PerThread) {
  switch (S.getKind()) {
  case Stmt::Kind::Let: {
    const auto &L = cast<LetStmt>(S);
    XStmt X(XStmt::Kind::Let, &S);
    if (llvm::Error E = compileExprInto(*L.getInit(), X.Exprs))
      return std::move(E);
    if (CurThreadIdx && dependsOnThread(*L.getInit()))
      ThreadDep.insert(L.getVar());
    // Bound in per-thread code: one value per thread, read by later runs.
    X.Vars.push_back(newSlot(L.getVar(), PerThread));
    return X;
  }
  case Stmt::Kind::Store: {
    XStmt X(XStmt::Kind::Store, &S);
    if (llvm::Error E = compileStore(cast<StoreStmt>(S), X))
      return std::move(E);
    return X;
  }
  case Stmt::Kind::Alloc: {
    const BufferValue *B = cast<AllocStmt>(S).getBuffer();
    XStmt X(XStmt::Kind::Alloc, &S);
    if (llvm::Error E = compileExprs(B->getShape(), X.Exprs))
      return std::move(E);
    X.Buf = newBuffer(B);
    // Every thread has its own local array (tile-lower-to-simt keeps
    // fragments there), also one allocated before its per-thread code.
    if (B->getScope() == MemScope::Local && CurThreadIdx && !PerThread)
      X.Threads = CurThreads;
    return X;
  }
  case Stmt::Kind::For: {
    const auto &Fo = cast<ForStmt>(S);
    XStmt X(XStmt::Kind::For, &S);
    X.Loop = Fo.getLoopKind();
    if (X.Loop != LoopKind::Parallel && Fo.getDims().size() != 1)
      return makeError(S.getLoc(), getLoopKindName(X.Loop) +
                                       " loops have one variable, this one "
                                       "has " +
                                       Twine(Fo.getDims().size()));
    bool Dep = false;
    for (const LoopDim &D : Fo.getDims()) {
      // Parallel loops start at 0 and have no lower bound to compile.
      if (!D.Lo)
        X.Exprs.push_back(0);
      else if (llvm::Error E = compileExprInto(*D.Lo, X.Exprs))
        return std::move(E);
      if (llvm::Error E = compileExprInto(*D.Hi, X.Exprs))
        return std::move(E);
      Dep |= CurThreadIdx &&
             ((D.Lo && dependsOnThread(*D.Lo)) || dependsOnThread(*D.Hi));
    }
    if (const Expr *Step = Fo.getStep()) {
      X.HasStep = true;
      if (llvm::Error E = compileExprInto(*Step, X.Exprs))
        return std::move(E);
      Dep |= CurThreadIdx && dependsOnThread(*Step);
    }
    for (const LoopDim &D : Fo.getDims()) {
      if (Dep)
        ThreadDep.insert(D.Var.get());
      X.Vars.push_back(newSlot(D.Var.get(), PerThread));
    }
    if (llvm::Error E = compileBlock(Fo.getBody(), PerThread, X.Body))
      return std::move(E);
    return X;
  }
  case Stmt::Kind::If: {
    XStmt X(XStmt::Kind::If, &S);
    if (llvm::Error E = compileIf(
            cast<IfStmt>(S), X,
            [&](const Block &B, std::vector<XStmt> &Out) {
              return compileBlock(B, PerThread, Out);
            }))
      return std::move(E);
    return X;
  }
  case Stmt::Kind::Kernel:
    return compileKernel(cast<KernelStmt>(S));
  case Stmt::Kind::Op:
    return compileOp(cast<OpStmt>(S));
  }
  llvm_unreachable("unknown statement");
}

llvm::Expected<XStmt> Interpreter::compileKernel(const KernelStmt &K) {
  if (CurThreadIdx || CurThreads != 1)
    return makeError(K.getLoc(), "kernels cannot be nested");
  XStmt X(XStmt::Kind::Kernel, &K);
  if (llvm::Error E = compileLaunch(K, X))
    return std::move(E);
  for (const auto &B : K.getBlockIndices())
    X.Vars.push_back(newSlot(B.get(), false));
  if (const Value *Tx = K.getThreadIndex()) {
    CurThreads = X.Threads;
    X.Tx = newSlot(Tx, true);
    CurThreadIdx = Tx;
    ThreadDep.insert(Tx);
  }
  llvm::Error E = compileBlock(K.getBody(), false, X.Body);
  CurThreadIdx = nullptr;
  CurThreads = 1;
  if (E)
    return std::move(E);
  return X;
}

llvm::Expected<XRegion> Interpreter::compileRegion(const Region &R,
                                                   const Region *Other) {
  XRegion X;
  if (llvm::Error E = CompiledFunction::compileRegion(R, X))
    return std::move(E);
  X.Whole = R.isWholeBuffer();
  if (X.Whole)
    return X;
  for (const Expr *E : getRegionExtentExprs(R, Other)) {
    if (!E) {
      X.Ext.push_back(-1);
      continue;
    }
    auto Id = compileExpr(*E);
    if (!Id)
      return Id.takeError();
    X.Ext.push_back(int32_t(*Id));
  }
  return X;
}

llvm::Expected<XStmt> Interpreter::compileOp(const OpStmt &Op) {
  const OpInfo &Info = Op.getInfo();
  if (!Info.isCommon())
    return makeError(Op.getLoc(),
                     "op '" + Op.getName() + "' of the '" + Info.Dialect +
                         "' dialect cannot be interpreted: the reference "
                         "interpreter runs the common tile language only; "
                         "check the program before lowering it to a backend");
  const OpDesc *Desc = llvm::find_if(
      kOps, [&](const OpDesc &D) { return Op.getName() == D.Name; });
  if (Desc == std::end(kOps))
    return makeError(Op.getLoc(), "op '" + Op.getName() +
                                      "' is not supported by the reference "
                                      "interpreter");
  XStmt X(XStmt::Kind::Op, &Op);
  X.Op = Desc->Kind;
  // Regions in operand order; a region without extents takes them from its
  // partner (src <-> dst for the two-region ops).
  const Region *Partner[2] = {nullptr, nullptr};
  if (X.Op == OpKind::Copy || X.Op == OpKind::Atomic ||
      X.Op == OpKind::Cumsum) {
    Partner[0] = &Op.getOperand("dst").R;
    Partner[1] = &Op.getOperand("src").R;
  }
  if (llvm::Error E = compileOpOperands(
          Op, X, [&](const Region &R, unsigned RegionNo) {
            return compileRegion(R, RegionNo < 2 ? Partner[RegionNo] : nullptr);
          }))
    return std::move(E);
  auto Bool = [&](const char *Name) {
    return Op.getAttrOrDefault(Name).getBool();
  };
  switch (X.Op) {
  case OpKind::Gemm:
    X.TransposeA = Bool("transpose_a");
    X.TransposeB = Bool("transpose_b");
    X.ClearAccum = Bool("clear_accum");
    break;
  case OpKind::Reduce:
    X.Clear = Bool("clear");
    X.Dim = Op.getAttrOrDefault("dim").getInt();
    break;
  case OpKind::Cumsum:
    X.Reverse = Bool("reverse");
    X.Dim = Op.getAttrOrDefault("dim").getInt();
    break;
  default:
    break;
  }
  if (X.Op == OpKind::Reduce || X.Op == OpKind::Atomic ||
      X.Op == OpKind::AtomicElem) {
    llvm::StringRef K = Op.getAttrOrDefault("kind").getStr();
    std::optional<Combine> C = parseCombine(K);
    if (!C)
      return makeError(Op.getLoc(), "'" + Op.getName() + "' kind '" + K +
                                        "' is not supported by the reference "
                                        "interpreter");
    X.Comb = *C;
  }
  return X;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

llvm::Error Interpreter::bindArguments(llvm::ArrayRef<ArgValue> Args) {
  auto ScalarOf = [&](const Value &V) -> Scalar & { return scalarOf(V); };
  auto BindTensor = [&](const BufferValue &B, TensorArg &T,
                        std::vector<int64_t> Strides, int64_t,
                        const std::string &) -> llvm::Error {
    Buffer &Buf = Buffers[BufferOf.lookup(&B)];
    Buf.Shape = T.Shape;
    Buf.Strides = std::move(Strides);
    Buf.Data = T.Data.data();
    return llvm::Error::success();
  };
  return execution::bindArguments(F, Args, Opts.SM, Opts.RoundStores,
                                  {ScalarOf, BindTensor});
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

int64_t Interpreter::elementAddress(const Buffer &B, const uint32_t *Idx,
                                    unsigned N, SMLoc Loc, const char *What) {
  llvm::SmallVector<int64_t, 4> I;
  for (unsigned D = 0; D != N; ++D)
    I.push_back(eval(Idx[D]).I);
  if (Failed)
    return -1;
  return elementAddress(B, I, Loc, What);
}

int64_t Interpreter::elementAddress(const Buffer &B, llvm::ArrayRef<int64_t> Idx,
                                    SMLoc Loc, const char *What) {
  if (std::optional<int64_t> Off =
          execution::elementOffset(B.Shape, B.Strides, Idx))
    return *Off + CurTx * B.ThreadStride;
  fail(Loc, execution::describeOutOfRange(What, B.getName(), Idx, B.Shape));
  return -1;
}

Scalar Interpreter::loadValue(const Node &N, llvm::ArrayRef<int64_t> Idx,
                              int64_t) {
  const Buffer &B = Buffers[N.Index];
  int64_t Addr = elementAddress(B, Idx, N.Loc, "load of");
  if (Addr < 0)
    return intScalar(0);
  double V = B.Data[Addr];
  if (isFloat(N.Ty))
    return floatScalar(V);
  if (std::isnan(V)) {
    fail(N.Loc, "load of an element of '%" + B.getName() +
                    "' that was never written (it holds the NaN poison)");
    return intScalar(0);
  }
  return intScalar(doubleToIntBits(V));
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Interpreter::execBlock(const std::vector<XStmt> &Stmts) {
  for (const XStmt &S : Stmts) {
    exec(S);
    if (Failed)
      return;
  }
}

void Interpreter::exec(const XStmt &S) {
  switch (S.K) {
  case XStmt::Kind::Let: {
    Scalar V = eval(S.Exprs[0]);
    Slots[slotIndex(S.Vars[0])] = V;
    return;
  }
  case XStmt::Kind::Store: {
    Buffer &B = Buffers[S.Buf];
    unsigned N = S.Exprs.size() - 1;
    int64_t Addr =
        elementAddress(B, S.Exprs.data(), N, S.Src->getLoc(), "store to");
    if (Addr < 0)
      return;
    Scalar V = eval(S.Exprs[N]);
    if (!Failed)
      write(B, Addr, toStored(V, B.Ty));
    return;
  }
  case XStmt::Kind::Alloc:
    return execAlloc(S);
  case XStmt::Kind::For:
    return execFor(S);
  case XStmt::Kind::If: {
    bool C = eval(S.Exprs[0]).I != 0;
    if (Failed)
      return;
    if (C)
      execBlock(S.Body);
    else if (S.HasElse)
      execBlock(S.Else);
    return;
  }
  case XStmt::Kind::Kernel:
    return execKernel(S);
  case XStmt::Kind::Op:
    return execOp(S);
  case XStmt::Kind::Run:
    for (int64_t T = 0; T != S.Threads && !Failed; ++T) {
      CurTx = T;
      execBlock(S.Body);
    }
    CurTx = 0;
    return;
  }
}

void Interpreter::execAlloc(const XStmt &S) {
  Buffer &B = Buffers[S.Buf];
  B.Shape.clear();
  int64_t N = 1;
  for (uint32_t E : S.Exprs) {
    int64_t D = evalInt(E);
    if (std::optional<std::string> Fault = execution::checkAllocDim(*B.Decl, D))
      fail(Nodes[E].Loc, *Fault);
    if (Failed)
      return;
    B.Shape.push_back(D);
    N = N > 0 && D > std::numeric_limits<int64_t>::max() / N
            ? std::numeric_limits<int64_t>::max()
            : N * D;
  }
  // Refuse what this machine cannot hold before allocating: a failed
  // allocation aborts the process.
  if (std::optional<uint64_t> Mem = getPhysicalMemory();
      N == std::numeric_limits<int64_t>::max() ||
      (Mem && uint64_t(N) > *Mem / sizeof(double))) {
    fail(S.Src->getLoc(), "'%" + B.getName() + "' has " +
                    (N == std::numeric_limits<int64_t>::max()
                         ? std::string("more than 2^63")
                         : std::to_string(N)) +
                    " elements, more than the reference interpreter can "
                    "hold in this machine's memory (8 bytes each)");
    return;
  }
  B.Strides.assign(B.Shape.size(), 1);
  for (size_t D = B.Shape.size(); D-- > 1;)
    B.Strides[D - 1] = B.Strides[D] * B.Shape[D];
  double Init = B.isGlobal() || !Opts.PoisonOnChip
                    ? 0.0
                    : std::numeric_limits<double>::quiet_NaN();
  B.ThreadStride = S.Threads > 1 ? N : 0;
  B.Storage.assign(size_t(N * S.Threads), Init);
  B.Data = B.Storage.data();
}

void Interpreter::execFor(const XStmt &S) {
  unsigned NumVars = S.Vars.size();
  if (S.Loop == LoopKind::Parallel) {
    llvm::SmallVector<int64_t, 4> Ext(NumVars), I(NumVars, 0);
    int64_t Total = 1;
    for (unsigned D = 0; D != NumVars; ++D) {
      Ext[D] = std::max<int64_t>(evalInt(S.Exprs[2 * D + 1]), 0);
      Total *= Ext[D];
    }
    for (int64_t K = 0; K < Total && !Failed; ++K) {
      for (unsigned D = 0; D != NumVars; ++D)
        Slots[slotIndex(S.Vars[D])] = intScalar(I[D]);
      execBlock(S.Body);
      for (unsigned D = NumVars; D-- > 0;) {
        if (++I[D] < Ext[D])
          break;
        I[D] = 0;
      }
    }
    return;
  }
  DType Ty = cast<ForStmt>(S.Src)->getDims()[0].Var->getDType();
  int64_t Lo = evalInt(S.Exprs[0]), Hi = evalInt(S.Exprs[1]);
  int64_t Step = S.HasStep ? evalInt(S.Exprs[2]) : 1;
  if (Failed)
    return;
  if (std::optional<std::string> Fault = execution::checkLoopStep(Step)) {
    fail(S.Src->getLoc(), *Fault);
    return;
  }
  for (int64_t I = Lo; lessThan(I, Hi, Ty) && !Failed;) {
    Slots[slotIndex(S.Vars[0])] = intScalar(I);
    execBlock(S.Body);
    std::optional<int64_t> Next = execution::nextLoopValue(I, Step, Ty);
    if (!Next)
      break;
    I = *Next;
  }
}

void Interpreter::execKernel(const XStmt &S) {
  const auto &K = cast<KernelStmt>(*S.Src);
  int64_t Grid[3] = {1, 1, 1};
  for (size_t D = 0; D != S.Exprs.size(); ++D) {
    Grid[D] = evalInt(S.Exprs[D]);
    if (std::optional<std::string> Fault = execution::checkGridDim(D, Grid[D]);
        Fault && !Failed)
      fail(K.getGrid()[D]->getLoc(), *Fault);
  }
  if (Failed)
    return;
  if (S.Tx)
    for (int64_t T = 0; T != S.Threads; ++T)
      Slots[S.Tx->Base + T] = intScalar(T);
  for (int64_t Z = 0; Z < Grid[2]; ++Z)
    for (int64_t Y = 0; Y < Grid[1]; ++Y)
      for (int64_t X = 0; X < Grid[0]; ++X) {
        const int64_t Idx[3] = {X, Y, Z};
        for (size_t D = 0; D != S.Vars.size(); ++D)
          Slots[S.Vars[D].Base] = intScalar(Idx[D]);
        execBlock(S.Body);
        if (Failed)
          return;
      }
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

bool Interpreter::resolve(const XRegion &R, const XStmt &Op, Window &W) {
  W.B = &Buffers[R.Buf];
  const Buffer &B = *W.B;
  if (R.Whole) {
    W.Off.assign(B.Shape.size(), 0);
    W.Ext.assign(B.Shape.begin(), B.Shape.end());
    return true;
  }
  W.Off.clear();
  W.Ext.clear();
  for (size_t D = 0; D != R.Off.size(); ++D) {
    W.Off.push_back(evalInt(R.Off[D]));
    W.Ext.push_back(R.Ext[D] < 0 ? 1 : evalInt(uint32_t(R.Ext[D])));
  }
  if (Failed)
    return false;
  auto Where = [&] {
    return "'" + opName(Op).str() + "' region of '%" + B.getName().str() +
           "' at offsets " + formatList(W.Off) + " with extents " +
           formatList(W.Ext);
  };
  if (llvm::any_of(W.Ext, [](int64_t E) { return E <= 0; })) {
    fail(R.Loc, Where() + ": extents must be positive");
    return false;
  }
  if (B.isGlobal())
    return true;
  for (size_t D = 0; D != W.Off.size(); ++D)
    if (W.Off[D] < 0 || W.Off[D] + W.Ext[D] > B.Shape[D]) {
      fail(R.Loc, Where() + " is out of range of its shape " +
                      formatList(B.Shape) + " (only global memory is guarded)");
      return false;
    }
  return true;
}

template <typename Fn>
void Interpreter::forEachElement(const Window &W, Fn &&Visit) {
  const Buffer &B = *W.B;
  size_t Rank = W.Ext.size();
  if (Rank == 0) {
    Visit(0);
    return;
  }
  // Row by row along the last dimension, whose in-range columns are
  // [Lo, Hi) of the window.
  size_t L = Rank - 1;
  int64_t Cols = W.Ext[L], Off = W.Off[L], Stride = B.Strides[L];
  int64_t Lo = std::clamp<int64_t>(-Off, 0, Cols);
  int64_t Hi = std::clamp<int64_t>(B.Shape[L] - Off, Lo, Cols);
  llvm::SmallVector<int64_t, 4> I(L, 0);
  for (int64_t Row = 0, Rows = W.size() / Cols; Row != Rows; ++Row) {
    int64_t Base = 0;
    bool In = true;
    for (size_t D = 0; D != L; ++D) {
      int64_t C = W.Off[D] + I[D];
      In &= C >= 0 && C < B.Shape[D];
      Base += C * B.Strides[D];
    }
    for (int64_t J = 0; J != Cols; ++J)
      Visit(In && J >= Lo && J < Hi ? Base + (Off + J) * Stride : -1);
    for (size_t D = L; D-- > 0;) {
      if (++I[D] < W.Ext[D])
        break;
      I[D] = 0;
    }
  }
}

std::vector<double> Interpreter::gather(const Window &W) {
  std::vector<double> Vals;
  Vals.reserve(size_t(W.size()));
  forEachElement(
      W, [&](int64_t A) { Vals.push_back(A < 0 ? 0.0 : W.B->Data[A]); });
  return Vals;
}

void Interpreter::scatter(const Window &W, llvm::ArrayRef<double> Vals,
                          DType From) {
  size_t K = 0;
  forEachElement(W, [&](int64_t A) {
    double V = Vals[K++];
    if (A >= 0)
      write(*W.B, A, convertElement(V, From, W.B->Ty));
  });
}

static llvm::SmallVector<int64_t, 4> squeeze(llvm::ArrayRef<int64_t> Ext) {
  llvm::SmallVector<int64_t, 4> Out;
  for (int64_t E : Ext)
    if (E != 1)
      Out.push_back(E);
  return Out;
}

bool Interpreter::checkSameShape(const XStmt &Op, const Window &Src,
                                 const Window &Dst) {
  if (squeeze(Src.Ext) == squeeze(Dst.Ext))
    return true;
  fail(Op.Src->getLoc(), "'" + opName(Op) + "' shapes do not match: source " +
                             formatList(Src.Ext) + ", destination " +
                             formatList(Dst.Ext));
  return false;
}

void Interpreter::execOp(const XStmt &S) {
  switch (S.Op) {
  case OpKind::Copy:
    return execCopy(S);
  case OpKind::Fill:
    return execFill(S, /*Zero=*/false);
  case OpKind::Clear:
    return execFill(S, /*Zero=*/true);
  case OpKind::Gemm:
    return execGemm(S);
  case OpKind::Reduce:
    return execReduce(S);
  case OpKind::Cumsum:
    return execCumsum(S);
  case OpKind::Atomic:
    return execAtomic(S);
  case OpKind::AtomicElem:
    return execAtomicElem(S);
  case OpKind::Barrier:
    return;
  }
}

void Interpreter::execCopy(const XStmt &S) {
  Window Src, Dst;
  if (!resolve(S.Regions[0], S, Src) || !resolve(S.Regions[1], S, Dst) ||
      !checkSameShape(S, Src, Dst))
    return;
  scatter(Dst, gather(Src), Src.B->Ty);
}

void Interpreter::execFill(const XStmt &S, bool Zero) {
  Window Dst;
  if (!resolve(S.Regions[0], S, Dst))
    return;
  double V = 0;
  if (!Zero) {
    DType Ty = Nodes[S.Exprs[0]].Ty;
    Scalar X = eval(S.Exprs[0]);
    if (Failed)
      return;
    V = convertElement(toStored(X, Ty), Ty, Dst.B->Ty);
  }
  forEachElement(Dst, [&](int64_t A) {
    if (A >= 0)
      write(*Dst.B, A, V);
  });
}

void Interpreter::execGemm(const XStmt &S) {
  Window A, B, C;
  if (!resolve(S.Regions[0], S, A) || !resolve(S.Regions[1], S, B) ||
      !resolve(S.Regions[2], S, C))
    return;
  // Each operand is a matrix in its last two dimensions; the leading ones
  // have extent 1 (the verifier checks constant shapes).
  auto Matrix = [&](const Window &W, int64_t &Rows, int64_t &Cols) {
    size_t R = W.Ext.size();
    Rows = R >= 2 ? W.Ext[R - 2] : 1;
    Cols = W.Ext[R - 1];
    return Rows * Cols == W.size();
  };
  int64_t RA, CA, RB, CB, RC, CC;
  bool TA = S.TransposeA, TB = S.TransposeB;
  bool OKA = Matrix(A, RA, CA), OKB = Matrix(B, RB, CB),
       OKC = Matrix(C, RC, CC);
  bool OK = OKA && OKB && OKC;
  int64_t M = TA ? CA : RA, K = TA ? RA : CA;
  int64_t KB = TB ? CB : RB, N = TB ? RB : CB;
  if (!OK || K != KB || RC != M || CC != N) {
    fail(S.Src->getLoc(), "'gemm' shapes do not agree: A " + formatList(A.Ext) +
                              (TA ? " (transposed)" : "") + ", B " +
                              formatList(B.Ext) + (TB ? " (transposed)" : "") +
                              ", C " + formatList(C.Ext));
    return;
  }
  std::vector<double> VA = gather(A), VB = gather(B), VC = gather(C);
  if (S.ClearAccum)
    std::fill(VC.begin(), VC.end(), 0.0);
  for (int64_t I = 0; I != M; ++I) {
    double *Row = &VC[size_t(I * N)];
    for (int64_t P = 0; P != K; ++P) {
      double X = TA ? VA[size_t(P * CA + I)] : VA[size_t(I * CA + P)];
      if (TB)
        for (int64_t J = 0; J != N; ++J)
          Row[J] += X * VB[size_t(J * CB + P)];
      else
        for (int64_t J = 0; J != N; ++J)
          Row[J] += X * VB[size_t(P * CB + J)];
    }
  }
  scatter(C, VC, C.B->Ty);
}

/// Splits \p Ext around dimension \p Dim: the product of the extents before
/// it, its extent and the product of those after it.
static void splitAt(llvm::ArrayRef<int64_t> Ext, int64_t Dim, int64_t &Outer,
                    int64_t &Len, int64_t &Inner) {
  Outer = Inner = 1;
  for (int64_t D = 0; D != int64_t(Ext.size()); ++D)
    (D < Dim ? Outer : Inner) *= D == Dim ? 1 : Ext[D];
  Len = Ext[Dim];
}

void Interpreter::execReduce(const XStmt &S) {
  Window Src, Dst;
  if (!resolve(S.Regions[0], S, Src) || !resolve(S.Regions[1], S, Dst))
    return;
  int64_t Dim = S.Dim;
  llvm::SmallVector<int64_t, 4> Want(Src.Ext);
  if (Dim < 0 || Dim >= int64_t(Want.size())) {
    fail(S.Src->getLoc(), "'reduce' dim " + Twine(Dim) +
                              " is out of range for source extents " +
                              formatList(Src.Ext));
    return;
  }
  Want.erase(Want.begin() + Dim);
  if (squeeze(Want) != squeeze(Dst.Ext)) {
    fail(S.Src->getLoc(), "'reduce' destination extents " +
                              formatList(Dst.Ext) + " do not match source " +
                              formatList(Src.Ext) + " without dim " +
                              Twine(Dim));
    return;
  }
  int64_t Outer, Len, Inner;
  splitAt(Src.Ext, Dim, Outer, Len, Inner);
  std::vector<double> In = gather(Src);
  std::vector<double> Out =
      S.Clear ? std::vector<double>(size_t(Outer * Inner)) : gather(Dst);
  constexpr double Inf = std::numeric_limits<double>::infinity();
  for (int64_t O = 0; O != Outer; ++O)
    for (int64_t I = 0; I != Inner; ++I) {
      double Acc = S.Comb == Combine::Min                                ? Inf
                   : S.Comb == Combine::Max || S.Comb == Combine::AbsMax ? -Inf
                                                                         : 0.0;
      for (int64_t K = 0; K != Len; ++K) {
        double X = In[size_t((O * Len + K) * Inner + I)];
        switch (S.Comb) {
        case Combine::Sum:
          Acc += X;
          break;
        case Combine::AbsSum:
          Acc += std::fabs(X);
          break;
        case Combine::Max:
          Acc = maxOf(Acc, X);
          break;
        case Combine::AbsMax:
          Acc = maxOf(Acc, std::fabs(X));
          break;
        case Combine::Min:
          Acc = minOf(Acc, X);
          break;
        }
      }
      double &D = Out[size_t(O * Inner + I)];
      if (S.Clear)
        D = Acc;
      else if (S.Comb == Combine::Sum || S.Comb == Combine::AbsSum)
        D += Acc;
      else if (S.Comb == Combine::Min)
        D = minOf(D, Acc);
      else
        D = maxOf(D, Acc);
    }
  scatter(Dst, Out, Src.B->Ty);
}

void Interpreter::execCumsum(const XStmt &S) {
  Window Src, Dst;
  if (!resolve(S.Regions[0], S, Src) || !resolve(S.Regions[1], S, Dst) ||
      !checkSameShape(S, Src, Dst))
    return;
  if (S.Dim < 0 || S.Dim >= int64_t(Src.Ext.size())) {
    fail(S.Src->getLoc(), "'cumsum' dim " + Twine(S.Dim) +
                              " is out of range for source extents " +
                              formatList(Src.Ext));
    return;
  }
  int64_t Outer, Len, Inner;
  splitAt(Src.Ext, S.Dim, Outer, Len, Inner);
  std::vector<double> V = gather(Src);
  for (int64_t O = 0; O != Outer; ++O)
    for (int64_t I = 0; I != Inner; ++I) {
      double Sum = 0;
      for (int64_t Step = 0; Step != Len; ++Step) {
        int64_t K = S.Reverse ? Len - 1 - Step : Step;
        double &X = V[size_t((O * Len + K) * Inner + I)];
        Sum += X;
        X = Sum;
      }
    }
  scatter(Dst, V, Src.B->Ty);
}

static double combineAtomic(Combine K, double Cur, double V) {
  switch (K) {
  case Combine::Max:
    return maxOf(Cur, V);
  case Combine::Min:
    return minOf(Cur, V);
  default:
    return Cur + V;
  }
}

void Interpreter::execAtomic(const XStmt &S) {
  Window Src, Dst;
  if (!resolve(S.Regions[0], S, Src) || !resolve(S.Regions[1], S, Dst) ||
      !checkSameShape(S, Src, Dst))
    return;
  std::vector<double> Vals = gather(Src);
  DType From = Src.B->Ty, To = Dst.B->Ty;
  size_t K = 0;
  forEachElement(Dst, [&](int64_t A) {
    double V = convertElement(Vals[K++], From, To);
    if (A >= 0)
      write(*Dst.B, A, combineAtomic(S.Comb, Dst.B->Data[A], V));
  });
}

void Interpreter::execAtomicElem(const XStmt &S) {
  const XRegion &R = S.Regions[0];
  Buffer &B = Buffers[R.Buf];
  int64_t Addr =
      elementAddress(B, R.Off.data(), R.Off.size(), R.Loc, "'atomic_elem' on");
  if (Addr < 0)
    return;
  DType Ty = Nodes[S.Exprs[0]].Ty;
  Scalar X = eval(S.Exprs[0]);
  if (Failed)
    return;
  double V = convertElement(toStored(X, Ty), Ty, B.Ty);
  write(B, Addr, combineAtomic(S.Comb, B.Data[Addr], V));
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

llvm::Error Interpreter::run(llvm::ArrayRef<ArgValue> Args) {
  for (const auto &D : F.getDims())
    newSlot(D.get(), false);
  for (const auto &P : F.getParams()) {
    if (const auto *B = dyn_cast<BufferValue>(P.get()))
      newBuffer(B);
    else
      newSlot(P.get(), false);
  }
  if (llvm::Error E = compileBlock(F.getBody(), false, Body))
    return E;
  Slots.assign(NumSlots, intScalar(0));
  if (llvm::Error E = bindArguments(Args))
    return E;
  execBlock(Body);
  if (Failed)
    return execution::makeFaultError(FailMsg);
  return llvm::Error::success();
}

} // namespace

llvm::Error tile::interpretFunction(const Function &F,
                                    llvm::ArrayRef<ArgValue> Args,
                                    const InterpretOptions &Opts) {
  return Interpreter(F, Opts).run(Args);
}
