//===- JitTool.cpp - The logic of tile-jit --------------------------------===//
//
// Parse -> resolve the BackendContext once -> compile -> build and load on
// the execution backend -> make or read inputs (poisoning what the kernel
// only writes) -> launch -> write outputs -> check against the reference
// interpreter -> time. With --emulate, the target backend's pipeline and
// then its emulator take the place of code generation, the execution
// backend and the launch; outputs and checks are the same.
//
// tile-jit passes tensors to the entry point as given: the checks of the
// generated host code, not tile-jit, decide whether an argument is
// acceptable, so the tool exercises exactly what a C++ caller would.
//
//===----------------------------------------------------------------------===//

#include "tile/Tools/JitTool.h"
#include "tile/Driver/CompileModule.h"
#include "tile/Driver/HostTensor.h"
#include "tile/Driver/Reference.h"
#include "tile/Exec/Executor.h"
#include "tile/IR/Interpreter.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Verifier.h"
#include "tile/IR/Walk.h"
#include "tile/Target/Emulator.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <chrono>
#include <functional>
#include <dlpack/dlpack.h>
#include <map>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

namespace {

struct JitError {};

class Jit {
public:
  Jit(const JitOptions &O, const TargetRegistry &R, llvm::raw_ostream &Out,
      llvm::raw_ostream &Err)
      : Opts(O), Registry(R), Out(Out), Err(Err) {}

  int run();

private:
  int fail(const llvm::Twine &Msg) {
    llvm::WithColor::error(Err, "tile-jit") << Msg << "\n";
    return 1;
  }

  /// `NAME=VALUE` lists: the pairs, or an error naming the option.
  bool splitPairs(const std::vector<std::string> &L, llvm::StringRef Opt,
                  std::vector<std::pair<std::string, std::string>> &Outp) {
    for (const std::string &S : L) {
      auto [K, V] = llvm::StringRef(S).split('=');
      if (!llvm::StringRef(S).contains('=') || K.empty() || V.empty()) {
        fail("--" + Opt + " takes NAME=VALUE, got '" + S + "'");
        return false;
      }
      Outp.push_back({K.str(), V.str()});
    }
    return true;
  }

  const Value *findParam(llvm::StringRef Name) const {
    for (const auto &P : F->getParams())
      if (P->getName() == Name)
        return P.get();
    return nullptr;
  }

  std::string listParams(bool Tensors) const {
    std::string S;
    for (const auto &P : F->getParams())
      if (P->isBuffer() == Tensors)
        S += (S.empty() ? "" : ", ") + P->getName().str();
    return S.empty() ? "none" : S;
  }

  void analyzeAccess();
  /// --emulate: the backend's pipeline over \p M, then its emulator on
  /// \p Tensors; fills \p Results with the tensors the function writes.
  /// Returns 0, or 1 after reporting an error.
  int emulate(const BackendContext &Ctx, Module &M, DiagnosticEngine &Diag,
              CompileTimings &Timings, llvm::SourceMgr &SM,
              std::map<std::string, HostTensor> &Tensors,
              const std::map<std::string, double> &ScalarValues,
              const std::map<std::string, int64_t> &IntScalars,
              std::map<std::string, HostTensor> &Results);
  /// The `ran` line, --output files and --check once \p Results are in:
  /// 0, 1 when results differ from the reference, nothing after an error.
  std::optional<int>
  report(const std::string &RanOn, const Function &RefF,
         std::map<std::string, HostTensor> &Tensors,
         const std::map<std::string, HostTensor> &Results,
         const std::map<std::string, double> &ScalarValues,
         const std::vector<std::pair<std::string, std::string>> &OutArgs,
         llvm::SourceMgr &SM);
  std::optional<std::vector<int64_t>> shapeOf(const BufferValue &B);
  std::optional<double> countFlops(const Function &Fn);

  const JitOptions &Opts;
  const TargetRegistry &Registry;
  llvm::raw_ostream &Out, &Err;
  const Function *F = nullptr;
  std::map<std::string, int64_t> DimValues;
  /// Inputs whose rank differs from their declaration (they bind nothing).
  std::vector<std::string> RankMismatch;
  llvm::DenseSet<const Value *> Read, Written;
};

} // namespace

/// Bytes of physical memory, where the system says.
static std::optional<uint64_t> getPhysicalMemory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long Pages = sysconf(_SC_PHYS_PAGES), Size = sysconf(_SC_PAGESIZE);
  if (Pages > 0 && Size > 0)
    return uint64_t(Pages) * uint64_t(Size);
#endif
  return std::nullopt;
}

