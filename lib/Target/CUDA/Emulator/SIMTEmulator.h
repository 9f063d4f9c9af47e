//===- SIMTEmulator.h - Emulation of per-thread CUDA IR -------*- C++ -*-===//
//
// The CUDA backends' emulator (emulateCUDA, declared in CUDA.td and
// Hopper.td) runs a function as the CUDA or Hopper pipeline leaves it --
// per-thread Tile IR with cuda.* ops -- on the host, so that the
// lowerings' layouts, indexing, swizzles and pipelines can be checked
// against the reference interpreter without a GPU. SIMTEmulator.cpp holds
// the machine (compilation, expressions, memories); SIMTEmulatorSchedule.cpp
// the statements and the scheduling of a block's threads;
// SIMTEmulatorOps.cpp the cuda dialect's ops; SIMTEmulatorSync.cpp the
// mbarriers, TMA, setmaxnreg and the happens-before order they create.
// The model, in brief:
//
//  - Blocks run one after another (%bx fastest). Threads run in groups
//    that execute each statement together under an active mask: `if` with
//    a thread-dependent condition runs both sides under sub-masks, a loop
//    whose bounds differ between threads iterates until the last thread
//    is done, lets and loop variables hold one value per thread. Values
//    that cannot differ between threads (found statically) are computed
//    once per group. A kernel without mbarrier ops runs as one group (the
//    block in lockstep); a kernel with them (warp-specialized) runs one
//    group per warp, and a scheduler runs a warp until it blocks -- on a
//    cuda.mbarrier_wait whose phase is incomplete, a barrier, a warpgroup
//    collective the other warps of its warpgroup have not reached, a
//    setmaxnreg.inc the register pool cannot serve -- then the next warp
//    that can advance. When none can, the asynchronous copies in flight
//    land (TMA boxes, cp.async copies an mbarrier tracks); when nothing is
//    in flight either, the block is deadlocked: a located error naming
//    what the warps wait for.
//  - Memories as the CUDA code generator maps them: tensors are global
//    memory (each starting EmulatorOptions::DataOffset bytes past a 256-byte
//    boundary, as a driver allocation with a DLPack byte_offset);
//    shared buffers are slices of one byte array per block, 16-byte
//    aligned in allocation order (the wgmma and TMA swizzles are functions
//    of these addresses); fragment, local and var buffers are per-thread
//    arrays. On-chip memory is poisoned when allocated (NaN for floats;
//    reading an unwritten integer is an error).
//  - Arithmetic: integers wrap to their type's width; floats are computed
//    in f64 -- f32 arithmetic too, where the device rounds each operation
//    to f32 -- and every store to an f16, bf16, fp8 or f32 buffer (shared,
//    registers, tensors) and every cast to a 16- or 8-bit float rounds to
//    that type. Math intrinsics are f64 libm (the device uses ex2.approx).
//  - barrier: every thread of the block must reach it, under a full mask.
//    Shared memory another thread wrote (or read) is read (or overwritten)
//    only when the access is ordered after it: by a barrier, or through
//    mbarriers (vector clocks: an arrival releases what its thread -- or
//    for cp.async.mbarrier.arrive, the thread's copies -- did before, a
//    TMA box is released by the phase its bytes complete, a wait that
//    sees a phase complete acquires it); ldmatrix and wgmma read for their
//    warp or warpgroup.
//  - cp.async (cuda.cp_async, cuda.ldgsts): each copy reads global memory
//    when issued and joins the thread's open group; commit closes it; a
//    wait with `pending = N` lands all but the N most recent groups of the
//    thread; cuda.ldgsts_arrive lands the thread's earlier copies when the
//    block next stalls, then arrives. Reading shared bytes an issued copy
//    has not landed yet, or writing them, is an error, as is a copy into
//    bytes an in-flight wgmma reads.
//  - mbarriers (PTX ISA): phase, expected and pending arrivals and the
//    tx-count in their valid ranges; phases complete when both reach
//    zero; try_wait.parity succeeds once the phase of that parity before
//    the current one completed. cuda.tma_load reads the box when issued
//    (zero outside the tensor) and writes it, swizzled by shared-memory
//    address, when the block stalls, completing its bytes on the mbarrier.
//    The runtime's tensor maps are derived from the op and the arguments
//    with its own rule (tile/Exec/TensorMap.h).
//  - Warp collectives (shfl_xor, ldmatrix, mma_sync) need all 32 threads
//    of a warp active; warpgroup collectives (wgmma_*, setmaxnreg) all
//    128, at the same op.
//  - wgmma: computed when issued, from shared memory through the matrix
//    descriptors (PTX ISA: start address, leading and stride byte offsets,
//    32/64/128-byte swizzles of the shared-memory address bits, K- or
//    MN-major core matrices), with A from registers for wgmma_mma_rs. The
//    asynchrony is checked rather than simulated: until the wgmma_wait
//    that retires its group, its accumulators (and A registers) may not be
//    touched by other code and the shared bytes it read may not be
//    written; between ordinary accesses to those registers and a wgmma a
//    wgmma_fence is required; shared bytes written through the generic
//    proxy (stores, cp.async) need a fence_proxy_async by a thread the
//    write is ordered before (its own, or any after a barrier or an
//    mbarrier wait) before a wgmma reads them.
//  - Not modelled: global-memory races, timing, other schedules than the
//    one above (copies land as late as possible), code generation.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_SIMTEMULATOR_H
#define TILE_LIB_TARGET_CUDA_SIMTEMULATOR_H

