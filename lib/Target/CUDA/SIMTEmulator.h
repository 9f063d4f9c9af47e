//===- SIMTEmulator.h - Lockstep emulation of per-thread CUDA IR -*- C++ -*-===//
//
// The CUDA backends' emulator (emulateCUDA, declared in CUDA.td and
// Hopper.td) runs a function as the CUDA or Hopper pipeline leaves it --
// per-thread Tile IR with cuda.* ops -- on the host, so that the
// lowerings' layouts, indexing, swizzles and pipelines can be checked
// against the reference interpreter without a GPU. SIMTEmulator.cpp holds
// the machine (compilation, lockstep execution, expressions, memories);
// SIMTEmulatorOps.cpp the cuda dialect's ops. The model, in brief:
//
//  - Blocks run one after another (%bx fastest). The T threads of a block
//    execute each statement together under an active mask: `if` with a
//    thread-dependent condition runs both sides under sub-masks, a loop
//    whose bounds differ between threads iterates until the last thread
//    is done, lets and loop variables hold one value per thread. Values
//    that cannot differ between threads (found statically) are computed
//    once.
//  - Memories as the CUDA code generator maps them: tensors are global
//    memory (each starting EmulatorOptions::DataOffset bytes past a 256-byte
//    boundary, as a driver allocation with a DLPack byte_offset);
//    shared buffers are slices of one byte array per block, 16-byte
//    aligned in allocation order (the wgmma swizzle is a function of these
//    addresses); fragment, local and var buffers are per-thread arrays.
//    On-chip memory is poisoned when allocated (NaN for floats; reading an
//    unwritten integer is an error).
//  - Arithmetic: integers wrap to their type's width; floats are computed
//    in f64 -- f32 arithmetic too, where the device rounds each operation
//    to f32 -- and every store to an f16, bf16, fp8 or f32 buffer (shared,
//    registers, tensors) and every cast to a 16- or 8-bit float rounds to
//    that type. Math intrinsics are f64 libm (the device uses ex2.approx).
//  - barrier: every thread of the block must be active there. Shared
//    memory another thread wrote (or read) is read (or overwritten) only
//    after a barrier; ldmatrix and wgmma read for their warp or warpgroup.
//  - cp.async (cuda.cp_async, cuda.ldgsts): each copy reads global memory
//    when issued and joins the thread's open group; commit closes it; a
//    wait with `pending = N` lands all but the N most recent groups of the
//    thread. Reading shared bytes an issued copy has not landed yet, or
//    writing them, is an error, as is a copy into bytes an in-flight wgmma
//    reads.
//  - Warp collectives (shfl_xor, ldmatrix, mma_sync) need all 32 threads
//    of a warp active; warpgroup collectives (wgmma_*) all 128.
//  - wgmma: computed when issued, from shared memory through the matrix
//    descriptors (PTX ISA: start address, leading and stride byte offsets,
//    32/64/128-byte swizzles of the shared-memory address bits, K- or
//    MN-major core matrices), with A from registers for wgmma_mma_rs. The
//    asynchrony is checked rather than simulated: until the wgmma_wait
//    that retires its group, its accumulators (and A registers) may not be
//    touched by other code and the shared bytes it read may not be
//    written; between ordinary accesses to those registers and a wgmma a
//    wgmma_fence is required; shared bytes written through the generic
//    proxy (stores, cp.async) need a fence_proxy_async by the writing
//    thread (or by any thread after a later barrier) before a wgmma reads
//    them.
//  - Not modelled: warp-specialized kernels, whose warpgroups wait on each
//    other through mbarriers (their TMA, mbarrier and setmaxnreg ops are
//    located errors), global-memory races, timing, code generation.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_SIMTEMULATOR_H
#define TILE_LIB_TARGET_CUDA_SIMTEMULATOR_H

#include "tile/IR/IR.h"
#include "tile/IR/Interpreter.h"
#include "tile/Target/Emulator.h"
#include "tile/Target/TargetBackend.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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
// Scalars (the semantics of Interpreter.cpp, mirrored)
//===----------------------------------------------------------------------===//

/// A scalar; expressions know statically which member is live (F for float
/// dtypes, I for integers and i1).
union Scalar {
  int64_t I;
  double F;
};

inline Scalar intScalar(int64_t V) {
  Scalar S;
  S.I = V;
  return S;
}

inline Scalar floatScalar(double V) {
  Scalar S;
  S.F = V;
  return S;
}

