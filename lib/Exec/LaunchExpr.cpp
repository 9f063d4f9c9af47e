//===- LaunchExpr.cpp - Evaluating launch expressions ---------------------===//
//
// A recursive-descent evaluator for the grid expressions of
// tile/Exec/LaunchExpr.h. It computes as it parses; overflow of 64-bit
// arithmetic and division by zero are errors, not undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/LaunchExpr.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace tile;

namespace {

class LaunchExprEvaluator {
public:
  LaunchExprEvaluator(
      llvm::StringRef Text,
      llvm::function_ref<std::optional<int64_t>(llvm::StringRef)> Lookup)
      : Text(Text), Rest(Text), Lookup(Lookup) {}

  llvm::Expected<int64_t> run() {
    std::optional<int64_t> V = parseAdditive();
    skipSpace();
    if (V && !Rest.empty())
      fail("unexpected '" + Rest.take_front(1).str() + "'");
    if (!Error.empty())
      return llvm::createStringError("launch expression '" + Text +
                                     "': " + Error);
    return *V;
  }

private:
  void skipSpace() { Rest = Rest.ltrim(); }
  bool consume(llvm::StringRef Tok) {
    skipSpace();
    if (!Rest.starts_with(Tok))
      return false;
    Rest = Rest.drop_front(Tok.size());
    return true;
  }
  std::nullopt_t fail(const std::string &Why) {
    if (Error.empty())
      Error = Why;
    return std::nullopt;
  }

  std::optional<int64_t> arith(char Op, int64_t L, int64_t R) {
    int64_t Out = 0;
    switch (Op) {
    case '+':
      if (llvm::AddOverflow(L, R, Out))
        return fail("overflow");
      return Out;
    case '-':
      if (llvm::SubOverflow(L, R, Out))
        return fail("overflow");
      return Out;
    case '*':
      if (llvm::MulOverflow(L, R, Out))
        return fail("overflow");
      return Out;
    }
    if (R == 0)
      return fail("division by zero");
    if (L == INT64_MIN && R == -1)
      return fail("overflow");
    return Op == '/' ? L / R : L % R;
  }

  std::optional<int64_t> parseAdditive() {
    std::optional<int64_t> L = parseMultiplicative();
    while (L) {
      char Op = consume("+") ? '+' : consume("-") ? '-' : 0;
      if (!Op)
        break;
      std::optional<int64_t> R = parseMultiplicative();
      if (!R)
        return std::nullopt;
      L = arith(Op, *L, *R);
    }
    return L;
  }

  std::optional<int64_t> parseMultiplicative() {
    std::optional<int64_t> L = parseUnary();
    while (L) {
      char Op = consume("*") ? '*' : consume("/") ? '/' : consume("%") ? '%' : 0;
      if (!Op)
        break;
      std::optional<int64_t> R = parseUnary();
      if (!R)
        return std::nullopt;
      L = arith(Op, *L, *R);
    }
    return L;
  }

  std::optional<int64_t> parseUnary() {
    if (consume("-")) {
      std::optional<int64_t> X = parseUnary();
      if (!X)
        return std::nullopt;
      return arith('-', 0, *X);
    }
    return parsePrimary();
  }

  std::optional<int64_t> call(llvm::StringRef Fn, int64_t A, int64_t B) {
    if (Fn == "min")
      return std::min(A, B);
    if (Fn == "max")
      return std::max(A, B);
    if (B == 0)
      return fail("division by zero");
    if (A == INT64_MIN && B == -1)
      return fail("overflow");
    int64_t Q = A / B, R = A % B;
    bool Down = R != 0 && ((R < 0) != (B < 0));
    if (Fn == "floordiv")
      return Q - Down;
    if (Fn == "floormod")
      return Down ? R + B : R;
    bool Up = R != 0 && ((R < 0) == (B < 0));
    return Q + Up; // ceildiv
  }

  std::optional<int64_t> parsePrimary() {
    skipSpace();
    if (consume("(")) {
      std::optional<int64_t> V = parseAdditive();
      if (V && !consume(")"))
        return fail("expected ')'");
      return V;
    }
    if (!Rest.empty() && llvm::isDigit(Rest.front())) {
      size_t N = Rest.find_if_not(llvm::isDigit);
      llvm::StringRef Digits = Rest.take_front(N);
      Rest = Rest.drop_front(Digits.size());
      int64_t V;
      if (Digits.getAsInteger(10, V))
        return fail("integer '" + Digits.str() + "' out of range");
      return V;
    }
    size_t N = Rest.find_if_not(
        [](char C) { return llvm::isAlnum(C) || C == '_'; });
    llvm::StringRef Name = Rest.take_front(N);
    if (Name.empty() || llvm::isDigit(Name.front()))
      return fail(Rest.empty() ? "unexpected end"
                               : "unexpected '" + Rest.take_front(1).str() + "'");
    Rest = Rest.drop_front(Name.size());
    if (Name == "min" || Name == "max" || Name == "ceildiv" ||
        Name == "floordiv" || Name == "floormod") {
      if (!consume("("))
        return fail("expected '(' after '" + Name.str() + "'");
      std::optional<int64_t> A = parseAdditive();
      if (!A)
        return std::nullopt;
      if (!consume(","))
        return fail("expected ',' in '" + Name.str() + "'");
      std::optional<int64_t> B = parseAdditive();
      if (!B)
        return std::nullopt;
      if (!consume(")"))
        return fail("expected ')'");
      return call(Name, *A, *B);
    }
    if (std::optional<int64_t> V = Lookup(Name))
      return V;
    return fail("no value for '" + Name.str() + "'");
  }

  llvm::StringRef Text, Rest;
  llvm::function_ref<std::optional<int64_t>(llvm::StringRef)> Lookup;
  std::string Error;
};

} // namespace

llvm::Expected<int64_t> tile::evaluateLaunchExpr(
    llvm::StringRef Text,
    llvm::function_ref<std::optional<int64_t>(llvm::StringRef)> Lookup) {
  return LaunchExprEvaluator(Text, Lookup).run();
}
