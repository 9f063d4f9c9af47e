// A target backend that declares its own device format and execution
// backend in its .td, and one with no runtime yet (CompileOnly):
// -gen-target-backends registers the format and the execution backend
// with libTileExec before the backends, and reports records placed where
// libTileExec's tables would never learn of them, or that another
// backend's file owns.
// RUN: tile-tblgen -gen-target-backends -I %tile_include %s | FileCheck %s
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DUNUSED %s 2>&1 | FileCheck %s --check-prefix=UNUSED
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -I %S/Inputs -DSTRAY %s 2>&1 | FileCheck %s --check-prefix=STRAY
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -I %S/Inputs -DCROSS %s 2>&1 | FileCheck %s --check-prefix=CROSS
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DCPPNAME %s 2>&1 | FileCheck %s --check-prefix=CPPNAME
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBOTH %s 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DSHAREDNAME %s 2>&1 | FileCheck %s --check-prefix=SHAREDNAME

include "tile/Exec/ExecutionBackends.td"

def VMFormat : DeviceFormat<"vmcode", 0, "bytecode of a virtual machine">;
def VMExec : ExecutionBackend<"vm"> {
  let Summary = "a virtual machine in this process";
  let Consumes = [VMFormat, FormatLLVMIR];
  let Compile = DeferredCompile;
  let Probe = "probeVM";
  let Executor = "createVMExecutor";
}

def VMKind : TargetKind<"vm">;
def VM : TargetBackend<"VM"> {
  let Kinds = [VMKind];
  let Pipeline = "runVMPipeline";
  let DeviceCodeGen = "genVMDevice";
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>,
                 DeviceOutput<VMFormat, Compiled>];
  let ExecutionBackends = [VMExec];
}

def PaperKind : TargetKind<"paper">;
def Paper : TargetBackend<"Paper"> {
  let Summary = "compiles; nothing runs it yet";
  let Kinds = [PaperKind];
  let Pipeline = "runPaperPipeline";
  let DeviceCodeGen = "genPaperDevice";
  let Outputs = [DeviceOutput<FormatC, SourceOnly>];
  let CompileOnly = 1;
}

// CHECK:      #include <mutex>
// CHECK:      //===--- Device formats and execution backends of these backends ---===//
// CHECK:      ExecAvailability probeVM();
// CHECK-NEXT: llvm::Expected<std::unique_ptr<Executor>> createVMExecutor(const ExecutorOptions &);
// CHECK:      DeviceFormat OwnedFormat0 = DeviceFormat(~0u); // vmcode
// CHECK-NEXT: ExecBackendKind OwnedExec0 = ExecBackendKind(~0u); // vm
// CHECK-NEXT: constexpr DeviceFormatInfo kOwnedFormats[] = {
// CHECK-NEXT:   {DeviceFormat(~0u), "vmcode", "bytecode of a virtual machine", false},
// CHECK-NEXT: };
// CHECK-NEXT: DeviceFormat kOwnedExec0Consumes[] = {DeviceFormat(~0u), DeviceFormat::LLVMIR};
// CHECK-NEXT: const ExecBackendInfo kOwnedExecs[] = {
// CHECK-NEXT:   {ExecBackendKind(~0u), "vm",
// CHECK-NEXT:    "a virtual machine in this process",
// CHECK-NEXT:    kOwnedExec0Consumes, 2, false, DeviceCompile::Deferred, probeVM, createVMExecutor},
// CHECK-NEXT: };
// The contract lists the backend's formats the execution backend consumes,
// in the backend's order; the owned ones are filled in at registration.
// CHECK:      DeviceFormat kVM_VmFormats[] = {DeviceFormat::LLVMIR, DeviceFormat(~0u)};
// CHECK-NEXT: ExecCompatInfo kVMExec[] = {
// CHECK-NEXT:   {ExecBackendKind(~0u), kVM_VmFormats, 2, false, DeviceCompile::Deferred},
// CHECK:      DeviceOutputInfo kPaperOutputs[] = {{[{]+}}DeviceFormat::C, OutputMode::SourceOnly}};
// CHECK:      DeviceOutputInfo kVMOutputs[] = {{[{]+}}DeviceFormat::LLVMIR, OutputMode::SourceOnly}, {DeviceFormat(~0u), OutputMode::Compiled}};
// CHECK:      constexpr TargetBackendInfo kBackends[] = {
// CHECK-NEXT:   {"Paper", "compiles; nothing runs it yet",
// CHECK:         kPaperOutputs, 1,
// CHECK-NEXT:    nullptr, 0,
// CHECK-NEXT:    false,
// CHECK-NEXT:    nullptr,
// CHECK-NEXT:    nullptr,
// CHECK-NEXT:    true},
// CHECK:      llvm::Error registerOwnedExecution() {
// CHECK-NEXT:   static std::once_flag Once;
// CHECK-NEXT:   static std::string Failure;
// CHECK-NEXT:   std::call_once(Once, [] {
// CHECK-NEXT:     llvm::Expected<DeviceFormat> F0 = registerDeviceFormat(kOwnedFormats[0]);
// CHECK-NEXT:     if (!F0) {
// CHECK-NEXT:       Failure = llvm::toString(F0.takeError());
// CHECK-NEXT:       return;
// CHECK-NEXT:     }
// CHECK-NEXT:     OwnedFormat0 = *F0;
// CHECK-NEXT:     kOwnedExec0Consumes[0] = OwnedFormat0;
// CHECK-NEXT:     llvm::Expected<ExecBackendKind> E0 = registerExecBackend(kOwnedExecs[0]);
// CHECK-NEXT:     if (!E0) {
// CHECK-NEXT:       Failure = llvm::toString(E0.takeError());
// CHECK-NEXT:       return;
// CHECK-NEXT:     }
// CHECK-NEXT:     OwnedExec0 = *E0;
// CHECK-NEXT:     kVM_VmFormats[1] = OwnedFormat0;
// CHECK-NEXT:     kVMExec[0].Exec = OwnedExec0;
// CHECK-NEXT:     kVMOutputs[1].Format = OwnedFormat0;
// CHECK-NEXT:   });
// CHECK:      llvm::Error registerAllTargetBackends(TargetRegistry &R) {
// CHECK-NEXT:   if (llvm::Error E = registerOwnedExecution())
// CHECK-NEXT:     return E;
// CHECK-NEXT:   for (const TargetBackendInfo &B : kBackends)

