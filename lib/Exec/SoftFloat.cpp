//===- SoftFloat.cpp - Conversion helpers JIT-compiled code calls ---------===//
//
// LLVM lowers conversions to and from half and bfloat to calls of
// compiler-rt's helpers (__truncsfbf2, __extendhfsf2, ...) on CPUs without
// the instructions. A JIT-linked object cannot rely on the process having
// compiler-rt, so the orc backend defines these symbols itself (and a
// linked host library maps them to the exported tile_* names through
// getRuntimeLibcallAliases). They round
// to nearest even, as compiler-rt does (tile/Exec/HalfFloat.h).
//
//===----------------------------------------------------------------------===//

#include "SoftFloat.h"
#include "tile/Exec/Executor.h"
#include "tile/Exec/HalfFloat.h"
#include <cmath>
#include <cstdint>
#include <cstring>

using namespace tile;

uint16_t tile::floatToHalf(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t Sign = (X >> 16) & 0x8000;
  uint32_t Exp = (X >> 23) & 0xff;
  uint32_t Man = X & 0x7fffff;
  if (Exp == 0xff) // inf or NaN
    return Sign | 0x7c00 | (Man ? 0x200 : 0);
  int E = int(Exp) - 127 + 15;
  if (E >= 31)
    return Sign | 0x7c00;
  if (E <= 0) {
    if (E < -10)
      return Sign;
    Man |= 0x800000;
    int Shift = 14 - E;
    uint32_t Half = Man >> Shift;
    uint32_t Rem = Man & ((1u << Shift) - 1);
    uint32_t Mid = 1u << (Shift - 1);
    if (Rem > Mid || (Rem == Mid && (Half & 1)))
      ++Half;
    return Sign | Half;
  }
  uint32_t Half = (uint32_t(E) << 10) | (Man >> 13);
  uint32_t Rem = Man & 0x1fff;
  if (Rem > 0x1000 || (Rem == 0x1000 && (Half & 1)))
    ++Half; // may carry into the exponent, which is right
  return Sign | Half;
}

float tile::halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f;
  uint32_t Man = H & 0x3ff;
  uint32_t X;
  if (Exp == 0x1f)
    X = Sign | 0x7f800000 | (Man << 13);
  else if (Exp == 0) {
    if (Man == 0)
      X = Sign;
    else {
      float V = std::ldexp(float(Man), -24);
      return Sign ? -V : V;
    }
  } else
    X = Sign | ((Exp - 15 + 127) << 23) | (Man << 13);
  float F;
  std::memcpy(&F, &X, 4);
  return F;
}

uint16_t tile::floatToBFloat(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  if ((X & 0x7fffffff) > 0x7f800000)
    return uint16_t((X >> 16) | 0x40);
  uint32_t Round = 0x7fff + ((X >> 16) & 1);
  return uint16_t((X + Round) >> 16);
}

float tile::bfloatToFloat(uint16_t B) {
  uint32_t X = uint32_t(B) << 16;
  float F;
  std::memcpy(&F, &X, 4);
  return F;
}

namespace {

template <typename T> T fromBits(uint16_t B) {
  T R;
  std::memcpy(&R, &B, 2);
  return R;
}
template <typename T> uint16_t toBits(T V) {
  uint16_t B;
  std::memcpy(&B, &V, 2);
  return B;
}

extern "C" {
_Float16 tile_truncsfhf2(float F) { return fromBits<_Float16>(floatToHalf(F)); }
// From double through float: rounding twice can differ from a direct
// conversion in the last bit, for rare values that tie after the first.
_Float16 tile_truncdfhf2(double D) { return fromBits<_Float16>(floatToHalf(float(D))); }
float tile_extendhfsf2(_Float16 H) { return halfToFloat(toBits(H)); }
__bf16 tile_truncsfbf2(float F) { return fromBits<__bf16>(floatToBFloat(F)); }
__bf16 tile_truncdfbf2(double D) { return fromBits<__bf16>(floatToBFloat(float(D))); }
}

} // namespace

namespace {
struct SoftFloatHelper {
  RuntimeLibcallAlias Alias;
  void *Address;
};
} // namespace

static const SoftFloatHelper Helpers[] = {
    {{"__truncsfhf2", "tile_truncsfhf2"}, reinterpret_cast<void *>(&tile_truncsfhf2)},
    {{"__truncdfhf2", "tile_truncdfhf2"}, reinterpret_cast<void *>(&tile_truncdfhf2)},
    {{"__extendhfsf2", "tile_extendhfsf2"}, reinterpret_cast<void *>(&tile_extendhfsf2)},
    {{"__gnu_h2f_ieee", "tile_extendhfsf2"}, reinterpret_cast<void *>(&tile_extendhfsf2)},
    {{"__gnu_f2h_ieee", "tile_truncsfhf2"}, reinterpret_cast<void *>(&tile_truncsfhf2)},
    {{"__truncsfbf2", "tile_truncsfbf2"}, reinterpret_cast<void *>(&tile_truncsfbf2)},
    {{"__truncdfbf2", "tile_truncdfbf2"}, reinterpret_cast<void *>(&tile_truncdfbf2)}};

std::vector<std::pair<const char *, void *>> tile::getSoftFloatHelpers() {
  std::vector<std::pair<const char *, void *>> R;
  for (const SoftFloatHelper &H : Helpers)
    R.push_back({H.Alias.Callee, H.Address});
  return R;
}

std::vector<RuntimeLibcallAlias> tile::getRuntimeLibcallAliases() {
  std::vector<RuntimeLibcallAlias> R;
  for (const SoftFloatHelper &H : Helpers)
    R.push_back(H.Alias);
  return R;
}
