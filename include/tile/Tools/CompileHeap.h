//===- CompileHeap.h - The tools' heap for compiling ------------*- C++ -*-===//
//
// A compile allocates and frees tens of megabytes in many blocks (LLVM's
// IR, analyses, selection DAGs, machine code). In a fresh process each new
// 4 KiB page of the heap costs a page fault the first time it is touched
// (about 5,900 faults for a cold compile and run of the CPU f32 GEMM),
// glibc gives freed memory at the top of the heap back to the system, to
// be faulted in again, and serves blocks of 128 KiB and more from mappings
// of their own, faulted in afresh each time. reserveCompileHeap grows the
// heap once, keeps what is freed, serves blocks below 32 MiB from the heap,
// and asks for transparent huge pages (2 MiB) for it, so that the compile
// faults in a few large pages instead of thousands of small ones.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_COMPILEHEAP_H
#define TILE_TOOLS_COMPILEHEAP_H

#include <string>

namespace tile {

/// Prepares the process's heap for compiling (above). A tool calls it once,
/// early; later calls change nothing.
void reserveCompileHeap();

/// After the compile: what the process allocates from here on (tensors)
/// gets small pages and, from 128 KiB, mappings of its own, as without
/// reserveCompileHeap, so that a kernel's timings do not depend on it.
void endCompileHeap();

/// One line for --print-compile-time: the heap reserveCompileHeap left, or
/// why it left the heap as it was.
std::string describeCompileHeap();

} // namespace tile

#endif // TILE_TOOLS_COMPILEHEAP_H
