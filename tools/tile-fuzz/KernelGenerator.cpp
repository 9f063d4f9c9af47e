//===- KernelGenerator.cpp - Random valid Tile kernels --------------------===//
//
// Four program shapes (see KernelGenerator.h): tiled elementwise kernels,
// row kernels that reduce along a serial loop over column tiles, GEMMs with
// an epilogue, and per-thread kernels. Names: inputs %A %B, outputs %O
// (and %R for row results), scalar %s, fragments %a %b %t.
//
//===----------------------------------------------------------------------===//

#include "KernelGenerator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile;

uint64_t ByteChoices::pick(uint64_t N) {
  if (N <= 1)
    return 0;
  uint64_t V = 0;
  // One byte for up to 256 alternatives, two beyond.
  for (uint64_t Span = 1; Span < N && Pos < Bytes.size(); Span <<= 8)
    V = (V << 8) | Bytes[Pos++];
  return V % N;
}

namespace {

template <typename T> const T &oneOf(ChoiceSource &C, llvm::ArrayRef<T> L) {
  return L[C.pick(L.size())];
}

/// Writes one function.
class Generator {
public:
  explicit Generator(ChoiceSource &C) : C(C) {}
  GeneratedKernel run();

private:
  ChoiceSource &C;
  llvm::raw_string_ostream *OS = nullptr;
  bool Int = false;       ///< i32 computation (else f32)
  std::string Global;     ///< dtype of the global tensors
  bool HasScalar = false; ///< a scalar parameter %s of the compute type
  /// Leaves an expression may read: element accesses and scalars of the
  /// compute type. Read-only ones may appear in conditions.
  std::vector<std::string> Leaves, Stable;
  /// Integer index expressions (i32) for position-dependent values.
  std::vector<std::string> Indices;

  bool chance(unsigned Percent) { return C.pick(100) < Percent; }
  int64_t range(int64_t Lo, int64_t Hi) { return Lo + int64_t(C.pick(Hi - Lo + 1)); }
  std::string ty() const { return Int ? "i32" : "f32"; }

