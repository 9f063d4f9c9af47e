//===- Printer.h - Writing the Tile textual format --------------*- C++ -*-===//
//
// Prints IR in its canonical textual form. Parsing the output gives the
// same IR, and printing that again gives the same text.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_PRINTER_H
#define TILE_IR_PRINTER_H

#include "tile/IR/IR.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace tile {

void printModule(const Module &M, llvm::raw_ostream &OS);
void printFunction(const Function &F, llvm::raw_ostream &OS);
/// Prints one statement (and its nested blocks) at \p Indent spaces.
void printStmt(const Stmt &S, llvm::raw_ostream &OS, unsigned Indent = 0);
void printExpr(const Expr &E, llvm::raw_ostream &OS);
void printRegion(const Region &R, llvm::raw_ostream &OS);

std::string toString(const Module &M);
std::string toString(const Expr &E);

} // namespace tile

#endif // TILE_IR_PRINTER_H