/// The value of integer type \p T whose two's-complement bits are the low
/// bits of \p Bits.
int64_t wrapInt(uint64_t Bits, DType T);
int64_t minSigned(DType T);
double intToDouble(int64_t V, DType T);
/// The 64-bit pattern of an integral double as buffers store it.
int64_t doubleToIntBits(double V);
bool lessThan(int64_t A, int64_t B, DType T);
/// `cast<To>(V)`: as the interpreter, except that casts to 16- and 8-bit
/// floats round (the device converts there).
Scalar castScalar(Scalar V, DType From, DType To);
/// The double a buffer of type \p T holds for \p V (rounded or wrapped).
double toStored(Scalar V, DType T);
/// A buffer element of type \p From converted to type \p To.
double convertElement(double V, DType From, DType To);
double maxOf(double A, double B);
double minOf(double A, double B);
std::string formatList(llvm::ArrayRef<int64_t> V);

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

enum class NodeKind : uint8_t { Const, Slot, Load, Binary, Unary, Call, Cast };

/// One expression node; its children are ArgIds[FirstArg, FirstArg + NumArgs).
struct Node {
  NodeKind K;
  /// The result type, and the operands' type (binary, unary, call, cast).
  DType Ty, ArgTy;
  /// BinaryOp, UnaryOp or Intrinsic.
  uint8_t Op = 0;
  /// The value is the same for every thread.
  bool Uniform = true;
  /// Slot nodes: the slot; Load nodes: the buffer.
  uint32_t Index = 0;
  uint32_t FirstArg = 0, NumArgs = 0;
  Scalar C = intScalar(0);
  llvm::SMLoc Loc;
};

/// Where a scalar value lives: Slots[Base], or Slots[Base + lane].
struct SlotRef {
  uint32_t Base = 0;
  bool Uniform = true;
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
  /// Kernel: threads, the thread index and whether it uses wgmma.
  int64_t Threads = 1;
  std::optional<SlotRef> Tx;
  bool HasWgmma = false;
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

/// One 16-byte cp.async copy, read from global memory when issued.
struct AsyncCopy {
  uint32_t Addr = 0;
  uint8_t Data[16];
  llvm::SMLoc Loc;
};

/// A thread's cp.async groups: the open one and those committed, oldest
/// first.
struct CopyGroups {
  std::vector<AsyncCopy> Open;
  std::deque<std::vector<AsyncCopy>> Committed;
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
  uint32_t Lane;
  /// Barriers executed before the write.
  uint64_t Epoch;
};

//===----------------------------------------------------------------------===//
// The emulator
//===----------------------------------------------------------------------===//

class SIMTEmulator {
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
  llvm::Expected<uint32_t> compileExpr(const Expr &E);
  llvm::Error compileBlock(const Block &B, std::vector<XStmt> &Out);
  llvm::Error compileStmt(const Stmt &S, std::vector<XStmt> &Out);
  llvm::Error compileFor(const ForStmt &Fo, std::vector<XStmt> &Out);
  llvm::Expected<XStmt> compileKernel(const KernelStmt &K);
  llvm::Expected<XStmt> compileOp(const OpStmt &Op);
  llvm::Expected<XRegion> compileRegion(const Region &R);
  llvm::Error bindArguments(llvm::ArrayRef<ArgValue> Args);

  //===--- Expressions ----------------------------------------------------===//

  Scalar *newTemp();
  /// \p Id's value where it is uniform.
  Scalar evalUniform(uint32_t Id, int64_t Lane);
  /// \p Id's values over \p M.
  LaneValues eval(uint32_t Id, const LaneList &M);
  Scalar *evalVarying(uint32_t Id, const LaneList &M);
  Scalar applyBinary(const Node &N, Scalar L, Scalar R, int64_t Lane);
  Scalar applyCall(const Node &N, Scalar X, Scalar Y, int64_t Lane);
  Scalar applyUnary(const Node &N, Scalar X) const;
  /// The row-major element index of \p Idx in \p B, or -1 after reporting
  /// an index out of range.
  int64_t elementIndex(const Buffer &B, const int64_t *Idx, unsigned N,
                       llvm::SMLoc Loc, const char *What, int64_t Lane);

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
  /// or warpgroup collectively): no cp.async may be in flight on them and
  /// other threads' writes must be before a barrier; records the read.
  bool readShared(uint32_t Addr, uint32_t Len, int64_t Reader, llvm::SMLoc Loc,
                  const llvm::Twine &What);
  /// The checks of a write of \p Bytes by \p Writer (-1: several threads
  /// storing one value) before it happens: no cp.async or wgmma in flight
  /// on the bytes, and other threads' reads and writes of other values
  /// before a barrier.
  bool prepareSharedWrite(uint32_t Addr, const uint8_t *Bytes, uint32_t Len,
                          int64_t Writer, llvm::SMLoc Loc,
                          const llvm::Twine &What);
  /// The write itself, recorded for the checks above and the proxy fence.
  void writeShared(uint32_t Addr, const uint8_t *Bytes, uint32_t Len,
                   int64_t Writer);
  std::string describeSharedByte(uint32_t Addr) const;

  //===--- Statements -----------------------------------------------------===//

