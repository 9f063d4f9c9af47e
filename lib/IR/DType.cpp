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

std::pair<uint8_t, uint8_t> tile::getDLPackType(DType T) {
  constexpr uint8_t Int = 0, UInt = 1, Float = 2, BFloat = 4, Bool = 6,
                    F8E4M3FN = 10, F8E5M2 = 12;
  switch (T) {
  case DType::I1: return {Bool, 8};
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64: return {Int, uint8_t(getDTypeBits(T))};
  case DType::U8:
  case DType::U16:
  case DType::U32:
  case DType::U64: return {UInt, uint8_t(getDTypeBits(T))};
  case DType::F16:
  case DType::F32:
  case DType::F64: return {Float, uint8_t(getDTypeBits(T))};
  case DType::BF16: return {BFloat, 16};
  case DType::F8E4M3: return {F8E4M3FN, 8};
  case DType::F8E5M2: return {F8E5M2, 8};
  }
  return {0, 0};
}

uint32_t tile::getPackedDLPackType(DType T) {
  auto [Code, Bits] = getDLPackType(T);
  return uint32_t(Code) | uint32_t(Bits) << 8 | uint32_t(1) << 16;
}
