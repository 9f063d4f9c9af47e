//===- CPUTargetInfo.h - What the CPU backend asks of LLVM's target -*- C++ -*-===//
//
// The target machine the CPU backend compiles for (the target's `mcpu`,
// `native` by default), shared by codegen and by passes that shape loops
// for the vector registers, which they learn from LLVM's cost model (TTI)
// rather than from a table of CPU names, and the vector width each kernel
// is compiled for.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CPU_CPUTARGETINFO_H
#define TILE_LIB_TARGET_CPU_CPUTARGETINFO_H

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include <algorithm>
#include <memory>
#include <string>

namespace tile {

/// Initializes LLVM's native target and asm printer (once per process).
void initializeCPUTarget();

/// An O3 TargetMachine for \p T's `mcpu` on this process's triple. It may
/// contract a * b + c into a fused multiply-add (as CUDA's default
/// -fmad=true does).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
getCPUTargetMachine(const TargetSpec &T);

/// getCPUTargetMachine's answer, but the TargetMachine that
/// getCPUVectorInfo made for \p T's cost-model probes when no one has taken
/// it yet: it has already built the subtarget a kernel without function
/// attributes of its own uses (the machine alone took ~0.4 ms of a cold
/// compile here).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
takeCPUTargetMachine(const TargetSpec &T);

/// The LLVM function attribute that sets the vector width LLVM's
/// vectorizers and cost model use for a function ("prefer-vector-width",
/// which x86 honours). 512-bit types are legal on AVX-512 targets whatever
/// it says ("min-legal-vector-width" only matters when set below 512), so
/// this attribute alone decides whether a loop runs on zmm registers.
inline constexpr const char *kPreferVectorWidthAttr = "prefer-vector-width";

/// How fast an instruction issues and completes on a CPU, in cycles.
struct InstrTiming {
  /// Cycles between two independent instructions (reciprocal throughput).
  double RThroughput = 0;
  /// Cycles from the inputs to the result.
  double Latency = 0;
  /// Where the numbers come from: "LLVM's scheduling model", or a
  /// measurement that CPU.td records (InstrTiming).
  std::string Source;

  bool isKnown() const { return RThroughput > 0 && Latency > 0; }
  /// Multiply-adds a cycle of a loop of such instructions, each doing
  /// \p MACs of them, into \p Accumulators independent chains: the issue
  /// rate, unless the chains are too few to cover the latency.
  double macsPerCycle(double MACs, double Accumulators) const {
    return MACs * std::min(1 / RThroughput, Accumulators / Latency);
  }
};

/// The default rows of a gemm's register block (cpu-lower-gemm): its
/// accumulators, \p VectorsPerRow per row, the broadcasts of A (one a
/// row) and a vector of B, plus a spare, in \p NumVectorRegs registers, at
/// most 8 rows.
inline int64_t getDefaultGemmRows(int64_t NumVectorRegs, int64_t VectorsPerRow) {
  return std::clamp<int64_t>((NumVectorRegs - 2) / (VectorsPerRow + 1), 1, 8);
}

/// The vector registers and cache line of a CPU, as LLVM's cost model
/// describes them.
struct CPUVectorInfo {
  /// Width of the vector registers LLVM's tuning for the CPU prefers, in
  /// bits: what it vectorizes for when a function does not say (256 for
  /// AVX2, and for most AVX-512 CPUs, whose tuning prefers 256-bit vectors).
  unsigned VectorBits = 256;
  /// Width of the widest vector registers the CPU has (512 with AVX-512).
  unsigned WidestVectorBits = 256;
  /// Number of vector registers (16 for AVX2, 32 for AVX-512).
  unsigned NumVectorRegs = 16;
  /// Bytes of a data cache line (64 on x86).
  unsigned CacheLineBytes = 64;
  /// Whether the CPU multiplies pairs of bf16 into f32 sums in 512-bit
  /// vectors (AVX512-BF16: vdpbf16ps, the `cpu.dpbf16ps` op).
  bool HasBF16Dot = false;
  /// Whether a gemm of bf16 operands into f32 runs faster on vdpbf16ps
  /// (32 multiply-adds of pairs an instruction) than converted to f32 and
  /// multiplied with vfmadd231ps (16), both in 512-bit vectors, with the
  /// accumulators of the default register block, as LLVM's scheduling model
  /// of the CPU times the two instructions (BF16DotTiming, F32FmaTiming),
  /// unless CPU.td records a measured timing for the CPU (InstrTiming);
  /// a tie goes to the FMAs. False without AVX512-BF16. cpu-lower-gemm's
  /// `bf16-dot` option (auto) follows it.
  bool PreferBF16Dot = false;
  /// The timings of vdpbf16ps and vfmadd231ps on zmm registers (unknown
  /// where the CPU's scheduling model has none), and the CPU's name.
  InstrTiming BF16DotTiming, F32FmaTiming;
  std::string CPUName;
  /// Why PreferBF16Dot is what it is, with the numbers, for remarks.
  std::string BF16DotReason;
  /// Whether the CPU computes on vectors of f16 itself (AVX512-FP16:
  /// vmaxph, vminph take 32 halves per 512-bit vector, twice the lanes of
  /// f32, with no conversion).
  bool HasF16Arith = false;
  /// The math functions that LLVM computes one lane at a time on vectors
  /// of the widest width (a library call per element: exp, log, tanh
  /// without a vector math library), as its cost model says, less those the
  /// vector math library (VectorMath.h) has at that width.
  llvm::SmallVector<Intrinsic, 4> LaneByLane;
};

/// The vector registers of \p T's CPU.
llvm::Expected<CPUVectorInfo> getCPUVectorInfo(const TargetSpec &T);

/// The vector width, in bits, that kernel \p K is compiled for: the widest
/// registers of the CPU, unless K computes one of Info.LaneByLane (there a
/// wider vector only adds lanes to extract and registers to save around
/// each call), in which case the width the CPU's tuning prefers. The CPU
/// passes size their loops for it and CPU codegen sets
/// kPreferVectorWidthAttr to it, so that both agree.
unsigned getKernelVectorBits(const CPUVectorInfo &Info, const KernelStmt &K);

/// \p Info with VectorBits set to getKernelVectorBits(Info, K).
CPUVectorInfo getKernelVectorInfo(const CPUVectorInfo &Info, const KernelStmt &K);

} // namespace tile

#endif // TILE_LIB_TARGET_CPU_CPUTARGETINFO_H
