//===- CPUPasses.td - Passes of the CPU backend ------------*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def CPUPasses : PassGroup<"registerCPUPasses">;

def MaterializeLaunch : Pass<CPUPasses, "cpu-materialize-launch"> {
  let Summary = "Run a block's threads one after another";
  let Description = [{
    On a CPU one task runs a whole block. Statements that depend on the
    thread index are grouped into maximal runs, and each run becomes a
    serial loop over the block's threads; thread-dependent lets that a
    later run uses are recomputed in it. Barriers separate runs, so they
    are removed, and the kernel no longer binds a thread index.
  }];
  let Constructor = "createMaterializeLaunchPass";
}

def CPULowerGemm : Pass<CPUPasses, "cpu-lower-gemm"> {
  let Summary = "Lower gemm to register-blocked loops for FMA micro-kernels";
  let Description = [{
    Cuts C into MR x NR blocks. Each block is accumulated in a `local`
    buffer over the whole K extent by a serial loop whose body is an
    unrolled column-outer, row-inner nest of multiply-adds, then written
    back (or, with clear_accum, started from zero). After unrolling LLVM
    keeps the block in vector registers and turns each row of NR products
    into vector FMAs on a vector load of B and a broadcast of A. B is
    packed first into a `local` [K, N] buffer of the accumulator's type
    when its rows are not contiguous in that type (transpose_b, strides,
    a narrower dtype); A is packed only to convert it. Blocks at the
    edges take the remaining rows and columns. By default NR is two
    vector registers of the accumulator's type and MR the most rows (at
    most 8) whose accumulators, broadcasts of A and a vector of B fit the
    vector registers, as LLVM's cost model for the target describes them;
    without a target, as for AVX2 (256-bit, 16 registers: 4 x 16 for f32).
  }];
  let Options = [
    PassOption<"mr", "int", "0",
               "rows of a register block (0: from the target's vector registers)">,
    PassOption<"nr", "int", "0",
               "columns of a register block (0: two vector registers)">,
  ];
  let Constructor = "createCPULowerGemmPass";
}
