//===- HalfFloat.h - IEEE single to and from the 16-bit floats --*- C++ -*-===//
//
// Bit-exact conversions between float and the bits of IEEE half and bfloat,
// rounding to nearest even as compiler-rt does. They serve the orc
// backend's soft-float helpers (JIT-linked code calls them) and the tools'
// host tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_HALFFLOAT_H
#define TILE_EXEC_HALFFLOAT_H

#include <cstdint>

namespace tile {

/// Conversions between IEEE single and the 16-bit formats (round to
/// nearest even).
uint16_t floatToHalf(float F);
float halfToFloat(uint16_t H);
uint16_t floatToBFloat(float F);
float bfloatToFloat(uint16_t B);

} // namespace tile

#endif // TILE_EXEC_HALFFLOAT_H
