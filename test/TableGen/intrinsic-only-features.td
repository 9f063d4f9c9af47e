// -gen-intrinsic-only-features: the CPU features whose instructions only
// intrinsics emit, as a sorted table of names, and the located errors for a
// record without a reason, one without names, a name with spaces and a
// name given twice.
// RUN: tile-tblgen -gen-intrinsic-only-features -I %tile_include %s | FileCheck %s
// RUN: not tile-tblgen -gen-intrinsic-only-features -I %tile_include -DNOWHY %s 2>&1 | FileCheck %s --check-prefix=NOWHY
// RUN: not tile-tblgen -gen-intrinsic-only-features -I %tile_include -DNONAMES %s 2>&1 | FileCheck %s --check-prefix=NONAMES
// RUN: not tile-tblgen -gen-intrinsic-only-features -I %tile_include -DSPACE %s 2>&1 | FileCheck %s --check-prefix=SPACE
// RUN: not tile-tblgen -gen-intrinsic-only-features -I %tile_include -DTWICE %s 2>&1 | FileCheck %s --check-prefix=TWICE
// The CPU backend's table leaves invpcid out of the note and keeps avx2.
// RUN: tile-tblgen -gen-intrinsic-only-features -I %tile_include -I %tile_src/lib/Target/CPU %tile_src/lib/Target/CPU/CPU.td | FileCheck %s --check-prefix=CPU

include "tile/Target/IntrinsicOnlyFeature.td"

def system : IntrinsicOnlyFeatures<["xsave", "invpcid"], "system instructions">;
def crypto : IntrinsicOnlyFeatures<["aes"], "cryptography">;

// CHECK:      #ifdef GET_TILE_INTRINSIC_ONLY_FEATURES
// CHECK-NEXT: #undef GET_TILE_INTRINSIC_ONLY_FEATURES
// CHECK-NEXT: "aes",
// CHECK-NEXT: "invpcid",
// CHECK-NEXT: "xsave",
// CHECK-NEXT: #endif

// CPU: "invpcid",
// CPU-NOT: "avx2",

#ifdef NOWHY
// NOWHY: intrinsic-only-features.td:[[@LINE+1]]:5: error: intrinsic-only features 'nowhy' give no reason
def nowhy : IntrinsicOnlyFeatures<["rdrnd"], " ">;
#endif

#ifdef NONAMES
// NONAMES: intrinsic-only-features.td:[[@LINE+1]]:5: error: intrinsic-only features 'nonames' name no feature
def nonames : IntrinsicOnlyFeatures<[], "nothing">;
#endif

#ifdef SPACE
// SPACE: intrinsic-only-features.td:[[@LINE+1]]:5: error: intrinsic-only features 'space' name the feature ' rdrnd': a feature's name has no spaces
def space : IntrinsicOnlyFeatures<[" rdrnd"], "random numbers">;
#endif

#ifdef TWICE
// TWICE: intrinsic-only-features.td:[[@LINE+2]]:5: error: intrinsic-only feature aes given twice
// TWICE: note: first given here
def again : IntrinsicOnlyFeatures<["sha", "aes"], "cryptography again">;
#endif
