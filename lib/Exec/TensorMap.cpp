//===- TensorMap.cpp - Tiled tensor maps from artifact descriptions -------===//
//
// The checks cuTensorMapEncodeTiled documents (CUDA 12 and 13 driver API),
// made here so that a tensor the hardware cannot describe is either
// reported with its name and the reason or, for an optional map, passed
// as zeros, instead of surfacing as CUDA_ERROR_INVALID_VALUE.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/TensorMap.h"
#include "llvm/ADT/Twine.h"
#include <string>

using namespace tile;

namespace {

/// cuda.h's CUtensorMapDataType for a DLPack type, or nullopt.
std::optional<uint32_t> getTensorMapDataType(uint8_t Code, uint8_t Bits) {
  switch (Code) {
  case 0: // int
    if (Bits == 32)
      return 3; // INT32
    if (Bits == 64)
      return 5; // INT64
    if (Bits == 8)
      return 0; // UINT8: the same bytes
    if (Bits == 16)
      return 1; // UINT16
    return std::nullopt;
  case 1: // uint
    if (Bits == 8)
      return 0;
    if (Bits == 16)
      return 1;
    if (Bits == 32)
      return 2;
    if (Bits == 64)
      return 4;
    return std::nullopt;
  case 2: // float
    if (Bits == 16)
      return 6;
    if (Bits == 32)
      return 7;
    if (Bits == 64)
      return 8;
    return std::nullopt;
  case 4: // bfloat
    if (Bits == 16)
      return 9;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

} // namespace

llvm::Expected<std::optional<TiledTensorMapRequest>>
tile::describeTiledTensorMap(const ArtifactTensorMap &M, const void *Data,
                             llvm::ArrayRef<int64_t> Dims,
                             llvm::ArrayRef<int64_t> Strides) {
  std::string Of = "the tensor map of '" + M.Name + "'";
  auto Bad = [&](const llvm::Twine &Why) {
    return llvm::createStringError(Of + " " + Why);
  };
  // The description itself: what code generation asked for.
  unsigned Rank = M.Box.size();
  if (Rank == 0 || Rank > TiledTensorMapRequest::MaxRank)
    return Bad("has rank " + llvm::Twine(Rank) + "; tensor maps have 1 to 5 "
               "dimensions");
  std::optional<uint32_t> Type = getTensorMapDataType(M.TypeCode, M.Bits);
  if (!Type)
    return Bad("has an element type (DLPack code " + llvm::Twine(unsigned(M.TypeCode)) +
               ", " + llvm::Twine(unsigned(M.Bits)) + " bits) that tensor maps do not take");
  int64_t ElemBytes = M.Bits / 8;
  for (unsigned D = 0; D != Rank; ++D)
    if (M.Box[D] == 0 || M.Box[D] > 256)
      return Bad("has a box extent of " + llvm::Twine(M.Box[D]) +
                 " in dimension " + llvm::Twine(D) + "; extents are 1 to 256");
  int64_t InnerBytes = int64_t(M.Box[Rank - 1]) * ElemBytes;
  if (InnerBytes % 16 != 0)
    return Bad("has box rows of " + llvm::Twine(InnerBytes) +
               " bytes, not a multiple of 16");
  uint32_t SwizzleMode;
  switch (M.Swizzle) {
  case 0: SwizzleMode = 0; break;
  case 32: SwizzleMode = 1; break;
  case 64: SwizzleMode = 2; break;
  case 128: SwizzleMode = 3; break;
  default:
    return Bad("has a swizzle of " + llvm::Twine(M.Swizzle) +
               " bytes; tensor maps swizzle 0, 32, 64 or 128 bytes");
  }
  if (M.Swizzle && InnerBytes > int64_t(M.Swizzle))
    return Bad("has box rows of " + llvm::Twine(InnerBytes) +
               " bytes, more than its " + llvm::Twine(M.Swizzle) +
               "-byte swizzle span");
  if (M.NaNFill && M.TypeCode != 2 && M.TypeCode != 4)
    return Bad("fills with NaN, but its elements are not floats");
  uint32_t L2;
  switch (M.L2Promotion) {
  case 0: L2 = 0; break;
  case 64: L2 = 1; break;
  case 128: L2 = 2; break;
  case 256: L2 = 3; break;
  default:
    return Bad("has an L2 promotion of " + llvm::Twine(M.L2Promotion) +
               " bytes; it is 0, 64, 128 or 256");
  }
  // The tensor of this call.
  if (Dims.size() != Rank || Strides.size() != Rank)
    return Bad("describes a tensor of rank " + llvm::Twine(Rank) +
               ", but host code passed rank " + llvm::Twine(Dims.size()));
  for (int64_t X : Dims)
    if (X <= 0)
      return std::nullopt; // an empty tensor: no box of it is ever read
  auto Undescribable = [&](const llvm::Twine &Why)
      -> llvm::Expected<std::optional<TiledTensorMapRequest>> {
    if (M.Optional)
      return std::nullopt;
    return Bad("cannot describe the tensor passed: " + Why);
  };
  uintptr_t Addr = reinterpret_cast<uintptr_t>(Data);
  if (Addr % TensorMapAlignment != 0)
    return Undescribable("its data is not 16-byte aligned (address % 16 = " +
                         llvm::Twine(unsigned(Addr % TensorMapAlignment)) + ")");
  if (Strides[Rank - 1] != 1)
    return Undescribable("its innermost stride is " +
                         llvm::Twine(Strides[Rank - 1]) + ", not 1");
  TiledTensorMapRequest Req;
  Req.DataType = *Type;
  Req.Rank = Rank;
  Req.Address = const_cast<void *>(Data);
  for (unsigned D = 0; D != Rank; ++D) {
    unsigned Inner = Rank - 1 - D; // the request's dimension
    if (uint64_t(Dims[D]) > (uint64_t(1) << 32))
      return Undescribable("extent " + llvm::Twine(Dims[D]) + " of dimension " +
                           llvm::Twine(D) + " is above 2^32");
    Req.Dims[Inner] = uint64_t(Dims[D]);
    Req.Box[Inner] = M.Box[D];
    Req.ElementStrides[Inner] = 1;
    if (Inner == 0)
      continue;
    if (Strides[D] <= 0 || Strides[D] > (int64_t(1) << 40) / ElemBytes)
      return Undescribable("stride " + llvm::Twine(Strides[D]) +
                           " of dimension " + llvm::Twine(D) +
                           " is outside 1 .. 2^40 bytes");
    int64_t Bytes = Strides[D] * ElemBytes;
    if (Bytes % TensorMapAlignment != 0)
      return Undescribable("the stride of dimension " + llvm::Twine(D) +
                           " is " + llvm::Twine(Bytes) +
                           " bytes, not a multiple of 16");
    Req.Strides[Inner - 1] = uint64_t(Bytes);
  }
  Req.Swizzle = SwizzleMode;
  Req.L2Promotion = L2;
  Req.OOBFill = M.NaNFill ? 1 : 0;
  return Req;
}
