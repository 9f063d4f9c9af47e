//===- WGSLTarget.cpp - WGSL hooks of the shared source printer -----------===//
//
// WGSL's rules that matter here: scalars are bool, i32, u32, f32 and (with
// `enable f16`) f16; integer `/` and `%` truncate and never trap; shifts
// take a u32 amount; float-to-integer conversion truncates and clamps;
// `select(f, t, c)` has its condition last; a const-expression that
// overflows to infinity is a shader-creation error, so infinities come
// from a helper that reads a var; workgroup variables live at module scope.
//
// 16-bit floats without shader-f16 (and bf16 always): values are f32,
// rounded where the program converts to the 16-bit type, so that what a
// 16-bit fragment holds is a 16-bit value. Buffer parameters hold the
// elements' bits, two to a u32 word (element 2k in the low half, as the
// host lays them out); reading unpacks the half, writing replaces it with
// two atomics, since the other half may belong to another invocation.
// pack2x16float and quantizeToF16 leave values outside f16's finite range
// indeterminate, so the conversion handles those (infinity, NaN) itself.
//
//===----------------------------------------------------------------------===//

#include "WGSLTarget.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>

using namespace tile;

WGSLTarget::WGSLTarget(const BackendContext *Ctx)
    : Description(Ctx ? "'" + Ctx->getTarget().str() + "' (backend " +
                            Ctx->getBackend().Name + ")"
                      : "'webgpu' (backend WebGPU)"),
      F16(Ctx && Ctx->hasFeature("shader_f16")) {}

std::string WGSLTarget::checkDType(DType T, DTypeUse U) const {
  switch (T) {
  case DType::I1:
    if (U == DTypeUse::GlobalBuffer)
      return "WGSL cannot store bool in a buffer the host shares; use i32 or u32";
    return "";
  case DType::I32:
  case DType::U32:
  case DType::F32:
    return "";
  case DType::F16:
  case DType::BF16:
    if (U == DTypeUse::Uniform)
      return "scalar parameters travel in a uniform block of 32-bit fields; "
             "pass an f32";
    return "";
  case DType::I8:
  case DType::I16:
  case DType::U8:
  case DType::U16:
    return "WGSL has no 8- or 16-bit integers; use i32 or u32";
  case DType::I64:
  case DType::U64:
    return "WGSL has no 64-bit integers; use i32 or u32";
  case DType::F64:
    return "WGSL has no f64; use f32";
  case DType::F8E4M3:
  case DType::F8E5M2:
    return "WGSL has no 8-bit floats; use f32";
  }
  llvm_unreachable("unknown dtype");
}

std::string WGSLTarget::getTypeName(DType T) const {
  switch (T) {
  case DType::I1: return "bool";
  case DType::I32: return "i32";
  case DType::U32: return "u32";
  case DType::F32: return "f32";
  case DType::F16:
  case DType::BF16:
    if (isPacked(T))
      return "f32";
    UsedF16 = true;
    return "f16";
  default:
    llvm_unreachable("dtype rejected by checkDType");
  }
}

unsigned WGSLTarget::getStorageBytes(DType T) const {
  return T == DType::I1 || isPacked(T) ? 4 : getDTypeBytes(T);
}

unsigned tile::getWebGPUStorageBytes(const BackendContext &Ctx, DType T) {
  return WGSLTarget(&Ctx).getStorageBytes(T);
}

