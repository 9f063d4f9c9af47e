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
