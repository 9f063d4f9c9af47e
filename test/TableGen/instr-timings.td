// -gen-instr-timings: measured instruction timings that replace LLVM's
// scheduling model for a CPU, as a table sorted by CPU and instruction,
// and the located errors for a bad number, a missing source and a timing
// given twice.
// RUN: tile-tblgen -gen-instr-timings -I %tile_include %s | FileCheck %s
// RUN: not tile-tblgen -gen-instr-timings -I %tile_include -DBADNUM %s 2>&1 | FileCheck %s --check-prefix=BADNUM
// RUN: not tile-tblgen -gen-instr-timings -I %tile_include -DZERO %s 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tile-tblgen -gen-instr-timings -I %tile_include -DNOSOURCE %s 2>&1 | FileCheck %s --check-prefix=NOSOURCE
// RUN: not tile-tblgen -gen-instr-timings -I %tile_include -DTWICE %s 2>&1 | FileCheck %s --check-prefix=TWICE

include "tile/Target/InstrTiming.td"

def : InstrTiming<"znver4", "VDPBF16PSZr", "1", "6", "a gemm on \"Zen 4\"">;
def : InstrTiming<"emeraldrapids", "VFMADD231PSZr", "0.5", "4", "a loop">;

// CHECK:      #ifdef GET_TILE_INSTR_TIMINGS
// CHECK-NEXT: #undef GET_TILE_INSTR_TIMINGS
// CHECK-NEXT: {"emeraldrapids", "VFMADD231PSZr", 0.5, 4, "a loop"},
// CHECK-NEXT: {"znver4", "VDPBF16PSZr", 1, 6, "a gemm on \"Zen 4\""},
// CHECK-NEXT: #endif

#ifdef BADNUM
// BADNUM: instr-timings.td:[[@LINE+1]]:5: error: RThroughput of instruction timing 'bad' must be a positive number, not 'fast'
def bad : InstrTiming<"znver5", "VDPBF16PSZr", "fast", "6", "x">;
#endif

#ifdef ZERO
// ZERO: instr-timings.td:[[@LINE+1]]:5: error: Latency of instruction timing 'zero' must be a positive number, not '0'
def zero : InstrTiming<"znver5", "VDPBF16PSZr", "1", "0", "x">;
#endif

#ifdef NOSOURCE
// NOSOURCE: instr-timings.td:[[@LINE+1]]:5: error: instruction timing 'nosource' has no Source
def nosource : InstrTiming<"znver5", "VDPBF16PSZr", "1", "6", "">;
#endif

#ifdef TWICE
// TWICE: instr-timings.td:[[@LINE+2]]:5: error: instruction timing of VDPBF16PSZr on znver4 given twice
// TWICE: note: first given here
def again : InstrTiming<"znver4", "VDPBF16PSZr", "2", "6", "y">;
#endif
