//===- DType.cpp - Element types of Tile IR -------------------------------===//

#include "tile/IR/DType.h"

using namespace tile;

namespace {
struct DTypeDesc {
  DType T;
  const char *Name;
  unsigned Bits;
};
constexpr DTypeDesc kDTypes[] = {
    {DType::I1, "i1", 1},      {DType::I8, "i8", 8},
    {DType::I16, "i16", 16},   {DType::I32, "i32", 32},
    {DType::I64, "i64", 64},   {DType::U8, "u8", 8},
    {DType::U16, "u16", 16},   {DType::U32, "u32", 32},
    {DType::U64, "u64", 64},   {DType::F16, "f16", 16},
    {DType::BF16, "bf16", 16}, {DType::F32, "f32", 32},
    {DType::F64, "f64", 64},   {DType::F8E4M3, "f8e4m3", 8},
    {DType::F8E5M2, "f8e5m2", 8},
};
} // namespace

llvm::StringRef tile::getDTypeName(DType T) {
  return kDTypes[static_cast<unsigned>(T)].Name;
}

std::optional<DType> tile::parseDType(llvm::StringRef Name) {
  for (const DTypeDesc &D : kDTypes)
    if (Name == D.Name)
      return D.T;
  return std::nullopt;
}

unsigned tile::getDTypeBits(DType T) {
  return kDTypes[static_cast<unsigned>(T)].Bits;
}

unsigned tile::getDTypeBytes(DType T) {
  unsigned B = getDTypeBits(T);
  return B < 8 ? 1 : B / 8;
}