/// \p V as a value of integer dtype \p Ty (decimal, or 0x hexadecimal;
/// true/false for i1), or nothing when it is not one.
static std::optional<int64_t> parseIntegerScalar(llvm::StringRef V, DType Ty) {
  unsigned Bits = getDTypeBits(Ty);
  if (isBool(Ty)) {
    if (V == "true" || V == "1")
      return 1;
    if (V == "false" || V == "0")
      return 0;
    return std::nullopt;
  }
  if (isUnsigned(Ty)) {
    uint64_t U;
    if (V.getAsInteger(0, U) || (Bits < 64 && U >> Bits))
      return std::nullopt;
    return int64_t(U);
  }
  int64_t I;
  if (V.getAsInteger(0, I) ||
      (Bits < 64 && (I < -(int64_t(1) << (Bits - 1)) ||
                     I >= (int64_t(1) << (Bits - 1)))))
    return std::nullopt;
  return I;
}

/// What parseIntegerScalar accepts for \p Ty, for error messages.
static std::string describeIntegerRange(DType Ty) {
  unsigned Bits = getDTypeBits(Ty);
  if (isBool(Ty))
    return "true, false, 0 or 1";
  if (isUnsigned(Ty))
    return "an integer in [0, " +
           std::to_string(Bits < 64 ? (uint64_t(1) << Bits) - 1 : UINT64_MAX) +
           "]";
  return "an integer in [" +
         std::to_string(Bits < 64 ? -(int64_t(1) << (Bits - 1)) : INT64_MIN) +
         ", " +
         std::to_string(Bits < 64 ? (int64_t(1) << (Bits - 1)) - 1 : INT64_MAX) +
         "]";
}

void Jit::analyzeAccess() {
  walkStmts(F->getBody(), [&](const Stmt &CS) {
    Stmt &S = const_cast<Stmt &>(CS);
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *V) {
        if (V->isBuffer())
          Read.insert(V);
      });
    });
    if (const auto *St = dyn_cast<StoreStmt>(&S))
      Written.insert(St->getBuffer());
    if (const auto *Op = dyn_cast<OpStmt>(&S))
      for (unsigned I = 0; I != Op->getOperands().size(); ++I) {
        const OpOperand &O = Op->getOperand(I);
        if (O.Kind != OperandKind::Region)
          continue;
        if (Op->getInfo().Operands[I].Written) {
          Written.insert(O.R.Buf);
          if (Op->getName() == "atomic" || Op->getName() == "atomic_elem" ||
              (Op->getName() == "reduce" &&
               !Op->getAttrOrDefault("clear").getBool()) ||
              (Op->getName() == "gemm" &&
               !Op->getAttrOrDefault("clear_accum").getBool()))
            Read.insert(O.R.Buf); // read-modify-write
        } else {
          Read.insert(O.R.Buf);
        }
      }
  });
}

std::optional<std::vector<int64_t>> Jit::shapeOf(const BufferValue &B) {
  std::vector<int64_t> S;
  for (const ExprPtr &D : B.getShape()) {
    if (std::optional<int64_t> C = D->getConstInt()) {
      S.push_back(*C);
      continue;
    }
    llvm::StringRef Name = cast<RefExpr>(*D).getValue()->getName();
    auto It = DimValues.find(Name.str());
    if (It == DimValues.end()) {
      std::string Why;
      for (const std::string &R : RankMismatch)
        Why += "; " + R + ", so it gives no dimension";
      fail("symbolic dimension '" + Name + "' of tensor '" + B.getName() +
           "' has no value; pass --dim " + Name +
           "=<n> or an --input tensor that has it" + Why);
      return std::nullopt;
    }
    S.push_back(It->second);
  }
  return S;
}

