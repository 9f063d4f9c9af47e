//===- MSLTarget.cpp - MSL hooks of the shared source printer -------------===//
//
// MSL is C++14 with address spaces: buffers are `device` pointers bound by
// index, scalars come in a `constant` struct, shared buffers are
// `threadgroup` arrays declared in the kernel, and a block's threads meet
// at threadgroup_barrier. metal.simdgroup_mma becomes simdgroup_matrix
// code: each simdgroup walks its share of C's 8x8 tiles, loading,
// multiply-accumulating over K and storing them back.
//
//===----------------------------------------------------------------------===//

#include "MSLTarget.h"
#include "tile/Target/BackendContext.h"

using namespace tile;

MSLTarget::MSLTarget(const BackendContext *Ctx)
    : Description(Ctx ? "'" + Ctx->getTarget().str() + "' (backend " +
                            Ctx->getBackend().Name + ")"
                      : "'metal' (backend Metal)") {}

std::string MSLTarget::checkDType(DType T, DTypeUse U) const {
  if (U == DTypeUse::Uniform && T != DType::I1 && T != DType::I32 &&
      T != DType::U32 && T != DType::F32)
    return "scalar parameters travel in a constant block of 32-bit fields; "
           "pass an i32, u32 or f32";
  switch (T) {
  case DType::F64:
    return "Metal has no double; use f32";
  case DType::F8E4M3:
  case DType::F8E5M2:
    return "Metal has no 8-bit floats; use f16 or f32";
  default:
    return "";
  }
}

std::string MSLTarget::getTypeName(DType T) const {
  switch (T) {
  case DType::I1: return "bool";
  case DType::I8: return "char";
  case DType::I16: return "short";
  case DType::I32: return "int";
  case DType::I64: return "long";
  case DType::U8: return "uchar";
  case DType::U16: return "ushort";
  case DType::U32: return "uint";
  case DType::U64: return "ulong";
  case DType::F16: return "half";
  case DType::BF16: return "bfloat";
  case DType::F32: return "float";
  default: llvm_unreachable("dtype rejected by checkDType");
  }
}

bool MSLTarget::isReserved(llvm::StringRef Name) const {
  static const char *const Words[] = {
      "auto", "bool", "break", "case", "char", "const", "constant", "constexpr",
      "continue", "default", "delete", "device", "do", "double", "else", "enum",
      "explicit", "extern", "false", "float", "for", "goto", "half", "if",
      "inline", "int", "kernel", "long", "namespace", "new", "operator",
      "private", "public", "return", "short", "signed", "sizeof", "static",
      "struct", "switch", "template", "this", "thread", "threadgroup", "true",
      "typedef", "typename", "uchar", "uint", "ulong", "union", "unsigned",
      "ushort", "using", "vertex", "fragment", "void", "volatile", "while",
      "bfloat", "metal", "abs", "min", "max", "exp", "exp2", "log", "log2",
      "sqrt", "rsqrt", "tanh", "fmod", "select", "INFINITY"};
  static const ReservedWords Set(Words);
  return Set.contains(Name);
}

std::string MSLTarget::getIntLiteral(int64_t V, DType T) const {
  if (isFloat(T))
    return getFloatLiteral(double(V), T);
  switch (T) {
  case DType::I1: return V ? "true" : "false";
  case DType::I32:
    return int32_t(V) == INT32_MIN ? "(-2147483647 - 1)" : std::to_string(int32_t(V));
  case DType::U32: return std::to_string(uint32_t(V)) + "u";
  case DType::I64:
    return V == INT64_MIN ? "(-9223372036854775807l - 1l)" : std::to_string(V) + "l";
  case DType::U64: return std::to_string(uint64_t(V)) + "ul";
  default: return getTypeName(T) + "(" + std::to_string(V) + ")";
  }
}

