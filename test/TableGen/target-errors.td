// Every located error of -gen-target-backends. Each case is selected with
// -D on a valid base list (which generates on its own).
// RUN: tile-tblgen -gen-target-backends -I %tile_include %s -o /dev/null
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DDUPBACKEND %s 2>&1 | FileCheck %s --check-prefix=DUPBACKEND --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DDUPKIND %s 2>&1 | FileCheck %s --check-prefix=DUPKIND --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DALIASCLASH %s 2>&1 | FileCheck %s --check-prefix=ALIASCLASH --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DSHAREDNOPRED %s 2>&1 | FileCheck %s --check-prefix=SHAREDNOPRED --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DOVERLAP %s 2>&1 | FileCheck %s --check-prefix=OVERLAP --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DGAP %s 2>&1 | FileCheck %s --check-prefix=GAP --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOEXEC %s 2>&1 | FileCheck %s --check-prefix=NOEXEC --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOHOST %s 2>&1 | FileCheck %s --check-prefix=NOHOST --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOFORMAT %s 2>&1 | FileCheck %s --check-prefix=NOFORMAT --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DUNKNOWNATTR %s 2>&1 | FileCheck %s --check-prefix=UNKNOWNATTR --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DOPENATTR %s 2>&1 | FileCheck %s --check-prefix=OPENATTR --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DUNKNOWNVALUE %s 2>&1 | FileCheck %s --check-prefix=UNKNOWNVALUE --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBADPRED %s 2>&1 | FileCheck %s --check-prefix=BADPRED --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBADDEFAULT %s 2>&1 | FileCheck %s --check-prefix=BADDEFAULT --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBADINT %s 2>&1 | FileCheck %s --check-prefix=BADINT --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DDUPATTR %s 2>&1 | FileCheck %s --check-prefix=DUPATTR --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOPIPELINE %s 2>&1 | FileCheck %s --check-prefix=NOPIPELINE --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBADENTRY %s 2>&1 | FileCheck %s --check-prefix=BADENTRY --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBADEMULATOR %s 2>&1 | FileCheck %s --check-prefix=BADEMULATOR --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DUNOWNED %s 2>&1 | FileCheck %s --check-prefix=UNOWNED --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOKIND %s 2>&1 | FileCheck %s --check-prefix=NOKIND --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DTWOHOSTS %s 2>&1 | FileCheck %s --check-prefix=TWOHOSTS --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DHOSTNOTCAPABLE %s 2>&1 | FileCheck %s --check-prefix=HOSTNOTCAPABLE --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOREGISTERFN %s 2>&1 | FileCheck %s --check-prefix=NOREGISTERFN --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DOPNODIALECT %s 2>&1 | FileCheck %s --check-prefix=OPNODIALECT --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DDUPFEATURE %s 2>&1 | FileCheck %s --check-prefix=DUPFEATURE --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DDUPEXEC %s 2>&1 | FileCheck %s --check-prefix=DUPEXEC --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DNOOUTPUT %s 2>&1 | FileCheck %s --check-prefix=NOOUTPUT --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -DBADLIMIT %s 2>&1 | FileCheck %s --check-prefix=BADLIMIT --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -target-register-fn=not::ident %s 2>&1 | FileCheck %s --check-prefix=BADREGFN --implicit-check-not=error:
// RUN: not tile-tblgen -gen-target-backends -I %tile_include -target-register-emulators-fn=not::ident %s 2>&1 | FileCheck %s --check-prefix=BADEMUFN --implicit-check-not=error:

include "tile/Exec/ExecutionBackends.td"

def DemoDialect : Dialect<"demo"> {
  let RegisterFn = "registerDemoOps";
}
def DemoOp : Op<DemoDialect, "op"> {
  let Format = "attr-dict";
}

// DUPKIND-DAG: target-errors.td:[[@LINE+2]]:5: note: first declared here
// ALIASCLASH-DAG: target-errors.td:[[@LINE+1]]:5: note: 'gpu' declared here
def GpuKind : TargetKind<"gpu"> {
  let Aliases = ["accel"];
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1">,
               TargetAttr<"name", TargetString, "any">];
}
// HOSTNOTCAPABLE: target-errors.td:[[@LINE+1]]:5: error: target kind 'host' is the default host, but its target backend 'Host' is not HostCapable
def HostKind : TargetKind<"host"> {
  let DefaultHost = 1;
}