std::optional<double> Jit::countFlops(const Function &Fn) {
  // 2*M*N*K per gemm execution; executions from the grid and the trip
  // counts of enclosing loops, evaluated per block when they depend on it.
  llvm::DenseMap<const Value *, int64_t> Env;
  for (const auto &D : Fn.getDims())
    if (auto It = DimValues.find(D->getName().str()); It != DimValues.end())
      Env[D.get()] = It->second;
  bool Unknown = false;
  std::function<std::optional<int64_t>(const Expr &)> Eval =
      [&](const Expr &E) -> std::optional<int64_t> {
    if (auto C = E.getConstInt())
      return C;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      auto It = Env.find(R->getValue());
      if (It == Env.end())
        return std::nullopt;
      return It->second;
    }
    auto Two = [&](const Expr &A, const Expr &B)
        -> std::optional<std::pair<int64_t, int64_t>> {
      auto X = Eval(A), Y = Eval(B);
      if (!X || !Y)
        return std::nullopt;
      return std::make_pair(*X, *Y);
    };
    if (const auto *B = dyn_cast<BinaryExpr>(&E)) {
      auto V = Two(*B->getLHS(), *B->getRHS());
      if (!V)
        return std::nullopt;
      switch (B->getOp()) {
      case BinaryOp::Add: return V->first + V->second;
      case BinaryOp::Sub: return V->first - V->second;
      case BinaryOp::Mul: return V->first * V->second;
      case BinaryOp::Div: return V->second ? V->first / V->second : 0;
      default: return std::nullopt;
      }
    }
    if (const auto *C = dyn_cast<CallExpr>(&E)) {
      if (C->getArgs().size() != 2)
        return std::nullopt;
      auto V = Two(*C->getArgs()[0], *C->getArgs()[1]);
      if (!V)
        return std::nullopt;
      switch (C->getIntrinsic()) {
      case Intrinsic::Min: return std::min(V->first, V->second);
      case Intrinsic::Max: return std::max(V->first, V->second);
      case Intrinsic::CeilDiv:
        return V->second ? (V->first + V->second - 1) / V->second : 0;
      case Intrinsic::FloorDiv: return V->second ? V->first / V->second : 0;
      default: return std::nullopt;
      }
    }
    return std::nullopt;
  };
  std::function<double(const Block &)> Walk = [&](const Block &B) -> double {
    double Sum = 0;
    for (const StmtPtr &S : B.Stmts) {
      if (const auto *L = dyn_cast<LetStmt>(S.get())) {
        if (auto V = Eval(*L->getInit()))
          Env[L->getVar()] = *V;
        continue;
      }
      if (const auto *Op = dyn_cast<OpStmt>(S.get()); Op && Op->getName() == "gemm") {
        double P = 2;
        for (const char *N : {"a", "b"}) {
          std::vector<const Expr *> Ext = getRegionExtentExprs(Op->getOperand(N).R, nullptr);
          std::optional<int64_t> X = Eval(*Ext[Ext.size() - 2]), Y = Eval(*Ext.back());
          if (!X || !Y) {
            Unknown = true;
            return 0;
          }
          P *= N[0] == 'a' ? double(*X) * *Y : (Op->getAttrOrDefault("transpose_b").getBool() ? *X : *Y);
        }
        Sum += P;
        continue;
      }
      if (const auto *Fo = dyn_cast<ForStmt>(S.get())) {
        double Trips = 1;
        for (const LoopDim &D : Fo->getDims()) {
          auto Lo = D.Lo ? Eval(*D.Lo) : std::optional<int64_t>(0);
          auto Hi = Eval(*D.Hi);
          std::optional<int64_t> Step = Fo->getStep() ? Eval(*Fo->getStep()) : 1;
          if (!Lo || !Hi || !Step || *Step <= 0) {
            Unknown = true;
            return 0;
          }
          Trips *= std::max<int64_t>(0, (*Hi - *Lo + *Step - 1) / *Step);
        }
        Sum += Trips * Walk(Fo->getBody());
        continue;
      }
      if (const auto *K = dyn_cast<KernelStmt>(S.get())) {
        std::vector<int64_t> G;
        for (const ExprPtr &E : K->getGrid()) {
          auto V = Eval(*E);
          if (!V) {
            Unknown = true;
            return 0;
          }
          G.push_back(*V);
        }
        G.resize(3, 1);
        // Per block when cheap enough, so block-dependent bounds count.
        int64_t Blocks = G[0] * G[1] * G[2];
        if (Blocks <= 65536) {
          for (int64_t Z = 0; Z < G[2]; ++Z)
            for (int64_t Y = 0; Y < G[1]; ++Y)
              for (int64_t X = 0; X < G[0]; ++X) {
                int64_t Idx[3] = {X, Y, Z};
                for (unsigned D = 0; D != K->getBlockIndices().size(); ++D)
                  Env[K->getBlockIndices()[D].get()] = Idx[D];
                Sum += Walk(K->getBody());
              }
        } else {
          for (const auto &V : K->getBlockIndices())
            Env.erase(V.get());
          Sum += double(Blocks) * Walk(K->getBody());
        }
        continue;
      }
    }
    return Sum;
  };
  double Flops = Walk(Fn.getBody());
  if (Unknown)
    return std::nullopt;
  return Flops;
}

