//===- SIMTEmulator.cpp - Emulation of per-thread CUDA IR -----------------===//
//
// The machine of the CUDA emulator (SIMTEmulator.h): compilation of the
// lowered function into a tree of executable statements over flattened
// expressions, expressions evaluated once for uniform values and per
// thread otherwise, and the three memories with their race checks. The
// statements and the scheduling of a block's threads are in
// SIMTEmulatorSchedule.cpp, the cuda ops in SIMTEmulatorOps.cpp and
// SIMTEmulatorSync.cpp.
//
// The scalar semantics (integer wrapping, casts, NaN-propagating min/max,
// the faults) are the reference interpreter's, from one place
// (tile/IR/ScalarSemantics.h), and select and the logical operators are
// lazy as there, so that a difference in results comes from the lowering,
// not from two readings of the language.
//
//===----------------------------------------------------------------------===//

#include "SIMTEmulator.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace tile;
using namespace tile::cuda::emu;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// The float types a cast rounds to: the storage formats the device
/// converts to. f32 arithmetic is modelled in f64, so casts to f32 do not.
static bool castRounds(DType T) {
  return T == DType::F16 || T == DType::BF16 || T == DType::F8E4M3 ||
         T == DType::F8E5M2;
}

Scalar cuda::emu::castScalar(Scalar V, DType From, DType To) {
  Scalar R = scalar::castExact(V, From, To);
  if (From != To && isFloat(To) && castRounds(To))
    R.F = roundToDType(R.F, To);
  return R;
}

double cuda::emu::toStored(Scalar V, DType T) {
  return isFloat(T) ? roundToDType(V.F, T) : intToDouble(wrapInt(uint64_t(V.I), T), T);
}

double cuda::emu::convertElement(double V, DType From, DType To) {
  return execution::convertElement(V, From, To, castScalar, toStored);
}

static const llvm::fltSemantics *getSemantics(DType T) {
  switch (T) {
  case DType::F16:
    return &llvm::APFloat::IEEEhalf();
  case DType::BF16:
    return &llvm::APFloat::BFloat();
  case DType::F8E4M3:
    return &llvm::APFloat::Float8E4M3FN();
  case DType::F8E5M2:
    return &llvm::APFloat::Float8E5M2();
  default:
    return nullptr;
  }
}

void cuda::emu::encodeElement(double V, DType T, uint8_t *Out) {
  unsigned N = getDTypeBytes(T);
  uint64_t Bits;
  if (T == DType::F64) {
    std::memcpy(&Bits, &V, 8);
  } else if (T == DType::F32) {
    float F = float(V);
    uint32_t B32;
    std::memcpy(&B32, &F, 4);
    Bits = B32;
  } else if (const llvm::fltSemantics *Sem = getSemantics(T)) {
    llvm::APFloat A(V);
    bool LosesInfo;
    A.convert(*Sem, llvm::APFloat::rmNearestTiesToEven, &LosesInfo);
    Bits = A.bitcastToAPInt().getZExtValue();
  } else {
    Bits = uint64_t(doubleToIntBits(V));
  }
  for (unsigned I = 0; I != N; ++I)
    Out[I] = uint8_t(Bits >> (8 * I));
}