// DUPBACKEND-DAG: target-errors.td:[[@LINE+2]]:5: note: first declared here
// SHAREDNOPRED-DAG: target-errors.td:[[@LINE+1]]:5: error: target kind 'gpu' is owned by target backend 'Gpu' and by 'Other', but 'Gpu' has no Variant predicate; give every owner of a shared kind a mutually exclusive Variant
def Gpu : TargetBackend<"Gpu"> {
  let Kinds = [GpuKind];
  let Dialects = [DemoDialect];
  let Pipeline = "runGpuPipeline";
  let DeviceCodeGen = "genGpu";
  let HostCodeGen = "genGpuHost";
  let Outputs = [DeviceOutput<FormatPTX, SourceOnly>];
  let ExecutionBackends = [CudaExec];
}

def Host : TargetBackend<"Host"> {
  let Kinds = [HostKind];
  let Pipeline = "runHostPipeline";
  let DeviceCodeGen = "genHost";
  let HostCodeGen = "genHostHost";
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>];
  let ExecutionBackends = [OrcExec];
#ifndef HOSTNOTCAPABLE
  let HostCapable = 1;
#endif
}

// A base for the cases below.
class Simple<string name, TargetKind kind> : TargetBackend<name> {
  let Kinds = [kind];
  let Pipeline = "run" # name;
  let DeviceCodeGen = "gen" # name;
  let HostCodeGen = "genHost" # name;
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>];
  let ExecutionBackends = [OrcExec];
}

#ifdef DUPBACKEND
// DUPBACKEND-DAG: target-errors.td:[[@LINE+1]]:5: error: duplicate target backend name 'Gpu'
def GpuAgain : Simple<"Gpu", HostKind>;
#endif

#ifdef DUPKIND
// DUPKIND-DAG: target-errors.td:[[@LINE+1]]:5: error: duplicate target kind name 'gpu'
def GpuKind2 : TargetKind<"gpu">;
#endif

#ifdef ALIASCLASH
def OtherKind : TargetKind<"other"> {
  // ALIASCLASH-DAG: target-errors.td:[[@LINE+1]]:7: error: alias 'gpu' of target kind 'other' is already a target kind or alias
  let Aliases = ["gpu"];
}
def Other : Simple<"Other", OtherKind>;
#endif

#ifdef SHAREDNOPRED
// SHAREDNOPRED-DAG: target-errors.td:[[@LINE+1]]:5: error: target kind 'gpu' is owned by target backend 'Other' and by 'Gpu', but 'Other' has no Variant predicate; give every owner of a shared kind a mutually exclusive Variant
def Other : Simple<"Other", GpuKind>;
#endif

#ifdef OVERLAP
// Gpu owns kind gpu alone; this case has its own kind.
def VKind : TargetKind<"v"> {
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1">];
}
def VOld : Simple<"VOld", VKind> {
  // OVERLAP: target-errors.td:[[@LINE+5]]:7: error: variant predicates of target backends 'VOld' (gen < g3) and 'VNew' (gen >= g2) both accept target 'v -gen=g2'; make them mutually exclusive
  // OVERLAP: target-errors.td:[[@LINE+1]]:7: note: variant predicate of 'VOld'
  let Variant = AttrBelow<"gen", "g3">;
}
def VNew : Simple<"VNew", VKind> {
  let Variant = AttrAtLeast<"gen", "g2">;
}
#endif

#ifdef GAP
// GAP: target-errors.td:[[@LINE+1]]:5: error: no variant predicate of 'VNew', 'VOld' accepts target 'v -gen=g2' of kind 'v'; the predicates must cover every value
def VKind : TargetKind<"v"> {
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1">];
}
def VOld : Simple<"VOld", VKind> {
  let Variant = AttrIn<"gen", ["g1"]>;
}
def VNew : Simple<"VNew", VKind> {
  let Variant = AttrIn<"gen", ["g3"]>;
}
#endif

#ifdef NOEXEC
def CaseKind : TargetKind<"case">;
// NOEXEC: target-errors.td:[[@LINE+1]]:5: error: target backend 'Lonely' declares no execution backend; list the execution backends that can run its output in ExecutionBackends, or set CompileOnly while nothing runs it yet
def Lonely : Simple<"Lonely", CaseKind> {
  let ExecutionBackends = [];
}
#endif

#ifdef NOHOST
def CaseKind : TargetKind<"case">;
def Hostless : Simple<"Hostless", CaseKind> {
  let HostCodeGen = "";
  // NOHOST: target-errors.td:[[@LINE+1]]:7: error: execution backend 'orc' needs host code, but target backend 'Hostless' has no HostCodeGen entry point
  let ExecutionBackends = [WebGPUExec, OrcExec];
  let Outputs = [DeviceOutput<FormatWGSL, SourceOnly>, DeviceOutput<FormatLLVMIR, SourceOnly>];
}
#endif