int Jit::run() {
  // Parse with every registered dialect.
  TileContext TC;
  TC.getRemarks().setFilter(Opts.Remarks);
  TC.getRemarks().setOutput(&Err);
  Registry.registerDialects(TC.getOpRegistry());
  llvm::SourceMgr SM;
  DiagnosticEngine Diag(&SM, &Err);
  auto T0 = std::chrono::steady_clock::now();
  // Read here rather than in parseSourceFile, whose unreadable-file error
  // has no location and would print as "<unknown>: error".
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFileOrSTDIN(Opts.InputFile, /*IsText=*/true);
  if (!Buf)
    return fail("cannot read '" + Opts.InputFile +
                "': " + Buf.getError().message());
  unsigned BufID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  std::unique_ptr<Module> M = parseModule(SM, BufID, TC, Diag);
  if (!M || !verifyModule(*M, Diag))
    return 1;
  double ParseSec =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  if (M->getFunctions().empty())
    return fail("'" + Opts.InputFile + "' has no function to run");
  if (Opts.Entry.empty()) {
    if (M->getFunctions().size() != 1) {
      std::string Names;
      for (const auto &Fn : M->getFunctions())
        Names += (Names.empty() ? "@" : ", @") + Fn->getName().str();
      return fail("'" + Opts.InputFile + "' has several functions (" + Names +
                  "); choose one with -entry=NAME");
    }
    F = M->getFunctions().front().get();
  } else {
    F = M->lookupFunction(Opts.Entry);
    if (!F) {
      std::string Names;
      for (const auto &Fn : M->getFunctions())
        Names += (Names.empty() ? "" : ", ") + Fn->getName().str();
      return fail("no function '" + Opts.Entry + "' in '" + Opts.InputFile +
                  "'; it has: " + Names);
    }
  }
  // Only the chosen function is compiled; the reference keeps a pristine copy.
  auto Single = std::make_unique<Module>(TC);
  Single->addFunction(F->clone());
  F = Single->getFunctions().front().get();
  std::unique_ptr<Module> Pristine = Single->clone();
  const Function &RefF = *Pristine->getFunctions().front();
  analyzeAccess();

  // Dimensions, inputs, outputs and scalars named on the command line.
  std::vector<std::pair<std::string, std::string>> DimArgs, InArgs, OutArgs,
      ScalarArgs;
  if (!splitPairs(Opts.Dims, "dim", DimArgs) ||
      !splitPairs(Opts.Inputs, "input", InArgs) ||
      !splitPairs(Opts.Outputs, "output", OutArgs) ||
      !splitPairs(Opts.Scalars, "scalar", ScalarArgs))
    return 1;
  for (auto &[K, V] : DimArgs) {
    if (!F->lookupDim(K)) {
      std::string Names;
      for (const auto &D : F->getDims())
        Names += (Names.empty() ? "" : ", ") + D->getName().str();
      return fail("--dim " + K + ": '@" + F->getName() +
                  "' has no symbolic dimension '" + K +
                  "'; its dimensions are: " + (Names.empty() ? "none" : Names));
    }
    int64_t N;
    if (llvm::StringRef(V).getAsInteger(10, N) || N < 0)
      return fail("--dim " + K + "=" + V + ": expected a non-negative integer");
    // The entry point rejects larger extents; refuse before allocating.
    if (N > INT32_MAX)
      return fail("--dim " + K + "=" + V +
                  ": beyond the 32-bit index range (at most " +
                  llvm::Twine(INT32_MAX) + ")");
    if (auto [It, New] = DimValues.insert({K, N}); !New)
      return fail("--dim " + K + " is given twice (" + llvm::Twine(It->second) +
                  " and " + llvm::Twine(N) + ")");
  }
  std::map<std::string, int64_t> DimFromCommandLine = DimValues;
  std::map<std::string, HostTensor> Tensors;
  for (auto &[K, V] : InArgs) {
    const Value *P = findParam(K);
    if (!P || !P->isBuffer())
      return fail("--input " + K + ": '@" + F->getName() +
                  "' has no tensor parameter '" + K +
                  "'; its tensors are: " + listParams(true));
    // The declared dtype is the hint that reads a file of unsigned 16- or
    // 8-bit integers as the bf16 or fp8 bit patterns writeNpy stores.
    const auto *B = cast<BufferValue>(P);
    llvm::Expected<HostTensor> T = readNpy(V, B->getDType());
    if (!T)
      return fail("--input " + K + ": " + llvm::toString(T.takeError()));
    // Bind dimensions from the file where the ranks agree; disagreements
    // between tensors are left to the entry point's checks. A file that
    // contradicts --dim is an error here: the tool would otherwise report
    // the --dim value while the kernel runs with the file's.
    if (T->getShape().size() == B->getRank()) {
      for (unsigned D = 0; D != B->getRank(); ++D) {
        const auto *R = dyn_cast<RefExpr>(B->getShape()[D].get());
        if (!R)
          continue;
        std::string Sym = R->getValue()->getName().str();
        auto It = DimFromCommandLine.find(Sym);
        if (It != DimFromCommandLine.end() && It->second != T->getShape()[D])
          return fail("--input " + K + ": dimension " + llvm::Twine(D) + " (" +
                      Sym + ") of '" + V + "' is " +
                      llvm::Twine(T->getShape()[D]) + ", but --dim " + Sym +
                      "=" + llvm::Twine(It->second));
        DimValues.insert({Sym, T->getShape()[D]});
      }
    } else {
      RankMismatch.push_back("--input " + K + " has rank " +
                             std::to_string(T->getShape().size()) + ", but '" +
                             K + "' is declared with rank " +
                             std::to_string(B->getRank()));
    }
    Tensors[K] = std::move(*T);
  }
  for (auto &[K, V] : OutArgs) {
    const Value *P = findParam(K);
    if (!P || !P->isBuffer())
      return fail("--output " + K + ": '@" + F->getName() +
                  "' has no tensor parameter '" + K +
                  "'; its tensors are: " + listParams(true));
  }
  std::map<std::string, double> ScalarValues;
  // Integer scalars from the command line, exact beyond 2^53.
  std::map<std::string, int64_t> IntScalars;
  for (auto &[K, V] : ScalarArgs) {
    const Value *P = findParam(K);
    if (!P || P->isBuffer())
      return fail("--scalar " + K + ": '@" + F->getName() +
                  "' has no scalar parameter '" + K +
                  "'; its scalars are: " + listParams(false));
    DType Ty = P->getDType();
    if (isFloat(Ty)) {
      double D;
      if (llvm::StringRef(V).getAsDouble(D))
        return fail("--scalar " + K + "=" + V + ": expected a number");
      ScalarValues[K] = D;
      continue;
    }
    // Integers are passed exactly and must fit the declared type; a
    // fraction or an out-of-range value is not silently truncated.
    std::optional<int64_t> I = parseIntegerScalar(V, Ty);
    if (!I)
      return fail("--scalar " + K + "=" + V + ": '" + K + "' is " +
                  getDTypeName(Ty) + "; expected " + describeIntegerRange(Ty));
    IntScalars[K] = *I;
    ScalarValues[K] = double(*I);
  }
  std::mt19937_64 Rng(Opts.Seed);
  std::optional<uint64_t> PhysMem = getPhysicalMemory();
  uint64_t NewTensorBytes = 0;
  for (const auto &P : F->getParams()) {
    std::string Name = P->getName().str();
    if (!P->isBuffer()) {
      if (ScalarValues.count(Name))
        continue;
      if (!Opts.Random)
        return fail("no value for scalar '" + Name + "'; pass --scalar " + Name +
                    "=<value> or --random");
      // Random scalars are positive and moderate: scales, epsilons.
      ScalarValues[Name] = isFloat(P->getDType())
                               ? std::uniform_real_distribution<double>(0.5, 1.0)(Rng)
                               : double(std::uniform_int_distribution<int>(1, 8)(Rng));
      continue;
    }
    if (Tensors.count(Name))
      continue;
    const auto *B = cast<BufferValue>(P.get());
    bool Input = Read.count(B) || !Written.count(B);
    if (Input && !Opts.Random)
      return fail("no input for tensor '" + Name + "'; pass --input " + Name +
                  "=<file.npy> or --random");
    std::optional<std::vector<int64_t>> Shape = shapeOf(*B);
    if (!Shape)
      return 1;
    // Refuse what cannot fit rather than abort in the allocator.
    uint64_t Bytes = getDTypeBytes(B->getDType());
    bool TooBig = false;
    for (int64_t D : *Shape) {
      TooBig |= D && Bytes > UINT64_MAX / uint64_t(D);
      Bytes *= uint64_t(D);
    }
    NewTensorBytes += Bytes;
    if (TooBig || (PhysMem && NewTensorBytes > *PhysMem)) {
      std::string Dims;
      for (int64_t D : *Shape)
        Dims += (Dims.empty() ? "" : ", ") + std::to_string(D);
      return fail("tensor '" + Name + "' (" + getDTypeName(B->getDType()) +
                  "[" + Dims + "]) does not fit in memory (" +
                  (TooBig ? std::string("more than 2^64 bytes")
                          : std::to_string(NewTensorBytes >> 20) +
                                " MiB for the tensors made so far, " +
                                std::to_string(*PhysMem >> 20) +
                                " MiB here") +
                  "); choose smaller dimensions");
    }
    HostTensor T(B->getDType(), *Shape);
    if (Input)
      T.fillRandom(Rng);
    else
      T.poison();
    Tensors[Name] = std::move(T);
  }

  // Resolve once, compile, build and load.
  ResolveOptions RO;
  // The emulator runs on the host: the execution backend is not used.
  RO.RequireAvailable = !Opts.Emulate;
  llvm::Expected<BackendContext> Ctx = resolveBackendContext(
      Registry, Opts.Target, Opts.HostTarget, Opts.ExecBackend, RO);
  if (!Ctx)
    return fail(llvm::toString(Ctx.takeError()));
  CompileTimings Timings;
  Timings.add("parse+verify", ParseSec);
  if (Opts.Emulate) {
    std::map<std::string, HostTensor> Results;
    if (emulate(*Ctx, *Single, Diag, Timings, SM, Tensors, ScalarValues,
                IntScalars, Results))
      return 1;
    std::optional<int> RC = report(Ctx->getTarget().str() + " (emulated)", RefF,
                                   Tensors, Results, ScalarValues, OutArgs, SM);
    return RC ? *RC : 1;
  }
  // The execution backend starts (a GPU driver's initialisation and context
  // take ~0.1 s) on its own thread while the module compiles. Native target
  // registration, which both sides may ask for, happens here first, once.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutorOptions EO;
  EO.NumThreads = Opts.Threads;
  std::optional<llvm::Expected<std::unique_ptr<Executor>>> Started;
  std::thread Starter([&, Kind = Ctx->getExecBackend().Kind] {
    Started.emplace(Executor::create(Kind, EO));
  });
  llvm::scope_exit JoinStarter([&] {
    if (Starter.joinable())
      Starter.join();
    if (Started && !*Started) // a compile error came first
      llvm::consumeError(Started->takeError());
  });
  llvm::Expected<KernelArtifact> A = compileModule(Registry, *Ctx, *Single, Diag, &Timings);
  if (!A) {
    std::string Msg = llvm::toString(A.takeError());
    if (Diag.hadError() && llvm::StringRef(Msg).starts_with("the module uses ops"))
      return 1; // already reported with its location
    if (llvm::StringRef(Msg).contains(": error: ")) {
      Err << Msg << (llvm::StringRef(Msg).ends_with("\n") ? "" : "\n");
      return 1; // a located diagnostic from the pipeline, already formatted
    }
    return fail(Msg);
  }
  auto TL = std::chrono::steady_clock::now();
  Starter.join();
  llvm::Expected<std::unique_ptr<Executor>> &Ex = *Started;
  if (!Ex)
    return fail(llvm::toString(Ex.takeError()));
  auto TM = std::chrono::steady_clock::now();
  // What is left of the executor's start once the compile is done.
  Timings.add("executor wait",
              std::chrono::duration<double>(TM - TL).count());
  llvm::Expected<std::unique_ptr<LoadedArtifact>> L = (*Ex)->load(*A);
  if (!L)
    return fail("cannot load the artifact on '" +
                llvm::Twine(Ctx->getExecBackend().Name) +
                "': " + llvm::toString(L.takeError()));
  Timings.add("load", std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - TM)
                          .count());
  if (Opts.PrintCompileTime) {
    Out << "compile time (" << Ctx->getTarget().str() << ", "
        << Ctx->getExecBackend().Name << "):\n";
    Timings.print(Out);
  }

  // Device copies of the tensors, and the argument list.
  struct DeviceTensor {
    void *Ptr = nullptr;
    std::vector<int64_t> Shape;
    DLTensor DL;
  };
  std::vector<DeviceTensor> Dev(F->getParams().size());
  std::vector<TileArg> Args(F->getParams().size());
  auto Cleanup = [&] {
    for (DeviceTensor &D : Dev)
      if (D.Ptr)
        (*Ex)->deallocate(D.Ptr);
  };
  for (unsigned I = 0; I != F->getParams().size(); ++I) {
    const Value *P = F->getParams()[I].get();
    std::string Name = P->getName().str();
    if (!P->isBuffer()) {
      if (isFloat(P->getDType())) {
        Args[I].kind = TILE_ARG_FLOAT;
        Args[I].value.f64 = ScalarValues[Name];
      } else {
        Args[I].kind = TILE_ARG_INT;
        auto It = IntScalars.find(Name);
        Args[I].value.i64 =
            It != IntScalars.end() ? It->second : int64_t(ScalarValues[Name]);
      }
      continue;
    }
    HostTensor &T = Tensors[Name];
    auto Mem = (*Ex)->allocate(std::max<size_t>(T.getNumBytes() + Opts.DataOffset, 1));
    if (!Mem) {
      Cleanup();
      return fail(llvm::toString(Mem.takeError()));
    }
    Dev[I].Ptr = *Mem;
    if (llvm::Error E = (*Ex)->copyToDevice(static_cast<char *>(*Mem) + Opts.DataOffset,
                                            T.data(), T.getNumBytes())) {
      Cleanup();
      return fail(llvm::toString(std::move(E)));
    }
    Dev[I].Shape = T.getShape();
    DLTensor &DL = Dev[I].DL;
    DL.data = *Mem;
    DL.device = {static_cast<DLDeviceType>((*Ex)->getDLDeviceType()), 0};
    DL.ndim = int32_t(T.getShape().size());
    auto [Code, Bits] = getDLPackType(T.getDType());
    DL.dtype = {Code, Bits, 1};
    DL.shape = Dev[I].Shape.data();
    DL.strides = nullptr;
    DL.byte_offset = Opts.DataOffset;
    Args[I].kind = TILE_ARG_TENSOR;
    Args[I].value.tensor = &DL;
  }
  auto Call = [&]() -> llvm::Error {
    if (llvm::Error E = (*L)->call(F->getName(), Args))
      return E;
    return (*Ex)->synchronize();
  };
  if (llvm::Error E = Call()) {
    Cleanup();
    return fail(llvm::toString(std::move(E)));
  }
  // Results back to the host.
  std::map<std::string, HostTensor> Results;
  for (unsigned I = 0; I != F->getParams().size(); ++I) {
    const Value *P = F->getParams()[I].get();
    if (!P->isBuffer() || !Written.count(P))
      continue;
    HostTensor R = Tensors[P->getName().str()];
    if (llvm::Error E = (*Ex)->copyFromDevice(
            R.data(), static_cast<char *>(Dev[I].Ptr) + Opts.DataOffset,
            R.getNumBytes())) {
      Cleanup();
      return fail(llvm::toString(std::move(E)));
    }
    Results[P->getName().str()] = std::move(R);
  }
  std::optional<int> Checked =
      report(Ctx->getTarget().str() + " (" + Ctx->getExecBackend().Name + ")",
             RefF, Tensors, Results, ScalarValues, OutArgs, SM);
  if (!Checked) {
    Cleanup();
    return 1;
  }
  int RC = *Checked;

  if (Opts.Bench) {
    for (int W = 0; W < 2; ++W)
      if (llvm::Error E = Call()) {
        Cleanup();
        return fail(llvm::toString(std::move(E)));
      }
    // Device work is timed on the device's clock where the executor has
    // one (the host's packed-API checks and launch stay outside), otherwise
    // with the host clock around the call and the wait.
    llvm::Expected<std::unique_ptr<DeviceTimer>> Timer = (*Ex)->createTimer();
    if (!Timer) {
      Cleanup();
      return fail(llvm::toString(Timer.takeError()));
    }
    std::vector<double> Times;
    for (unsigned I = 0; I != Opts.Bench; ++I) {
      auto S = std::chrono::steady_clock::now();
      llvm::Error E = llvm::Error::success();
      if (*Timer) {
        E = (*Timer)->start();
        if (!E)
          E = (*L)->call(F->getName(), Args);
        if (!E) {
          llvm::Expected<double> T = (*Timer)->stop();
          if (T)
            Times.push_back(*T);
          else
            E = T.takeError();
        }
      } else if (!(E = Call())) {
        Times.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - S)
                            .count());
      }
      if (E) {
        Cleanup();
        return fail(llvm::toString(std::move(E)));
      }
    }
    std::sort(Times.begin(), Times.end());
    double Med = Times[Times.size() / 2];
    double Bytes = 0;
    for (auto &[K, T] : Tensors)
      Bytes += double(T.getNumBytes()) * ((Read.count(findParam(K)) ? 1 : 0) +
                                          (Written.count(findParam(K)) ? 1 : 0));
    Out << llvm::format("bench: median %.3f ms over %u runs, %.2f GB/s "
                        "(tensor bytes read + written)",
                        Med * 1e3, Opts.Bench, Bytes / Med / 1e9);
    if (std::optional<double> Fl = countFlops(RefF); Fl && *Fl > 0)
      Out << llvm::format(", %.2f GFLOP/s", *Fl / Med / 1e9);
    Out << (*Timer ? "; device clock\n" : "; host clock\n");
  }
  Cleanup();
  return RC;
}