bool WGSLTarget::isReserved(llvm::StringRef Name) const {
  // Keywords, reserved words that plausibly clash with Tile names, and the
  // builtins and types the printed code uses.
  static const char *const Words[] = {
      "alias", "array", "atomic", "bitcast", "bool", "break", "case", "const",
      "const_assert", "continue", "continuing", "default", "diagnostic",
      "discard", "else", "enable", "f16", "f32", "false", "fn", "for", "if",
      "i32", "let", "loop", "override", "requires", "return", "struct",
      "switch", "true", "u32", "var", "vec2", "vec3", "vec4", "while",
      "mat2x2", "mat3x3", "mat4x4", "ptr", "sampler", "texture_2d",
      "workgroup", "storage", "uniform", "private", "function", "read",
      "write", "read_write", "asm", "auto", "handle", "in", "out", "inout",
      "self", "this", "static", "module", "new", "null", "target", "type",
      "unsigned", "signed", "void", "do", "goto", "namespace", "template",
      "using", "virtual", "filter", "layout", "precision", "sample", "packed",
      "abs", "min", "max", "select", "exp", "exp2", "log", "log2", "sqrt",
      "inverseSqrt", "tanh", "workgroupBarrier", "storageBarrier"};
  static const ReservedWords Set(Words);
  return Set.contains(Name);
}

std::string WGSLTarget::getIntLiteral(int64_t V, DType T) const {
  if (isFloat(T))
    return getFloatLiteral(double(V), T);
  if (T == DType::I1)
    return V ? "true" : "false";
  if (isUnsigned(T))
    return std::to_string(uint32_t(V)) + "u";
  int32_t I = int32_t(V);
  if (I == INT32_MIN)
    return "i32(-2147483648)";
  return std::to_string(I) + "i";
}

std::string WGSLTarget::getFloatLiteral(double V, DType T) const {
  if (isPacked(T)) {
    // The value the 16-bit literal has, as an f32.
    llvm::APFloat F(V);
    bool LosesInfo;
    F.convert(T == DType::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
              llvm::APFloat::rmNearestTiesToEven, &LosesInfo);
    if (F.isInfinity())
      return getInfinity(T, F.isNegative());
    F.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &LosesInfo);
    return formatFloatDigits(F.convertToDouble(), /*Short=*/false) + "f";
  }
  if (T == DType::F16)
    getTypeName(T);
  return formatFloatDigits(V, /*Short=*/T == DType::F16) +
         (T == DType::F16 ? "h" : "f");
}

std::string WGSLTarget::getInfinity(DType T, bool Negative) const {
  bool Half = T == DType::F16 && !isPacked(T);
  UsedInf[Half] = true;
  std::string Inf = Half ? "tile_inf_f16()" : "tile_inf_f32()";
  return Negative ? "(-" + Inf + ")" : Inf;
}

std::string WGSLTarget::getConversion(llvm::StringRef X, DType From, DType To) const {
  if (!isPacked(To))
    return getTypeName(To) + "(" + X.str() + ")";
  std::string F32 = From == DType::F32 || isPacked(From) ? X.str() : "f32(" + X.str() + ")";
  use(To == DType::F16 ? RoundF16 : RoundBF16);
  return (To == DType::F16 ? "tile_round_f16(" : "tile_round_bf16(") + F32 + ")";
}

std::string WGSLTarget::getSelect(llvm::StringRef Cond, llvm::StringRef IfTrue,
                                  llvm::StringRef IfFalse) const {
  return ("select(" + IfFalse + ", " + IfTrue + ", " + Cond + ")").str();
}

llvm::StringRef WGSLTarget::getMathFunction(Intrinsic I, DType T) const {
  if (I == Intrinsic::Abs)
    return "abs";
  if (I == Intrinsic::Rsqrt)
    return "inverseSqrt";
  return SourceTarget::getMathFunction(I, T);
}

std::string WGSLTarget::getBinary(BinaryOp Op, DType T, llvm::StringRef L,
                                  llvm::StringRef R) const {
  if ((Op == BinaryOp::Shl || Op == BinaryOp::Shr) && !isUnsigned(T))
    return ("(" + L + " " + getBinaryOpSpelling(Op) + " u32(" + R + "))").str();
  return SourceTarget::getBinary(Op, T, L, R);
}

std::string WGSLTarget::getLetDecl(llvm::StringRef Name, DType T,
                                   llvm::StringRef Init) const {
  return ("let " + Name + ": " + getTypeName(T) + " = " + Init + ";").str();
}

