//===- MetalOps.td - The metal dialect -----------------------*- tablegen -*-===//
//
// Apple-specific tile ops, lowered only by the Metal backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_METAL_METALOPS_TD
#define TILE_TARGET_METAL_METALOPS_TD

include "tile/Target/DialectBase.td"

def MetalDialect : Dialect<"metal"> {
  let Summary = "Apple GPU ops, lowered by the Metal backend";
  let CppPrefix = "Metal";
  let RegisterFn = "registerMetalOps";
}

def MetalSimdgroupMmaOp : Op<MetalDialect, "simdgroup_mma"> {
  let Summary = "8x8 simdgroup matrix multiply-accumulate: C += A * B";
  let Description = [{
    C += op(A) * op(B) on whole rank-2 buffers whose M, N and K are
    multiples of 8, computed by the threadgroup's simdgroups together: each
    simdgroup takes 8x8 tiles of C in turn and accumulates them with
    simdgroup_multiply_accumulate over K. A and B are shared or fragment
    buffers (threadgroup memory after SIMT lowering). C is a fragment, or
    (with m and n, C's shape) the per-thread `local` array of the
    registers: elements 2 * tt and 2 * tt + 1 are the thread's two elements
    of its simdgroup's tt-th tile, simdgroup s of S taking tiles s, s + S,
    ... in row-major order. The Metal pipeline creates it from `gemm`
    (metal-lower-gemm-simdgroup).
  }];
  let Example = "metal.simdgroup_mma %As, %Bs -> %Cf {transpose_b = true}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c,
                   BoolAttr<"false", "A is stored [K, M]">:$transpose_a,
                   BoolAttr<"false", "B is stored [N, K]">:$transpose_b,
                   IntAttr<"0", "C's rows, when C is a per-thread array (0: C's shape)">:$m,
                   IntAttr<"0", "C's columns, when C is a per-thread array">:$n);
  let Format = "$a `,` $b `->` $c attr-dict";
  let Writes = ["c"];
  // Every thread of the threadgroup executes the op (its simdgroup takes
  // its share of C's 8x8 tiles), so to tile-lower-to-simt it is per-thread
  // code like an element op: it stays where it is, followed by a barrier.
  // It must not appear under thread-dependent control flow or in a
  // parallel loop; MSL codegen reports it there.
  let Elementwise = 1;
}

def MetalSimdReduceOp : Op<MetalDialect, "simd_reduce"> {
  let Summary = "Combine a value over the simdgroup: simd_sum, simd_max, simd_min";
  let Description = [{
    Per-thread code: every thread of the simdgroup contributes `value` and
    receives, in the local element dst, the sum (max, min) of the
    simdgroup's values. All 32 threads of the simdgroup must execute it
    together. f32, i32 or u32. tile-lower-reduce-subgroups produces it for
    reduces whose rows the whole threadgroup shares.
  }];
  let Example = "metal.simd_reduce %p[0] -> %t[0] {kind = sum}";
  let Arguments = (ins Expr:$value, Region:$dst,
                   EnumAttr<["sum", "max", "min"], "", "the combining function">:$kind);
  let Format = "$value `->` $dst attr-dict";
  let Verifier = "verifyMetalSimdReduceOp";
  let Elementwise = 1;
  let Writes = ["dst"];
}

#endif // TILE_TARGET_METAL_METALOPS_TD
