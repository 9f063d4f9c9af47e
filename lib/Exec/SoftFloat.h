//===- SoftFloat.h - Conversion helpers JIT-compiled code calls -*- C++ -*-===//

#ifndef TILE_LIB_EXEC_SOFTFLOAT_H
#define TILE_LIB_EXEC_SOFTFLOAT_H

#include <utility>
#include <vector>

namespace tile {
/// compiler-rt's half/bfloat conversion helpers, by symbol name.
std::vector<std::pair<const char *, void *>> getSoftFloatHelpers();
} // namespace tile

#endif // TILE_LIB_EXEC_SOFTFLOAT_H
