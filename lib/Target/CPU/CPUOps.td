//===- CPUOps.td - The cpu dialect ---------------------------*- tablegen -*-===//
//
// CPU-specific tile ops, lowered only by the CPU backend. Written
// `cpu.<op>` in .tile files.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CPU_CPUOPS_TD
#define TILE_TARGET_CPU_CPUOPS_TD

include "tile/Target/DialectBase.td"

def CPUDialect : Dialect<"cpu"> {
  let Summary = "host CPU ops, lowered by the CPU backend";
  let CppPrefix = "CPU";
  let RegisterFn = "registerCPUOps";
}

def CPUPrefetchOp : Op<CPUDialect, "prefetch"> {
  let Summary = "Ask the cache hierarchy for the line holding one element of a tensor";
  let Description = [{
    A hint with no effect on results: the cache line of global memory that
    holds the element is loaded towards the core (llvm.prefetch, on x86
    `prefetcht0` .. `prefetchnta`). The element may lie outside the tensor
    (a prefetch never faults). `locality` is LLVM's temporal locality, from
    0 (none: prefetchnta) to 3 (keep in all levels: prefetcht0).
    `cpu-prefetch-next-block` produces it.
  }];
  let Example = "cpu.prefetch %X[%bx + 1, %j] {locality = 2}";
  let Arguments = (ins Region:$src,
                   IntAttr<"3", "temporal locality, 0 (none) to 3 (all cache levels)">:$locality);
  let Format = "$src attr-dict";
  let Verifier = "verifyCPUPrefetchOp";
  let Elementwise = 1;
}

// The two ops of the bf16 micro-kernel of cpu-lower-gemm on CPUs with
// AVX512-BF16. They name the first element of what they read and write;
// the buffers of both operands of cpu.transpose_pairs and of the a and b
// operands of cpu.dpbf16ps are on-chip or local (constant row strides).

def CPUDpbf16psOp : Op<CPUDialect, "dpbf16ps"> {
  let Summary = "Sixteen f32 sums of products of bf16 pairs (vdpbf16ps)";
  let Description = [{
    `cpu.dpbf16ps %c[i, j], %a[r, k], %b[p, q]` adds to each of the 16 f32
    elements c[i, j + l] (l = 0..15) the products a[r, k] * b[p, q + 2l] and
    a[r, k + 1] * b[p, q + 2l + 1] of bf16 values: one vdpbf16ps of a
    broadcast pair of a and 32 consecutive elements of b (pairs of a K step,
    for 16 columns). As the instruction does, the products are exact, each
    addition is rounded to nearest even, and denormal inputs and results
    are flushed to zero. Needs AVX512-BF16 (CPU codegen rejects the op on
    a CPU without it); `cpu-lower-gemm` produces it.
  }];
  let Example = "cpu.dpbf16ps %acc[%i, 16], %Xs[%i, 2 * %kp], %Bp[%kp, 32]";
  let Arguments = (ins Region:$c, Region:$a, Region:$b);
  let Format = "$c `,` $a `,` $b attr-dict";
  let Verifier = "verifyCPUDpbf16psOp";
}

def CPUTransposePairsOp : Op<CPUDialect, "transpose_pairs"> {
  let Summary = "Transpose a 16 x 16 block of pairs of 16-bit elements";
  let Description = [{
    `cpu.transpose_pairs %dst[r, c], %src[s, t]` copies, for a and b in
    0..15 and e in 0..1, src[s + b, t + 2a + e] to dst[r + a, c + 2b + e]:
    the pairs of 16 rows of src (32 elements each) become 16 rows of dst of
    16 pairs. It packs a gemm's B stored [N, K] (transpose_b) into the
    pairs of K steps that `cpu.dpbf16ps` reads, as 16 vector loads, 64
    shuffles and 16 vector stores. Both buffers have the same 16-bit dtype.
  }];
  let Example = "cpu.transpose_pairs %Bp[0, 32], %Ws[16, 0]";
  let Arguments = (ins Region:$dst, Region:$src);
  let Format = "$dst `,` $src attr-dict";
  let Verifier = "verifyCPUTransposePairsOp";
}

