//===- SIMTPasses.td - Per-thread code passes of the NVIDIA backends -*- tablegen -*-===//

include "tile/Transforms/PassBase.td"

def CUDASIMTPasses : PassGroup<"registerCUDASIMTPasses">;

def RegisterFragments : Pass<CUDASIMTPasses, "cuda-register-fragments"> {
  let Summary = "Keep the fragments of memory-bound kernels in registers";
  let Description = [{
    Runs before tile-lower-tile-ops on the CUDA and Hopper pipelines. In a
    kernel whose fragments are only copied to and from global memory,
    filled, reduced along their last dimension and read and written
    elementwise by parallel loops, each fragment becomes a per-thread local
    array: a large one distributed over the threads (thread t holds
    elements t * V .. t * V + V - 1 of every T * V chunk, V elements being
    vector-bytes of the global type), a small one (a reduce result)
    replicated in every thread. Copies become cuda.vload / cuda.vstore for
    whole tiles and guarded element code for partial ones; parallel loops
    become unrolled loops over the thread's elements; reduces become a
    per-thread partial, warp shuffles (cuda.shfl_xor) and one exchange
    through shared memory between warps. Kernels that do not qualify
    (gemm on a fragment, fragments exchanged with shared memory or read by
    other threads, shapes that do not share out evenly) are left for the
    generic SIMT path.
  }];
  let Options = [
    PassOption<"warp-size", "int", "32", "threads per warp">,
    PassOption<"vector-bytes", "int", "16", "bytes per global vector access">,
    PassOption<"max-elements-per-thread", "int", "64",
               "largest fragment share a thread keeps in registers">,
  ];
  let Constructor = "createRegisterFragmentsPass";
}