double cuda::emu::decodeElement(const uint8_t *In, DType T) {
  unsigned N = getDTypeBytes(T);
  uint64_t Bits = 0;
  for (unsigned I = 0; I != N; ++I)
    Bits |= uint64_t(In[I]) << (8 * I);
  switch (T) {
  case DType::F64: {
    double D;
    std::memcpy(&D, &Bits, 8);
    return D;
  }
  case DType::F32: {
    uint32_t B32 = uint32_t(Bits);
    float F;
    std::memcpy(&F, &B32, 4);
    return F;
  }
  case DType::BF16: {
    uint32_t B32 = uint32_t(Bits) << 16;
    float F;
    std::memcpy(&F, &B32, 4);
    return F;
  }
  case DType::F16: {
    // Exact: sign, 5-bit exponent, 10-bit mantissa. Normal numbers are
    // assembled as doubles' bits directly.
    uint64_t Sign = (Bits >> 15) << 63;
    uint64_t Exp = (Bits >> 10) & 31, Man = Bits & 1023;
    double V;
    if (Exp == 31) {
      V = Man ? std::numeric_limits<double>::quiet_NaN()
              : std::numeric_limits<double>::infinity();
    } else if (Exp == 0) {
      V = std::ldexp(double(Man), -24);
    } else {
      uint64_t D = (Exp - 15 + 1023) << 52 | Man << 42;
      std::memcpy(&V, &D, 8);
    }
    return Sign ? -V : V;
  }
  case DType::F8E4M3:
  case DType::F8E5M2: {
    llvm::APFloat A(*getSemantics(T), llvm::APInt(8, Bits));
    bool LosesInfo;
    A.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &LosesInfo);
    return A.convertToDouble();
  }
  default:
    return intToDouble(wrapInt(Bits, T), T);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::string SIMTEmulator::render(SMLoc Loc, const Twine &Msg) const {
  return renderLocatedMessage(Opts.SM, Loc, Msg);
}

std::string SIMTEmulator::where(SMLoc Loc) const {
  if (!Opts.SM || !Loc.isValid())
    return "an unknown location";
  unsigned Buf = Opts.SM->FindBufferContainingLoc(Loc);
  if (!Buf)
    return "an unknown location";
  auto [Line, Col] = Opts.SM->getLineAndColumn(Loc, Buf);
  return (Opts.SM->getMemoryBuffer(Buf)->getBufferIdentifier() + ":" +
          Twine(Line) + ":" + Twine(Col))
      .str();
}

llvm::Error SIMTEmulator::makeError(SMLoc Loc, const Twine &Msg) const {
  return execution::makeRuntimeError(Opts.SM,
                                     Loc.isValid() ? Loc : EnclosingLoc, Msg);
}

void SIMTEmulator::fail(SMLoc Loc, const Twine &Msg, int64_t Lane) {
  if (Failed)
    return;
  Failed = true;
  if (!Loc.isValid())
    Loc = CurLoc;
  std::string Where;
  if (InBlock) {
    std::string Block = "block (" + std::to_string(BlockIdx[0]) + ", " +
                        std::to_string(BlockIdx[1]) + ", " +
                        std::to_string(BlockIdx[2]) + ")";
    Where = Lane >= 0 ? " (thread " + std::to_string(Lane) + " of " + Block + ")"
                      : " (" + Block + ")";
  }
  FailMsg = render(Loc, Msg + Where);
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

SlotRef SIMTEmulator::newSlot(const Value *V, bool Uniform) {
  // In a kernel whose warps run as groups, each group computes its own
  // copy of a uniform value (the groups are at different points).
  SlotRef S{NumSlots, Uniform, Uniform && CurScheduled};
  NumSlots += !Uniform ? MaxLanes : S.PerGroup ? MaxGroups : 1;
  SlotOf[V] = S;
  if (!Uniform)
    Varying.insert(V);
  return S;
}

uint32_t SIMTEmulator::newBuffer(const BufferValue *B) {
  uint32_t Id = Buffers.size();
  Buffers.emplace_back();
  Buffer &X = Buffers.back();
  X.Decl = B;
  X.Ty = B->getDType();
  X.Bytes = getDTypeBytes(X.Ty);
  X.Where = B->getScope() == MemScope::Global   ? Storage::Global
            : B->getScope() == MemScope::Shared ? Storage::Shared
                                                : Storage::Thread;
  BufferOf[B] = Id;
  return Id;
}

llvm::Error SIMTEmulator::compileBlock(const Block &B, std::vector<XStmt> &Out) {
  for (const StmtPtr &S : B.Stmts)
    if (llvm::Error E = compileStmt(*S, Out))
      return E;
  return llvm::Error::success();
}

llvm::Error SIMTEmulator::compileStmt(const Stmt &S, std::vector<XStmt> &Out) {
  // Statements passes build without a location report at the enclosing one.
  SMLoc Enclosing = EnclosingLoc;
  EnclosingLoc = locOf(S);
  llvm::scope_exit Restore([&] { EnclosingLoc = Enclosing; });
  switch (S.getKind()) {
  case Stmt::Kind::Let: {
    const auto &L = cast<LetStmt>(S);
    XStmt X(XStmt::Kind::Let, &S, locOf(S));
    if (llvm::Error E = compileExprInto(*L.getInit(), X.Exprs))
      return E;
    X.Vars.push_back(newSlot(L.getVar(), Nodes[X.Exprs[0]].Uniform));
    Out.push_back(std::move(X));
    return llvm::Error::success();
  }
  case Stmt::Kind::Store: {
    XStmt X(XStmt::Kind::Store, &S, locOf(S));
    if (llvm::Error E = compileStore(cast<StoreStmt>(S), X))
      return E;
    Out.push_back(std::move(X));
    return llvm::Error::success();
  }
  case Stmt::Kind::Alloc: {
    const BufferValue *B = cast<AllocStmt>(S).getBuffer();
    XStmt X(XStmt::Kind::Alloc, &S, locOf(S));
    if (llvm::Error E = compileExprs(B->getShape(), X.Exprs))
      return E;
    X.Buf = newBuffer(B);
    Buffer &Buf = Buffers[X.Buf];
    if (Buf.Where == Storage::Global) {
      Out.push_back(std::move(X));
      return llvm::Error::success();
    }
    if (!InKernel)
      return makeError(S.getLoc(),
                       "'%" + B->getName() + "' is a " +
                           getScopeName(B->getScope()) +
                           " buffer outside a kernel; the CUDA emulator "
                           "places on-chip buffers in a kernel's blocks");
    std::optional<std::vector<int64_t>> Shape = B->getConstShape();
    if (!Shape)
      return makeError(S.getLoc(), "'%" + B->getName() +
                                       "' needs a constant shape to be placed "
                                       "in on-chip memory");
    Buf.Shape = *Shape;
    Buf.Strides.assign(Shape->size(), 1);
    for (size_t D = Shape->size(); D-- > 1;)
      Buf.Strides[D - 1] = Buf.Strides[D] * (*Shape)[D];
    Buf.NumElems = 1;
    for (int64_t D : *Shape)
      Buf.NumElems *= D;
    if (Buf.Where == Storage::Shared) {
      // As the CUDA code generator: the offset tile-plan-shared-memory
      // gave the buffer, or else the next 16-byte aligned slice of the
      // kernel's dynamic shared memory in allocation order.
      const Attribute *Off = cast<AllocStmt>(S).getAttrs().get("offset");
      Buf.SmemOffset = Off ? Off->getInt() : (SmemBytes + 15) / 16 * 16;
      SmemBytes = std::max(SmemBytes, Buf.SmemOffset + Buf.NumElems * Buf.Bytes);
    } else {
      Buf.Lanes.assign(size_t(CurThreads * Buf.NumElems),
                       std::numeric_limits<double>::quiet_NaN());
    }
    Out.push_back(std::move(X));
    return llvm::Error::success();
  }
  case Stmt::Kind::For:
    return compileFor(cast<ForStmt>(S), Out);
  case Stmt::Kind::If: {
    XStmt X(XStmt::Kind::If, &S, locOf(S));
    if (llvm::Error E = compileIf(cast<IfStmt>(S), X,
                                  [&](const Block &B, std::vector<XStmt> &Out) {
                                    return compileBlock(B, Out);
                                  }))
      return E;
    Out.push_back(std::move(X));
    return llvm::Error::success();
  }
  case Stmt::Kind::Kernel: {
    auto X = compileKernel(cast<KernelStmt>(S));
    if (!X)
      return X.takeError();
    Out.push_back(std::move(*X));
    return llvm::Error::success();
  }
  case Stmt::Kind::Op: {
    auto X = compileOp(cast<OpStmt>(S));
    if (!X)
      return X.takeError();
    Out.push_back(std::move(*X));
    return llvm::Error::success();
  }
  }
  llvm_unreachable("unknown statement");
}

/// A serial loop per variable; a parallel loop becomes nested serial loops
/// over its dimensions (row-major order, as the interpreter runs it).
llvm::Error SIMTEmulator::compileFor(const ForStmt &Fo, std::vector<XStmt> &Out) {
  std::vector<XStmt> *Into = &Out;
  XStmt *Innermost = nullptr;
  for (const LoopDim &D : Fo.getDims()) {
    XStmt X(XStmt::Kind::For, &Fo, locOf(Fo));
    X.VarTy = D.Var->getDType();
    bool Uniform = true;
    if (D.Lo) {
      if (llvm::Error E = compileExprInto(*D.Lo, X.Exprs))
        return E;
    } else {
      Node Zero;
      Zero.K = NodeKind::Const;
      Zero.Ty = Zero.ArgTy = X.VarTy;
      Zero.Loc = Fo.getLoc();
      Nodes.push_back(Zero);
      X.Exprs.push_back(uint32_t(Nodes.size() - 1));
    }
    if (llvm::Error E = compileExprInto(*D.Hi, X.Exprs))
      return E;
    if (Fo.getLoopKind() != LoopKind::Parallel && Fo.getStep()) {
      if (llvm::Error E = compileExprInto(*Fo.getStep(), X.Exprs))
        return E;
      X.HasStep = true;
    }
    for (uint32_t Id : X.Exprs)
      Uniform &= Nodes[Id].Uniform;
    X.Vars.push_back(newSlot(D.Var.get(), Uniform));
    Into->push_back(std::move(X));
    Innermost = &Into->back();
    Into = &Innermost->Body;
  }
  return compileBlock(Fo.getBody(), Innermost->Body);
}

llvm::Expected<XStmt> SIMTEmulator::compileKernel(const KernelStmt &K) {
  if (InKernel)
    return makeError(K.getLoc(), "kernels cannot be nested");
  XStmt X(XStmt::Kind::Kernel, &K, locOf(K));
  if (llvm::Error E = compileLaunch(K, X))
    return std::move(E);
  for (const auto &B : K.getBlockIndices())
    X.Vars.push_back(newSlot(B.get(), /*Uniform=*/true));
  if (const Value *Tx = K.getThreadIndex())
    X.Tx = newSlot(Tx, /*Uniform=*/false);
  // Warps that wait on each other through mbarriers cannot run in
  // lockstep: such a kernel runs one group per warp.
  walkStmts(K.getBody(), [&](const Stmt &S) {
    if (const auto *Op = dyn_cast<OpStmt>(&S)) {
      llvm::StringRef N = Op->getName();
      X.Scheduled |= N.starts_with("cuda.mbarrier_") || N == "cuda.tma_load" ||
                     N == "cuda.ldgsts_arrive" || N == "cuda.setmaxnreg" ||
                     N == "cuda.fence_mbarrier_init" || N == "cuda.bar_sync" ||
                     N == "cuda.bar_arrive";
      X.Persistent |= N == "cuda.launched_blocks";
    }
  });
  if (X.Persistent && K.getGrid().size() != 1)
    return makeError(K.getLoc(), "a kernel that reads cuda.launched_blocks (a "
                                 "persistent kernel) has a grid of one "
                                 "dimension, not " +
                                     std::to_string(K.getGrid().size()));
  InKernel = true;
  CurThreads = X.Threads;
  CurScheduled = X.Scheduled;
  CurMaxIncRegisters = 0;
  SmemBytes = 0;
  NumMbarriers = 0;
  CurHasWgmma = false;
  X.TmaMapBegin = uint32_t(TmaMaps.size());
  llvm::Error E = compileBlock(K.getBody(), X.Body);
  InKernel = false;
  CurScheduled = false;
  if (E)
    return std::move(E);
  X.HasWgmma = CurHasWgmma;
  X.Ints.push_back(SmemBytes);
  X.TmaMapEnd = uint32_t(TmaMaps.size());
  X.NumMbarriers = NumMbarriers;
  // The registers per thread at entry that ptxas gives a kernel with
  // `.maxntid T` and `.minnctapersm 1` that uses setmaxnreg: the launch
  // bound (65536 / T, a multiple of 8, at most 255), or the largest
  // setmaxnreg.inc count where that is lower.
  int64_t Bound = std::min<int64_t>(255, 65536 / X.Threads / 8 * 8);
  X.EntryRegisters =
      CurMaxIncRegisters ? std::min(Bound, CurMaxIncRegisters) : Bound;
  return X;
}

llvm::StringRef XStmt::opName() const { return cast<OpStmt>(Src)->getName(); }

llvm::Expected<XStmt> SIMTEmulator::compileOp(const OpStmt &Op) {
  std::optional<EmuOp> Kind =
      llvm::StringSwitch<std::optional<EmuOp>>(Op.getName())
          .Case("barrier", EmuOp::Barrier)
          .Case("atomic_elem", EmuOp::AtomicElem)
          .Case("cuda.vload", EmuOp::VLoad)
          .Case("cuda.vstore", EmuOp::VStore)
          .Case("cuda.store_pair", EmuOp::StorePair)
          .Case("cuda.shfl_xor", EmuOp::ShflXor)
          .Case("cuda.ldmatrix", EmuOp::Ldmatrix)
          .Case("cuda.mma_sync", EmuOp::MmaSync)
          .Case("cuda.cp_async", EmuOp::CpAsync)
          .Case("cuda.ldgsts", EmuOp::Ldgsts)
          .Cases({"cuda.cp_async_commit", "cuda.ldgsts_commit"},
                 EmuOp::AsyncCommit)
          .Cases({"cuda.cp_async_wait", "cuda.ldgsts_wait"}, EmuOp::AsyncWait)
          .Case("cuda.fence_proxy_async", EmuOp::FenceProxyAsync)
          .Case("cuda.wgmma_mma", EmuOp::WgmmaMma)
          .Case("cuda.wgmma_mma_rs", EmuOp::WgmmaMmaRs)
          .Case("cuda.wgmma_fence", EmuOp::WgmmaFence)
          .Case("cuda.wgmma_commit", EmuOp::WgmmaCommit)
          .Case("cuda.wgmma_wait", EmuOp::WgmmaWait)
          .Case("cuda.tma_ready", EmuOp::TmaReady)
          .Case("cuda.aligned", EmuOp::Aligned)
          .Case("cuda.launched_blocks", EmuOp::LaunchedBlocks)
          .Case("cuda.store_if", EmuOp::StoreIf)
          .Case("cuda.tma_load", EmuOp::TmaLoad)
          .Case("cuda.mbarrier_init", EmuOp::MbarrierInit)
          .Case("cuda.mbarrier_arrive", EmuOp::MbarrierArrive)
          .Case("cuda.mbarrier_wait", EmuOp::MbarrierWait)
          .Case("cuda.ldgsts_arrive", EmuOp::LdgstsArrive)
          .Case("cuda.fence_mbarrier_init", EmuOp::FenceMbarrierInit)
          .Case("cuda.setmaxnreg", EmuOp::Setmaxnreg)
          .Case("cuda.bar_sync", EmuOp::BarSync)
          .Case("cuda.bar_arrive", EmuOp::BarArrive)
          .Default(std::nullopt);
  if (!Kind) {
    if (Op.getInfo().isCommon())
      return makeError(Op.getLoc(),
                       "op '" + Op.getName() +
                           "' cannot be emulated: the CUDA emulator runs the "
                           "per-thread code the pipeline produces, and the "
                           "pipeline left this tile op unlowered");
    return makeError(Op.getLoc(), "op '" + Op.getName() +
                                      "' cannot be emulated: the CUDA "
                                      "emulator does not model it");
  }
  if (!InKernel && *Kind != EmuOp::AtomicElem)
    return makeError(Op.getLoc(), "op '" + Op.getName() +
                                      "' is outside a kernel; it needs a "
                                      "block's threads");
  XStmt X(XStmt::Kind::Op, &Op, locOf(Op));
  X.Op = *Kind;
  if (llvm::Error E = compileOpOperands(
          Op, X, [&](const Region &R, unsigned) -> llvm::Expected<XRegion> {
            XRegion XR;
            if (llvm::Error Err = compileRegion(R, XR))
              return std::move(Err);
            return XR;
          }))
    return std::move(E);
  auto Int = [&](const char *Name) {
    return Op.getAttrOrDefault(Name).getInt();
  };
  auto Bool = [&](const char *Name) {
    return int64_t(Op.getAttrOrDefault(Name).getBool());
  };
  auto MarkWgmmaOperand = [&](unsigned RegionNo) {
    Buffers[X.Regions[RegionNo].Buf].WgmmaOperand = true;
    CurHasWgmma = true;
  };
  // The elements of a buffer an mbarrier op names are the kernel's
  // mbarriers, numbered densely. (The verifier makes these checks too; the
  // emulator also runs IR nothing verified.)
  auto MarkMbarriers = [&](unsigned RegionNo) -> llvm::Error {
    Buffer &B = Buffers[X.Regions[RegionNo].Buf];
    if (B.Where != Storage::Shared || B.Bytes != 8 || isFloat(B.Ty))
      return makeError(X.Regions[RegionNo].Loc,
                       "'" + Op.getName() + "' takes an mbarrier, an element "
                       "of a shared u64 or i64 buffer, not one of '%" +
                           B.getName() + "'");
    if (B.MbarrierBase < 0) {
      B.MbarrierBase = NumMbarriers;
      NumMbarriers += uint32_t(B.NumElems);
    }
    return llvm::Error::success();
  };
  // The tensor of cuda.tma_load and cuda.tma_ready: global, rank 2 to 5,
  // named whole or by one index per dimension.
  auto CheckTmaTensor = [&]() -> llvm::Error {
    const XRegion &R = X.Regions[0];
    const Buffer &T = Buffers[R.Buf];
    size_t Rank = T.Decl->getRank();
    if (T.Where != Storage::Global || Rank < 2 || Rank > 5 ||
        (!R.Off.empty() && R.Off.size() != Rank))
      return makeError(R.Loc, "'" + Op.getName() + "' reads a global tensor "
                              "of rank 2 to 5, not '%" + T.getName() + "'");
    return llvm::Error::success();
  };
  // Region I is where the op writes an integer (a flag or a count) for
  // each thread.
  auto CheckThreadInt = [&](unsigned I, llvm::StringRef What) -> llvm::Error {
    const Buffer &D = Buffers[X.Regions[I].Buf];
    if (D.Where != Storage::Thread || isFloat(D.Ty))
      return makeError(X.Regions[I].Loc,
                       "'" + Op.getName() + "' writes an integer " + What +
                           " to a thread's registers, not to '%" + D.getName() + "'");
    return llvm::Error::success();
  };
  switch (X.Op) {
  case EmuOp::AtomicElem: {
    llvm::StringRef K = Op.getAttrOrDefault("kind").getStr();
    X.Ints.push_back(K == "add" ? 0 : K == "max" ? 1 : 2);
    break;
  }
  case EmuOp::VLoad:
  case EmuOp::VStore:
    X.Ints.push_back(Int("width"));
    X.Ints.push_back(Bool("aligned"));
    break;
  case EmuOp::ShflXor:
    X.Ints.push_back(Int("offset"));
    break;
  case EmuOp::Ldmatrix: {
    llvm::StringRef Num = Op.getAttrOrDefault("num").getStr();
    X.Ints.push_back(Num == "x1" ? 1 : Num == "x2" ? 2 : 4);
    X.Ints.push_back(Bool("trans"));
    break;
  }
  case EmuOp::Ldgsts:
    X.Ints.push_back(Bool("full"));
    break;
  case EmuOp::AsyncWait:
    X.Ints.push_back(Int("pending"));
    break;
  case EmuOp::WgmmaMma:
  case EmuOp::WgmmaMmaRs: {
    bool Rs = X.Op == EmuOp::WgmmaMmaRs;
    X.Ints = {Int("n"),
              Rs ? 0 : Bool("mn_major_a"),
              Bool("mn_major_b"),
              Rs ? 0 : Int("swizzle_a"),
              Int("swizzle_b"),
              Rs ? 0 : Int("lbo_a"),
              Rs ? 0 : Int("sbo_a"),
              Int("lbo_b"),
              Int("sbo_b"),
              Bool("zero_c")};
    MarkWgmmaOperand(2);
    if (Rs)
      MarkWgmmaOperand(0);
    break;
  }
  case EmuOp::WgmmaFence:
    MarkWgmmaOperand(0);
    break;
  case EmuOp::WgmmaWait:
    MarkWgmmaOperand(0);
    X.Ints.push_back(Int("pending"));
    break;
  case EmuOp::WgmmaCommit:
  case EmuOp::FenceProxyAsync:
    CurHasWgmma = true;
    break;
  case EmuOp::TmaLoad: {
    if (llvm::Error E = CheckTmaTensor())
      return std::move(E);
    if (llvm::Error E = MarkMbarriers(2))
      return std::move(E);
    const Buffer &T = Buffers[X.Regions[0].Buf], &D = Buffers[X.Regions[1].Buf];
    if (D.Where != Storage::Shared || D.Ty != T.Ty)
      return makeError(X.Regions[1].Loc,
                       "'cuda.tma_load' writes shared memory of the tensor's "
                       "dtype, not '%" + D.getName() + "'");
    TmaMap M;
    M.Loc = X.getLoc();
    M.Tensor = X.Regions[0].Buf;
    M.BoxRows = Int("box_rows");
    M.BoxCols = Int("box_cols");
    M.Swizzle = Int("swizzle");
    M.Optional = Bool("optional");
    X.Ints = {M.BoxRows, M.BoxCols, M.Swizzle, int64_t(TmaMaps.size())};
    TmaMaps.push_back(std::move(M));
    break;
  }
  case EmuOp::MbarrierArrive:
    if (llvm::Error E = MarkMbarriers(0))
      return std::move(E);
    X.Ints = {Int("tx_bytes"), Bool("per_warp")};
    break;
  case EmuOp::MbarrierInit:
  case EmuOp::MbarrierWait:
  case EmuOp::LdgstsArrive:
    if (llvm::Error E = MarkMbarriers(0))
      return std::move(E);
    break;
  case EmuOp::TmaReady: {
    if (llvm::Error E = CheckTmaTensor())
      return std::move(E);
    if (llvm::Error E = CheckThreadInt(1, "flag"))
      return std::move(E);
    break;
  }
  case EmuOp::LaunchedBlocks:
    if (llvm::Error E = CheckThreadInt(0, "count"))
      return std::move(E);
    break;
  case EmuOp::Aligned: {
    const Buffer &T = Buffers[X.Regions[0].Buf];
    if (T.Where != Storage::Global)
      return makeError(X.Regions[0].Loc, "'cuda.aligned' tests a global tensor, "
                                         "not '%" + T.getName() + "'");
    if (llvm::Error E = CheckThreadInt(1, "flag"))
      return std::move(E);
    X.Ints.push_back(Int("bytes"));
    break;
  }
  case EmuOp::StoreIf: {
    const Region &R = Op.getOperand("src").R;
    int64_t W = 1;
    if (!R.isWholeBuffer() && R.Indices.back().Extent)
      W = R.Indices.back().Extent->getConstInt().value_or(0);
    if (W != 1 && W != 2)
      return makeError(X.Regions[0].Loc, "'cuda.store_if' stores one element "
                                         "or a pair (an extent of 2)");
    if (Buffers[X.Regions[1].Buf].Where != Storage::Global)
      return makeError(X.Regions[1].Loc, "'cuda.store_if' stores to a global "
                                         "tensor");
    X.Ints.push_back(W);
    X.Ints.push_back(Int("offset"));
    break;
  }
  case EmuOp::BarSync:
  case EmuOp::BarArrive:
    X.Ints.push_back(Int("threads"));
    break;
  case EmuOp::Setmaxnreg: {
    bool Inc = Op.getAttrOrDefault("action").getStr() == "inc";
    X.Ints = {int64_t(Inc), Int("count")};
    if (Inc)
      CurMaxIncRegisters = std::max(CurMaxIncRegisters, Int("count"));
    break;
  }
  default:
    break;
  }
  return X;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

llvm::Error SIMTEmulator::bindArguments(llvm::ArrayRef<ArgValue> Args) {
  auto ScalarOf = [&](const Value &V) -> Scalar & { return scalarOf(V); };
  auto BindTensor = [&](const BufferValue &B, TensorArg &T,
                        std::vector<int64_t> Strides, int64_t Needed,
                        const std::string &Desc) -> llvm::Error {
    // As the entry point's argument check: elements must be aligned.
    if (unsigned Mis = Opts.DataOffset % getDTypeBytes(B.getDType()))
      return makeError(B.getLoc(), Desc + ": data is not aligned to " +
                                       Twine(getDTypeBytes(B.getDType())) +
                                       " bytes (address % alignment = " +
                                       Twine(Mis) + ")");
    Buffer &Buf = Buffers[BufferOf.lookup(&B)];
    Buf.Shape = T.Shape;
    Buf.Strides = std::move(Strides);
    Buf.NumElems = Needed;
    Buf.Data = T.Data.data();
    return llvm::Error::success();
  };
  // The host passes float parameters in their type.
  return execution::bindArguments(F, Args, Opts.SM, /*RoundFloatScalars=*/true,
                                  {ScalarOf, BindTensor});
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Scalar *SIMTEmulator::newTemp() {
  if (TempTop == Temps.size())
    Temps.push_back(std::make_unique<Scalar[]>(MaxLanes));
  return Temps[TempTop++].get();
}

int64_t SIMTEmulator::elementIndex(const Buffer &B, const int64_t *Idx,
                                   unsigned N, SMLoc Loc, const char *What,
                                   int64_t Lane) {
  llvm::ArrayRef<int64_t> I(Idx, N);
  if (std::optional<int64_t> Off =
          execution::elementOffset(B.Shape, B.Strides, I))
    return *Off;
  fail(Loc, execution::describeOutOfRange(What, B.getName(), I, B.Shape), Lane);
  return -1;
}

/// A loaded element as a scalar of type \p Ty.
static Scalar fromElement(double V, DType Ty) {
  return isFloat(Ty) ? floatScalar(V) : intScalar(doubleToIntBits(V));
}

Scalar SIMTEmulator::applyBinary(const Node &N, Scalar L, Scalar R,
                                 int64_t Lane) {
  return scalar::applyBinary(BinaryOp(N.Op), N.ArgTy, L, R,
                             [&](const Twine &Msg) { fail(N.Loc, Msg, Lane); });
}

/// Intrinsics other than select, with their first argument \p X and, for
/// two-argument ones, \p Y.
Scalar SIMTEmulator::applyCall(const Node &N, Scalar X, Scalar Y,
                               int64_t Lane) {
  return scalar::applyIntrinsic(
      Intrinsic(N.Op), N.ArgTy, X, Y,
      [&](const Twine &Msg) { fail(N.Loc, Msg, Lane); });
}

Scalar SIMTEmulator::loadValue(const Node &N, llvm::ArrayRef<int64_t> Idx,
                               int64_t Lane) {
  Buffer &B = Buffers[N.Index];
  int64_t I = elementIndex(B, Idx.data(), Idx.size(), N.Loc, "load of", Lane);
  if (I < 0)
    return intScalar(0);
  // One load for every active thread.
  return fromElement(loadElement(B, I, UniformReader, N.Loc), N.Ty);
}

LaneValues SIMTEmulator::eval(uint32_t Id, const LaneList &M) {
  if (Nodes[Id].Uniform) {
    // Computed once for all threads: a fault names no thread.
    UniformReader = M.size() == 1 ? int64_t(M[0]) : -1;
    Scalar *T = newTemp();
    T[0] = evalUniform(Id, UniformReader);
    return {T, true};
  }
  return {evalVarying(Id, M), false};
}

LaneValues SIMTEmulator::evalOperand(uint32_t Id, const LaneList &M) {
  if (!UnionOp || !Nodes[Id].Uniform)
    return eval(Id, M);
  // Each warp (group) computed its own copy of the uniform values the
  // operand reads; the op's checks compare the results.
  Scalar *R = newTemp();
  uint32_t Saved = CurGroup;
  LaneList Part;
  for (size_t I = 0; I != M.size() && !Failed;) {
    uint32_t G = M[I] / 32;
    Part.clear();
    while (I != M.size() && M[I] / 32 == G)
      Part.push_back(M[I++]);
    CurGroup = G;
    LaneValues V = eval(Id, Part);
    for (uint32_t L : Part)
      R[L] = V.at(L);
  }
  CurGroup = Saved;
  return {R, false};
}


Scalar *SIMTEmulator::evalVarying(uint32_t Id, const LaneList &M) {
  const Node &N = Nodes[Id];
  const uint32_t *A = ArgIds.data() + N.FirstArg;
  if (N.K == NodeKind::Slot)
    return &Slots[N.Index];
  Scalar *R = newTemp();
  switch (N.K) {
  case NodeKind::Const:
  case NodeKind::Slot:
    llvm_unreachable("uniform");
  case NodeKind::Load: {
    Buffer &B = Buffers[N.Index];
    llvm::SmallVector<LaneValues, 4> Idx;
    for (unsigned D = 0; D != N.NumArgs; ++D)
      Idx.push_back(eval(A[D], M));
    if (Failed)
      return R;
    int64_t I[8];
    for (uint32_t L : M) {
      for (unsigned D = 0; D != N.NumArgs; ++D)
        I[D] = Idx[D].at(L).I;
      int64_t E = elementIndex(B, I, N.NumArgs, N.Loc, "load of", L);
      if (E < 0)
        return R;
      R[L] = fromElement(loadElement(B, E, L, N.Loc), N.Ty);
      if (Failed)
        return R;
    }
    return R;
  }
  case NodeKind::Unary: {
    LaneValues X = eval(A[0], M);
    for (uint32_t L : M)
      R[L] = scalar::applyUnary(UnaryOp(N.Op), N.Ty, X.at(L));
    return R;
  }
  case NodeKind::Cast: {
    LaneValues X = eval(A[0], M);
    for (uint32_t L : M)
      R[L] = castScalar(X.at(L), N.ArgTy, N.Ty);
    return R;
  }
  case NodeKind::Binary: {
    auto Op = BinaryOp(N.Op);
    LaneValues X = eval(A[0], M);
    if (Failed)
      return R;
    if (Op == BinaryOp::LogicalAnd || Op == BinaryOp::LogicalOr) {
      bool IsOr = Op == BinaryOp::LogicalOr;
      LaneList Rest;
      for (uint32_t L : M) {
        bool V = X.at(L).I != 0;
        if (V == IsOr)
          R[L] = intScalar(V);
        else
          Rest.push_back(L);
      }
      if (Rest.empty())
        return R;
      LaneValues Y = eval(A[1], Rest);
      for (uint32_t L : Rest)
        R[L] = intScalar(Y.at(L).I != 0);
      return R;
    }
    LaneValues Y = eval(A[1], M);
    if (Failed)
      return R;
    for (uint32_t L : M) {
      R[L] = applyBinary(N, X.at(L), Y.at(L), L);
      if (Failed)
        return R;
    }
    return R;
  }
  case NodeKind::Call: {
    if (Intrinsic(N.Op) == Intrinsic::Select) {
      LaneValues C = eval(A[0], M);
      if (Failed)
        return R;
      LaneList T, E;
      splitLanes(C, M, T, E);
      for (auto [Lanes, Arg] : {std::pair{&T, A[1]}, std::pair{&E, A[2]}}) {
        if (Lanes->empty())
          continue;
        LaneValues V = eval(Arg, *Lanes);
        if (Failed)
          return R;
        for (uint32_t L : *Lanes)
          R[L] = V.at(L);
      }
      return R;
    }
    LaneValues X = eval(A[0], M);
    LaneValues Y = N.NumArgs > 1 ? eval(A[1], M) : X;
    if (Failed)
      return R;
    for (uint32_t L : M) {
      R[L] = applyCall(N, X.at(L), Y.at(L), L);
      if (Failed)
        return R;
    }
    return R;
  }
  }
  llvm_unreachable("unknown node");
}

//===----------------------------------------------------------------------===//
// Memories
//===----------------------------------------------------------------------===//

std::string SIMTEmulator::describeSharedByte(uint32_t Addr) const {
  for (const Buffer &B : Buffers)
    if (B.Where == Storage::Shared && B.NumElems && int64_t(Addr) >= B.SmemOffset &&
        int64_t(Addr) < B.SmemOffset + B.NumElems * B.Bytes)
      return "byte " + std::to_string(Addr - B.SmemOffset) + " of '%" +
             B.getName().str() + "', in element " +
             std::to_string((Addr - B.SmemOffset) / B.Bytes);
  return "shared byte " + std::to_string(Addr);
}

std::string SIMTEmulator::describeAccessor(int32_t Who) const {
  if (Who >= 0)
    return "thread " + std::to_string(Who);
  if (accessor::isWgmma(Who))
    return "a wgmma of warpgroup " + std::to_string(accessor::WgmmaOf - Who);
  if (accessor::isCopies(Who))
    return "the cp.async copies of thread " +
           std::to_string(accessor::CopiesOf - Who);
  if (accessor::isTma(Who))
    return "a cuda.tma_load completing on " +
           describeMbarrier(uint32_t(accessor::TmaOn - Who));
  return "several threads";
}

const char *SIMTEmulator::orderHint(bool ReadAfterWrite) const {
  if (!Scheduled)
    return ReadAfterWrite
               ? " since the last barrier; a barrier must come between the "
                 "write and the read"
               : " since the last barrier; a barrier must come between the "
                 "read and the write";
  return ReadAfterWrite
             ? ", and neither a barrier nor an mbarrier phase waited for "
               "orders that write before this read"
             : ", and neither a barrier nor an mbarrier phase waited for "
               "orders that read before this write";
}

bool SIMTEmulator::readShared(uint32_t Addr, uint32_t Len, int64_t Reader,
                              SMLoc Loc, const Twine &What, bool Record) {
  uint32_t Epoch = uint32_t(BarrierEpoch + 1);
  for (uint32_t B = Addr; B != Addr + Len; ++B) {
    if (SmemCopies[B]) {
      // Name the copy: the oldest in flight that writes the byte.
      std::string Who;
      for (uint32_t T = 0; T != Copies.size() && Who.empty(); ++T) {
        auto Find = [&](const std::vector<AsyncCopy> &G) {
          for (const AsyncCopy &C : G)
            if (B >= C.Addr && B < C.Addr + 16 && Who.empty())
              Who = "the cp.async of thread " + std::to_string(T) + " at " +
                    where(C.Loc);
        };
        for (const auto &G : Copies[T].Committed)
          Find(G);
        Find(Copies[T].Open);
      }
      fail(Loc, What + " reads shared memory (" + describeSharedByte(B) +
                    ") that a cp.async still in flight writes (" + Who +
                    "); its group must be waited for first",
           Reader);
      return false;
    }
    if (SmemTma[B]) {
      const TmaCopy *Box = nullptr;
      for (const TmaCopy &C : TmaInFlight)
        for (const AsyncCopy &Chunk : C.Chunks)
          if (!Box && B >= Chunk.Addr && B < Chunk.Addr + 16)
            Box = &C;
      assert(Box && "a shared byte in flight without its box");
      fail(Loc, What + " reads shared memory (" + describeSharedByte(B) +
                    ") that a cuda.tma_load still in flight writes (issued by "
                    "thread " + Twine(Box->Issuer) + " at " + where(Box->Loc) +
                    "); a wait on the phase of " + describeMbarrier(Box->Bar) +
                    " that its bytes complete must come first",
           Reader);
      return false;
    }
    if (SmemMbarrier[B]) {
      fail(Loc, What + " reads shared memory (" + describeSharedByte(B) +
                    ") that holds an initialized mbarrier; only mbarrier ops "
                    "may access it",
           Reader);
      return false;
    }
    if (InAtomic)
      continue;
    // Another thread's write is visible only when ordered before the read.
    int32_t W = SmemWriter[B];
    if (SmemWriteEpoch[B] == Epoch && W != accessor::Several && W != Reader &&
        !(Scheduled && orderedBefore(W, SmemWriteClock[B], Epoch, Reader))) {
      fail(Loc, What + " reads shared memory (" + describeSharedByte(B) +
                    ") that " + describeAccessor(W) + " wrote" +
                    orderHint(/*ReadAfterWrite=*/true),
           Reader);
      return false;
    }
    if (!Record)
      continue;
    if (Scheduled) {
      // The readers since the last write, each with its clock.
      if (SmemReadEpoch[B] != Epoch)
        SmemReadSet[B] = 0;
      SmemReadEpoch[B] = Epoch;
      if (Reader >= 0) {
        SmemReadSet[B] = addReader(SmemReadSet[B], int32_t(Reader),
                                   Clock[size_t(Reader)]);
      } else {
        for (uint32_t L : *CurMask)
          SmemReadSet[B] = addReader(SmemReadSet[B], int32_t(L), Clock[L]);
      }
      continue;
    }
    if (SmemReadEpoch[B] != Epoch) {
      SmemReadEpoch[B] = Epoch;
      SmemReader[B] = int32_t(Reader < 0 ? accessor::Several : Reader);
    } else if (SmemReader[B] != Reader) {
      SmemReader[B] = accessor::Several;
    }
  }
  return true;
}

bool SIMTEmulator::prepareSharedWrite(uint32_t Addr, const uint8_t *Bytes,
                                      uint32_t Len, int64_t Writer, SMLoc Loc,
                                      const Twine &What) {
  uint32_t Epoch = uint32_t(BarrierEpoch + 1);
  int64_t Lane = Writer < 0 ? -1 : Writer;
  for (uint32_t B = Addr; B != Addr + Len; ++B) {
    if (SmemCopies[B]) {
      fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                    ") that a cp.async still in flight writes; its group must "
                    "be waited for first",
           Lane);
      return false;
    }
    if (SmemTma[B]) {
      fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                    ") that a cuda.tma_load still in flight writes; a wait on "
                    "the mbarrier phase its bytes complete must come first",
           Lane);
      return false;
    }
    if (SmemWgmmaReads[B]) {
      fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                    ") that a wgmma still in flight reads; a cuda.wgmma_wait "
                    "must retire it first",
           Lane);
      return false;
    }
    if (SmemMbarrier[B]) {
      fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                    ") that holds an initialized mbarrier; only mbarrier ops "
                    "may access it",
           Lane);
      return false;
    }
    // Writing what the byte holds races with nothing.
    if (InAtomic || (SmemInit[B] && Smem[B] == Bytes[B - Addr]))
      continue;
    if (Scheduled) {
      if (SmemReadEpoch[B] == Epoch)
        for (auto [A, C] : ReadSets[SmemReadSet[B]])
          if (!orderedBefore(A, C, Epoch, Writer)) {
            fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                          ") that " + describeAccessor(A) + " read" +
                          orderHint(/*ReadAfterWrite=*/false),
                 Lane);
            return false;
          }
      int32_t W = SmemWriter[B];
      if (SmemWriteEpoch[B] == Epoch && (W != Writer || Writer < 0) &&
          (W == accessor::Several ||
           !orderedBefore(W, SmemWriteClock[B], Epoch, Writer))) {
        fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                      ") that " + describeAccessor(W) +
                      " wrote a different value to, and neither a barrier nor "
                      "an mbarrier phase waited for orders the two writes",
             Lane);
        return false;
      }
      continue;
    }
    int32_t R = SmemReader[B];
    bool OwnRead = Writer >= 0 && (R == Writer || (accessor::isWgmma(R) &&
                                                   accessor::WgmmaOf - R == Writer / 128));
    if (SmemReadEpoch[B] == Epoch && !OwnRead) {
      fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                    ") that " + describeAccessor(R) + " read" +
                    orderHint(/*ReadAfterWrite=*/false),
           Lane);
      return false;
    }
    int32_t W = SmemWriter[B];
    if (SmemWriteEpoch[B] == Epoch && (W != Writer || Writer < 0)) {
      fail(Loc, What + " writes shared memory (" + describeSharedByte(B) +
                    ") that " + describeAccessor(W) +
                    " wrote a different value to since the last barrier",
           Lane);
      return false;
    }
  }
  return true;
}

