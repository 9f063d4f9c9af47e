//===- KernelGenerator.h - Random valid Tile kernels -----------*- C++ -*-===//
//
// Writes random Tile functions that parse, verify and run: tiled kernels
// over one or two symbolic dimensions that copy global tensors into
// fragments (directly or through shared memory), compute elementwise
// expressions in parallel loops, reduce rows, and write results back, and
// per-thread kernels with guarded index arithmetic, serial loops and vars.
// Every choice is drawn from a ChoiceSource: bytes from the fuzzer (so
// that libFuzzer mutates programs at the level of their structure, past
// the parser) or a seeded random generator (differential testing).
//
// Expressions are kept numerically tame so that a run's result can be
// compared with the f64 reference interpreter at the dtype's tolerance:
// divisors are at least one in magnitude, exp and log see bounded
// arguments, integer values stay far from overflow and never divide by
// zero.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_FUZZ_KERNELGENERATOR_H
#define TILE_TOOLS_FUZZ_KERNELGENERATOR_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tile {

/// Where the generator's decisions come from.
class ChoiceSource {
public:
  virtual ~ChoiceSource() = default;
  /// A value in [0, N); N > 0.
  virtual uint64_t pick(uint64_t N) = 0;
};

/// Decisions read from fuzzer bytes; zeros (the first alternative) once
/// they run out, so every input gives a program.
class ByteChoices : public ChoiceSource {
public:
  explicit ByteChoices(llvm::ArrayRef<uint8_t> Bytes) : Bytes(Bytes) {}
  uint64_t pick(uint64_t N) override;

private:
  llvm::ArrayRef<uint8_t> Bytes;
  size_t Pos = 0;
};

/// Decisions from a seeded Mersenne twister.
class RandomChoices : public ChoiceSource {
public:
  explicit RandomChoices(uint64_t Seed) : Rng(Seed) {}
  uint64_t pick(uint64_t N) override {
    return std::uniform_int_distribution<uint64_t>(0, N - 1)(Rng);
  }

private:
  std::mt19937_64 Rng;
};

/// A generated program and the sizes to run it with.
struct GeneratedKernel {
  std::string Text;
  /// Values for the symbolic dimensions (`M`, `N`).
  std::vector<std::pair<std::string, int64_t>> Dims;
};

/// One random valid function named `@k`.
GeneratedKernel generateKernel(ChoiceSource &C);

} // namespace tile

#endif // TILE_TOOLS_FUZZ_KERNELGENERATOR_H
