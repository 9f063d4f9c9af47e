// -gen-exec-backends: the format and execution backend enums and tables,
// sorted by name, and its located errors.
// RUN: tile-tblgen -gen-exec-backends -I %tile_include %s | FileCheck %s
// RUN: not tile-tblgen -gen-exec-backends -I %tile_include -DDUP %s 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not tile-tblgen -gen-exec-backends -I %tile_include -DNOPROBE %s 2>&1 | FileCheck %s --check-prefix=NOPROBE
// RUN: not tile-tblgen -gen-exec-backends -I %tile_include -DNOFORMAT %s 2>&1 | FileCheck %s --check-prefix=NOFORMAT
// RUN: not tile-tblgen -gen-exec-backends -I %tile_include -DDUPFORMAT %s 2>&1 | FileCheck %s --check-prefix=DUPFORMAT
// RUN: not tile-tblgen -gen-exec-backends -I %tile_include -DBADFACTORY %s 2>&1 | FileCheck %s --check-prefix=BADFACTORY
// The real list (include/tile/Exec/ExecutionBackends.td) generates.
// RUN: tile-tblgen -gen-exec-backends -I %tile_include %tile_include/tile/Exec/ExecutionBackends.td | FileCheck %s --check-prefix=REAL

include "tile/Target/Target.td"

def FmtZ : DeviceFormat<"zbin", 0, "a binary">;
// DUPFORMAT-DAG: exec-backends.td:[[@LINE+1]]:5: note: first declared here
def FmtA : DeviceFormat<"asm", 1, "a text"> {
  let CppName = "Asm";
}

// DUP-DAG: exec-backends.td:[[@LINE+1]]:5: note: first declared here
def SlowExec : ExecutionBackend<"slow"> {
  let Summary = "runs text";
  let Consumes = [FmtA];
  let NeedsHostCodeGen = 1;
  let Compile = DeferredCompile;
  let Probe = "probeSlow";
}
def FastExec : ExecutionBackend<"fast-lane"> {
  let Summary = "runs binaries";
  let Consumes = [FmtZ, FmtA];
  let Probe = "probeFast";
  let Executor = "createFastExecutor";
}

// CHECK:      #ifdef GET_TILE_DEVICE_FORMAT_ENUM
// CHECK:      enum class DeviceFormat : unsigned {
// CHECK-NEXT:   Asm, // asm
// CHECK-NEXT:   Zbin, // zbin
// CHECK-NEXT: };
// CHECK-NEXT: constexpr unsigned NumDeviceFormats = 2;
// CHECK:      enum class ExecBackendKind : unsigned {
// CHECK-NEXT:   FastLane, // fast-lane
// CHECK-NEXT:   Slow, // slow
// CHECK-NEXT: };
// CHECK-NEXT: constexpr unsigned NumExecBackends = 2;
// The probes and executor factories, declared for their definitions.
// CHECK:      #ifdef GET_TILE_EXEC_BACKEND_ENTRY_POINTS
// CHECK:      ExecAvailability probeFast();
// CHECK-NEXT: ExecAvailability probeSlow();
// CHECK-NEXT: llvm::Expected<std::unique_ptr<Executor>> createFastExecutor(const ExecutorOptions &);
// CHECK-NEXT: } // namespace tile
// CHECK:      #ifdef GET_TILE_EXEC_BACKEND_TABLE
// CHECK:      ExecAvailability probeFast();
// CHECK-NEXT: ExecAvailability probeSlow();
// CHECK-NEXT: llvm::Expected<std::unique_ptr<Executor>> createFastExecutor(const ExecutorOptions &);
// CHECK:      constexpr DeviceFormatInfo kDeviceFormatTable[] = {
// CHECK-NEXT:   {DeviceFormat::Asm, "asm", "a text", true},
// CHECK-NEXT:   {DeviceFormat::Zbin, "zbin", "a binary", false},
// CHECK-NEXT: };
// CHECK:      constexpr DeviceFormat kFastLaneConsumes[] = {DeviceFormat::Zbin, DeviceFormat::Asm};
// CHECK-NEXT: constexpr DeviceFormat kSlowConsumes[] = {DeviceFormat::Asm};
// CHECK:      constexpr ExecBackendInfo kExecBackendTable[] = {
// CHECK-NEXT:   {ExecBackendKind::FastLane, "fast-lane",
// CHECK-NEXT:    "runs binaries",
// CHECK-NEXT:    kFastLaneConsumes, 2, false, DeviceCompile::Eager, probeFast, createFastExecutor},
// CHECK-NEXT:   {ExecBackendKind::Slow, "slow",
// CHECK-NEXT:    "runs text",
// CHECK-NEXT:    kSlowConsumes, 1, true, DeviceCompile::Deferred, probeSlow, nullptr},
// CHECK-NEXT: };

// The real list holds at least the host's execution backend, with its
// probe and factory; which others there are is its own business.
// REAL: enum class ExecBackendKind : unsigned {
// REAL:   Orc, // orc
// REAL: };
// REAL: {ExecBackendKind::Orc, "orc",
// REAL: probeOrcExecution, createOrcExecutor},

#ifdef DUP
// DUP-DAG: exec-backends.td:[[@LINE+1]]:5: error: duplicate execution backend name 'slow'
def SlowAgain : ExecutionBackend<"slow"> {
  let Consumes = [FmtA];
  let Probe = "probeSlow2";
  let CppName = "SlowAgain";
}
#endif

#ifdef NOPROBE
// NOPROBE: exec-backends.td:[[@LINE+1]]:5: error: execution backend 'unprobed' needs a Probe: the C++ name of its availability probe
def Unprobed : ExecutionBackend<"unprobed"> {
  let Consumes = [FmtA];
}
#endif

#ifdef NOFORMAT
// NOFORMAT: exec-backends.td:[[@LINE+1]]:5: error: execution backend 'empty' consumes no device format
def Empty : ExecutionBackend<"empty"> {
  let Probe = "probeEmpty";
}
#endif

#ifdef DUPFORMAT
// DUPFORMAT-DAG: exec-backends.td:[[@LINE+1]]:5: error: duplicate device format name 'asm'
def FmtA2 : DeviceFormat<"asm", 1, "again"> {
  let CppName = "Asm2";
}
#endif

#ifdef BADFACTORY
def Qualified : ExecutionBackend<"qualified"> {
  let Consumes = [FmtA];
  let Probe = "probeQualified";
  // BADFACTORY: exec-backends.td:[[@LINE+1]]:7: error: Executor of execution backend 'qualified' ('ns::createIt') is not an unqualified C++ identifier
  let Executor = "ns::createIt";
}
#endif