void SIMTEmulator::writeShared(uint32_t Addr, const uint8_t *Bytes, uint32_t Len,
                               int32_t Writer, bool GenericProxy) {
  uint32_t Epoch = uint32_t(BarrierEpoch + 1);
  uint32_t Stamp = Writer == accessor::Several ? 0 : clockOf(Writer);
  for (uint32_t B = Addr; B != Addr + Len; ++B) {
    bool Same = SmemInit[B] && Smem[B] == Bytes[B - Addr];
    bool Rewrite = Same && SmemWriteEpoch[B] == Epoch && SmemWriter[B] != Writer;
    // An asynchronous copy landing the value a byte already holds (the
    // write it ordered itself after at issue was not checked, the value
    // being the same) leaves the byte's writer as it was: later accesses
    // are checked against that writer, and none may touch the byte while
    // the copy is in flight.
    if (Rewrite && !InAtomic && Scheduled && Writer < 0 && Writer != accessor::Several &&
        !accessor::isWgmma(Writer))
      continue;
    // Threads writing one value each: any of them may read it. A thread's
    // write ordered after the byte's last writer (a value that happens to
    // be the same, written after a barrier or an mbarrier phase) replaces
    // it.
    if (InAtomic ||
        (Rewrite && !(Scheduled && Writer >= 0 &&
                      orderedBefore(SmemWriter[B], SmemWriteClock[B], Epoch, Writer))))
      SmemWriter[B] = accessor::Several;
    else
      SmemWriter[B] = Writer;
    SmemWriteEpoch[B] = Epoch;
    if (Scheduled) {
      SmemWriteClock[B] = Stamp;
      // The write was ordered after every read since the last one.
      if (!Same)
        SmemReadSet[B] = 0;
    }
  }
  std::memcpy(&Smem[Addr], Bytes, Len);
  std::memset(&SmemInit[Addr], 1, Len);
  if (!TrackProxy || !GenericProxy)
    return;
  // Generic-proxy writes: a wgmma may read them only after a proxy fence.
  if (!UnfencedLive.empty()) {
    UnfencedWrite &Last = UnfencedLog[UnfencedLive.back()];
    if (Last.Writer == Writer && Last.Clock == Stamp &&
        Last.Epoch == BarrierEpoch && Last.Addr + Last.Len == Addr) {
      Last.Len += Len;
      for (uint32_t B = Addr; B != Addr + Len; ++B)
        SmemUnfenced[B] = int32_t(UnfencedLive.back() + 1);
      return;
    }
  }
  UnfencedLive.push_back(uint32_t(UnfencedLog.size()));
  UnfencedLog.push_back({Addr, Len, Writer, Stamp, BarrierEpoch});
  for (uint32_t B = Addr; B != Addr + Len; ++B)
    SmemUnfenced[B] = int32_t(UnfencedLog.size());
}

