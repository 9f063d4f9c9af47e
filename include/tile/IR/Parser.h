//===- Parser.h - Reading the Tile textual format ---------------*- C++ -*-===//
//
// Parses `.tile` text into a Module. Syntax and name-resolution errors are
// reported through the DiagnosticEngine with their location; the parser
// stops at the first one and returns null.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_PARSER_H
#define TILE_IR_PARSER_H

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>

namespace tile {

/// Parses buffer \p BufferID of \p SM. Returns null after reporting an error.
std::unique_ptr<Module> parseModule(llvm::SourceMgr &SM, unsigned BufferID,
                                    TileContext &Ctx, DiagnosticEngine &Diag);

/// Parses \p Text (named \p Name in diagnostics). The text is copied into
/// \p SM, which must outlive the module for its locations to stay valid.
std::unique_ptr<Module> parseModuleString(llvm::StringRef Text,
                                          llvm::StringRef Name,
                                          llvm::SourceMgr &SM, TileContext &Ctx,
                                          DiagnosticEngine &Diag);

/// Reads and parses a file ("-" for stdin) and verifies it. Errors,
/// including an unreadable file, go to \p Diag.
std::unique_ptr<Module> parseSourceFile(llvm::StringRef Path,
                                        llvm::SourceMgr &SM, TileContext &Ctx,
                                        DiagnosticEngine &Diag);

} // namespace tile

#endif // TILE_IR_PARSER_H