std::string WGSLTarget::getVarDecl(llvm::StringRef Name, DType T) const {
  return ("var " + Name + ": " + getTypeName(T) + ";").str();
}

std::string WGSLTarget::getArrayDecl(llvm::StringRef Name, DType T, uint64_t N) const {
  return ("var " + Name + ": array<" + getTypeName(T) + ", " + llvm::Twine(N) + ">;").str();
}

std::string WGSLTarget::getForHead(llvm::StringRef Var, DType T, llvm::StringRef Lo,
                                   llvm::StringRef Hi, llvm::StringRef Step) const {
  return ("for (var " + Var + ": " + getTypeName(T) + " = " + Lo + "; " + Var +
          " < " + Hi + "; " + Var + " = " + Var + " + " + Step + ")")
      .str();
}

std::string
WGSLTarget::getFunction(llvm::StringRef Name, DType Ret,
                        llvm::ArrayRef<std::pair<std::string, DType>> Params,
                        llvm::ArrayRef<std::string> Body) const {
  std::string S = "fn " + Name.str() + "(";
  for (size_t I = 0; I != Params.size(); ++I)
    S += (I ? ", " : "") + Params[I].first + ": " + getTypeName(Params[I].second);
  return formatFunction(S + ") -> " + getTypeName(Ret), Body);
}

std::string WGSLTarget::hoistOffset(SourceEmitter &E, const SourceBinding &B,
                                    llvm::StringRef Offset) const {
  if (llvm::all_of(Offset, [](char C) { return llvm::isAlnum(C) || C == '_'; }))
    return Offset.str();
  std::string N = E.getFreshName(B.Name + "_i");
  E.line(getLetDecl(N, DType::I32, Offset));
  return N;
}

std::string WGSLTarget::getBindingLoad(SourceEmitter &E, const SourceBinding &B,
                                       llvm::StringRef Offset) const {
  DType T = B.Buf->getDType();
  if (!isPacked(T))
    return SourceTarget::getBindingLoad(E, B, Offset);
  std::string I = hoistOffset(E, B, Offset);
  std::string Word = B.Name + "[(" + I + " >> 1u)]";
  if (B.Writable)
    Word = "atomicLoad(&" + Word + ")";
  use(T == DType::F16 ? UnpackF16 : UnpackBF16);
  return (T == DType::F16 ? "tile_unpack_f16(" : "tile_unpack_bf16(") + Word + ", " +
         I + ")";
}

std::vector<std::string> WGSLTarget::getBindingStore(SourceEmitter &E,
                                                     const SourceBinding &B,
                                                     llvm::StringRef Offset,
                                                     llvm::StringRef V) const {
  DType T = B.Buf->getDType();
  if (!isPacked(T))
    return SourceTarget::getBindingStore(E, B, Offset, V);
  std::string I = hoistOffset(E, B, Offset);
  std::string Word = "&" + B.Name + "[(" + I + " >> 1u)]";
  use(HalfWord | (T == DType::F16 ? F16Bits : BF16Bits));
  std::string Bits = (T == DType::F16 ? "tile_f16_bits(" : "tile_bf16_bits(") + V.str() + ")";
  // Clearing the element's half, then setting its bits: each atomic leaves
  // the other half, which another invocation may be writing, as it is.
  return {"atomicAnd(" + Word + ", ~tile_half_mask(" + I + "));",
          "atomicOr(" + Word + ", tile_half_bits(" + Bits + ", " + I + "));"};
}

std::vector<std::string>
WGSLTarget::getAtomicUpdate(SourceEmitter &, const BufferValue *Buf,
                            llvm::StringRef, llvm::StringRef, llvm::StringRef,
                            std::string &Error) const {
  Error = "WGSL atomics need the buffer itself declared atomic, which this "
          "backend does not do yet";
  return {};
}