/// \p Index of a row-major tensor of \p Shape as coordinates.
static std::string formatCoordinates(int64_t Index,
                                     const std::vector<int64_t> &Shape) {
  std::vector<int64_t> C(Shape.size());
  for (size_t D = Shape.size(); D-- > 0;) {
    C[D] = Shape[D] ? Index % Shape[D] : 0;
    Index = Shape[D] ? Index / Shape[D] : 0;
  }
  std::string S = "[";
  for (size_t D = 0; D != C.size(); ++D)
    S += (D ? ", " : "") + std::to_string(C[D]);
  return S + "]";
}

std::optional<int>
Jit::report(const std::string &RanOn, const Function &RefF,
            std::map<std::string, HostTensor> &Tensors,
            const std::map<std::string, HostTensor> &Results,
            const std::map<std::string, double> &ScalarValues,
            const std::vector<std::pair<std::string, std::string>> &OutArgs,
            llvm::SourceMgr &SM) {
  Out << "ran @" << F->getName() << " on " << RanOn;
  if (!DimValues.empty()) {
    Out << " with";
    for (auto &[K, V] : DimValues)
      Out << " " << K << "=" << V;
  }
  Out << "\n";
  for (auto &[K, V] : OutArgs) {
    auto It = Results.find(K);
    const HostTensor &T = It != Results.end() ? It->second : Tensors[K];
    if (llvm::Error E = writeNpy(V, T)) {
      fail(llvm::toString(std::move(E)));
      return std::nullopt;
    }
  }
  int RC = 0;
  if (!Opts.Check)
    return RC;
  std::map<std::string, HostTensor> Initial;
  for (auto &[K, V] : Tensors)
    Initial[K] = V;
  llvm::Expected<std::map<std::string, ReferenceResult>> Ref =
      runReference(RefF, Initial, ScalarValues, SM);
  if (!Ref) {
    fail("reference interpreter: " + llvm::toString(Ref.takeError()));
    return std::nullopt;
  }
  for (auto &[Name, R] : Results) {
    auto It = Ref->find(Name);
    if (It == Ref->end())
      continue;
    CheckReport C = compareWithReference(R, It->second);
    Out << "check " << Name << " (" << getDTypeName(R.getDType()) << ", "
        << R.getNumElements() << " elements): "
        << llvm::format("max abs error %.3e, max rel error %.3e, tolerance "
                        "atol %.1e rtol %.1e",
                        C.MaxAbsErr, C.MaxRelErr, C.ATol, C.RTol);
    if (C.Failures) {
      Out << ": FAILED at " << C.Failures << " elements (first at index "
          << C.FirstBad;
      if (R.getShape().size() > 1)
        Out << " " << formatCoordinates(C.FirstBad, R.getShape());
      Out << ": got " << llvm::format("%g", C.FirstGot) << ", expected "
          << llvm::format("%g", C.FirstWant) << ")\n";
      RC = 1;
    } else {
      Out << ": ok\n";
    }
  }
  if (RC)
    Err << "tile-jit: error: results differ from the reference interpreter\n";
  return RC;
}