#ifdef NOFORMAT
def CaseKind : TargetKind<"case">;
def Mismatch : Simple<"Mismatch", CaseKind> {
  // NOFORMAT: target-errors.td:[[@LINE+1]]:7: error: execution backend 'cuda' consumes none of the formats target backend 'Mismatch' produces (it produces llvm-ir; 'cuda' consumes cubin, ptx)
  let ExecutionBackends = [CudaExec];
}
#endif

#ifdef UNKNOWNATTR
def CaseKind : TargetKind<"case"> {
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1">,
               TargetAttr<"name", TargetString, "any">];
}
def Other : Simple<"Other", CaseKind> {
  // UNKNOWNATTR: target-errors.td:[[@LINE+1]]:17: error: predicate in the variant predicate of target backend 'Other' reads attribute 'arch', which target kind 'case' does not have; its attributes: gen, name
  let Variant = AttrIn<"arch", ["x"]>;
}
#endif

#ifdef OPENATTR
def CaseKind : TargetKind<"case"> {
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1">,
               TargetAttr<"name", TargetString, "any">];
}
def Other : Simple<"Other", CaseKind> {
  // OPENATTR: target-errors.td:[[@LINE+1]]:44: error: predicate in the condition of feature 'bf16' of target backend 'Other' reads attribute 'name' of target kind 'case', which lists no allowed values; predicates may only read enumerated attributes
  let Features = [FeatureWhen<FeatureBF16, AttrIn<"name", ["x"]>>];
}
#endif

#ifdef UNKNOWNVALUE
def CaseKind : TargetKind<"case"> {
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1">,
               TargetAttr<"name", TargetString, "any">];
}
def Other : Simple<"Other", CaseKind> {
  // UNKNOWNVALUE: target-errors.td:[[@LINE+1]]:43: error: predicate in the condition of feature 'fp8' of target backend 'Other' compares 'gen' with 'g9', which is not one of its values (g1, g2, g3)
  let Features = [FeatureWhen<FeatureFP8, AttrAtLeast<"gen", "g9">>];
}
#endif

#ifdef BADPRED
def CaseKind : TargetKind<"case">;
// BADPRED: target-errors.td:[[@LINE+1]]:5: error: predicate 'Odd' in the condition of feature 'fp8' of target backend 'Other' is not AttrAlways, AttrIn, AttrAtLeast, AttrBelow, AttrNot, AttrAllOf or AttrAnyOf
def Odd : AttrPred;
def Other : Simple<"Other", CaseKind> {
  let Features = [FeatureWhen<FeatureFP8, Odd>];
}
#endif

#ifdef BADDEFAULT
def BadKind : TargetKind<"bad"> {
  // BADDEFAULT: target-errors.td:[[@LINE+1]]:16: error: default 'g4' of attribute 'gen' of target kind 'bad' is not one of its values (g1, g2, g3)
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g4">];
}
def Bad : Simple<"Bad", BadKind>;
#endif

#ifdef BADINT
def BadKind : TargetKind<"bad"> {
  // BADINT: target-errors.td:[[@LINE+1]]:16: error: default 'four' of int attribute 'units' of target kind 'bad' is not an integer
  let Attrs = [TargetAttr<"units", TargetInt, "four">];
}
def Bad : Simple<"Bad", BadKind>;
#endif

#ifdef DUPATTR
def BadKind : TargetKind<"bad"> {
  // DUPATTR: target-errors.td:[[@LINE+2]]:16: error: duplicate attribute 'gen' of target kind 'bad'
  let Attrs = [TargetEnumAttr<"gen", ["g1"], "g1">,
               TargetEnumAttr<"gen", ["g2"], "g2">];
}
def Bad : Simple<"Bad", BadKind>;
#endif

#ifdef NOPIPELINE
def CaseKind : TargetKind<"case">;
// NOPIPELINE: target-errors.td:[[@LINE+1]]:5: error: target backend 'Other' names no Pipeline entry point (a C++ function in namespace tile); or name a PassPipeline, whose passes the generated table then runs
def Other : Simple<"Other", CaseKind> {
  let Pipeline = "";
}
#endif

#ifdef BADENTRY
def CaseKind : TargetKind<"case">;
def Other : Simple<"Other", CaseKind> {
  // BADENTRY: target-errors.td:[[@LINE+1]]:7: error: DeviceCodeGen entry point 'tile::gen' of target backend 'Other' is not an unqualified C++ identifier
  let DeviceCodeGen = "tile::gen";
}
#endif