def CPUWidenBF16Op : Op<CPUDialect, "widen_bf16"> {
  let Summary = "Convert consecutive bf16 elements to f32 (vector shifts)";
  let Description = [{
    `cpu.widen_bf16 %dst[i, j], %src[r, c] {lanes = n}` stores f32(src[r,
    c + l]) to dst[i, j + l] for l = 0..n-1. With `pairs = true` src holds
    pairs of rows (as `cpu.transpose_pairs` writes them) and the op
    separates them: f32(src[r, c + 2l + e]) goes to dst[i + e, j + l] for
    e = 0, 1, so that dst must be on-chip or local. The conversion is
    exact (a bf16 is the upper half of an f32): one vector load, a shift
    (and a mask for the second row of pairs) and a store per row, which
    the bf16 gemms of cpu-lower-gemm that run on f32 FMAs pack their
    operands with.
  }];
  let Example = "cpu.widen_bf16 %Bf[2 * %kp, 0], %Bp[%kp, 0] {lanes = 16, pairs = true}";
  let Arguments = (ins Region:$dst, Region:$src,
                   IntAttr<"", "lanes: elements converted per row, 1 to 64">:$lanes,
                   BoolAttr<"false", "src holds pairs of rows, split into rows i and i + 1 of dst">:$pairs);
  let Format = "$dst `,` $src attr-dict";
  let Verifier = "verifyCPUWidenBF16Op";
  let Writes = ["dst"];
}

// The f32 and f64 micro-kernel of cpu-lower-gemm in vector form: the
// vector FMAs, loads and stores that LLVM's SLP vectorizer makes of the
// unrolled scalar multiply-adds, written out so that LLVM's middle end
// neither has to unroll and simplify the scalar code nor to find the vectors
// (compile time). They name the first element of what they read and
// write; the last dimension of c, b, dst and src is contiguous.

def CPUFmaOp : Op<CPUDialect, "fma"> {
  let Summary = "Multiply-add of consecutive elements by one broadcast element";
  let Description = [{
    `cpu.fma %c[i, j], %a[r, k], %b[p, q] {lanes = n}` adds to each element
    c[i, j + l] (l = 0..n-1) the product a[r, k] * b[p, q + l]: a vector
    multiply and a vector add (one FMA where the target fuses them, as it
    does the scalar ones) of n lanes. c, a and b are all f32 or all f64.
    `cpu-lower-gemm` produces it.
  }];
  let Example = "cpu.fma %acc[%i, 16], %As[%i, %k], %Bs[%k, 16] {lanes = 16}";
  let Arguments = (ins Region:$c, Region:$a, Region:$b,
                   IntAttr<"", "lanes: consecutive elements of c and b, 1 to 64">:$lanes);
  let Format = "$c `,` $a `,` $b attr-dict";
  let Verifier = "verifyCPUFmaOp";
  let Writes = ["c"];
}

def CPUCopyLanesOp : Op<CPUDialect, "copy_lanes"> {
  let Summary = "Copy of consecutive elements (one vector load and store)";
  let Description = [{
    `cpu.copy_lanes %dst[i, j], %src[r, c] {lanes = n}` copies src[r, c + l]
    to dst[i, j + l] for l = 0..n-1, as one vector load and one vector
    store. Both buffers have the same f32 or f64 dtype. `cpu-lower-gemm`
    produces it for the accumulators of its micro-kernels.
  }];
  let Example = "cpu.copy_lanes %acc[%i, 16], %Cf[%r, %c + 16] {lanes = 16}";
  let Arguments = (ins Region:$dst, Region:$src,
                   IntAttr<"", "lanes: consecutive elements copied, 1 to 64">:$lanes);
  let Format = "$dst `,` $src attr-dict";
  let Verifier = "verifyCPUCopyLanesOp";
  let Writes = ["dst"];
}

#endif // TILE_TARGET_CPU_CPUOPS_TD