std::string MSLTarget::getFloatLiteral(double V, DType T) const {
  std::string S = formatFloatDigits(V, /*Short=*/T != DType::F32);
  if (T == DType::F16)
    return S + "h";
  if (T == DType::BF16)
    return "bfloat(" + S + "f)";
  return S + "f";
}

std::string MSLTarget::getInfinity(DType T, bool Negative) const {
  std::string Inf = T == DType::F32 ? "INFINITY" : getTypeName(T) + "(INFINITY)";
  return Negative ? "(-" + Inf + ")" : Inf;
}

std::string MSLTarget::getConversion(llvm::StringRef X, DType From, DType To) const {
  return "static_cast<" + getTypeName(To) + ">(" + X.str() + ")";
}

std::string MSLTarget::getSelect(llvm::StringRef Cond, llvm::StringRef IfTrue,
                                 llvm::StringRef IfFalse) const {
  return ("(" + Cond + " ? " + IfTrue + " : " + IfFalse + ")").str();
}

std::string MSLTarget::getBinary(BinaryOp Op, DType T, llvm::StringRef L,
                                 llvm::StringRef R) const {
  if (Op == BinaryOp::Rem && isFloat(T))
    return ("fmod(" + L + ", " + R + ")").str();
  return SourceTarget::getBinary(Op, T, L, R);
}

std::string MSLTarget::getLetDecl(llvm::StringRef Name, DType T,
                                  llvm::StringRef Init) const {
  return ("const " + getTypeName(T) + " " + Name + " = " + Init + ";").str();
}

std::string MSLTarget::getVarDecl(llvm::StringRef Name, DType T) const {
  return (getTypeName(T) + " " + Name + " = " + getIntLiteral(0, T) + ";").str();
}

std::string MSLTarget::getArrayDecl(llvm::StringRef Name, DType T, uint64_t N) const {
  return (getTypeName(T) + " " + Name + "[" + llvm::Twine(N) + "];").str();
}

std::string MSLTarget::getForHead(llvm::StringRef Var, DType T, llvm::StringRef Lo,
                                  llvm::StringRef Hi, llvm::StringRef Step) const {
  return ("for (" + getTypeName(T) + " " + Var + " = " + Lo + "; " + Var + " < " +
          Hi + "; " + Var + " += " + Step + ")")
      .str();
}

std::string
MSLTarget::getFunction(llvm::StringRef Name, DType Ret,
                       llvm::ArrayRef<std::pair<std::string, DType>> Params,
                       llvm::ArrayRef<std::string> Body) const {
  std::string S = "static inline " + getTypeName(Ret) + " " + Name.str() + "(";
  for (size_t I = 0; I != Params.size(); ++I)
    S += (I ? ", " : "") + getTypeName(Params[I].second) + " " + Params[I].first;
  return formatFunction(S + ")", Body);
}

std::vector<std::string>
MSLTarget::getAtomicUpdate(SourceEmitter &E, const BufferValue *Buf,
                           llvm::StringRef Offset, llvm::StringRef Kind,
                           llvm::StringRef V, std::string &Error) const {
  DType T = Buf->getDType();
  bool Int = T == DType::I32 || T == DType::U32;
  if (!(Int || (T == DType::F32 && Kind == "add"))) {
    Error = "Metal has atomic add, max and min on int and uint, and atomic add "
            "on float";
    return {};
  }
  if (Buf->getScope() == MemScope::Var || Buf->getScope() == MemScope::Local) {
    Error = "atomics need device or threadgroup memory";
    return {};
  }
  std::string Space = Buf->getScope() == MemScope::Global ? "device" : "threadgroup";
  std::string AT = T == DType::I32 ? "atomic_int" : T == DType::U32 ? "atomic_uint" : "atomic_float";
  return {("atomic_fetch_" + Kind + "_explicit((" + Space + " " + AT + " *)&" +
           E.getName(Buf) + "[" + Offset + "], " + V + ", memory_order_relaxed);")
              .str()};
}