#ifdef UNUSED
// UNUSED: backend-owned-exec.td:[[@LINE+1]]:5: error: device format 'orphan' is declared in backend-owned-exec.td, where no target backend produces (nor execution backend consumes) it: declare a backend's own device format in that backend's .td, and a shared one in include/tile/Exec/ExecutionBackends.td
def Orphan : DeviceFormat<"orphan", 1, "nobody makes it">;
// UNUSED: backend-owned-exec.td:[[@LINE+1]]:5: error: execution backend 'idle' is declared in backend-owned-exec.td, where no target backend lists it
def Idle : ExecutionBackend<"idle"> {
  let Consumes = [VMFormat];
  let Probe = "probeIdle";
}
#endif

#ifdef STRAY
include "owned-exec-nobackend.td"
// STRAY: owned-exec-nobackend.td:4:5: error: device format 'stray' is declared in owned-exec-nobackend.td, which declares no target backend: libTileExec's tables would not know it. Declare a backend's own device format in that backend's .td, and a shared one in include/tile/Exec/ExecutionBackends.td
def StrayKind : TargetKind<"stray">;
def StrayUser : TargetBackend<"StrayUser"> {
  let Kinds = [StrayKind];
  let Pipeline = "runStrayPipeline";
  let DeviceCodeGen = "genStrayDevice";
  let Outputs = [DeviceOutput<StrayFormat, SourceOnly>];
  let CompileOnly = 1;
}
#endif

#ifdef CROSS
include "owned-exec-other.td"
// CROSS: backend-owned-exec.td:[[@LINE+3]]:5: error: 'Borrower' uses execution backend 'other-rt', which owned-exec-other.td declares for its own target backends; declare execution backends that several backends share in include/tile/Exec/ExecutionBackends.td
// CROSS: owned-exec-other.td:5:5: note: 'other-rt' declared here
def BorrowKind : TargetKind<"borrow">;
def Borrower : TargetBackend<"Borrower"> {
  let Kinds = [BorrowKind];
  let Pipeline = "runBorrowPipeline";
  let DeviceCodeGen = "genBorrowDevice";
  let Outputs = [DeviceOutput<OtherFormat, Compiled>];
  let ExecutionBackends = [OtherExec];
}
#endif

#ifdef CPPNAME
def NamedFormat : DeviceFormat<"named", 1, "has an enumerator name"> {
  // CPPNAME: backend-owned-exec.td:[[@LINE+1]]:7: error: device format 'named' is declared by a target backend's file and has no DeviceFormat enumerator; remove its CppName (code looks it up by name)
  let CppName = "Named";
}
def NamedKind : TargetKind<"named">;
def NamedUser : TargetBackend<"NamedUser"> {
  let Kinds = [NamedKind];
  let Pipeline = "runNamedPipeline";
  let DeviceCodeGen = "genNamedDevice";
  let Outputs = [DeviceOutput<NamedFormat, SourceOnly>];
  let CompileOnly = 1;
}
#endif

#ifdef BOTH
def BothKind : TargetKind<"both">;
def Both : TargetBackend<"Both"> {
  let Kinds = [BothKind];
  let Pipeline = "runBothPipeline";
  let DeviceCodeGen = "genBothDevice";
  let Outputs = [DeviceOutput<VMFormat, Compiled>];
  let ExecutionBackends = [VMExec];
  // BOTH: backend-owned-exec.td:[[@LINE+1]]:7: error: target backend 'Both' is CompileOnly but lists execution backends; a backend whose output something runs is not compile-only
  let CompileOnly = 1;
}
#endif

#ifdef SHAREDNAME
// A backend's own format cannot take a shared format's name.
// SHAREDNAME: backend-owned-exec.td:[[@LINE+1]]:5: error: duplicate device format name 'ptx'
def MyPTX : DeviceFormat<"ptx", 1, "another PTX">;
def MyPTXKind : TargetKind<"myptx">;
def MyPTXUser : TargetBackend<"MyPTXUser"> {
  let Kinds = [MyPTXKind];
  let Pipeline = "runMyPTXPipeline";
  let DeviceCodeGen = "genMyPTXDevice";
  let Outputs = [DeviceOutput<MyPTX, SourceOnly>];
  let CompileOnly = 1;
}
#endif