int Jit::emulate(const BackendContext &Ctx, Module &M, DiagnosticEngine &Diag,
                 CompileTimings &Timings, llvm::SourceMgr &SM,
                 std::map<std::string, HostTensor> &Tensors,
                 const std::map<std::string, double> &ScalarValues,
                 const std::map<std::string, int64_t> &IntScalars,
                 std::map<std::string, HostTensor> &Results) {
  const TargetBackendInfo &B = Ctx.getBackend();
  if (!B.Emulator) {
    std::vector<std::string> With;
    for (const TargetBackendInfo *O : Registry.getBackends())
      if (O->Emulator)
        With.push_back(O->Name);
    std::sort(With.begin(), With.end());
    return fail("target '" + Opts.Target + "' (backend " + B.Name +
                ") has no emulator; --emulate runs on the backends that have "
                "one: " +
                (With.empty() ? std::string("none") : llvm::join(With, ", ")));
  }
  if (Opts.Bench)
    return fail("--bench times the execution backend; it cannot be combined "
                "with --emulate");
  if (llvm::Error E = lowerModule(Registry, Ctx, M, Diag, &Timings)) {
    std::string Msg = llvm::toString(std::move(E));
    if (Diag.hadError())
      return 1; // already reported with its location
    if (llvm::StringRef(Msg).contains(": error: ")) {
      Err << Msg << (llvm::StringRef(Msg).ends_with("\n") ? "" : "\n");
      return 1;
    }
    return fail(Msg);
  }
  // The function as the pipeline left it, on the tensors' values.
  const Function &Lowered = *M.lookupFunction(F->getName());
  std::vector<TensorArg> Storage(Lowered.getParams().size());
  std::vector<ArgValue> Args;
  for (size_t I = 0; I != Lowered.getParams().size(); ++I) {
    const Value *P = Lowered.getParams()[I].get();
    std::string Name = P->getName().str();
    if (P->isBuffer()) {
      const HostTensor &T = Tensors[Name];
      Storage[I].Shape = T.getShape();
      Storage[I].Data.resize(size_t(T.getNumElements()));
      for (int64_t E = 0; E != T.getNumElements(); ++E)
        Storage[I].Data[size_t(E)] = T.get(E);
      Args.push_back(ArgValue::tensor(Storage[I]));
    } else if (isFloat(P->getDType())) {
      Args.push_back(ArgValue::scalar(ScalarValues.at(Name)));
    } else {
      auto It = IntScalars.find(Name);
      Args.push_back(ArgValue::integer(It != IntScalars.end()
                                           ? It->second
                                           : int64_t(ScalarValues.at(Name))));
    }
  }
  EmulatorOptions EO;
  EO.SM = &SM;
  EO.DataOffset = Opts.DataOffset;
  auto T0 = std::chrono::steady_clock::now();
  if (llvm::Error E = B.Emulator(Ctx, Lowered, Args, EO)) {
    std::string Msg = llvm::toString(std::move(E));
    if (llvm::StringRef(Msg).contains(": error: ")) {
      Err << Msg << (llvm::StringRef(Msg).ends_with("\n") ? "" : "\n");
      return 1;
    }
    return fail("emulator: " + Msg);
  }
  Timings.add("emulation", std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - T0)
                               .count());
  if (Opts.PrintCompileTime) {
    Out << "compile time (" << Ctx.getTarget().str() << ", emulated):\n";
    Timings.print(Out);
  }
  for (size_t I = 0; I != Lowered.getParams().size(); ++I) {
    const Value *P = F->getParams()[I].get();
    if (!P->isBuffer() || !Written.count(P))
      continue;
    HostTensor R = Tensors[P->getName().str()];
    for (int64_t E = 0; E != R.getNumElements(); ++E)
      R.set(E, Storage[I].Data[size_t(E)]);
    Results[P->getName().str()] = std::move(R);
  }
  return 0;
}

int tile::runJit(const JitOptions &Opts, const TargetRegistry &Registry,
                 llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  if (Opts.InputFile.empty()) {
    llvm::WithColor::error(Err, "tile-jit") << "no input file\n";
    return 1;
  }
  return Jit(Opts, Registry, Out, Err).run();
}