void MSLTarget::emitPrologue(llvm::raw_ostream &OS) const {
  OS << "// MSL generated by Tile for target " << Description << ".\n"
     << "#include <metal_stdlib>\n"
     << "using namespace metal;\n\n";
}

void MSLTarget::emitFunctionDecls(llvm::raw_ostream &OS,
                                  llvm::ArrayRef<SourceBinding> Buffers,
                                  llvm::ArrayRef<SourceUniformField> Uniforms,
                                  uint32_t UniformBytes, unsigned UniformSlot,
                                  llvm::StringRef UniformStruct,
                                  llvm::StringRef UniformVar) const {
  if (Uniforms.empty())
    return;
  OS << "struct " << UniformStruct << " {\n";
  for (const SourceUniformField &U : Uniforms)
    OS << "  " << getTypeName(U.StorageTy) << " " << U.Name << ";\n";
  OS << "};\n\n";
}

void MSLTarget::emitKernelBegin(llvm::raw_ostream &OS, const SourceKernel &K) const {
  OS << "[[max_total_threads_per_threadgroup(" << K.Threads << ")]]\n";
  OS << "kernel void " << K.Symbol << "(";
  for (const SourceBinding &B : K.Buffers)
    OS << "device " << (B.Writable ? "" : "const ") << getTypeName(B.Buf->getDType())
       << " *" << B.Name << " [[buffer(" << B.Slot << ")]],\n    ";
  if (K.UsesUniforms)
    OS << "constant " << K.UniformStruct << " &" << K.UniformVar << " [[buffer("
       << K.UniformSlot << ")]],\n    ";
  OS << "uint3 tile_wg [[threadgroup_position_in_grid]]";
  if (!K.ThreadIdx.empty())
    OS << ",\n    uint tile_lid [[thread_index_in_threadgroup]]";
  OS << ") {\n";
  static const char XYZ[] = "xyz";
  for (size_t D = 0; D != K.BlockIdx.size(); ++D)
    OS << "  const int " << K.BlockIdx[D] << " = int(tile_wg." << XYZ[D] << ");\n";
  if (!K.ThreadIdx.empty())
    OS << "  const int " << K.ThreadIdx << " = int(tile_lid);\n";
  for (const SourceKernel::SharedBuffer &B : K.Shared)
    OS << "  threadgroup " << getTypeName(B.Buf->getDType()) << " " << B.Name << "["
       << B.NumElems << "];\n";
}

//===----------------------------------------------------------------------===//
// metal.simdgroup_mma
//===----------------------------------------------------------------------===//

/// metal.simd_reduce: simd_sum, simd_max or simd_min of the value.
static llvm::Error emitSimdReduce(SourceEmitter &E, const OpStmt &Op) {
  const Region &Dst = Op.getOperand("dst").R;
  if (E.getKernel().ThreadIdx.empty() || E.getKernel().Threads % 32)
    return llvm::createStringError(
        "op 'metal.simd_reduce' needs a whole number of 32-thread simdgroups (the "
        "kernel has " + llvm::Twine(E.getKernel().Threads) + " threads)");
  std::vector<std::string> Idx;
  for (const auto &I : Dst.Indices)
    Idx.push_back(E.printExpr(*I.Offset));
  E.line(E.getName(Dst.Buf) + "[" + E.getElementOffset(Dst.Buf, Idx) + "] = simd_" +
         Op.getAttrOrDefault("kind").getStr() + "(" +
         E.printExpr(*Op.getOperand("value").E) + ");");
  return llvm::Error::success();
}