  void execBlock(const std::vector<XStmt> &Stmts, const LaneList &M);
  void exec(const XStmt &S, const LaneList &M);
  void execStore(const XStmt &S, const LaneList &M);
  void execAlloc(const XStmt &S, const LaneList &M);
  void execFor(const XStmt &S, const LaneList &M);
  void execIf(const XStmt &S, const LaneList &M);
  void execKernel(const XStmt &S);
  void startBlock(const XStmt &K);

  //===--- cuda ops (SIMTEmulatorOps.cpp) ---------------------------------===//

  void execOp(const XStmt &S, const LaneList &M);
  /// The start element of \p R for each lane of \p M (Out[lane]).
  void regionStarts(const XRegion &R, const LaneList &M, int64_t *Out);
  /// Whether elements [Start, Start + N) lie in \p B; reports otherwise.
  bool checkFootprint(const XStmt &S, const XRegion &R, int64_t Start,
                      int64_t N, int64_t Lane, const char *What);
  /// The lanes of \p M split by groups of \p Size (warps, warpgroups);
  /// reports a group that is only partly active.
  bool splitGroups(const XStmt &S, const LaneList &M, uint32_t Size,
                   const char *GroupName,
                   std::vector<std::pair<uint32_t, uint32_t>> &Groups);
  void execBarrier(const XStmt &S, const LaneList &M);
  void execAtomicElem(const XStmt &S, const LaneList &M);
  /// cuda.vload and cuda.vstore: `width` elements from the first region to
  /// the second, converted.
  void execVecAccess(const XStmt &S, const LaneList &M);
  void execStorePair(const XStmt &S, const LaneList &M);
  void execShflXor(const XStmt &S, const LaneList &M);
  void execLdmatrix(const XStmt &S, const LaneList &M);
  void execMmaSync(const XStmt &S, const LaneList &M);
  void execAsyncCopy(const XStmt &S, const LaneList &M);
  void issueCopy(const XStmt &S, uint32_t Lane, uint32_t Dst,
                 const uint8_t *Data, bool Sync);
  void execAsyncWait(const XStmt &S, const LaneList &M);
  void landGroup(std::vector<AsyncCopy> &G, uint32_t Lane);
  void execFenceProxyAsync(const XStmt &S, const LaneList &M);
  void execWgmma(const XStmt &S, const LaneList &M);
  void execWgmmaSync(const XStmt &S, const LaneList &M);
  void retireWgmma(WgmmaInFlight &W);

  const Function &F;
  const EmulatorOptions &Opts;

  // Compilation state.
  llvm::DenseMap<const Value *, SlotRef> SlotOf;
  llvm::DenseMap<const Value *, uint32_t> BufferOf;
  /// Values that can differ between the threads of a block.
  llvm::DenseSet<const Value *> Varying;
  /// Shared bytes allocated so far in the kernel being compiled.
  int64_t SmemBytes = 0;
  int64_t CurThreads = 0;
  bool InKernel = false;
  bool CurHasWgmma = false;
  /// The innermost statement with a location around what is compiled.
  llvm::SMLoc EnclosingLoc;
  uint32_t NumSlots = 0;
  uint32_t MaxLanes = 1;

  // The program.
  std::vector<Node> Nodes;
  std::vector<uint32_t> ArgIds;
  std::vector<XStmt> Body;
  std::vector<Buffer> Buffers;

  // Run-time state.
  std::vector<Scalar> Slots;
  std::vector<std::unique_ptr<Scalar[]>> Temps;
  size_t TempTop = 0;
  /// The block running, and its threads.
  int64_t BlockIdx[3] = {0, 0, 0};
  int64_t Threads = 1;
  bool InBlock = false;
  bool TrackProxy = false;
  /// Shared memory of the block, and per byte: ever written, cp.async
  /// copies in flight writing it, wgmmas in flight reading it, and the
  /// lane that wrote it through the generic proxy without a fence since
  /// (-1: none).
  std::vector<uint8_t> Smem, SmemInit, SmemCopies, SmemWgmmaReads;
  /// Per byte, for races between barriers: the last writer and reader
  /// (a thread; -2: several threads, or several writers of one value;
  /// -10 - g: a retired wgmma of warpgroup g; -1: none) and the barrier
  /// epoch (BarrierEpoch + 1) of the access.
  std::vector<int32_t> SmemWriter, SmemReader;
  std::vector<uint32_t> SmemWriteEpoch, SmemReadEpoch;
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
  /// The location of the statement executing.
  llvm::SMLoc CurLoc;
  bool Failed = false;
  std::string FailMsg;
};

} // namespace emu
} // namespace cuda

/// The Emulator entry point of the CUDA and Hopper backends.
llvm::Error emulateCUDA(const BackendContext &Ctx, const Function &F,
                        llvm::ArrayRef<ArgValue> Args,
                        const EmulatorOptions &Opts);

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_SIMTEMULATOR_H
