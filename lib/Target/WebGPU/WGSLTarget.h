//===- WGSLTarget.h - WGSL hooks of the shared source printer ---*- C++ -*-===//
//
// Everything WGSL-specific about printing Tile kernels: types and their
// limits, literals, conversions, builtins, declarations, bindings (storage
// buffers and one uniform block per function, all in group 0), workgroup
// memory and the compute entry point.
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
  int64_t getMaxSharedBytes() const override { return MaxShared; }
  int64_t getMaxThreads() const override { return MaxThreads; }
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

private:
  std::string Description;
  bool F16 = false;
  int64_t MaxShared = 16384, MaxThreads = 256;
  /// What the printed code used, for the prologue (printed last).
  mutable bool UsedF16 = false;
  mutable bool UsedInf[2] = {false, false};
};

} // namespace tile

#endif // TILE_LIB_TARGET_WEBGPU_WGSLTARGET_H
