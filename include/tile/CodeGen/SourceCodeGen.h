//===- SourceCodeGen.h - Shading-language source from Tile IR ---*- C++ -*-===//
//
// The shared source-based device codegen of libTileCodeGen. It prints the
// kernels of SIMT-lowered Tile IR (what the Metal and WebGPU pipelines
// produce: serial loops, ifs, lets, loads and stores, vars, shared buffers,
// barriers, element atomics, block and thread indices) as structured source
// in a C-like shading language. What differs between languages (type names,
// literals, conversions, declarations, builtins, barriers, the kernel
// signature and how buffers and scalars are bound) is asked of a
// SourceTarget that each backend implements in its own folder; the printer
// never names a language.
//
// Scalars a kernel uses (symbolic dimensions, scalar parameters) travel in
// one uniform block per function; buffers are bound one per slot in
// parameter order. The printer records, per kernel, what it binds and the
// grid as launch expressions (tile/Exec/LaunchExpr.h), so that an execution
// backend can launch the kernel from the KernelArtifact alone.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_SOURCECODEGEN_H
#define TILE_CODEGEN_SOURCECODEGEN_H

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <utility>
#include <vector>

namespace tile {

/// Where a dtype is used, for SourceTarget::checkDType.
enum class DTypeUse {
  /// A scalar value: an expression, a let, a loop variable, a var.
  Value,
  /// Elements of a buffer in global (device) memory.
  GlobalBuffer,
  /// Elements of an on-chip buffer (shared or per-thread).
  OnChipBuffer,
  /// A scalar parameter passed in the uniform block.
  Uniform,
};

/// A buffer parameter bound to a kernel.
struct SourceBinding {
  const BufferValue *Buf;
  std::string Name;
  unsigned Slot;
  /// Whether the function writes the buffer (in any kernel).
  bool Writable;
};

/// A field of a function's uniform block.
struct SourceUniformField {
  const Value *V;
  std::string Name;
  /// The type the field is stored as (i1 travels as u32).
  DType StorageTy;
  uint32_t Offset;
};

/// One kernel as the printer lays it out; the target prints its signature
/// from this.
struct SourceKernel {
  const Function *Func = nullptr;
  const KernelStmt *Kernel = nullptr;
  std::string Symbol;
  int64_t Threads = 1;
  /// The buffers the kernel's code refers to, in slot order.
  std::vector<SourceBinding> Buffers;
  /// The function's uniform block, and whether this kernel reads it.
  std::vector<SourceUniformField> Uniforms;
  uint32_t UniformBytes = 0;
  bool UsesUniforms = false;
  unsigned UniformSlot = 0;
  std::string UniformStruct, UniformVar;
  /// Shared (workgroup / threadgroup) buffers: name, dtype, element count.
  struct SharedBuffer {
    const BufferValue *Buf;
    std::string Name;
    uint64_t NumElems;
  };
  std::vector<SharedBuffer> Shared;
  int64_t SharedBytes = 0;
  /// Printed names of the block indices (one per grid dimension) and of the
  /// thread index (empty when the kernel binds none).
  std::vector<std::string> BlockIdx;
  std::string ThreadIdx;
};

/// What a target op's printer may use: expressions, names, addressing and
/// output at the current indentation.
class SourceEmitter {
public:
  virtual ~SourceEmitter();
  virtual std::string printExpr(const Expr &E) = 0;
  /// The printed name of \p V (records the use of a bound buffer or a
  /// uniform field).
  virtual std::string getName(const Value *V) = 0;
  /// A name not used elsewhere in the kernel, based on \p Base.
  virtual std::string getFreshName(llvm::StringRef Base) = 0;
  /// The linear element offset of \p Buf at \p Indices (printed, i32).
  virtual std::string getElementOffset(const BufferValue *Buf,
                                       llvm::ArrayRef<std::string> Indices) = 0;
  virtual const SourceKernel &getKernel() const = 0;
  virtual void line(const llvm::Twine &Text) = 0;
  /// `Head {` and one more level of indentation; close() ends it.
  virtual void open(const llvm::Twine &Head) = 0;
  virtual void close(llvm::StringRef Tail = "") = 0;
};

/// The language-specific half of source codegen.
class SourceTarget {
public:
  virtual ~SourceTarget();

