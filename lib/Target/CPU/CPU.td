//===- CPU.td - The CPU target backend -----------------------*- tablegen -*-===//
//
// Target kinds `cpu` (alias `host`, the default host target), `llvm` (as in
// TVM: LLVM IR for a CPU) and `c` (portable C source). Blocks become serial
// loops or thread-pool tasks; the orc execution backend runs the result.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "tile/Target/InstrTiming.td"
include "tile/Target/IntrinsicOnlyFeature.td"
include "CPUOps.td"

// Where LLVM 22's scheduling model misjudges the instructions that decide
// how a bf16 gemm runs (CPUTargetInfo.h, PreferBF16Dot: vdpbf16ps against
// vfmadd231ps on zmm registers), what was measured; the other CPUs take the
// model's numbers.
//
// Zen 4: the model gives vdpbf16ps zmm a reciprocal throughput of 3 cycles,
// but the vdpbf16ps gemm ran at 446 GFLOP/s on 2 threads of an EPYC (Zen 4),
// about 30 multiply-adds a cycle a core, faster than the f32 FMA gemm there:
// at least one vdpbf16ps a cycle. Latency as the model has it.
def : InstrTiming<"znver4", "VDPBF16PSZr", "1", "6",
                  "the bf16 gemm of cpu-lower-gemm on vdpbf16ps, 2 threads of an "
                  "EPYC (Zen 4): 446 GFLOP/s">;
// Emerald Rapids (model 207), measured here by loops of independent
// instructions (8 x 2 accumulators): vfmadd231ps zmm retires about 5 G/s a
// core, vdpbf16ps zmm 1.27 G/s; the model has 1 and 2 cycles for them. The
// FMA's is corrected (the choice is the same, FMAs, but the margin is 2x).
// Sapphire Rapids has the same cores (two 512-bit FMA units).
def : InstrTiming<"emeraldrapids", "VFMADD231PSZr", "0.5", "4",
                  "a loop of 16 independent vfmadd231ps zmm on a Xeon of model 207: "
                  "5 G/s a core against 1.27 G/s of vdpbf16ps">;
def : InstrTiming<"sapphirerapids", "VFMADD231PSZr", "0.5", "4",
                  "emeraldrapids' cores: two 512-bit FMA units">;

// x86 features left out of an artifact's `cpu-features` note: the code
// generator emits their instructions only for intrinsics, and the CPU
// backend calls none of them. Hypervisors hide some (invpcid on the 2-core
// EPYC guest where CI runs: code for -mcpu=haswell runs there).
def : IntrinsicOnlyFeatures<["cldemote", "clflushopt", "clwb", "clzero", "enqcmd",
                             "fsgsbase", "hreset", "invpcid", "movdir64b",
                             "movdiri", "mwaitx", "pconfig", "pku", "prefetchi",
                             "ptwrite", "rdpid", "rdpru", "rdrnd", "rdseed",
                             "rtm", "serialize", "sgx", "shstk", "tsxldtrk",
                             "uintr", "usermsr", "waitpkg", "wbnoinvd", "xsave",
                             "xsavec", "xsaveopt", "xsaves"],
                            "system, cache-control, random-number and "
                            "user-interrupt instructions">;
def : IntrinsicOnlyFeatures<["aes", "crc32", "kl", "pclmul", "sha", "sha512",
                             "sm3", "sm4", "vaes", "vpclmulqdq", "widekl"],
                            "cryptography and checksums">;
def : IntrinsicOnlyFeatures<["amx-bf16", "amx-complex", "amx-fp16", "amx-int8",
                             "amx-tile"],
                            "AMX tiles, which the CPU backend does not use">;

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

// Unset: O3 (CPUCodeGen.cpp, CPUCodeGenPassGate).
defvar CpuLlvmCodegen = TargetEnumAttr<"llvm_codegen", ["O3", "nolsr"], "",
                                       "LLVM code generation: O3, or O3 "
                                       "without loop strength reduction "
                                       "(nolsr: a third less code "
                                       "generation time for the f32 GEMM; "
                                       "the kernels' code differs); unset: "
                                       "O3">;

def CpuKind : TargetKind<"cpu"> {
  let Summary = "this machine's CPU, LLVM IR run through ORC";
  let Aliases = ["host"];
  let Attrs = [CpuMcpu, CpuVeclib, CpuExp, CpuLlvmOpt, CpuLlvmCodegen];
  let DefaultHost = 1;
}

def LlvmKind : TargetKind<"llvm"> {
  let Summary = "LLVM IR for a CPU";
  let Attrs = [CpuMcpu, CpuVeclib, CpuExp, CpuLlvmOpt, CpuLlvmCodegen];
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
