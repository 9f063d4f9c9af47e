//===- TensorMap.h - Tiled tensor maps from artifact descriptions -*- C++ -*-===//
//
// How an execution backend turns an ArtifactTensorMap (what device code
// generation asked for: element type, box, swizzle, fill) and the tensor of
// one call (its data, extents and strides) into the request a driver takes
// to build a tiled tensor map: the operands of CUDA's
// cuTensorMapEncodeTiled, innermost dimension first, with the enumerators
// of cuda.h. Also the rule that decides whether the hardware can describe
// a tensor at all, which kernels that take optional maps test themselves.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_TENSORMAP_H
#define TILE_EXEC_TENSORMAP_H

#include "tile/Exec/KernelArtifact.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>

namespace tile {

/// The operands of cuTensorMapEncodeTiled. Enumerators are cuda.h's:
/// CUtensorMapDataType, CUtensorMapSwizzle, CUtensorMapL2promotion,
/// CUtensorMapFloatOOBfill; interleave is always NONE.
struct TiledTensorMapRequest {
  static constexpr unsigned MaxRank = 5;
  uint32_t DataType = 0;
  uint32_t Rank = 0;
  void *Address = nullptr;
  /// Extents, innermost first.
  uint64_t Dims[MaxRank] = {};
  /// Strides in bytes of dimensions 1 .. Rank - 1 (dimension 0 is
  /// contiguous).
  uint64_t Strides[MaxRank - 1] = {};
  /// Box extents and element strides (all 1), innermost first.
  uint32_t Box[MaxRank] = {};
  uint32_t ElementStrides[MaxRank] = {};
  uint32_t Swizzle = 0;
  uint32_t L2Promotion = 0;
  uint32_t OOBFill = 0;
};

/// Alignment the hardware needs of a described tensor's data and of each
/// of its strides but the innermost, in bytes.
constexpr int64_t TensorMapAlignment = 16;

/// The request that builds map \p M for a tensor at \p Data with extents
/// \p Dims and strides \p Strides (in elements, outermost first, as DLPack
/// and host code have them). std::nullopt when no map is to be built and
/// the argument is all zeros: an empty tensor (the kernel reads none of
/// it), or, for an optional map, a tensor the hardware cannot describe
/// (data not 16-byte aligned, an outer stride not a multiple of 16 bytes,
/// an inner stride other than 1, an extent above 2^32 or a stride at or
/// above 2^40 bytes). An error for a tensor a map that is not optional
/// cannot describe, or for a description no hardware takes (rank, box,
/// swizzle, element type), naming the tensor and what is wrong.
llvm::Expected<std::optional<TiledTensorMapRequest>>
describeTiledTensorMap(const ArtifactTensorMap &M, const void *Data,
                       llvm::ArrayRef<int64_t> Dims,
                       llvm::ArrayRef<int64_t> Strides);

} // namespace tile

#endif // TILE_EXEC_TENSORMAP_H