/// The helpers of the packed 16-bit floats, in the order of WGSLTarget's
/// Helper bits: the bits of an f32 rounded to f16 (pack2x16float where the
/// result is finite, else infinity or a quiet NaN) or to bf16 (round to
/// nearest even on the bits), the f32 such a rounding gives, the value of
/// an element from its word, and the mask and position of an element's
/// half of its word.
static const char *const PackedHelpers[] = {
    "fn tile_f16_bits(x: f32) -> u32 {\n"
    "  let b = bitcast<u32>(x);\n"
    "  let a = b & 0x7fffffffu;\n"
    "  if (a < 0x477ff000u) {\n"
    "    return pack2x16float(vec2<f32>(x, 0.0f)) & 0xffffu;\n"
    "  }\n"
    "  let s = (b >> 16u) & 0x8000u;\n"
    "  return select(s | 0x7c00u, s | 0x7e00u, a > 0x7f800000u);\n"
    "}\n\n",
    "fn tile_bf16_bits(x: f32) -> u32 {\n"
    "  let b = bitcast<u32>(x);\n"
    "  if ((b & 0x7fffffffu) > 0x7f800000u) {\n"
    "    return (b >> 16u) | 0x40u;\n"
    "  }\n"
    "  return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;\n"
    "}\n\n",
    "fn tile_round_f16(x: f32) -> f32 {\n"
    "  return unpack2x16float(tile_f16_bits(x)).x;\n"
    "}\n\n",
    "fn tile_round_bf16(x: f32) -> f32 {\n"
    "  return bitcast<f32>(tile_bf16_bits(x) << 16u);\n"
    "}\n\n",
    "fn tile_unpack_f16(w: u32, i: i32) -> f32 {\n"
    "  return unpack2x16float(w >> ((u32(i) & 1u) * 16u)).x;\n"
    "}\n\n",
    "fn tile_unpack_bf16(w: u32, i: i32) -> f32 {\n"
    "  return bitcast<f32>((w >> ((u32(i) & 1u) * 16u)) << 16u);\n"
    "}\n\n",
    "fn tile_half_mask(i: i32) -> u32 {\n"
    "  return 0xffffu << ((u32(i) & 1u) * 16u);\n"
    "}\n\n"
    "fn tile_half_bits(bits: u32, i: i32) -> u32 {\n"
    "  return bits << ((u32(i) & 1u) * 16u);\n"
    "}\n\n",
};

void WGSLTarget::emitPrologue(llvm::raw_ostream &OS) const {
  OS << "// WGSL generated by Tile for target " << Description << ".\n";
  if (UsedF16)
    OS << "enable f16;\n";
  // Subgroup ops run under `if` on the invocation index that every
  // invocation takes (per-invocation code of a whole workgroup), which
  // the uniformity analysis cannot see.
  if (UsedSubgroups)
    OS << "enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n";
  OS << "\n";
  unsigned Used = UsedHelpers;
  if (Used & RoundF16)
    Used |= F16Bits;
  if (Used & RoundBF16)
    Used |= BF16Bits;
  for (unsigned I = 0; I != std::size(PackedHelpers); ++I)
    if (Used & (1u << I))
      OS << PackedHelpers[I];
  // Reading a var keeps the bit pattern out of const-expression evaluation,
  // where an infinity is an error.
  if (UsedInf[0])
    OS << "fn tile_inf_f32() -> f32 {\n  var bits = 0x7f800000u;\n"
          "  return bitcast<f32>(bits);\n}\n\n";
  if (UsedInf[1])
    OS << "fn tile_inf_f16() -> f16 {\n  var bits = 0x7f800000u;\n"
          "  return f16(bitcast<f32>(bits));\n}\n\n";
}