void SIMTEmulator::touchRegister(Buffer &B, int64_t I, uint32_t Lane, SMLoc Loc) {
  B.TouchedSinceFence[Lane] = 1;
  if (!B.InFlight[Lane * B.NumElems + I])
    return;
  std::string Issued;
  for (const WgmmaGroups &G : Wgmmas) {
    auto Find = [&](const std::vector<WgmmaInFlight> &Recs) {
      for (const WgmmaInFlight &W : Recs)
        if (Lane >= W.Lane0 && Lane < W.Lane0 + 128 && Issued.empty())
          Issued = where(W.Loc);
    };
    for (const auto &C : G.Committed)
      Find(C);
    Find(G.Open);
  }
  fail(Loc, "'%" + B.getName() + "' element " + Twine(I) +
                " is accessed while a wgmma that uses it is in flight (issued "
                "at " + Issued + "); a cuda.wgmma_wait must retire it first",
       Lane);
}

double SIMTEmulator::loadElement(Buffer &B, int64_t I, int64_t Lane, SMLoc Loc) {
  double V;
  switch (B.Where) {
  case Storage::Global:
    V = B.Data[I];
    break;
  case Storage::Shared: {
    uint32_t Addr = uint32_t(B.SmemOffset + I * B.Bytes);
    if (!readShared(Addr, B.Bytes, Lane, Loc, "load of '%" + B.getName() + "'"))
      return 0;
    if (!isFloat(B.Ty) && !SmemInit[Addr]) {
      fail(Loc, "load of an element of '%" + B.getName() +
                    "' that was never written",
           Lane);
      return 0;
    }
    return decodeElement(&Smem[Addr], B.Ty);
  }
  case Storage::Thread:
    assert(Lane >= 0 && "registers are read by one thread");
    if (B.WgmmaOperand)
      touchRegister(B, I, uint32_t(Lane), Loc);
    V = B.Lanes[Lane * B.NumElems + I];
    break;
  }
  if (!isFloat(B.Ty) && std::isnan(V)) {
    fail(Loc, "load of an element of '%" + B.getName() +
                  "' that was never written (it holds the NaN poison)",
         Lane);
    return 0;
  }
  return V;
}