#include "tile/IR/ExecutionCore.h"
#include "tile/IR/IR.h"
#include "tile/IR/Interpreter.h"
#include "tile/IR/ScalarSemantics.h"
#include "tile/Target/Emulator.h"
#include "tile/Target/TargetBackend.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace tile {
namespace cuda {
namespace emu {

//===----------------------------------------------------------------------===//
// Scalars (the semantics of tile/IR/ScalarSemantics.h)
//===----------------------------------------------------------------------===//

using scalar::doubleToIntBits;
using scalar::floatScalar;
using scalar::formatList;
using scalar::intScalar;
using scalar::intToDouble;
using scalar::lessThan;
using scalar::maxOf;
using scalar::minOf;
using scalar::minSigned;
using scalar::NodeKind;
using scalar::Scalar;
using scalar::wrapInt;

/// `cast<To>(V)`: as the interpreter, except that casts to 16- and 8-bit
/// floats round (the device converts there).
Scalar castScalar(Scalar V, DType From, DType To);
/// The double a buffer of type \p T holds for \p V (rounded or wrapped).
double toStored(Scalar V, DType T);
/// A buffer element of type \p From converted to type \p To.
double convertElement(double V, DType From, DType To);

/// Little-endian bytes of \p V, a value of \p T, and back.
void encodeElement(double V, DType T, uint8_t *Out);
double decodeElement(const uint8_t *In, DType T);

//===----------------------------------------------------------------------===//
// The compiled program
//===----------------------------------------------------------------------===//

/// The threads of a block active for a statement, in ascending order.
using LaneList = std::vector<uint32_t>;

/// An expression's values over a lane list: one per lane (V[lane]), or one
/// for all lanes (V[0]) when the expression cannot differ between threads.
struct LaneValues {
  const Scalar *V = nullptr;
  bool Uniform = true;
  Scalar at(uint32_t Lane) const { return V[Uniform ? 0 : Lane]; }
};

/// Splits \p M by the truth of \p C.
inline void splitLanes(const LaneValues &C, const LaneList &M, LaneList &True,
                       LaneList &False) {
  for (uint32_t L : M)
    (C.at(L).I ? True : False).push_back(L);
}

/// One expression node; its children are ArgIds[FirstArg, FirstArg + NumArgs).
struct Node : scalar::ExprNode {
  /// The value is the same for every thread.
  bool Uniform = true;
  /// Slot nodes of uniform values: one slot per thread group.
  bool PerGroup = false;
};

/// Where a scalar value lives: Slots[Base], Slots[Base + lane], or, for a
/// uniform value of a kernel whose warps run as groups, Slots[Base +
/// group].
struct SlotRef {
  uint32_t Base = 0;
  bool Uniform = true;
  bool PerGroup = false;
};

enum class Storage : uint8_t { Global, Shared, Thread };

/// A buffer at run time.
struct Buffer {
  const BufferValue *Decl = nullptr;
  DType Ty = DType::F32;
  unsigned Bytes = 4;
  Storage Where = Storage::Global;
  std::vector<int64_t> Shape, Strides;
  int64_t NumElems = 0;
  /// Global: the elements (a tensor's, or Owned for a workspace).
  double *Data = nullptr;
  std::vector<double> Owned;
  /// Shared: the byte offset in the block's shared memory.
  int64_t SmemOffset = 0;
  /// Thread: NumElems elements per lane, lane-major.
  std::vector<double> Lanes;
  /// Thread buffers a wgmma reads or writes: per element and lane, the
  /// wgmmas in flight on it; per lane, whether ordinary code accessed it
  /// since the last wgmma_fence of it.
  bool WgmmaOperand = false;
  std::vector<uint8_t> InFlight;
  std::vector<uint8_t> TouchedSinceFence;
  /// Shared buffers the mbarrier ops name: the dense index of element 0
  /// among the kernel's mbarriers (-1: none).
  int64_t MbarrierBase = -1;
  llvm::StringRef getName() const { return Decl->getName(); }
};

/// An op's region: the offsets of its first element as expression nodes.
struct XRegion {
  uint32_t Buf = 0;
  llvm::SmallVector<uint32_t, 4> Off;
  llvm::SMLoc Loc;
};

enum class EmuOp : uint8_t {
  Barrier,
  AtomicElem,
  VLoad,
  VStore,
  StorePair,
  ShflXor,
  Ldmatrix,
  MmaSync,
  CpAsync,
  Ldgsts,
  AsyncCommit,
  AsyncWait,
  FenceProxyAsync,
  WgmmaMma,
  WgmmaMmaRs,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,
  TmaReady,
  Aligned,
  LaunchedBlocks,
  StoreIf,
  TmaLoad,
  MbarrierInit,
  MbarrierArrive,
  MbarrierWait,
  LdgstsArrive,
  FenceMbarrierInit,
  Setmaxnreg,
  BarSync,
  BarArrive,
};

/// An executable statement; which fields are used depends on the kind.
struct XStmt {
  enum class Kind { Let, Store, Alloc, For, If, Kernel, Op };
  Kind K;
  const Stmt *Src = nullptr;
  /// Let: its value. For: the loop variable. Kernel: the block indices.
  llvm::SmallVector<SlotRef, 3> Vars;
  /// Let: init. Store: indices then value. Alloc: shape. For: lo, hi and
  /// the step (or none). If: cond. Kernel: grid. Op: expression operands.
  llvm::SmallVector<uint32_t, 4> Exprs;
  /// Store, Alloc: the buffer.
  uint32_t Buf = 0;
  bool HasStep = false;
  /// For: the loop variable's type.
  DType VarTy = DType::I32;
  /// Kernel: threads, the thread index and whether it uses wgmma; whether
  /// its warps run as groups (it uses mbarriers), its cuda.tma_load maps
  /// (TmaMaps[TmaMapBegin, TmaMapEnd)) and the registers per thread its
  /// warpgroups start with (setmaxnreg).
  int64_t Threads = 1;
  std::optional<SlotRef> Tx;
  bool HasWgmma = false;
  bool Scheduled = false;
  /// Kernel: it reads how many blocks were launched (cuda.launched_blocks):
  /// the launch runs at most EmulatorOptions::ResidentBlocks of its grid.
  bool Persistent = false;
  uint32_t TmaMapBegin = 0, TmaMapEnd = 0;
  int64_t EntryRegisters = 0;
  /// Kernel: the mbarriers (elements of the buffers mbarrier ops name).
  uint32_t NumMbarriers = 0;
  /// Op.
  EmuOp Op = EmuOp::Barrier;
  llvm::SmallVector<XRegion, 3> Regions;
  /// Integer attributes of the op, by op (see compileOp).
  llvm::SmallVector<int64_t, 12> Ints;
  /// For, If (then), Kernel: the body. If: the else block.
  std::vector<XStmt> Body, Else;
  bool HasElse = false;