llvm::Error MSLTarget::emitTargetOp(SourceEmitter &E, const OpStmt &Op) const {
  if (Op.getName() == "metal.simd_reduce")
    return emitSimdReduce(E, Op);
  if (Op.getName() != "metal.simdgroup_mma")
    return SourceTarget::emitTargetOp(E, Op);
  auto Fail = [&](const llvm::Twine &Why) {
    return llvm::createStringError("op 'metal.simdgroup_mma' " + Why);
  };
  const SourceKernel &K = E.getKernel();
  if (K.ThreadIdx.empty() || K.Threads % 32)
    return Fail("needs a whole number of 32-thread simdgroups (the kernel has " +
                llvm::Twine(K.Threads) + " threads)");
  const Region &RA = Op.getOperand("a").R, &RB = Op.getOperand("b").R,
               &RC = Op.getOperand("c").R;
  std::optional<std::vector<int64_t>> SA, SB, SC;
  // C in registers: a per-thread array, C's shape in m and n.
  int64_t RegM = Op.getAttrOrDefault("m").getInt(),
          RegN = Op.getAttrOrDefault("n").getInt();
  bool InRegs = RC.Buf->getScope() == MemScope::Local;
  if (InRegs && (RegM <= 0 || RegN <= 0 || RC.Buf->getRank() != 1))
    return Fail("takes a per-thread accumulator only with its shape in m and n");
  for (const Region *R : {&RA, &RB, &RC}) {
    if (R == &RC && InRegs)
      continue;
    if (!R->isWholeBuffer() || R->Buf->getRank() != 2 || !R->Buf->getConstShape() ||
        R->Buf->getScope() == MemScope::Global || R->Buf->getScope() == MemScope::Local)
      return Fail("takes whole rank-2 shared or fragment buffers; '%" +
                  R->Buf->getName() + "' is not one");
  }
  SA = RA.Buf->getConstShape();
  SB = RB.Buf->getConstShape();
  SC = InRegs ? std::vector<int64_t>{RegM, RegN} : *RC.Buf->getConstShape();
  bool TA = Op.getAttrOrDefault("transpose_a").getBool();
  bool TB = Op.getAttrOrDefault("transpose_b").getBool();
  int64_t M = (*SC)[0], N = (*SC)[1], KD = TA ? (*SA)[0] : (*SA)[1];
  if (M % 8 || N % 8 || KD % 8)
    return Fail("needs M, N and K multiples of 8 (got " + llvm::Twine(M) + ", " +
                llvm::Twine(N) + ", " + llvm::Twine(KD) + ")");
  DType CT = RC.Buf->getDType();
  if (CT != DType::F32 && CT != DType::F16)
    return Fail("accumulates in f32 or f16, not " + getDTypeName(CT));
  std::string Mat = CT == DType::F32 ? "simdgroup_float8x8" : "simdgroup_half8x8";
  std::string CTy = getTypeName(CT);
  std::string Tid = K.ThreadIdx, A = E.getName(RA.Buf), B = E.getName(RB.Buf),
              C = E.getName(RC.Buf);
  int64_t LdA = (*SA)[1], LdB = (*SB)[1], LdC = N;
  std::string Tile = E.getFreshName("sg_tile"), Acc = E.getFreshName("sg_acc"),
              Kk = E.getFreshName("sg_k"), Ti = E.getFreshName("sg_i"),
              Tj = E.getFreshName("sg_j"), Ma = E.getFreshName("sg_a"),
              Mb = E.getFreshName("sg_b");
  std::string Lane = E.getFreshName("sg_lane"), Row = E.getFreshName("sg_row"),
              Col = E.getFreshName("sg_col");
  auto U = [](int64_t V) { return std::to_string(V) + "u"; };
  E.line("// metal.simdgroup_mma: " + C + "[" + llvm::Twine(M) + "x" + llvm::Twine(N) +
         (InRegs ? ", in registers" : "") + "] += " + A + (TA ? "^T" : "") + " * " + B + (TB ? "^T" : "") +
         " with K = " + llvm::Twine(KD) + ", 8x8 tiles shared out over " +
         llvm::Twine(K.Threads / 32) + " simdgroups");
  E.open("");
  // Lane coordinates of a thread's two elements of an 8x8 simdgroup matrix.
  E.line("const uint " + Lane + " = uint(" + Tid + ") % 32u;");
  E.line("const uint " + Row + " = ((" + Lane + " / 4u) & 4u) + ((" + Lane +
         " / 2u) % 4u);");
  E.line("const uint " + Col + " = ((" + Lane + " / 4u) & 2u) * 2u + (" + Lane +
         " % 2u) * 2u;");
  E.open("for (uint " + Tile + " = uint(" + Tid + ") / 32u; " + Tile + " < " +
         U((M / 8) * (N / 8)) + "; " + Tile + " += " + U(K.Threads / 32) + ")");
  E.line("const uint " + Ti + " = (" + Tile + " / " + U(N / 8) + ") * 8u;");
  E.line("const uint " + Tj + " = (" + Tile + " % " + U(N / 8) + ") * 8u;");
  E.line(Mat + " " + Acc + ";");
  // The thread's elements of its simdgroup's tile in registers: 2 * tt and
  // 2 * tt + 1 of C, tt = tile / simdgroups.
  std::string Slot = "(" + Tile + " / " + U(K.Threads / 32) + ") * 2u";
  if (InRegs)
    for (int El = 0; El != 2; ++El)
      E.line(Acc + ".thread_elements()[" + std::to_string(El) + "] = " + C + "[" +
             Slot + (El ? " + 1u" : "") + "];");
  else
    E.line("simdgroup_load(" + Acc + ", &" + C + "[" + Ti + " * " + U(LdC) + " + " +
           Tj + "], " + U(LdC) + ");");
  E.open("for (uint " + Kk + " = 0u; " + Kk + " < " + U(KD) + "; " + Kk + " += 8u)");
  // One operand: simdgroup_load when it has the accumulator's type (with
  // the hardware transpose), else element by element with conversion.
  auto Load = [&](const std::string &MatName, const BufferValue *Buf,
                  const std::string &BufName, int64_t Ld, bool Transposed,
                  const std::string &R0, const std::string &C0) {
    // (R0, C0): origin of the 8x8 tile of op(X); op(X)[r][c] is X[r][c], or
    // X[c][r] when transposed.
    E.line(Mat + " " + MatName + ";");
    if (Buf->getDType() == CT) {
      std::string Origin = Transposed ? "(" + C0 + ") * " + U(Ld) + " + " + R0
                                      : "(" + R0 + ") * " + U(Ld) + " + " + C0;
      E.line("simdgroup_load(" + MatName + ", &" + BufName + "[" + Origin + "], " +
             U(Ld) + ", ulong2(0, 0), " + (Transposed ? "true" : "false") + ");");
      return;
    }
    for (int El = 0; El != 2; ++El) {
      std::string Rr = "(" + R0 + " + " + Row + ")";
      std::string Cc = "(" + C0 + " + " + Col + (El ? " + 1u" : "") + ")";
      std::string Off = Transposed ? Cc + " * " + U(Ld) + " + " + Rr
                                   : Rr + " * " + U(Ld) + " + " + Cc;
      E.line(MatName + ".thread_elements()[" + std::to_string(El) + "] = " + CTy +
             "(" + BufName + "[" + Off + "]);");
    }
  };
  Load(Ma, RA.Buf, A, LdA, TA, Ti, Kk);
  Load(Mb, RB.Buf, B, LdB, TB, Kk, Tj);
  E.line("simdgroup_multiply_accumulate(" + Acc + ", " + Ma + ", " + Mb + ", " + Acc +
         ");");
  E.close();
  if (InRegs)
    for (int El = 0; El != 2; ++El)
      E.line(C + "[" + Slot + (El ? " + 1u" : "") + "] = " + Acc + ".thread_elements()[" +
             std::to_string(El) + "];");
  else
    E.line("simdgroup_store(" + Acc + ", &" + C + "[" + Ti + " * " + U(LdC) + " + " +
           Tj + "], " + U(LdC) + ");");
  E.close();
  E.close();
  return llvm::Error::success();
}
