//===- CPU.td - The CPU target backend -----------------------*- tablegen -*-===//
//
// Target kinds `cpu` (alias `host`, the default host target), `llvm` (as in
// TVM: LLVM IR for a CPU) and `c` (portable C source). Blocks become serial
// loops or thread-pool tasks; the orc execution backend runs the result.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "CPUOps.td"

defvar CpuMcpu = TargetAttr<"mcpu", TargetString, "native", [],
                            "LLVM CPU name, or native for this machine">;
// Unset unless written, so that target strings stay as they were; the CPU
// codegen takes `tile` when it is unset (VectorMath.h).
defvar CpuVeclib = TargetEnumAttr<"veclib", ["none", "libmvec", "tile"], "",
                                  "vector math for exp, exp2, log, log2 and "
                                  "tanh: none (lane by lane), libmvec (glibc's, "
                                  "x86-64 Linux), tile (exp and exp2 of f32 "
                                  "inline, the others from libmvec where it "
                                  "loads); unset: tile">;
// Unset (auto): the inline exp takes its 2^-18 form in kernels that write
// only f16 and bf16 tensors (VectorMath.h, chooseFastExp).
defvar CpuExp = TargetEnumAttr<"exp", ["auto", "accurate", "fast"], "",
                               "accuracy of the inline exp and exp2 of f32: "
                               "accurate (1.3 ulp), fast (2^-18 relative), "
                               "auto (fast where every tensor a kernel writes "
                               "is f16 or bf16); unset: auto">;

// Unset: kernel (LLVMCodeGen.h, LLVMPipeline).
defvar CpuLlvmOpt = TargetEnumAttr<"llvm_opt", ["kernel", "O3"], "",
                                   "LLVM middle-end pipeline: kernel (O3 "
                                   "without dead store elimination and the "
                                   "passes that gave the kernels nothing), "
                                   "O3; unset: kernel">;

def CpuKind : TargetKind<"cpu"> {
  let Summary = "this machine's CPU, LLVM IR run through ORC";
  let Aliases = ["host"];
  let Attrs = [CpuMcpu, CpuVeclib, CpuExp, CpuLlvmOpt];
  let DefaultHost = 1;
}

def LlvmKind : TargetKind<"llvm"> {
  let Summary = "LLVM IR for a CPU";
  let Attrs = [CpuMcpu, CpuVeclib, CpuExp, CpuLlvmOpt];
}

def CKind : TargetKind<"c"> {
  let Summary = "portable C source for the host";
}

def CPUBackend : TargetBackend<"CPU"> {
  let Summary = "host CPUs: vectorized LLVM IR, or C source";
  let Kinds = [CpuKind, LlvmKind, CKind];
  let Dialects = [CPUDialect];
  let PassPipeline = "buildCPUPipeline";
  let RegisterPasses = "registerCPUPasses";
  let DeviceCodeGen = "generateCPUDeviceCode";
  let HostCodeGen = "generateCPUHostCode";
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>,
                 DeviceOutput<FormatObject, Compiled>,
                 DeviceOutput<FormatC, SourceOnly>];
  let ExecutionBackends = [OrcExec];
  let HostCapable = 1;
  // A block runs as one task of a thread pool, its shared buffers,
  // fragments and locals as arrays on the worker thread's stack (8 MiB by
  // default); thread counts as the GPU targets allow them.
  let Limits = [
    ResourceLimit<ThreadsPerBlock, 1024>,
    ResourceLimit<StackArraysPerBlock, 4194304, AttrAlways,
                  "on the CPU a block's shared buffers and fragments are " #
                  "arrays on the stack of the thread that runs it: use " #
                  "smaller tiles">,
  ];
}