  /// The statement's location, or its nearest enclosing statement's when
  /// the pass that built it gave it none.
  llvm::SMLoc Loc;

  XStmt(Kind K, const Stmt *Src, llvm::SMLoc Loc) : K(K), Src(Src), Loc(Loc) {}
  llvm::SMLoc getLoc() const { return Loc; }
  llvm::StringRef opName() const;
};

//===----------------------------------------------------------------------===//
// Asynchronous state
//===----------------------------------------------------------------------===//

/// One 16-byte chunk an asynchronous copy writes: a cp.async (read from
/// global memory when issued) or a chunk of a TMA box.
struct AsyncCopy {
  uint32_t Addr = 0;
  uint8_t Data[16];
  llvm::SMLoc Loc;
  /// cp.async: the thread's issue order, from 1.
  uint64_t Seq = 0;
};

/// A cuda.ldgsts_arrive waiting for the thread's copies up to Seq to land.
struct ArriveOn {
  uint64_t Seq = 0;
  uint32_t Bar = 0;
  llvm::SMLoc Loc;
};

/// A thread's cp.async groups: the open one and those committed, oldest
/// first; the arrive-ons waiting for its copies.
struct CopyGroups {
  std::vector<AsyncCopy> Open;
  std::deque<std::vector<AsyncCopy>> Committed;
  uint64_t NextSeq = 1;
  std::deque<ArriveOn> ArriveOns;
};

/// One issued wgmma: what it reads and writes until its group retires.
struct WgmmaInFlight {
  uint32_t Acc = 0;
  int64_t AccStart = 0, AccCount = 0;
  /// wgmma_mma_rs: the A registers (8 elements per lane).
  int64_t ARegs = -1, AStart = 0;
  /// The first lane of the warpgroup.
  uint32_t Lane0 = 0;
  /// Shared-memory bytes read (each element's first byte; 2 bytes each).
  std::vector<uint32_t> SmemRead;
  llvm::SMLoc Loc;
};

struct WgmmaGroups {
  std::vector<WgmmaInFlight> Open;
  std::deque<std::vector<WgmmaInFlight>> Committed;
};

/// Shared bytes written through the generic proxy and not yet fenced.
struct UnfencedWrite {
  uint32_t Addr, Len;
  /// The writer (an accessor code, see below) and its clock.
  int32_t Writer;
  uint32_t Clock;
  /// Barriers executed before the write.
  uint64_t Epoch;
};

/// Who accessed shared memory, as the race records hold it: a thread
/// (>= 0) or one of these.
namespace accessor {
constexpr int32_t None = -1;
/// Several threads, or several writers of one value.
constexpr int32_t Several = -2;
/// A retired wgmma of warpgroup g: WgmmaOf - g.
constexpr int32_t WgmmaOf = -10;
/// The cp.async copies of thread t: CopiesOf - t.
constexpr int32_t CopiesOf = -(1 << 16);
/// The TMA boxes completing on mbarrier b: TmaOn - b.
constexpr int32_t TmaOn = -(1 << 28);
inline bool isWgmma(int32_t A) { return A <= WgmmaOf && A > WgmmaOf - 64; }
inline bool isCopies(int32_t A) { return A <= CopiesOf && A > CopiesOf - 4096; }
inline bool isTma(int32_t A) { return A <= TmaOn; }
} // namespace accessor

/// An mbarrier of the running block (PTX ISA: phase, pending and expected
/// arrivals, tx-count), with what the checks need: who initialized it,
/// and the vector clocks its arrivals released.
/// A named barrier (bar.sync / bar.arrive with a thread count) of the
/// running block: the count its first arrival gave, the threads arrived,
/// the vector clocks they released, the warps waiting, and where the last
/// arrival came from.
struct NamedBarrier {
  int64_t Threads = 0, Arrived = 0;
  std::vector<uint32_t> Released;
  std::vector<uint32_t> Waiting;
  llvm::SMLoc LastLoc;
};

struct Mbarrier {
  bool Init = false;
  int64_t Expected = 0, Pending = 0, Tx = 0;
  uint64_t Phase = 0;
  /// The initializing thread, its clock then, the barriers before it, and
  /// whether a cuda.fence_mbarrier_init of that thread followed.
  int32_t InitThread = -1;
  uint32_t InitClock = 0;
  uint64_t InitEpoch = 0;
  bool Fenced = false;
  /// A wait saw the last completed phase complete (an arrival in the
  /// current phase needs one, PTX ISA).
  bool Observed = false;
  /// Everything released into it so far, and as of its last completion.
  std::vector<uint32_t> Released, Completed;
  /// The buffer and element it is.
  uint32_t Buf = 0;
  int64_t Elem = 0;
};

/// A TMA box in flight: its chunks, where they complete, who issued it.
struct TmaCopy {
  std::vector<AsyncCopy> Chunks;
  uint32_t Bar = 0;
  uint32_t Issuer = 0;
  int64_t Bytes = 0;
  llvm::SMLoc Loc;
};

/// The tensor map a cuda.tma_load reads through, as the runtime would
/// build it for the running launch.
struct TmaMap {
  /// The op's location (or its enclosing statement's).
  llvm::SMLoc Loc;
  uint32_t Tensor = 0;
  int64_t BoxRows = 0, BoxCols = 0, Swizzle = 0;
  bool Optional = false;
  /// At launch: whether the runtime builds it, and why not.
  bool Built = false;
  std::string WhyNot;
};

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

/// A statement list a group is executing: a block, or a loop's body with
/// the loop's state.
struct Frame {
  enum class Kind : uint8_t { List, ForUniform, ForVarying };
  Kind K = Kind::List;
  const std::vector<XStmt> *Stmts = nullptr;
  size_t Next = 0;
  LaneList Mask;
  /// Loops: the statement, and its counter (uniform) or the per-lane
  /// bounds and steps (varying; the counters are the loop variable).
  const XStmt *Loop = nullptr;
  int64_t I = 0, Hi = 0, Step = 1;
  std::vector<int64_t> HiL, StepL;
};

/// Threads that advance together: a block in lockstep, or one warp of a
/// kernel that uses mbarriers.
struct Group {
  enum class State : uint8_t { Ready, Blocked, Released, Done };
  uint32_t Index = 0;
  LaneList Lanes;
  std::vector<Frame> Stack;
  State St = State::Ready;
  /// What it is blocked at, and with which threads; for mbarrier waits,
  /// the lanes (of BlockedMask) that saw their phase complete.
  const XStmt *BlockedAt = nullptr;
  LaneList BlockedMask;
  std::vector<uint8_t> WaitDone;
};

/// The first of the consecutive threads \p All that the active ones \p M
/// (in ascending order) lack.
inline uint32_t firstMissingLane(const LaneList &All, const LaneList &M) {
  uint32_t Missing = All[0];
  for (size_t I = 0; I != M.size() && M[I] == Missing; ++I)
    ++Missing;
  return Missing;
}

/// The warps of a warpgroup meeting at a collective op.
struct WarpgroupMeet {
  const XStmt *At = nullptr;
  uint32_t Warps = 0;
};

//===----------------------------------------------------------------------===//
// The emulator
//===----------------------------------------------------------------------===//

/// The emulator: the execution core's scalar evaluator for uniform values
/// (one evaluation for the threads of a group), with per-lane evaluation,
/// memories and scheduling of its own.
class SIMTEmulator
    : public execution::CompiledFunction<SIMTEmulator, Node, SlotRef>,
      public execution::ScalarEvaluator<SIMTEmulator, Node> {
  friend class execution::CompiledFunction<SIMTEmulator, Node, SlotRef>;
  friend class execution::ScalarEvaluator<SIMTEmulator, Node>;

public:
  SIMTEmulator(const Function &F, const EmulatorOptions &Opts)
      : F(F), Opts(Opts) {}

  llvm::Error run(llvm::ArrayRef<ArgValue> Args);

private:
  //===--- Errors ---------------------------------------------------------===//

  std::string render(llvm::SMLoc Loc, const llvm::Twine &Msg) const;
  /// `file:line:col` of \p Loc, or "an unknown location".
  std::string where(llvm::SMLoc Loc) const;
  /// An error at \p Loc, or at the enclosing located statement.
  llvm::Error makeError(llvm::SMLoc Loc, const llvm::Twine &Msg) const;
  /// Records the first run-time fault at \p Loc (or the executing
  /// statement's), naming the block and, for \p Lane >= 0, the thread;
  /// execution unwinds after it.
  void fail(llvm::SMLoc Loc, const llvm::Twine &Msg, int64_t Lane = -1);

  //===--- Compilation (SIMTEmulator.cpp) ---------------------------------===//

  /// \p S's location, or the enclosing statement's.
  llvm::SMLoc locOf(const Stmt &S) const {
    return S.getLoc().isValid() ? S.getLoc() : EnclosingLoc;
  }
  SlotRef newSlot(const Value *V, bool Uniform);
  uint32_t newBuffer(const BufferValue *B);
  // The execution core's CompiledFunction.
  void resolveSlot(Node &N, const SlotRef &Slot) {
    N.Index = Slot.Base;
    N.Uniform = Slot.Uniform;
    N.PerGroup = Slot.PerGroup;
  }
  void resolveBuffer(Node &N, uint32_t Buf) {
    N.Index = Buf;
    // Every thread has its own registers.
    N.Uniform = Buffers[Buf].Where != Storage::Thread;
  }
  /// A node is uniform when its operands are.
  void addOperand(Node &N, const Node &Operand) { N.Uniform &= Operand.Uniform; }
  llvm::Error compileBlock(const Block &B, std::vector<XStmt> &Out);
  llvm::Error compileStmt(const Stmt &S, std::vector<XStmt> &Out);
  llvm::Error compileFor(const ForStmt &Fo, std::vector<XStmt> &Out);
  llvm::Expected<XStmt> compileKernel(const KernelStmt &K);
  llvm::Expected<XStmt> compileOp(const OpStmt &Op);
  llvm::Error bindArguments(llvm::ArrayRef<ArgValue> Args);

  //===--- Expressions ----------------------------------------------------===//

  Scalar *newTemp();
  /// \p Id's value where it is uniform; \p Lane: the thread evaluating
  /// (-1: several), named by faults.
  Scalar evalUniform(uint32_t Id, int64_t Lane) {
    assert(Nodes[Id].Uniform && "a per-thread expression evaluated once");
    return evalScalar(Id, Lane);
  }
  /// \p Id's values over \p M.
  LaneValues eval(uint32_t Id, const LaneList &M);
  /// As eval, for an op's operand: an op several groups execute together
  /// (a warpgroup collective) evaluates it in each group's context.
  LaneValues evalOperand(uint32_t Id, const LaneList &M);
  Scalar *evalVarying(uint32_t Id, const LaneList &M);
  Scalar applyBinary(const Node &N, Scalar L, Scalar R, int64_t Lane);
  Scalar applyCall(const Node &N, Scalar X, Scalar Y, int64_t Lane);
  /// The row-major element index of \p Idx in \p B, or -1 after reporting
  /// an index out of range.
  int64_t elementIndex(const Buffer &B, const int64_t *Idx, unsigned N,
                       llvm::SMLoc Loc, const char *What, int64_t Lane);

  // The execution core's ScalarEvaluator, for uniform values.
  Scalar slotValue(const Node &N, int64_t) {
    return Slots[N.Index + (N.PerGroup ? CurGroup : 0)];
  }
  /// One load for every active thread.
  Scalar loadValue(const Node &N, llvm::ArrayRef<int64_t> Idx, int64_t Lane);
  Scalar castValue(Scalar V, DType From, DType To) {
    return castScalar(V, From, To);
  }
  void fault(const Node &N, const llvm::Twine &Msg, int64_t Lane) {
    fail(N.Loc, Msg, Lane);
  }
  /// The slot of \p V for \p Lane in the running group.
  Scalar &slot(SlotRef V, uint32_t Lane) {
    return Slots[V.Base + (V.Uniform ? (V.PerGroup ? CurGroup : 0) : Lane)];
  }

  //===--- Memories -------------------------------------------------------===//

  /// Element \p I of \p B as seen by \p Lane (-1: by several threads at
  /// once, for shared and global memory); integers never written are an
  /// error.
  double loadElement(Buffer &B, int64_t I, int64_t Lane, llvm::SMLoc Loc);
  /// Stores \p V (a value of \p B's dtype) into element \p I for \p Lane
  /// (-1: several threads storing the one value).
  void storeElement(Buffer &B, int64_t I, int64_t Lane, double V,
                    llvm::SMLoc Loc);
  /// Checks for ordinary code touching a wgmma register operand.
  void touchRegister(Buffer &B, int64_t I, uint32_t Lane, llvm::SMLoc Loc);
  /// A read of shared bytes by \p Reader (-1: several threads, or a warp
  /// or warpgroup collectively: the statement's active threads): no copy
  /// may be in flight on them and other threads' writes must be ordered
  /// before it; records the read (a wgmma's is recorded when it retires,
  /// \p Record false).
  bool readShared(uint32_t Addr, uint32_t Len, int64_t Reader, llvm::SMLoc Loc,
                  const llvm::Twine &What, bool Record = true);
  /// The checks of a write of \p Bytes by \p Writer (-1: several threads
  /// storing one value) before it happens: no copy or wgmma in flight on
  /// the bytes, and other threads' reads and writes of other values
  /// ordered before it.
  bool prepareSharedWrite(uint32_t Addr, const uint8_t *Bytes, uint32_t Len,
                          int64_t Writer, llvm::SMLoc Loc,
                          const llvm::Twine &What);
  /// The write itself by accessor \p Writer, recorded for the checks above
  /// and, for generic-proxy writes, the proxy fence.
  void writeShared(uint32_t Addr, const uint8_t *Bytes, uint32_t Len,
                   int32_t Writer, bool GenericProxy = true);
  std::string describeSharedByte(uint32_t Addr) const;
  std::string describeAccessor(int32_t Who) const;
  /// What the hint of a race message says orders two accesses.
  const char *orderHint(bool ReadAfterWrite) const;

  //===--- Happens-before (SIMTEmulatorSync.cpp) --------------------------===//

  /// The vector-clock slot of accessor \p A.
  uint32_t agentIndex(int32_t A) const;
  /// Release: what \p Lane has seen (none for -1) joins \p Into, and so
  /// does agent \p Agent's clock, which then advances (its later accesses
  /// are not released).
  void releaseClocks(std::vector<uint32_t> &Into, int64_t Lane, int32_t Agent);
  /// Acquire: \p Lane sees what \p From released.
  void acquireClocks(uint32_t Lane, const std::vector<uint32_t> &From);
  uint32_t *clocksOf(uint32_t Lane) {
    return &VC[size_t(Lane) * NumAgents];
  }
  /// Whether the access of accessor \p A at \p Clock in barrier epoch
  /// \p Epoch is ordered before what \p By (a thread; -1: the active
  /// threads of the statement, all of them) does now.
  bool orderedBefore(int32_t A, uint32_t Clock, uint32_t Epoch, int64_t By);
  /// The clock accesses of \p A are stamped with.
  uint32_t clockOf(int32_t A) const { return Scheduled ? Clock[agentIndex(A)] : 0; }
  /// Adds a read by \p A at \p Clock to the reader set \p Set.
  uint32_t addReader(uint32_t Set, int32_t A, uint32_t Clock);

  //===--- Statements and scheduling (SIMTEmulatorSchedule.cpp) ----------===//

  /// Runs \p G until it blocks or finishes; whether it advanced.
  bool runGroup(Group &G);
  /// Let, Store and Alloc.
  void execSimple(const XStmt &S, const LaneList &M);
  void execStore(const XStmt &S, const LaneList &M);
  void execAlloc(const XStmt &S, const LaneList &M);
  void enterFor(Group &G, const XStmt &S, const LaneList &M);
  void enterIf(Group &G, const XStmt &S, const LaneList &M);
  /// The end of the innermost frame's statements: the next iteration, or
  /// the frame is done.
  void finishFrame(Group &G);
  void execKernel(const XStmt &S);
  void startBlock(const XStmt &K);
  /// Runs the block's groups until they finish, fail or deadlock.
  void runBlock();
  /// Every group is blocked and nothing is in flight: the located error.
  void reportDeadlock();
  /// "warps 4-7", "warp 2", "thread 5".
  std::string describeGroups(llvm::ArrayRef<uint32_t> Groups) const;
  /// A warpgroup collective in a kernel whose warps run as groups: whether
  /// every warp of the warpgroup is here and \p Exec ran for all of them
  /// (false: this warp waits).
  bool meetWarpgroup(const XStmt &S, const LaneList &M,
                     llvm::function_ref<bool(const LaneList &)> Exec);

  //===--- cuda ops (SIMTEmulatorOps.cpp) ---------------------------------===//

  /// Executes \p S; false when the running group must wait at it.
  bool execOp(const XStmt &S, const LaneList &M);
  /// The start element of \p R for each lane of \p M (indexed by lane):
  /// offsets times strides, as code generation computes the address. Check
  /// Failed after.
  std::vector<int64_t> regionStarts(const XRegion &R, const LaneList &M);
  /// Whether each lane's access of \p Bytes at \p R, \p Off elements past
  /// its start, begins at a multiple of \p Bytes (global data starts
  /// DataOffset bytes past a 256-byte boundary; shared data at its
  /// offset); reports the first lane that does not, \p What naming the
  /// access (the address follows it).
  bool checkVectorAligned(const XRegion &R, const LaneList &M, int64_t Bytes,
                          int64_t Off,
                          llvm::function_ref<std::string()> What);
  /// Whether elements [Start, Start + N) lie in \p B; reports otherwise.
  bool checkFootprint(const XStmt &S, const XRegion &R, int64_t Start,
                      int64_t N, int64_t Lane, const char *What);
  /// The lanes of \p M split by groups of \p Size (warps, warpgroups);
  /// reports a group that is only partly active.
  bool splitGroups(const XStmt &S, const LaneList &M, uint32_t Size,
                   const char *GroupName,
                   std::vector<std::pair<uint32_t, uint32_t>> &Groups);
  bool execBarrier(const XStmt &S, const LaneList &M);
  void execAtomicElem(const XStmt &S, const LaneList &M);
  /// cuda.vload and cuda.vstore: `width` elements from the first region to
  /// the second, converted.
  void execVecAccess(const XStmt &S, const LaneList &M);
  /// \p W elements from the first region of \p S to the second, converted,
  /// for each lane of \p M (cuda.vload, cuda.vstore, cuda.store_pair,
  /// cuda.store_if), written \p DstOffset elements past the second region's
  /// start.
  void moveElements(const XStmt &S, const LaneList &M, int64_t W,
                    int64_t DstOffset = 0);
  void execStorePair(const XStmt &S, const LaneList &M);
  void execShflXor(const XStmt &S, const LaneList &M);
  void execLdmatrix(const XStmt &S, const LaneList &M);
  void execMmaSync(const XStmt &S, const LaneList &M);
  void execAsyncCopy(const XStmt &S, const LaneList &M);
  void issueCopy(const XStmt &S, uint32_t Lane, uint32_t Dst,
                 const uint8_t *Data, bool Sync);
  void execAsyncWait(const XStmt &S, const LaneList &M);
  /// Lands the copies of \p Lane in \p G; with \p UpTo, only those issued
  /// up to that sequence number (the rest stay).
  void landGroup(std::vector<AsyncCopy> &G, uint32_t Lane,
                 uint64_t UpTo = ~uint64_t(0));
  void execFenceProxyAsync(const XStmt &S, const LaneList &M);
  void execWgmma(const XStmt &S, const LaneList &M);
  void execWgmmaSync(const XStmt &S, const LaneList &M);
  void retireWgmma(WgmmaInFlight &W);

  //===--- mbarriers, TMA, setmaxnreg (SIMTEmulatorSync.cpp) --------------===//

  /// The mbarrier \p S's region \p R names for each lane of \p M (Out[lane],
  /// a dense index), checked to be an initialized mbarrier whose
  /// initialization is visible to the lane.
  bool mbarriersOf(const XStmt &S, const XRegion &R, const LaneList &M,
                   uint32_t *Out, bool MustBeInit = true);
  std::string describeMbarrier(uint32_t B) const;
  /// One arrive-on of thread or agent \p Lane on \p B at \p Loc, after an
  /// expect-tx of \p Tx bytes; \p Releases: \p Lane's accesses so far are
  /// released (a thread's arrival), else only the clock of accessor
  /// \p Agent (cp.async.mbarrier.arrive).
  bool arriveOn(uint32_t B, int64_t Tx, llvm::SMLoc Loc, int64_t Lane,
                bool Releases, int32_t Agent);
  /// A complete-tx of \p Bytes on \p B by the TMA boxes' agent.
  bool completeTx(uint32_t B, int64_t Bytes, llvm::SMLoc Loc);
  void completePhaseIfDone(uint32_t B);
  void execMbarrierInit(const XStmt &S, const LaneList &M);
  void execMbarrierArrive(const XStmt &S, const LaneList &M);
  bool execMbarrierWait(const XStmt &S, const LaneList &M);
  void execLdgstsArrive(const XStmt &S, const LaneList &M);
  void execFenceMbarrierInit(const XStmt &S, const LaneList &M);
  /// Writes Value(lane) to each lane's element of region \p Dst of \p S
  /// (the per-thread flags and counts: cuda.tma_ready, cuda.aligned,
  /// cuda.launched_blocks), checking each write's footprint.
  void storeEachLane(const XStmt &S, const XRegion &Dst, const LaneList &M,
                     llvm::function_ref<double(uint32_t)> Value);
  void execTmaReady(const XStmt &S, const LaneList &M);
  void execAligned(const XStmt &S, const LaneList &M);
  void execLaunchedBlocks(const XStmt &S, const LaneList &M);
  void execStoreIf(const XStmt &S, const LaneList &M);
  void execTmaLoad(const XStmt &S, const LaneList &M);
  bool execSetmaxnreg(const XStmt &S, const LaneList &M);
  /// cuda.bar_sync and cuda.bar_arrive by one warp; whether it goes on.
  bool execNamedBarrier(const XStmt &S, const LaneList &M);
  /// At the end of a block: a named barrier with arrivals left is an error.
  void checkNamedBarriersIdle();
  /// At kernel launch: the tensor maps the runtime would build, and the
  /// errors it would stop the launch with.
  void describeTmaMaps(const XStmt &K);
  /// Lands what is in flight that the block may wait for: TMA boxes and
  /// the cp.async copies arrive-ons wait for. Whether anything landed.
  bool landInFlight();
  /// Lands thread \p Lane's copies arrive-ons wait for and fires those.
  bool landArriveOns(uint32_t Lane);

  const Function &F;
  const EmulatorOptions &Opts;

  // Compilation state (with CompiledFunction's).
  /// Values that can differ between the threads of a block.
  llvm::DenseSet<const Value *> Varying;
  /// Shared bytes allocated so far in the kernel being compiled.
  int64_t SmemBytes = 0;
  int64_t CurThreads = 0;
  bool InKernel = false;
  bool CurHasWgmma = false;
  /// The kernel being compiled runs its warps as groups: uniform slots
  /// have one copy per warp.
  bool CurScheduled = false;
  int64_t CurMaxIncRegisters = 0;
  /// The innermost statement with a location around what is compiled.
  llvm::SMLoc EnclosingLoc;
  uint32_t MaxLanes = 1;
  uint32_t MaxGroups = 1;

  // The program.
  std::vector<XStmt> Body;
  std::vector<Buffer> Buffers;
  std::vector<TmaMap> TmaMaps;
  /// Mbarrier buffers of the kernel being compiled: elements so far.
  uint32_t NumMbarriers = 0;

  // Run-time state.
  std::vector<std::unique_ptr<Scalar[]>> Temps;
  size_t TempTop = 0;
  /// The block running, and its threads.
  int64_t BlockIdx[3] = {0, 0, 0};
  /// The blocks of the running launch in its grid's first dimension.
  int64_t LaunchedBlocks = 1;
  int64_t Threads = 1;
  bool InBlock = false;
  bool TrackProxy = false;
  /// The block's groups, the one running, and the active threads of the
  /// statement it runs.
  std::vector<Group> Groups;
  uint32_t CurGroup = 0;
  Group *Running = nullptr;
  const LaneList *CurMask = nullptr;
  /// The running kernel's warps run as groups.
  bool Scheduled = false;
  /// An op runs for several groups at once (its operands are evaluated in
  /// each group's context).
  bool UnionOp = false;
  /// Changes of state a stalled block could wait for (statements run,
  /// waits that succeeded): the scheduler's measure of progress.
  uint64_t Progress = 0;
  /// Groups waiting at a barrier; warpgroups meeting at a collective.
  uint32_t AtBarrier = 0;
  std::vector<WarpgroupMeet> Meets;
  /// Shared memory of the block, and per byte: ever written, cp.async
  /// copies and TMA boxes in flight writing it, wgmmas in flight reading
  /// it, and whether it is an initialized mbarrier.
  std::vector<uint8_t> Smem, SmemInit, SmemCopies, SmemTma, SmemWgmmaReads,
      SmemMbarrier;
  /// Per byte, for races: the last writer (an accessor) and its clock, the
  /// last reader (non-scheduled kernels: a thread, Several or a wgmma) or
  /// the readers since the last write (scheduled kernels: a reader set),
  /// and the barrier epoch (BarrierEpoch + 1) of the accesses.
  std::vector<int32_t> SmemWriter, SmemReader;
  std::vector<uint32_t> SmemWriteEpoch, SmemReadEpoch, SmemWriteClock,
      SmemReadSet;
  /// Interned reader sets (accessor, clock), sorted; set 0 is empty.
  std::vector<std::vector<std::pair<int32_t, uint32_t>>> ReadSets;
  llvm::DenseMap<std::tuple<uint32_t, int32_t, uint32_t>, uint32_t> ReadSetAdds;
  /// The thread evaluating a uniform expression, or -1 for several.
  int64_t UniformReader = -1;
  /// An atomic is accessing memory: accesses of several threads to one
  /// element are ordered.
  bool InAtomic = false;
  std::vector<int32_t> SmemUnfenced;
  /// The generic-proxy writes of the block; SmemUnfenced holds the index
  /// (plus one) of a byte's latest one not yet fenced.
  std::vector<UnfencedWrite> UnfencedLog;
  std::vector<uint32_t> UnfencedLive;
  uint64_t BarrierEpoch = 0;
  std::vector<CopyGroups> Copies;
  std::vector<WgmmaGroups> Wgmmas;
  /// Scheduled kernels: vector clocks (threads x agents: the threads, their
  /// cp.async copies, the TMA boxes of each mbarrier), each agent's clock,
  /// and the active threads' common clocks for the statement running.
  uint32_t NumAgents = 0;
  std::vector<uint32_t> VC, Clock, MaskClocks;
  bool MaskClocksValid = false;
  /// The mbarriers and TMA boxes in flight of the block.
  std::vector<Mbarrier> Mbarriers;
  /// Named barriers 1 to 15 (0, the block barrier, is `barrier`).
  std::vector<NamedBarrier> NamedBarriers;
  std::deque<TmaCopy> TmaInFlight;
  /// setmaxnreg: registers per thread of each warpgroup, the block's free
  /// pool, and the barrier epoch (plus one) of each warpgroup's last one.
  std::vector<int64_t> WgRegisters;
  int64_t EntryRegisters = 0, RegisterPool = 0;
  std::vector<uint64_t> WgSetmaxnregEpoch;
  /// The location of the statement executing.
  llvm::SMLoc CurLoc;
};

} // namespace emu
} // namespace cuda

/// The Emulator entry point of the CUDA and Hopper backends.
llvm::Error emulateCUDA(const BackendContext &Ctx, const Function &F,
                        llvm::ArrayRef<ArgValue> Args,
                        const EmulatorOptions &Opts);

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_SIMTEMULATOR_H