  /// The target string and backend for messages ("'webgpu' (backend WebGPU)").
  virtual std::string getTargetDescription() const = 0;
  /// The language's name ("WGSL").
  virtual llvm::StringRef getLanguage() const = 0;

  //--- Types ---------------------------------------------------------------
  /// Why \p T cannot be used as \p U, or empty when it can.
  virtual std::string checkDType(DType T, DTypeUse U) const = 0;
  virtual std::string getTypeName(DType T) const = 0;
  /// Bytes an element of \p T takes in on-chip memory.
  virtual unsigned getStorageBytes(DType T) const { return getDTypeBytes(T); }
  /// Names the source must not use for values (keywords, builtins).
  virtual bool isReserved(llvm::StringRef Name) const = 0;

  //--- Expressions ---------------------------------------------------------
  virtual std::string getIntLiteral(int64_t V, DType T) const = 0;
  /// A finite float literal.
  virtual std::string getFloatLiteral(double V, DType T) const = 0;
  virtual std::string getInfinity(DType T, bool Negative) const = 0;
  /// Numeric conversion of \p X between non-boolean types, with the
  /// language's rules (float to integer truncates toward zero).
  virtual std::string getConversion(llvm::StringRef X, DType From,
                                    DType To) const = 0;
  virtual std::string getSelect(llvm::StringRef Cond, llvm::StringRef IfTrue,
                                llvm::StringRef IfFalse) const = 0;
  /// min, max, abs, exp, exp2, log, log2, sqrt, rsqrt, tanh on \p T; the
  /// default calls getMathFunction, and abs of an unsigned value is the
  /// value.
  virtual std::string getMathCall(Intrinsic I, DType T,
                                  llvm::ArrayRef<std::string> Args) const;
  /// The function getMathCall calls for \p I on \p T; the default is C's
  /// spelling (fabs for floats, rsqrt).
  virtual llvm::StringRef getMathFunction(Intrinsic I, DType T) const;
  /// A binary operator on operands of \p T; the default is C's spelling.
  virtual std::string getBinary(BinaryOp Op, DType T, llvm::StringRef L,
                                llvm::StringRef R) const;

  //--- Statements ----------------------------------------------------------
  virtual std::string getLetDecl(llvm::StringRef Name, DType T,
                                 llvm::StringRef Init) const = 0;
  /// A mutable scalar, zero-initialised.
  virtual std::string getVarDecl(llvm::StringRef Name, DType T) const = 0;
  /// A per-thread array of \p N elements.
  virtual std::string getArrayDecl(llvm::StringRef Name, DType T,
                                   uint64_t N) const = 0;
  virtual std::string getForHead(llvm::StringRef Var, DType T,
                                 llvm::StringRef Lo, llvm::StringRef Hi,
                                 llvm::StringRef Step) const = 0;
  virtual std::string getBarrier() const = 0;
  /// A helper function `Ret Name(Params...) { Body }` (Body: statements,
  /// one per line, ending in a return).
  virtual std::string
  getFunction(llvm::StringRef Name, DType Ret,
              llvm::ArrayRef<std::pair<std::string, DType>> Params,
              llvm::ArrayRef<std::string> Body) const = 0;
  virtual std::string getReturn(llvm::StringRef X) const { return ("return " + X + ";").str(); }
  /// An element of the buffer parameter \p B at element offset \p Offset
  /// (printed, i32) as a value; the default is `Name[Offset]`. A target
  /// that stores a dtype packed (16-bit floats in 32-bit words) unpacks
  /// here.
  virtual std::string getBindingLoad(SourceEmitter &E, const SourceBinding &B,
                                     llvm::StringRef Offset) const;
  /// The statements that store \p V (printed, of the buffer's dtype) there;
  /// the default is `Name[Offset] = V;`.
  virtual std::vector<std::string> getBindingStore(SourceEmitter &E,
                                                   const SourceBinding &B,
                                                   llvm::StringRef Offset,
                                                   llvm::StringRef V) const;
  /// An element atomic `kind` ("add", "max", "min") of \p V into element
  /// \p Offset of \p Buf; the statements, or an error message in \p Error.
  virtual std::vector<std::string>
  getAtomicUpdate(SourceEmitter &E, const BufferValue *Buf,
                  llvm::StringRef Offset, llvm::StringRef Kind,
                  llvm::StringRef V, std::string &Error) const = 0;

