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

#endif // TILE_TARGET_CPU_CPUOPS_TD
