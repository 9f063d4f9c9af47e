//===- CPUTargetInfo.h - What the CPU backend asks of LLVM's target -*- C++ -*-===//
//
// The target machine the CPU backend compiles for (the target's `mcpu`,
// `native` by default), shared by codegen and by passes that shape loops
// for the vector registers, which they learn from LLVM's cost model (TTI)
// rather than from a table of CPU names.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CPU_CPUTARGETINFO_H
#define TILE_LIB_TARGET_CPU_CPUTARGETINFO_H

#include "tile/Target/BackendContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include <memory>

namespace tile {

/// Initializes LLVM's native target and asm printer (once per process).
void initializeCPUTarget();

/// An O3 TargetMachine for \p T's `mcpu` on this process's triple. It may
/// contract a * b + c into a fused multiply-add (as CUDA's default
/// -fmad=true does).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
getCPUTargetMachine(const TargetSpec &T);

/// The vector registers and cache line of a CPU, as LLVM's cost model
/// describes them.
struct CPUVectorInfo {
  /// Width of a fixed-width vector register, in bits (256 for AVX2).
  unsigned VectorBits = 256;
  /// Number of vector registers (16 for AVX2, 32 for AVX-512).
  unsigned NumVectorRegs = 16;
  /// Bytes of a data cache line (64 on x86).
  unsigned CacheLineBytes = 64;
};

/// The vector registers of \p T's CPU.
llvm::Expected<CPUVectorInfo> getCPUVectorInfo(const TargetSpec &T);

} // namespace tile

#endif // TILE_LIB_TARGET_CPU_CPUTARGETINFO_H
