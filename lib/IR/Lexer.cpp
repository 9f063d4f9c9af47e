//===- Lexer.cpp - Tokens of the Tile textual format ----------------------===//

#include "Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace tile;

static bool isIdentStart(char C) { return llvm::isAlpha(C) || C == '_'; }
static bool isIdentChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '.';
}

Token Lexer::lexNumber(const char *Start) {
  bool IsFloat = false;
  while (llvm::isDigit(*Cur))
    ++Cur;
  if (*Cur == '.' && llvm::isDigit(Cur[1])) {
    IsFloat = true;
    ++Cur;
    while (llvm::isDigit(*Cur))
      ++Cur;
  }
  if ((*Cur == 'e' || *Cur == 'E') &&
      (llvm::isDigit(Cur[1]) ||
       ((Cur[1] == '-' || Cur[1] == '+') && llvm::isDigit(Cur[2])))) {
    IsFloat = true;
    Cur += 2;
    while (llvm::isDigit(*Cur))
      ++Cur;
  }
  if (isIdentStart(*Cur)) {
    // `12abc` is not a number followed by a name.
    while (isIdentChar(*Cur))
      ++Cur;
    return make(TokKind::Error, Start);
  }
  return make(IsFloat ? TokKind::Float : TokKind::Int, Start);
}

Token Lexer::next() {
  for (;;) {
    if (Cur == Buf.end())
      return {TokKind::Eof, llvm::StringRef(Cur, 0)};
    char C = *Cur;
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      ++Cur;
      continue;
    }
    if (C == '/' && Cur + 1 != Buf.end() && Cur[1] == '/') {
      while (Cur != Buf.end() && *Cur != '\n')
        ++Cur;
      continue;
    }
    break;
  }
  const char *Start = Cur++;
  char C = *Start;
  auto At = [&](char N) {
    if (Cur != Buf.end() && *Cur == N) {
      ++Cur;
      return true;
    }
    return false;
  };
  switch (C) {
  case '(': return make(TokKind::LParen, Start);
  case ')': return make(TokKind::RParen, Start);
  case '[': return make(TokKind::LBrack, Start);
  case ']': return make(TokKind::RBrack, Start);
  case '{': return make(TokKind::LBrace, Start);
  case '}': return make(TokKind::RBrace, Start);
  case ',': return make(TokKind::Comma, Start);
  case ':': return make(TokKind::Colon, Start);
  case '+': return make(TokKind::Plus, Start);
  case '*': return make(TokKind::Star, Start);
  case '/': return make(TokKind::Slash, Start);
  case '%':
    if (Cur != Buf.end() && isIdentStart(*Cur)) {
      while (Cur != Buf.end() && (llvm::isAlnum(*Cur) || *Cur == '_'))
        ++Cur;
      return make(TokKind::ValueName, Start);
    }
    return make(TokKind::Percent, Start);
  case '@':
    if (Cur != Buf.end() && isIdentStart(*Cur)) {
      while (Cur != Buf.end() && (llvm::isAlnum(*Cur) || *Cur == '_'))
        ++Cur;
      return make(TokKind::FuncName, Start);
    }
    return make(TokKind::Error, Start);
  case '^': return make(TokKind::Caret, Start);
  case '-': return make(At('>') ? TokKind::Arrow : TokKind::Minus, Start);
  case '=': return make(At('=') ? TokKind::EqEq : TokKind::Equal, Start);
  case '!': return make(At('=') ? TokKind::Ne : TokKind::Bang, Start);
  case '<':
    if (At('<'))
      return make(TokKind::Shl, Start);
    return make(At('=') ? TokKind::Le : TokKind::Lt, Start);
  case '>':
    if (At('>'))
      return make(TokKind::Shr, Start);
    return make(At('=') ? TokKind::Ge : TokKind::Gt, Start);
  case '&': return make(At('&') ? TokKind::AmpAmp : TokKind::Amp, Start);
  case '|': return make(At('|') ? TokKind::PipePipe : TokKind::Pipe, Start);
  case '"':
    while (Cur != Buf.end() && *Cur != '"' && *Cur != '\n')
      ++Cur;
    if (Cur == Buf.end() || *Cur != '"')
      return make(TokKind::Error, Start);
    ++Cur;
    return make(TokKind::String, Start);
  default:
    break;
  }
  if (llvm::isDigit(C))
    return lexNumber(Start);
  if (isIdentStart(C)) {
    while (Cur != Buf.end() && isIdentChar(*Cur))
      ++Cur;
    // A trailing '.' belongs to no identifier.
    while (Cur[-1] == '.')
      --Cur;
    return make(TokKind::Ident, Start);
  }
  return make(TokKind::Error, Start);
}

llvm::StringRef tile::getTokenSpelling(TokKind K) {
  switch (K) {
  case TokKind::Eof: return "end of file";
  case TokKind::Error: return "invalid token";
  case TokKind::Ident: return "identifier";
  case TokKind::ValueName: return "value name";
  case TokKind::FuncName: return "function name";
  case TokKind::Int: return "integer";
  case TokKind::Float: return "float";
  case TokKind::String: return "string";
  case TokKind::LParen: return "'('";
  case TokKind::RParen: return "')'";
  case TokKind::LBrack: return "'['";
  case TokKind::RBrack: return "']'";
  case TokKind::LBrace: return "'{'";
  case TokKind::RBrace: return "'}'";
  case TokKind::Comma: return "','";
  case TokKind::Colon: return "':'";
  case TokKind::Arrow: return "'->'";
  case TokKind::Equal: return "'='";
  case TokKind::Lt: return "'<'";
  case TokKind::Gt: return "'>'";
  case TokKind::Le: return "'<='";
  case TokKind::Ge: return "'>='";
  case TokKind::EqEq: return "'=='";
  case TokKind::Ne: return "'!='";
  case TokKind::Plus: return "'+'";
  case TokKind::Minus: return "'-'";
  case TokKind::Star: return "'*'";
  case TokKind::Slash: return "'/'";
  case TokKind::Percent: return "'%'";
  case TokKind::Amp: return "'&'";
  case TokKind::Pipe: return "'|'";
  case TokKind::Caret: return "'^'";
  case TokKind::Shl: return "'<<'";
  case TokKind::Shr: return "'>>'";
  case TokKind::AmpAmp: return "'&&'";
  case TokKind::PipePipe: return "'||'";
  case TokKind::Bang: return "'!'";
  }
  return "token";
}

std::string tile::getLexErrorMessage(const Token &T) {
  assert(T.is(TokKind::Error) && !T.Text.empty() && "not an error token");
  char C = T.Text.front();
  if (C == '"')
    return "unterminated string; a string ends with '\"' on the same line";
  if (llvm::isDigit(C))
    return ("invalid number '" + T.Text +
            "'; a name cannot start with a digit")
        .str();
  if (C == '@')
    return "expected a function name like '@matmul' after '@'";
  if (llvm::isPrint(C))
    return ("invalid character '" + T.Text + "'").str();
  return "invalid byte 0x" +
         llvm::utohexstr(uint8_t(C), /*LowerCase=*/false, /*Width=*/2) +
         " in the input";
}
