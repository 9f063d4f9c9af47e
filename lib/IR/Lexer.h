//===- Lexer.h - Tokens of the Tile textual format --------------*- C++ -*-===//
//
// Splits a buffer into tokens for the parser. `//` starts a comment that
// runs to the end of the line.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_IR_LEXER_H
#define TILE_LIB_IR_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <string>

namespace tile {

enum class TokKind {
  Eof,
  Error,
  Ident,     // foo, f16, M, cuda.wgmma
  ValueName, // %A
  FuncName,  // @matmul
  Int,       // 128
  Float,     // 1.5, 1e-6
  String,    // "text"
  LParen, RParen, LBrack, RBrack, LBrace, RBrace,
  Comma, Colon, Arrow, Equal, Lt, Gt, Le, Ge, EqEq, Ne,
  Plus, Minus, Star, Slash, Percent, Amp, Pipe, Caret, Shl, Shr,
  AmpAmp, PipePipe, Bang,
};

struct Token {
  TokKind Kind = TokKind::Eof;
  llvm::StringRef Text;

  llvm::SMLoc getLoc() const { return llvm::SMLoc::getFromPointer(Text.data()); }
  bool is(TokKind K) const { return Kind == K; }
  bool isIdent(llvm::StringRef S) const { return Kind == TokKind::Ident && Text == S; }
};

class Lexer {
public:
  explicit Lexer(llvm::StringRef Buffer) : Buf(Buffer), Cur(Buffer.begin()) {}
  Token next();
  /// Position for re-lexing from a saved token.
  void resetTo(const char *P) { Cur = P; }
  const char *getBufferStart() const { return Buf.begin(); }

private:
  Token make(TokKind K, const char *Start) {
    return {K, llvm::StringRef(Start, Cur - Start)};
  }
  Token lexNumber(const char *Start);

  llvm::StringRef Buf;
  const char *Cur;
};

llvm::StringRef getTokenSpelling(TokKind K);

/// What is wrong with the text of an Error token, as a diagnostic message:
/// an unterminated string, a number run into a name, a lone '@', or a
/// character the language does not use.
std::string getLexErrorMessage(const Token &T);

} // namespace tile

#endif // TILE_LIB_IR_LEXER_H
