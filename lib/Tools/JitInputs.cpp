//===- JitInputs.cpp - tile-jit: the input and its arguments --------------===//
//
// The first stages of tile-jit: the function to run, read and verified,
// and the values of its dimensions, tensors and scalars, from the command
// line, from .npy files or made at random (tensors the function only
// writes are poisoned instead).
//
//===----------------------------------------------------------------------===//

#include "Jit.h"
#include "tile/Support/Memory.h"
#include "tile/Driver/LaunchCheck.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Verifier.h"
#include "tile/IR/Walk.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include <chrono>
#include <random>
#include <unistd.h>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

bool Jit::fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(Err, "tile-jit") << Msg << "\n";
  return false;
}

/// `NAME=VALUE` lists: the pairs, or an error naming the option.
bool Jit::splitPairs(const std::vector<std::string> &L, llvm::StringRef Opt,
                     std::vector<std::pair<std::string, std::string>> &Pairs) {
  for (const std::string &S : L) {
    auto [K, V] = llvm::StringRef(S).split('=');
    if (!llvm::StringRef(S).contains('=') || K.empty() || V.empty())
      return fail("--" + Opt + " takes NAME=VALUE, got '" + S + "'");
    Pairs.push_back({K.str(), V.str()});
  }
  return true;
}

const Value *Jit::findParam(llvm::StringRef Name) const {
  for (const auto &P : F->getParams())
    if (P->getName() == Name)
      return P.get();
  return nullptr;
}

std::string Jit::listParams(bool Tensors) const {
  std::string S;
  for (const auto &P : F->getParams())
    if (P->isBuffer() == Tensors)
      S += (S.empty() ? "" : ", ") + P->getName().str();
  return S.empty() ? "none" : S;
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

bool Jit::parse() {
  // Parse with every registered dialect.
  TC.getRemarks().setFilter(Opts.Remarks);
  TC.getRemarks().setOutput(&Err);
  Registry.registerDialects(TC.getOpRegistry());
  auto T0 = std::chrono::steady_clock::now();
  // Read here rather than in parseSourceFile, whose unreadable-file error
  // has no location and would print as "<unknown>: error".
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFileOrSTDIN(Opts.InputFile, /*IsText=*/true);
  if (!Buf)
    return fail("cannot read '" + Opts.InputFile +
                "': " + Buf.getError().message());
  unsigned BufID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  Parsed = parseModule(SM, BufID, TC, Diag);
  if (!Parsed || !verifyModule(*Parsed, Diag))
    return false;
  ParseSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  if (Parsed->getFunctions().empty())
    return fail("'" + Opts.InputFile + "' has no function to run");
  if (Opts.Entry.empty()) {
    if (Parsed->getFunctions().size() != 1) {
      std::string Names;
      for (const auto &Fn : Parsed->getFunctions())
        Names += (Names.empty() ? "@" : ", @") + Fn->getName().str();
      return fail("'" + Opts.InputFile + "' has several functions (" + Names +
                  "); choose one with -entry=NAME");
    }
    F = Parsed->getFunctions().front().get();
  } else {
    F = Parsed->lookupFunction(Opts.Entry);
    if (!F) {
      std::string Names;
      for (const auto &Fn : Parsed->getFunctions())
        Names += (Names.empty() ? "" : ", ") + Fn->getName().str();
      return fail("no function '" + Opts.Entry + "' in '" + Opts.InputFile +
                  "'; it has: " + Names);
    }
  }
  // Only the chosen function is compiled; the reference keeps a pristine copy.
  // A function with tunable parameters is specialized for --param (the
  // defaults for the others).
  Generic = F;
  Single = std::make_unique<Module>(TC);
  Single->addFunction(F->clone());
  llvm::Expected<TunableConfig> C = parseParamAssignments(Opts.Params);
  if (!C)
    return fail(llvm::toString(C.takeError()));
  Config = std::move(*C);
  if (llvm::Error E = specializeAndVerifyModule(*Single, Config, Diag)) {
    std::string Msg = llvm::toString(std::move(E));
    return Diag.hadError() ? false : fail(Msg);
  }
  F = Single->getFunctions().front().get();
  Pristine = Single->clone();
  RefF = Pristine->getFunctions().front().get();
  analyzeAccess();
  return true;
}

bool Jit::prepareInputs() {
  // Dimensions, inputs, outputs and scalars named on the command line.
  std::vector<std::pair<std::string, std::string>> DimArgs, InArgs, ScalarArgs;
  if (!splitPairs(Opts.Dims, "dim", DimArgs) ||
      !splitPairs(Opts.Inputs, "input", InArgs) ||
      !splitPairs(Opts.Outputs, "output", OutArgs) ||
      !splitPairs(Opts.Scalars, "scalar", ScalarArgs))
    return false;
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
      return false;
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
  // Launch sizes with these values, before anything runs.
  if (llvm::Error E = checkLaunchGrids(*F, DimValues, IntScalars, &SM)) {
    reportToolError(std::move(E), "tile-jit", Err);
    return false;
  }
  return true;
}