  std::string constant();
  std::string leaf();
  std::string cond();
  std::string expr(unsigned Depth);
  std::string floatExpr(unsigned Depth);
  std::string intExpr(unsigned Depth);
  /// A value of the compute type read from a global element.
  std::string load(const std::string &Access) const {
    return Global == ty() ? Access : "cast<" + ty() + ">(" + Access + ")";
  }
  /// \p V converted for a store into a global tensor.
  std::string store(const std::string &V) const {
    return Global == ty() ? V : "cast<" + Global + ">(" + V + ")";
  }
  std::string signature(bool Rank2, bool RowOut);
  void tiled(GeneratedKernel &K);
  void rows(GeneratedKernel &K);
  void gemm(GeneratedKernel &K);
  void perThread(GeneratedKernel &K);
  void parallelBody(const std::string &Indent, const std::string &Target,
                    unsigned Stmts);
};

std::string Generator::constant() {
  if (Int)
    return std::to_string(range(-3, 5));
  static const char *const Fs[] = {"0.5", "2.0", "-1.25", "3.0", "0.125", "1.0", "-0.75"};
  return oneOf<const char *>(C, Fs);
}

std::string Generator::leaf() {
  unsigned K = C.pick(10);
  if (K < 6 && !Leaves.empty())
    return oneOf<std::string>(C, Leaves);
  if (K < 7 && HasScalar)
    return "%s";
  if (K < 8 && !Indices.empty()) {
    std::string I = "floormod(" + oneOf<std::string>(C, Indices) + ", " +
                    std::to_string(range(2, 9)) + ")";
    return Int ? I : "cast<f32>(" + I + ")";
  }
  return constant();
}

std::string Generator::cond() {
  static const char *const Cmp[] = {"<", "<=", ">", ">=", "==", "!="};
  // Float conditions compare values read unchanged from the inputs with a
  // constant: computed values could round to the other side of a tie than
  // the f64 reference does.
  std::string L = !Stable.empty() && (chance(80) || !Int)
                      ? oneOf<std::string>(C, Stable)
                      : leaf();
  std::string Op = Int ? oneOf<const char *>(C, Cmp)
                       : oneOf<const char *>(C, llvm::ArrayRef(Cmp, 4));
  if (!Int && Stable.empty())
    return "true";
  return L + " " + Op + " " + constant();
}

std::string Generator::expr(unsigned Depth) {
  return Int ? intExpr(Depth) : floatExpr(Depth);
}

std::string Generator::floatExpr(unsigned Depth) {
  if (Depth == 0 || chance(25))
    return leaf();
  std::string A = floatExpr(Depth - 1);
  switch (C.pick(16)) {
  case 0: return "(" + A + " + " + floatExpr(Depth - 1) + ")";
  case 1: return "(" + A + " - " + floatExpr(Depth - 1) + ")";
  case 2:
  case 3: return "(" + A + " * " + floatExpr(Depth - 1) + ")";
  case 4: return "(" + A + " / (abs(" + floatExpr(Depth - 1) + ") + 1.0))";
  case 5: return "max(" + A + ", " + floatExpr(Depth - 1) + ")";
  case 6: return "min(" + A + ", " + floatExpr(Depth - 1) + ")";
  case 7: return "select(" + cond() + ", " + A + ", " + floatExpr(Depth - 1) + ")";
  case 8: return "-" + A;
  case 9: return "abs(" + A + ")";
  case 10: return "tanh(" + A + ")";
  case 11: return "exp(tanh(" + A + "))";
  case 12: return "sqrt(abs(" + A + "))";
  case 13: return "log(abs(" + A + ") + 1.0)";
  case 14: return "rsqrt(abs(" + A + ") + 0.5)";
  default: return "exp2(tanh(" + A + ") * 2.0)";
  }
}

std::string Generator::intExpr(unsigned Depth) {
  if (Depth == 0 || chance(25))
    return leaf();
  std::string A = intExpr(Depth - 1);
  std::string Small = std::to_string(range(1, 7));
  switch (C.pick(16)) {
  case 0: return "(" + A + " + " + intExpr(Depth - 1) + ")";
  case 1: return "(" + A + " - " + intExpr(Depth - 1) + ")";
  case 2: return "(" + A + " * " + leaf() + ")";
  case 3: return "(" + A + " / (abs(" + intExpr(Depth - 1) + ") + 1))";
  case 4: return "(" + A + " % " + Small + ")";
  case 5: return "floordiv(" + A + ", " + Small + ")";
  case 6: return "floormod(" + A + ", " + Small + ")";
  case 7: return "max(" + A + ", " + intExpr(Depth - 1) + ")";
  case 8: return "min(" + A + ", " + intExpr(Depth - 1) + ")";
  case 9: return "(" + A + " & " + intExpr(Depth - 1) + ")";
  case 10: return "(" + A + " | " + intExpr(Depth - 1) + ")";
  case 11: return "(" + A + " ^ " + intExpr(Depth - 1) + ")";
  case 12: return "(" + A + " >> " + std::to_string(range(0, 3)) + ")";
  case 13: return "select(" + cond() + ", " + A + ", " + intExpr(Depth - 1) + ")";
  case 14: return "abs(" + A + ")";
  default: return "-" + A;
  }
}

std::string Generator::signature(bool Rank2, bool RowOut) {
  std::string Shape = Rank2 ? "[M, N]" : "[N]";
  std::string S = "func @k(%A: " + Global + Shape + ", %B: " + Global + Shape +
                  ", %O: " + Global + Shape;
  if (RowOut)
    S += ", %R: " + ty() + "[M]";
  if (HasScalar)
    S += ", %s: " + ty();
  return S + ") {\n";
}

void Generator::parallelBody(const std::string &Indent, const std::string &Target,
                             unsigned Stmts) {
  for (unsigned I = 0; I != Stmts; ++I) {
    if (chance(15)) {
      *OS << Indent << "if " << cond() << " {\n"
          << Indent << "  " << Target << " = " << expr(3) << "\n"
          << Indent << "}\n";
      continue;
    }
    *OS << Indent << Target << " = " << expr(3) << "\n";
  }
}

/// grid over tiles of the output; copy in, compute, copy out.
void Generator::tiled(GeneratedKernel &K) {
  bool Rank2 = chance(60);
  int64_t TM = Rank2 ? oneOf<int64_t>(C, {1, 2, 4, 8}) : 1;
  int64_t TN = oneOf<int64_t>(C, {8, 16, 32, 64, 128, 256});
  int64_t Threads = oneOf<int64_t>(C, {32, 64, 128, 256});
  std::string Frag = Rank2 ? "[" + std::to_string(TM) + ", " + std::to_string(TN) + "]"
                           : "[" + std::to_string(TN) + "]";
  std::string Off = Rank2 ? "[%by * " + std::to_string(TM) + ", %bx * " + std::to_string(TN) + "]"
                          : "[%bx * " + std::to_string(TN) + "]";
  std::string Idx = Rank2 ? "[%i, %j]" : "[%j]";
  *OS << signature(Rank2, false);
  *OS << "  kernel grid(ceildiv(N, " << TN << ")" << (Rank2 ? ", ceildiv(M, " + std::to_string(TM) + ")" : "")
      << ") threads(" << Threads << ") (%bx" << (Rank2 ? ", %by" : "") << ") {\n";
  *OS << "    %a = alloc fragment " << ty() << Frag << "\n";
  *OS << "    %b = alloc fragment " << ty() << Frag << "\n";
  bool Staged = chance(30);
  if (Staged) {
    *OS << "    %bs = alloc shared " << Global << Frag << "\n";
    *OS << "    copy %B" << Off << " -> %bs\n";
    *OS << "    copy %bs -> %b\n";
  } else {
    *OS << "    copy %B" << Off << " -> %b\n";
  }
  if (chance(20))
    *OS << "    clear %a\n";
  else
    *OS << "    copy %A" << Off << " -> %a\n";
  Leaves = {"%a" + Idx, "%b" + Idx};
  Stable = {"%b" + Idx};
  Indices = {"%j", "%bx * " + std::to_string(TN) + " + %j"};
  if (Rank2)
    Indices.push_back("%by * " + std::to_string(TM) + " + %i");
  unsigned Loops = 1 + C.pick(2);
  for (unsigned L = 0; L != Loops; ++L) {
    *OS << "    for " << (Rank2 ? "%i, %j" : "%j") << " in parallel("
        << (Rank2 ? std::to_string(TM) + ", " : "") << TN << ") {\n";
    parallelBody("      ", "%a" + Idx, 1 + C.pick(2));
    *OS << "    }\n";
  }
  std::string Out = "%a";
  if (chance(15)) {
    *OS << "    %t = alloc fragment " << ty() << Frag << "\n";
    *OS << "    cumsum %a -> %t {dim = " << (Rank2 ? 1 : 0)
        << (chance(30) ? ", reverse = true" : "") << "}\n";
    Out = "%t";
  }
  *OS << "    copy " << Out << " -> %O" << Off << "\n  }\n}\n";
  K.Dims = {{"N", range(1, 600)}};
  if (Rank2)
    K.Dims.insert(K.Dims.begin(), {"M", range(1, 40)});
}

/// One block per TM rows; a serial loop over column tiles accumulates a
/// reduction per row.
void Generator::rows(GeneratedKernel &K) {
  int64_t TM = oneOf<int64_t>(C, {1, 2, 4});
  int64_t TN = oneOf<int64_t>(C, {16, 32, 64, 128, 256});
  int64_t Threads = oneOf<int64_t>(C, {32, 64, 128});
  static const char *const Kinds[] = {"sum", "max", "min", "abssum", "absmax"};
  std::string Kind = oneOf<const char *>(C, Kinds);
  std::string Frag = "[" + std::to_string(TM) + ", " + std::to_string(TN) + "]";
  std::string Off = "[%bx * " + std::to_string(TM) + ", %t * " + std::to_string(TN) + "]";
  *OS << signature(true, true);
  *OS << "  kernel grid(ceildiv(M, " << TM << ")) threads(" << Threads << ") (%bx) {\n";
  *OS << "    %a = alloc fragment " << ty() << Frag << "\n";
  *OS << "    %b = alloc fragment " << ty() << Frag << "\n";
  *OS << "    %acc = alloc fragment " << ty() << "[" << TM << "]\n";
  if (chance(50))
    *OS << "    clear %acc\n";
  else
    *OS << "    fill %acc, " << constant() << "\n";
  *OS << "    for %t in serial(0, ceildiv(N, " << TN << ")) {\n";
  *OS << "      copy %A" << Off << " -> %a\n";
  *OS << "      copy %B" << Off << " -> %b\n";
  Leaves = {"%a[%i, %j]", "%b[%i, %j]"};
  Stable = {"%b[%i, %j]"};
  Indices = {"%j", "%t * " + std::to_string(TN) + " + %j"};
  *OS << "      for %i, %j in parallel(" << TM << ", " << TN << ") {\n";
  parallelBody("        ", "%a[%i, %j]", 1 + C.pick(2));
  *OS << "      }\n";
  *OS << "      reduce " << Kind << " %a -> %acc {dim = 1, clear = false}\n";
  *OS << "      copy %a -> %O" << Off << "\n";
  *OS << "    }\n";
  Leaves = {"%acc[%i]"};
  Stable.clear();
  Indices = {"%i"};
  if (chance(60)) {
    *OS << "    for %i in parallel(" << TM << ") {\n";
    parallelBody("      ", "%acc[%i]", 1);
    *OS << "    }\n";
  }
  *OS << "    copy %acc -> %R[%bx * " << TM << "]\n  }\n}\n";
  K.Dims = {{"M", range(1, 24)}, {"N", range(1, 700)}};
}

/// C = A * B with shared-memory tiles and a K loop, then an epilogue.
void Generator::gemm(GeneratedKernel &K) {
  Int = false;
  Global = oneOf<std::string>(C, {"f16", "f16", "bf16", "f32"});
  int64_t BM = oneOf<int64_t>(C, {16, 32, 64, 128});
  int64_t BN = oneOf<int64_t>(C, {16, 32, 64, 128});
  int64_t BK = oneOf<int64_t>(C, {16, 32});
  int64_t Threads = oneOf<int64_t>(C, {64, 128, 256});
  bool TransB = chance(25);
  *OS << "func @k(%A: " << Global << "[M, K], %B: " << Global
      << (TransB ? "[N, K]" : "[K, N]") << ", %O: f32[M, N]" << (HasScalar ? ", %s: f32" : "")
      << ") {\n";
  *OS << "  kernel grid(ceildiv(N, " << BN << "), ceildiv(M, " << BM << ")) threads("
      << Threads << ") (%bx, %by) {\n";
  *OS << "    %As = alloc shared " << Global << "[" << BM << ", " << BK << "]\n";
  if (TransB)
    *OS << "    %Bs = alloc shared " << Global << "[" << BN << ", " << BK << "]\n";
  else
    *OS << "    %Bs = alloc shared " << Global << "[" << BK << ", " << BN << "]\n";
  *OS << "    %Cf = alloc fragment f32[" << BM << ", " << BN << "]\n";
  *OS << "    clear %Cf\n";
  if (chance(50))
    *OS << "    for %k in pipelined(0, ceildiv(K, " << BK << "), stages = " << range(2, 3)
        << ") {\n";
  else
    *OS << "    for %k in serial(0, ceildiv(K, " << BK << ")) {\n";
  *OS << "      copy %A[%by * " << BM << ", %k * " << BK << "] -> %As\n";
  if (TransB)
    *OS << "      copy %B[%bx * " << BN << ", %k * " << BK << "] -> %Bs\n";
  else
    *OS << "      copy %B[%k * " << BK << ", %bx * " << BN << "] -> %Bs\n";
  *OS << "      gemm %As, %Bs -> %Cf" << (TransB ? " {transpose_b = true}" : "") << "\n";
  *OS << "    }\n";
  if (chance(50)) {
    Leaves = {"%Cf[%i, %j]"};
    Stable.clear();
    Indices = {"%j", "%by * " + std::to_string(BM) + " + %i"};
    *OS << "    for %i, %j in parallel(" << BM << ", " << BN << ") {\n";
    parallelBody("      ", "%Cf[%i, %j]", 1);
    *OS << "    }\n";
  }
  *OS << "    copy %Cf -> %O[%by * " << BM << ", %bx * " << BN << "]\n  }\n}\n";
  K.Dims = {{"M", range(1, 160)}, {"N", range(1, 160)}, {"K", range(1, 96)}};
}

/// Hand-written per-thread code: a guarded index, a var, a serial loop.
void Generator::perThread(GeneratedKernel &K) {
  int64_t Threads = oneOf<int64_t>(C, {32, 64, 128, 256});
  *OS << signature(false, false);
  *OS << "  kernel grid(ceildiv(N, " << Threads << ")) threads(" << Threads
      << ") (%bx) thread(%tx) {\n";
  *OS << "    %acc = alloc var " << ty() << "\n";
  *OS << "    let %g = %bx * " << Threads << " + %tx\n";
  *OS << "    if %g < N {\n";
  Leaves = {load("%A[%g]"), load("%B[%g]")};
  Stable = {load("%B[%g]")};
  Indices = {"%g", "%tx"};
  *OS << "      %acc = " << expr(3) << "\n";
  if (chance(50)) {
    int64_t Trip = range(1, 6);
    *OS << "      for %u in serial(0, " << Trip << ") {\n";
    // The body sees %acc only through a bounded view, so that its values
    // cannot grow from one trip to the next (with %acc itself a leaf,
    // `%acc + abs(%acc) * %acc` squared it on every trip: an f16 result
    // of 4.8e10, stored as inf, against the f64 reference's 4.8e10).
    std::string Keep = Int ? "(%acc & 255)" : "tanh(%acc)";
    Leaves = {Keep, load("%A[min(%g + %u, N - 1)]")};
    Indices = {"%g", "%u"};
    *OS << "        %acc = " << Keep << " + " << expr(2) << "\n";
    *OS << "      }\n";
  }
  *OS << "      %O[%g] = " << store("%acc") << "\n";
  *OS << "    }\n  }\n}\n";
  K.Dims = {{"N", range(1, 2000)}};
}

GeneratedKernel Generator::run() {
  GeneratedKernel K;
  std::string Text;
  llvm::raw_string_ostream S(Text);
  OS = &S;
  unsigned Shape = C.pick(10);
  Int = chance(30);
  Global = Int ? "i32" : oneOf<std::string>(C, {"f32", "f32", "f16", "bf16"});
  HasScalar = chance(40);
  if (Shape < 4)
    tiled(K);
  else if (Shape < 6)
    rows(K);
  else if (Shape < 8)
    gemm(K);
  else
    perThread(K);
  S << "// dims:";
  for (auto &[Name, V] : K.Dims)
    S << " " << Name << "=" << V;
  S << "\n";
  K.Text = std::move(Text);
  return K;
}

} // namespace

GeneratedKernel tile::generateKernel(ChoiceSource &C) {
  return Generator(C).run();
}