  //--- Module and kernels --------------------------------------------------
  /// Text before everything else (extensions, includes).
  virtual void emitPrologue(llvm::raw_ostream &OS) const = 0;
  /// A function's uniform block type and, where the language declares
  /// bindings globally, its buffer and uniform bindings.
  virtual void emitFunctionDecls(llvm::raw_ostream &OS,
                                 llvm::ArrayRef<SourceBinding> Buffers,
                                 llvm::ArrayRef<SourceUniformField> Uniforms,
                                 uint32_t UniformBytes, unsigned UniformSlot,
                                 llvm::StringRef UniformStruct,
                                 llvm::StringRef UniformVar) const = 0;
  /// The kernel's signature, its opening brace, and the block and thread
  /// index lets; shared buffers are declared here unless they are module
  /// scoped (then emitModuleShared declares them before the kernel).
  virtual void emitKernelBegin(llvm::raw_ostream &OS,
                               const SourceKernel &K) const = 0;
  virtual void emitModuleShared(llvm::raw_ostream &OS,
                                const SourceKernel &K) const {}
  /// How the uniform field \p Field is read inside a kernel; the default is
  /// a member of the uniform block variable (`UniformVar.Field`).
  virtual std::string getUniformRef(const SourceKernel &K,
                                    const SourceUniformField &Field) const;

  /// Prints a dialect op of the target (e.g. metal.simdgroup_mma); the
  /// default rejects it.
  virtual llvm::Error emitTargetOp(SourceEmitter &E, const OpStmt &Op) const;

protected:
  /// The digits of a finite float literal: 9 significant digits of \p V
  /// rounded to f32, or 5 of \p V when \p Short (16-bit floats), with a
  /// ".0" where they would read as an integer; the target adds its suffix.
  static std::string formatFloatDigits(double V, bool Short);
  /// `Head {`, each line of \p Body indented on its own line, and `}`: a
  /// helper function's definition for getFunction.
  static std::string formatFunction(llvm::StringRef Head,
                                    llvm::ArrayRef<std::string> Body);
};

/// A language's reserved words for SourceTarget::isReserved: the words it
/// was built from, and every name starting with "__".
class ReservedWords {
public:
  explicit ReservedWords(llvm::ArrayRef<const char *> Words);
  bool contains(llvm::StringRef Name) const;

private:
  llvm::StringSet<> Set;
};

/// Reports every statement of \p M that uses a dtype \p T rejects, at the
/// statement, naming the dtype, the op or statement and the target.
/// Returns false when it reported something.
bool checkSourceDTypes(const Module &M, const SourceTarget &T,
                       DiagnosticEngine &Diag);

/// Prints every kernel of \p M (SIMT-lowered) through \p T into
/// Artifact.DeviceSource and DeviceCode, and describes each kernel (symbol
/// `tile_<function>_kernel<N>`, threads, shared bytes, launch) in the
/// entries of \p Artifact. Located errors (an unsupported construct, a
/// kernel over the target's limits) go to \p Diag; the returned error then
/// says that codegen failed.
llvm::Error emitSourceKernels(const Module &M, const SourceTarget &T,
                              DiagnosticEngine &Diag, KernelArtifact &Artifact);

/// \p E as a launch expression (tile/Exec/LaunchExpr.h), inlining host lets;
/// an error names what cannot be computed without host code.
llvm::Expected<std::string> printLaunchExpr(const Expr &E);

} // namespace tile

#endif // TILE_CODEGEN_SOURCECODEGEN_H