#ifdef BADEMULATOR
def EmuKind : TargetKind<"emu">;
def Emu : Simple<"Emu", EmuKind> {
  // BADEMULATOR: target-errors.td:[[@LINE+1]]:7: error: Emulator entry point 'emulate Emu' of target backend 'Emu' is not an unqualified C++ identifier
  let Emulator = "emulate Emu";
}
#endif

#ifdef UNOWNED
// UNOWNED: target-errors.td:[[@LINE+1]]:5: error: target kind 'orphan' is not owned by any target backend
def OrphanKind : TargetKind<"orphan">;
#endif

#ifdef NOKIND
// NOKIND: target-errors.td:[[@LINE+1]]:5: error: target backend 'Nothing' owns no target kind
def Nothing : Simple<"Nothing", HostKind> {
  let Kinds = [];
}
#endif

#ifdef TWOHOSTS
// TWOHOSTS: target-errors.td:[[@LINE+1]]:5: error: target kinds 'host' and 'host2' are both the default host
def Host2Kind : TargetKind<"host2"> {
  let DefaultHost = 1;
}
def Host2 : Simple<"Host2", Host2Kind> {
  let HostCapable = 1;
}
#endif

#ifdef NOREGISTERFN
def CaseKind : TargetKind<"case">;
def NoFnDialect : Dialect<"nofn">;
def Other : Simple<"Other", CaseKind> {
  // NOREGISTERFN: target-errors.td:[[@LINE+1]]:7: error: dialect 'nofn' of target backend 'Other' has no RegisterFn to register its ops
  let Dialects = [NoFnDialect];
}
#endif

#ifdef OPNODIALECT
def LostDialect : Dialect<"lost"> {
  let RegisterFn = "registerLostOps";
}
def LostOp : Op<LostDialect, "op"> {
  let Format = "attr-dict";
}
// OPNODIALECT: target-errors.td:[[@LINE+1]]:1: error: op 'lost.op' needs features, but no target backend lowers its dialect 'lost'
def : OpNeedsFeatures<LostOp, [FeatureFP8]>;
#endif

#ifdef DUPFEATURE
// DUPFEATURE-DAG: target-errors.td:[[@LINE+1]]:5: error: duplicate target feature name 'fp8'
def MyFP8 : TargetFeature<"fp8", "again">;
// DUPFEATURE-DAG: Target.td:{{[0-9]+}}:5: note: first declared here
#endif

#ifdef DUPEXEC
def CaseKind : TargetKind<"case">;
def Other : Simple<"Other", CaseKind> {
  // DUPEXEC: target-errors.td:[[@LINE+1]]:7: error: target backend 'Other' lists execution backend 'orc' twice
  let ExecutionBackends = [OrcExec, OrcExec];
}
#endif

#ifdef NOOUTPUT
def CaseKind : TargetKind<"case">;
// NOOUTPUT: target-errors.td:[[@LINE+1]]:5: error: target backend 'Other' declares no device output format
def Other : Simple<"Other", CaseKind> {
  let Outputs = [];
}
#endif

// BADREGFN: error: -target-register-fn='not::ident' is not a C++ identifier
// BADEMUFN: error: -target-register-emulators-fn='not::ident' is not a C++ identifier

#ifdef BADLIMIT
def LimitKind : TargetKind<"lim"> {
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2"], "g1">,
               TargetAttr<"name", TargetString, "x">];
}
def Lim : Simple<"Lim", LimitKind> {
  // BADLIMIT-DAG: target-errors.td:[[@LINE+4]]:7: error: limit 'threads per block' of target backend 'Lim' is not positive
  // BADLIMIT-DAG: target-errors.td:[[@LINE+3]]:7: error: limit 'shared memory per block' of target backend 'Lim' reads 'name', which is not an int attribute of kind 'lim'
  // BADLIMIT-DAG: target-errors.td:[[@LINE+4]]:{{[0-9]+}}: error: predicate in the condition of limit 'grid dimension x' of target backend 'Lim' compares 'gen' with 'g9', which is not one of its values (g1, g2)
  // BADLIMIT-DAG: target-errors.td:[[@LINE+1]]:7: error: limit 'registers per thread' of target backend 'Lim' reads 'units', which is not an int attribute of kind 'lim'
  let Limits = [ResourceLimit<ThreadsPerBlock, 0>,
                ResourceLimitFromAttr<SharedMemoryPerBlock, "name", 4>,
                ResourceLimit<GridDimX, 8, AttrIn<"gen", ["g9"]>>,
                ResourceLimitFromAttr<RegistersPerThread, "units", 4>];
}
#endif
