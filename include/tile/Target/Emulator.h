//===- Emulator.h - Running a backend's lowered code on the host -*- C++ -*-===//
//
// A target backend may declare an emulator (the `Emulator` entry point of
// its TargetBackend record): a function that runs a function as the
// backend's pipeline left it, on host tensors, modelling the device's
// execution of that code (its threads, memories and dialect ops) rather
// than the language's semantics. The function lives in the backend's
// emulator library (tile_add_target_emulator in lib/Target/CMakeLists.txt),
// apart from its compiler library; a program that emulates registers it
// with registerAllTargetEmulators (tile/Target/AllEmulators.h) and reaches
// it through TargetRegistry::getEmulator (tile-jit --emulate), so that the
// numerics of a lowering can be checked against the reference interpreter
// without the device.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_EMULATOR_H
#define TILE_TARGET_EMULATOR_H

namespace llvm {
class SourceMgr;
}

namespace tile {

struct EmulatorOptions {
  /// When set, errors carry the location they are about, rendered as
  /// `file:line:col: error: message` with the source line and a caret.
  const llvm::SourceMgr *SM = nullptr;
  /// Bytes past an aligned boundary (256 bytes, a driver allocation's) at
  /// which each tensor's data starts, as DLPack's byte_offset: an emulator
  /// models the alignment-dependent paths from it.
  unsigned DataOffset = 0;
  /// The blocks a device runs at once, which a persistent kernel (one that
  /// loops over its grid's tiles itself) is launched with at most: an
  /// H100 SXM's 132 multiprocessors, one block each. Tests set fewer so
  /// that each block takes several tiles.
  unsigned ResidentBlocks = 132;
};

} // namespace tile

#endif // TILE_TARGET_EMULATOR_H
