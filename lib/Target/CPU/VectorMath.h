//===- VectorMath.h - The CPU backend's vector math library ---*- C++ -*-===//
//
// exp, exp2, log, log2 and tanh on vectors come from glibc's libmvec on
// x86-64: LLVM's vectorizers call its vector variants (`_ZGVeN16v_expf`,
// one call per vector) instead of the scalar function once per lane. The
// mappings follow the x86 vector function ABI, so they are generated for
// the ISA levels the CPU has rather than listed; LLVM's own LIBMVEC preset
// has exp and log at 128 and 256 bits only.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CPU_VECTORMATH_H
#define TILE_LIB_TARGET_CPU_VECTORMATH_H

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/StringSaver.h"
#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace tile {

/// The vector math library a CPU kernel is compiled against.
class CPUVectorMath {
public:
  /// The library \p T's `veclib` attribute asks for, for \p TM's CPU
  /// (libmvec when unset). `libmvec` needs
  /// an x86-64 triple and libmvec.so.1 loadable in this process; where
  /// either is missing, an explicit request is an error and the default
  /// falls back to none, with getUnavailableReason() saying why.
  static llvm::Expected<CPUVectorMath> get(const TargetSpec &T,
                                           const llvm::TargetMachine &TM);

  /// The shared library the vector variants live in (empty: none).
  llvm::StringRef getLibrary() const { return Library; }
  /// Why the default library is not used (empty when it is, or when none
  /// was asked for).
  llvm::StringRef getUnavailableReason() const { return Reason; }
  /// Whether \p I is computed by a vector variant at \p Bits wide vectors
  /// of f32.
  bool coversAt(Intrinsic I, unsigned Bits) const;
  /// Adds the library's vector variants to \p TLII.
  void addMappings(llvm::TargetLibraryInfoImpl &TLII) const;

  CPUVectorMath(CPUVectorMath &&) = default;

  /// An x86 ISA level of the vector function ABI: its mangling letter and
  /// the width of its vectors.
  struct IsaLevel {
    char Letter;
    unsigned Bits;
  };

private:
  CPUVectorMath() = default;
  std::string Library;
  std::string Reason;
  /// The x86 vector function ABI's ISA levels of the CPU, narrowest first.
  llvm::SmallVector<IsaLevel, 3> Levels;
  std::unique_ptr<llvm::BumpPtrAllocator> Alloc =
      std::make_unique<llvm::BumpPtrAllocator>();
};

} // namespace tile

#endif // TILE_LIB_TARGET_CPU_VECTORMATH_H
