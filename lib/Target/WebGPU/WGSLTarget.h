//===- WGSLTarget.h - WGSL hooks of the shared source printer ---*- C++ -*-===//
//
// Everything WGSL-specific about printing Tile kernels: types and their
// limits, literals, conversions, builtins, declarations, bindings (storage
// buffers and one uniform block per function, all in group 0), workgroup
// memory and the compute entry point.
//
// Without shader-f16, f16 and bf16 values are computed in f32 (values,
// workgroup and per-thread arrays) and buffer parameters of those dtypes
// are arrays of u32 words holding two elements each, read through
// unpack2x16float (f16) or a shift (bf16) and written with atomicAnd and
// atomicOr on the element's half of the word, so that two invocations
// writing the two halves of one word do not race. With shader-f16, f16 is
// WGSL's f16 and only bf16 takes that path.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_WEBGPU_WGSLTARGET_H
#define TILE_LIB_TARGET_WEBGPU_WGSLTARGET_H

#include "tile/CodeGen/SourceCodeGen.h"

namespace tile {

class BackendContext;

class WGSLTarget : public SourceTarget {
public:
  /// The target from a resolved context; with none (a pass run alone), the
  /// defaults of kind `webgpu`.
  explicit WGSLTarget(const BackendContext *Ctx);

  std::string getTargetDescription() const override { return Description; }
  llvm::StringRef getLanguage() const override { return "WGSL"; }

  std::string checkDType(DType T, DTypeUse U) const override;
  std::string getTypeName(DType T) const override;
  unsigned getStorageBytes(DType T) const override;
  bool isReserved(llvm::StringRef Name) const override;

  std::string getIntLiteral(int64_t V, DType T) const override;
  std::string getFloatLiteral(double V, DType T) const override;
  std::string getInfinity(DType T, bool Negative) const override;
  std::string getConversion(llvm::StringRef X, DType From, DType To) const override;
  std::string getSelect(llvm::StringRef Cond, llvm::StringRef IfTrue,
                        llvm::StringRef IfFalse) const override;
  llvm::StringRef getMathFunction(Intrinsic I, DType T) const override;
  std::string getBinary(BinaryOp Op, DType T, llvm::StringRef L,
                        llvm::StringRef R) const override;

  std::string getLetDecl(llvm::StringRef Name, DType T,
                         llvm::StringRef Init) const override;
  std::string getVarDecl(llvm::StringRef Name, DType T) const override;
  std::string getArrayDecl(llvm::StringRef Name, DType T, uint64_t N) const override;
  std::string getForHead(llvm::StringRef Var, DType T, llvm::StringRef Lo,
                         llvm::StringRef Hi, llvm::StringRef Step) const override;
  std::string getBarrier() const override { return "workgroupBarrier();"; }
  std::string getFunction(llvm::StringRef Name, DType Ret,
                          llvm::ArrayRef<std::pair<std::string, DType>> Params,
                          llvm::ArrayRef<std::string> Body) const override;
  std::string getBindingLoad(SourceEmitter &E, const SourceBinding &B,
                             llvm::StringRef Offset) const override;
  std::vector<std::string> getBindingStore(SourceEmitter &E, const SourceBinding &B,
                                           llvm::StringRef Offset,
                                           llvm::StringRef V) const override;
  std::vector<std::string> getAtomicUpdate(SourceEmitter &E, const BufferValue *Buf,
                                           llvm::StringRef Offset, llvm::StringRef Kind,
                                           llvm::StringRef V,
                                           std::string &Error) const override;

  void emitPrologue(llvm::raw_ostream &OS) const override;
  void emitFunctionDecls(llvm::raw_ostream &OS, llvm::ArrayRef<SourceBinding> Buffers,
                         llvm::ArrayRef<SourceUniformField> Uniforms,
                         uint32_t UniformBytes, unsigned UniformSlot,
                         llvm::StringRef UniformStruct,
                         llvm::StringRef UniformVar) const override;
  void emitKernelBegin(llvm::raw_ostream &OS, const SourceKernel &K) const override;
  void emitModuleShared(llvm::raw_ostream &OS, const SourceKernel &K) const override;
  llvm::Error emitTargetOp(SourceEmitter &E, const OpStmt &Op) const override;

  /// Whether \p T is a 16-bit float computed in f32 and stored as half a
  /// u32 word in buffer parameters.
  bool isPacked(DType T) const {
    return T == DType::BF16 || (T == DType::F16 && !F16);
  }

private:
  /// Helper functions the packed dtypes need, printed in the prologue.
  enum Helper : unsigned {
    F16Bits = 1,
    BF16Bits = 2,
    RoundF16 = 4,
    RoundBF16 = 8,
    UnpackF16 = 16,
    UnpackBF16 = 32,
    HalfWord = 64,
  };
  void use(unsigned Helpers) const { UsedHelpers |= Helpers; }
  /// \p Offset as a name or literal, with a let before the statement where
  /// it is an expression (it is printed twice).
  std::string hoistOffset(SourceEmitter &E, const SourceBinding &B,
                          llvm::StringRef Offset) const;

  std::string Description;
  bool F16 = false;
  /// What the printed code used, for the prologue (printed last).
  mutable bool UsedF16 = false;
  mutable bool UsedInf[2] = {false, false};
  mutable unsigned UsedHelpers = 0;
  /// A subgroup op: `enable subgroups` for the module, and the kernel
  /// printed last (its body comes before its signature) takes
  /// subgroup_invocation_id.
  mutable bool UsedSubgroups = false;
  mutable bool KernelUsesSubgroupId = false;
};

/// The StorageBytes entry point of WebGPU.td: WGSLTarget::getStorageBytes
/// for the target \p Ctx resolves.
unsigned getWebGPUStorageBytes(const BackendContext &Ctx, DType T);

} // namespace tile

#endif // TILE_LIB_TARGET_WEBGPU_WGSLTARGET_H
