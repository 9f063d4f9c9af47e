//===- Attribute.h - Constant attribute values ------------------*- C++ -*-===//
//
// Attributes are the constant, structured values hung on ops, allocations,
// loops, kernels and functions: `{transpose_b = true, policy = full_row}`,
// `stages = 3`, `layout = swizzle(128)`, `order = [0, 1, 2]`.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_ATTRIBUTE_H
#define TILE_IR_ATTRIBUTE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile {

/// A constant value: integer, float, bool, string, bare identifier (enum
/// case), list, or call-like constructor `name(args...)`.
class Attribute {
public:
  enum class Kind { Int, Float, Bool, String, Ident, List, Call };

  static Attribute getInt(int64_t V);
  static Attribute getFloat(double V);
  static Attribute getBool(bool V);
  static Attribute getString(llvm::StringRef V);
  static Attribute getIdent(llvm::StringRef V);
  static Attribute getList(std::vector<Attribute> Elems);
  static Attribute getCall(llvm::StringRef Callee, std::vector<Attribute> Args);

  Kind getKind() const { return K; }
  int64_t getInt() const { return I; }
  double getFloat() const { return F; }
  bool getBool() const { return I != 0; }
  /// The text of a String or Ident, or the callee of a Call. Not callable
  /// on a temporary: the StringRef would outlive the text.
  llvm::StringRef getStr() const & { return S; }
  llvm::StringRef getStr() const && = delete;
  llvm::ArrayRef<Attribute> getElements() const & { return Elems; }
  llvm::ArrayRef<Attribute> getElements() const && = delete;

  void print(llvm::raw_ostream &OS) const;
  std::string str() const;
  bool operator==(const Attribute &O) const;
  bool operator!=(const Attribute &O) const { return !(*this == O); }

private:
  Kind K = Kind::Int;
  int64_t I = 0;
  double F = 0;
  std::string S;
  std::vector<Attribute> Elems;
};

/// `name = value` as written on an op, loop, kernel or function.
struct NamedAttribute {
  std::string Name;
  Attribute Value;
  llvm::SMLoc Loc;
};

/// An ordered attribute list with lookup by name.
class AttributeList {
public:
  void set(llvm::StringRef Name, Attribute V, llvm::SMLoc Loc = {});
  const Attribute *get(llvm::StringRef Name) const;
  const NamedAttribute *getNamed(llvm::StringRef Name) const;
  bool empty() const { return Attrs.empty(); }
  size_t size() const { return Attrs.size(); }
  auto begin() const { return Attrs.begin(); }
  auto end() const { return Attrs.end(); }
  /// Prints `{a = 1, b = true}`.
  void printDict(llvm::raw_ostream &OS) const;

private:
  std::vector<NamedAttribute> Attrs;
};

/// Shortest decimal text that reads back as \p V and lexes as a float.
std::string formatFloat(double V);

} // namespace tile

#endif // TILE_IR_ATTRIBUTE_H
