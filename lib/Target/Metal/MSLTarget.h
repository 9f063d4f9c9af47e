//===- MSLTarget.h - MSL hooks of the shared source printer ----*- C++ -*-===//
//
// Everything MSL-specific about printing Tile kernels: types, literals,
// conversions, builtins, declarations, buffers bound by index ([[buffer(N)]],
// a constant uniform block after them), threadgroup memory and barriers,
// the kernel signature, and simdgroup matrices for metal.simdgroup_mma.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_METAL_MSLTARGET_H
#define TILE_LIB_TARGET_METAL_MSLTARGET_H

#include "tile/CodeGen/SourceCodeGen.h"

namespace tile {

class BackendContext;

class MSLTarget : public SourceTarget {
public:
  /// The target from a resolved context; with none (a pass run alone), the
  /// defaults of kind `metal`.
  explicit MSLTarget(const BackendContext *Ctx);

  std::string getTargetDescription() const override { return Description; }
  llvm::StringRef getLanguage() const override { return "MSL"; }

  std::string checkDType(DType T, DTypeUse U) const override;
  std::string getTypeName(DType T) const override;
  bool isReserved(llvm::StringRef Name) const override;

  std::string getIntLiteral(int64_t V, DType T) const override;
  std::string getFloatLiteral(double V, DType T) const override;
  std::string getInfinity(DType T, bool Negative) const override;
  std::string getConversion(llvm::StringRef X, DType From, DType To) const override;
  std::string getSelect(llvm::StringRef Cond, llvm::StringRef IfTrue,
                        llvm::StringRef IfFalse) const override;
  std::string getBinary(BinaryOp Op, DType T, llvm::StringRef L,
                        llvm::StringRef R) const override;

  std::string getLetDecl(llvm::StringRef Name, DType T,
                         llvm::StringRef Init) const override;
  std::string getVarDecl(llvm::StringRef Name, DType T) const override;
  std::string getArrayDecl(llvm::StringRef Name, DType T, uint64_t N) const override;
  std::string getForHead(llvm::StringRef Var, DType T, llvm::StringRef Lo,
                         llvm::StringRef Hi, llvm::StringRef Step) const override;
  std::string getBarrier() const override {
    return "threadgroup_barrier(mem_flags::mem_threadgroup);";
  }
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
  llvm::Error emitTargetOp(SourceEmitter &E, const OpStmt &Op) const override;

private:
  std::string Description;
  /// Apple GPUs: 32 KiB of threadgroup memory, 1024 threads.
};

} // namespace tile

#endif // TILE_LIB_TARGET_METAL_MSLTARGET_H
