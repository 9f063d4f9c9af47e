//===- VectorMath.h - The CPU backend's vector math library ---*- C++ -*-===//
//
// exp, exp2, log, log2 and tanh on vectors come from glibc's libmvec on
// x86-64: LLVM's vectorizers call its vector variants (`_ZGVeN16v_expf`,
// one call per vector) instead of the scalar function once per lane. The
// mappings follow the x86 vector function ABI, so they are generated for
// the ISA levels the CPU has rather than listed; LLVM's own LIBMVEC preset
// has exp and log at 128 and 256 bits only.
//
// By default (`veclib` unset or `tile`) exp and exp2 of f32, the functions
// of softmax and attention, are instead expanded inline (emitInlineExpF32):
// a call to libmvec's costs about four times the expansion's instructions
// and makes the caller save every vector register it keeps live.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CPU_VECTORMATH_H
#define TILE_LIB_TARGET_CPU_VECTORMATH_H

#include "tile/IR/IR.h"
#include "tile/IR/Remarks.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/IRBuilder.h"
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
  /// (`tile` when unset: exp and exp2 of f32 inline, the rest from libmvec
  /// where it loads). `libmvec` needs
  /// an x86-64 triple and libmvec.so.1 loadable in this process; where
  /// either is missing, an explicit request is an error and the default
  /// falls back to none, with getUnavailableReason() saying why.
  static llvm::Expected<CPUVectorMath> get(const TargetSpec &T,
                                           const llvm::TargetMachine &TM);

  /// Whether exp and exp2 of f32 are expanded inline (emitInlineExpF32)
  /// rather than called.
  bool inlinesExp() const { return InlineExp; }
  /// The accuracy the target's `exp` attribute asks of the inline exp.
  enum class ExpAccuracy { Auto, Accurate, Fast };
  ExpAccuracy getExpAccuracy() const { return ExpMode; }
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
  bool InlineExp = false;
  ExpAccuracy ExpMode = ExpAccuracy::Auto;
  /// The x86 vector function ABI's ISA levels of the CPU, narrowest first.
  llvm::SmallVector<IsaLevel, 3> Levels;
  std::unique_ptr<llvm::BumpPtrAllocator> Alloc =
      std::make_unique<llvm::BumpPtrAllocator>();
};

/// exp(\p X) (exp2 when \p Base2) for a scalar f32 \p X, as instructions
/// that LLVM's vectorizers widen: X is clamped to where the result is
/// neither 0 nor infinite, the exponent n = roundeven(X / ln 2) (one
/// vrndscaleps), r = X - n ln 2 (ln 2 in two parts, Cody and Waite) in
/// [-ln 2 / 2, ln 2 / 2], e^r from Cephes' degree-6 polynomial (expf.c),
/// and the result e^r * 2^n: llvm.ldexp of fptosi(n), which the CPU codegen
/// makes one vscalefps of n itself after vectorization, when \p HasScalef,
/// else two multiplies by powers of two built in the exponent field, so
/// that results in the subnormal range round once. NaN stays NaN; +-inf
/// give inf and 0. Accuracy: bench/cpu/exp_ulp.py, docs/Targets.md.
llvm::Value *emitInlineExpF32(llvm::IRBuilder<> &B, llvm::Value *X, bool Base2,
                              bool HasScalef);

/// exp(\p X) (exp2 when \p Base2) for a scalar f32 \p X to about 2^-18
/// relative error, for results that are rounded to 16-bit floats: t =
/// X log2(e) clamped as in emitInlineExpF32, n = floor(t), 2^(t - n) on
/// [0, 1] from a degree-4 polynomial, scaled by 2^n the same way (the
/// floor form). Half the instructions of emitInlineExpF32 (no Cody-Waite
/// reduction, a shorter polynomial). NaN stays NaN; +-inf give inf and 0.
/// With AVX-512DQ the CPU codegen drops the clamps and n once vectorized
/// (dropFastExpClamps): vmulps, vreduceps, four FMAs, vscalefps.
llvm::Value *emitFastExpF32(llvm::IRBuilder<> &B, llvm::Value *X, bool Base2,
                            bool HasScalef);

/// Reports what foldExpShifts did, or did not do, to the exp whose
/// vscalefps is the instruction given.
using ExpShiftRemark =
    llvm::function_ref<void(const llvm::Instruction &, bool Passed, llvm::StringRef Message)>;

/// Computes the vectorized fast exp of `x - m` (emitFastExpF32, after
/// dropFastExpClamps: vsubps, vmulps, vreduceps, four FMAs, vscalefps) as
/// exp2(x log2(e) - c) with one FMA where m is one value for the loop (its
/// splat) and x an f16 value (converted from f16, or selected between such
/// values and constants f16 holds or infinities): softmax's exp(x - max).
/// c = m log2(e) is kept as two f32 parts computed once per m, c_hi in the
/// FMA and c_lo folded into the polynomial's coefficients as the factor
/// 2^-c_lo, so that t = fl(x log2(e) - c_hi) is rounded once, relative to
/// itself, as (x - m) log2(e) was: no accuracy is lost where x is near m
/// (fusing with c = fl(m log2(e)) alone errs by up to half an ulp of c,
/// 0.3% at f16's largest values). Results are the same for infinite and NaN
/// x and m. Where such an exp is then multiplied by r, one value for the
/// loop (the reciprocal of softmax's sum), r joins the coefficients too, in
/// a copy of the loop taken where |r| is in [2^-100, 2^100] (the loop as it
/// was runs otherwise). Runs after dropFastExpClamps on \p LM.
void foldExpShifts(llvm::Module &LM, const ExpShiftRemark &Remark);

/// Whether exp and exp2 of f32 in \p K may take emitFastExpF32: every
/// tensor the kernel writes has f16 or bf16 elements, whose rounding (a
/// relative 2^-11 or 2^-8 at best) dwarfs the fast expansion's 2^-18.
/// Says why at the kernel's first exp or exp2 of f32 (a passed or missed
/// remark of `cpu-codegen`); a kernel without one says nothing.
/// `exp=accurate` and `exp=fast` decide for every kernel (with a remark
/// saying so). Where the fast form is taken and the CPU lacks
/// AVX-512DQ (\p HasReduce false), a missed remark says that its clamps
/// stay.
bool chooseFastExp(const KernelStmt &K, CPUVectorMath::ExpAccuracy Mode, bool HasReduce,
                   RemarkEngine &Remarks);

} // namespace tile

#endif // TILE_LIB_TARGET_CPU_VECTORMATH_H
