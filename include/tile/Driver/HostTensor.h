//===- HostTensor.h - Typed host arrays for tools ---------------*- C++ -*-===//
//
// A HostTensor holds the bytes of one argument in its Tile dtype, row-major,
// on the host: what tile-jit reads from and writes to .npy files, fills
// with random numbers or poison, copies to the device, and compares with
// the reference interpreter's f64 results.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_HOSTTENSOR_H
#define TILE_DRIVER_HOSTTENSOR_H

#include "tile/Exec/HalfFloat.h"
#include "tile/IR/DType.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tile {

class HostTensor {
public:
  HostTensor() = default;
  HostTensor(DType Ty, std::vector<int64_t> Shape);

  DType getDType() const { return Ty; }
  const std::vector<int64_t> &getShape() const { return Shape; }
  int64_t getNumElements() const;
  size_t getNumBytes() const { return Data.size(); }
  void *data() { return Data.data(); }
  const void *data() const { return Data.data(); }

  /// Element \p I as a double (exact for every dtype but u64/i64 beyond
  /// 2^53).
  double get(int64_t I) const;
  /// Stores \p V rounded (floats, to nearest even) or converted (integers,
  /// truncating toward zero and wrapping) to the dtype.
  void set(int64_t I, double V);

  /// Uniform random values: floats in [-1, 1), integers in [-8, 8)
  /// ([0, 16) unsigned), booleans 0/1.
  void fillRandom(std::mt19937_64 &Rng);
  /// A value no correct kernel writes by accident: NaN for floats, a
  /// repeated byte pattern for integers.
  void poison();

private:
  DType Ty = DType::F32;
  std::vector<int64_t> Shape;
  std::vector<uint8_t> Data;
};

/// NumPy .npy files (format 1.0/2.0, little-endian, C order). bf16 and the
/// fp8 formats, which NumPy has no dtype for, are stored as unsigned
/// integers of their width holding the bit patterns; \p Hint says to read
/// such a file as that dtype.
llvm::Expected<HostTensor> readNpy(llvm::StringRef Path,
                                   std::optional<DType> Hint = std::nullopt);
llvm::Error writeNpy(llvm::StringRef Path, const HostTensor &T);

} // namespace tile

#endif // TILE_DRIVER_HOSTTENSOR_H
