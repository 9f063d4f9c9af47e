//===- DType.h - Element types of Tile IR -----------------------*- C++ -*-===//
//
// The scalar element types a buffer or expression can have, with their
// spelling in the textual format and the properties passes and the
// interpreter need (width, signedness, float-ness).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_DTYPE_H
#define TILE_IR_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <utility>

namespace tile {

/// An element type. `I1` is the boolean type produced by comparisons.
enum class DType : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3,
  F8E5M2,
};

/// The textual spelling, e.g. "f16", "f8e4m3".
llvm::StringRef getDTypeName(DType T);
/// Parses a spelling produced by getDTypeName.
std::optional<DType> parseDType(llvm::StringRef Name);

/// Width in bits (1 for i1).
unsigned getDTypeBits(DType T);
/// Storage size in bytes (i1 is stored as one byte).
unsigned getDTypeBytes(DType T);

/// The DLPack type code and bit width of \p T: DLPack 0.6 codes, plus bool
/// (6, from DLPack 0.8) and the float8 formats (e4m3fn 10, e5m2 12, from
/// DLPack 1.1).
std::pair<uint8_t, uint8_t> getDLPackType(DType T);
/// code | bits << 8 | lanes << 16 with one lane: the DLDataType bytes.
uint32_t getPackedDLPackType(DType T);

inline bool isFloat(DType T) { return T >= DType::F16; }
inline bool isInteger(DType T) { return T <= DType::U64; }
inline bool isBool(DType T) { return T == DType::I1; }
inline bool isUnsigned(DType T) { return T >= DType::U8 && T <= DType::U64; }
inline bool isSignedInteger(DType T) { return T >= DType::I8 && T <= DType::I64; }

} // namespace tile

#endif // TILE_IR_DTYPE_H
