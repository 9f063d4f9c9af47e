//===- OpRegistry.h - Registry of tile ops ----------------------*- C++ -*-===//
//
// Tile ops (copy, gemm, reduce, ... and backend dialect ops such as
// cuda.wgmma) are declared in TableGen. tile-tblgen -gen-op-defs turns each
// dialect's declarations into a constant table of OpInfo records plus a
// register<Dialect>Ops(OpRegistry &) function. The parser, printer, verifier
// and documentation are all driven by these records, so a backend adds a
// dialect by registering its table: no shared code changes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_OPREGISTRY_H
#define TILE_IR_OPREGISTRY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace tile {

class OpStmt;
class DiagnosticEngine;

/// What an op operand is written as.
enum class OperandKind {
  /// A buffer, optionally indexed: `%A`, `%A[%i * 64, 0]`,
  /// `%A[%i : 64, 0 : 32]`.
  Region,
  /// A scalar expression.
  Expr,
};

/// What values an attribute takes.
enum class AttrKind { Int, Float, Bool, String, Enum, IntList, Any };

struct OpOperandInfo {
  const char *Name;
  OperandKind Kind;
  const char *Summary;
  /// The op writes this operand (it reads all the others).
  bool Written;
};

struct OpAttrInfo {
  const char *Name;
  AttrKind Kind;
  /// Canonical text of the default value, or nullptr when the attribute is
  /// required.
  const char *Default;
  /// Allowed identifiers of an Enum attribute.
  const char *const *EnumValues;
  unsigned NumEnumValues;
  const char *Summary;

  llvm::ArrayRef<const char *> enumValues() const {
    return {EnumValues, NumEnumValues};
  }
};

/// Op-specific semantic checks, written in C++ and named by the op's
/// TableGen record. Returns false after reporting an error.
using OpVerifyFn = bool (*)(const OpStmt &Op, DiagnosticEngine &Diag);

/// One op, as declared in TableGen.
struct OpInfo {
  /// Full name as written: "copy", "cuda.wgmma".
  const char *Name;
  /// Dialect name: "tile" for the common language, "cuda", "rocm", ...
  const char *Dialect;
  const char *Summary;
  const char *Description;
  const char *Example;
  /// Assembly format: `$operand`, `$attr`, literal tokens in backquotes and
  /// `attr-dict`, separated by spaces.
  const char *Format;
  const OpOperandInfo *Operands;
  unsigned NumOperands;
  const OpAttrInfo *Attrs;
  unsigned NumAttrs;
  OpVerifyFn Verify;
  /// Index of this op within its dialect's generated enum.
  unsigned Code;
  /// Acts on one element: allowed in parallel loops and per-thread code.
  bool Elementwise;

  llvm::ArrayRef<OpOperandInfo> operands() const {
    return {Operands, NumOperands};
  }
  llvm::ArrayRef<OpAttrInfo> attrs() const { return {Attrs, NumAttrs}; }
  const OpAttrInfo *findAttr(llvm::StringRef Name) const;
  int findOperand(llvm::StringRef Name) const;
  bool isCommon() const;
};

/// The ops known to a TileContext. Filled explicitly at start-up by
/// registerCommonOps() and by each backend's dialect registration.
class OpRegistry {
public:
  /// Adds the ops of one dialect. Registering a dialect twice is a no-op.
  void registerDialect(llvm::StringRef Dialect, llvm::ArrayRef<OpInfo> Ops);
  const OpInfo *lookup(llvm::StringRef Name) const;
  bool hasDialect(llvm::StringRef Dialect) const;
  /// All ops, in registration order.
  llvm::ArrayRef<const OpInfo *> ops() const { return AllOps; }

private:
  llvm::StringMap<const OpInfo *> ByName;
  std::vector<std::string> Dialects;
  std::vector<const OpInfo *> AllOps;
};

/// Registers the common tile ops (generated from include/tile/IR/TileOps.td).
void registerCommonOps(OpRegistry &R);

} // namespace tile

#endif // TILE_IR_OPREGISTRY_H