void WGSLTarget::emitFunctionDecls(llvm::raw_ostream &OS,
                                   llvm::ArrayRef<SourceBinding> Buffers,
                                   llvm::ArrayRef<SourceUniformField> Uniforms,
                                   uint32_t UniformBytes, unsigned UniformSlot,
                                   llvm::StringRef UniformStruct,
                                   llvm::StringRef UniformVar) const {
  if (!Uniforms.empty()) {
    OS << "struct " << UniformStruct << " {\n";
    for (const SourceUniformField &U : Uniforms)
      OS << "  " << U.Name << ": " << getTypeName(U.StorageTy) << ",\n";
    OS << "}\n";
  }
  for (const SourceBinding &B : Buffers) {
    DType T = B.Buf->getDType();
    std::string Elem = !isPacked(T) ? getTypeName(T)
                       : B.Writable ? "atomic<u32>"
                                    : "u32";
    OS << "@group(0) @binding(" << B.Slot << ") var<storage, "
       << (B.Writable ? "read_write" : "read") << "> " << B.Name << ": array<" << Elem
       << ">;\n";
  }
  if (!Uniforms.empty())
    OS << "@group(0) @binding(" << UniformSlot << ") var<uniform> " << UniformVar
       << ": " << UniformStruct << ";\n";
  OS << "\n";
}

void WGSLTarget::emitModuleShared(llvm::raw_ostream &OS, const SourceKernel &K) const {
  for (const SourceKernel::SharedBuffer &B : K.Shared)
    OS << "var<workgroup> " << B.Name << ": array<" << getTypeName(B.Buf->getDType())
       << ", " << B.NumElems << ">;\n";
  if (!K.Shared.empty())
    OS << "\n";
}

void WGSLTarget::emitKernelBegin(llvm::raw_ostream &OS, const SourceKernel &K) const {
  OS << "@compute @workgroup_size(" << K.Threads << ")\n";
  OS << "fn " << K.Symbol << "(@builtin(workgroup_id) tile_wg: vec3<u32>";
  if (!K.ThreadIdx.empty())
    OS << ", @builtin(local_invocation_index) tile_lid: u32";
  if (KernelUsesSubgroupId)
    OS << ", @builtin(subgroup_invocation_id) tile_sgid: u32";
  KernelUsesSubgroupId = false;
  OS << ") {\n";
  static const char XYZ[] = "xyz";
  for (size_t D = 0; D != K.BlockIdx.size(); ++D)
    OS << "  let " << K.BlockIdx[D] << ": i32 = i32(tile_wg." << XYZ[D] << ");\n";
  if (!K.ThreadIdx.empty())
    OS << "  let " << K.ThreadIdx << ": i32 = i32(tile_lid);\n";
}

//===----------------------------------------------------------------------===//
// webgpu.subgroup_reduce
//===----------------------------------------------------------------------===//

llvm::Error WGSLTarget::emitTargetOp(SourceEmitter &E, const OpStmt &Op) const {
  if (Op.getName() != "webgpu.subgroup_reduce")
    return SourceTarget::emitTargetOp(E, Op);
  const Region &Dst = Op.getOperand("dst").R;
  DType T = Dst.Buf->getDType();
  llvm::StringRef Kind = Op.getAttrOrDefault("kind").getStr();
  std::string Fn = Kind == "sum" ? "subgroupAdd" : Kind == "max" ? "subgroupMax" : "subgroupMin";
  std::string V = Fn + "(" + E.printExpr(*Op.getOperand("value").E) + ")";
  if (Op.getAttrOrDefault("first_only").getBool()) {
    std::string Identity;
    if (Kind == "sum")
      Identity = getIntLiteral(0, T);
    else if (T == DType::F32)
      Identity = getInfinity(T, /*Negative=*/Kind == "max");
    else if (T == DType::I32)
      Identity = getIntLiteral(Kind == "max" ? INT32_MIN : INT32_MAX, T);
    else
      Identity = getIntLiteral(Kind == "max" ? 0 : UINT32_MAX, T);
    V = getSelect("(tile_sgid == 0u)", V, Identity);
    KernelUsesSubgroupId = true;
  }
  UsedSubgroups = true;
  std::vector<std::string> Idx;
  for (const RegionIndex &I : Dst.Indices)
    Idx.push_back(E.printExpr(*I.Offset));
  E.line(E.getName(Dst.Buf) + "[" + E.getElementOffset(Dst.Buf, Idx) + "] = " + V + ";");
  return llvm::Error::success();
}