void SIMTEmulator::storeElement(Buffer &B, int64_t I, int64_t Lane, double V,
                                SMLoc Loc) {
  switch (B.Where) {
  case Storage::Global:
    B.Data[I] = V;
    return;
  case Storage::Shared: {
    uint32_t Addr = uint32_t(B.SmemOffset + I * B.Bytes);
    uint8_t Bytes[8];
    encodeElement(V, B.Ty, Bytes);
    if (!prepareSharedWrite(Addr, Bytes, B.Bytes, Lane, Loc,
                            "store to '%" + B.getName() + "'"))
      return;
    writeShared(Addr, Bytes, B.Bytes,
                int32_t(Lane < 0 ? accessor::Several : Lane));
    return;
  }
  case Storage::Thread:
    assert(Lane >= 0 && "registers are written by one thread");
    if (B.WgmmaOperand)
      touchRegister(B, I, uint32_t(Lane), Loc);
    B.Lanes[Lane * B.NumElems + I] = V;
    return;
  }
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

llvm::Error SIMTEmulator::run(llvm::ArrayRef<ArgValue> Args) {
  // Per-thread values need a slot for each thread of the widest kernel.
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (const auto *K = dyn_cast<KernelStmt>(&S))
      if (std::optional<int64_t> T = K->getThreads()->getConstInt())
        MaxLanes = std::max<uint32_t>(MaxLanes, uint32_t(std::max<int64_t>(*T, 1)));
  });
  MaxGroups = (MaxLanes + 31) / 32;
  for (const auto &D : F.getDims())
    newSlot(D.get(), /*Uniform=*/true);
  for (const auto &P : F.getParams()) {
    if (const auto *B = dyn_cast<BufferValue>(P.get()))
      newBuffer(B);
    else
      newSlot(P.get(), /*Uniform=*/true);
  }
  if (llvm::Error E = compileBlock(F.getBody(), Body))
    return E;
  Slots.assign(NumSlots, intScalar(0));
  if (llvm::Error E = bindArguments(Args))
    return E;
  // The function's own statements: one thread.
  Threads = 1;
  Group Host;
  Host.Lanes = {0};
  Frame Top;
  Top.Stmts = &Body;
  Top.Mask = Host.Lanes;
  Host.Stack.push_back(std::move(Top));
  runGroup(Host);
  if (Failed)
    return execution::makeFaultError(FailMsg);
  return llvm::Error::success();
}

llvm::Error tile::emulateCUDA(const BackendContext &, const Function &F,
                              llvm::ArrayRef<ArgValue> Args,
                              const EmulatorOptions &Opts) {
  return SIMTEmulator(F, Opts).run(Args);
}
