//===- Lexer.h - Tokens of the expression language --------------*- C++ -*-===//
//
// Private to lib/Expr: the lexer (Lex.cpp) turns text into tokens for the
// parser (Parse.cpp). Errors carry the column ("col 7: ...").
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_EXPR_LEXER_H
#define KTUNE_LIB_EXPR_LEXER_H

#include "ktune/Support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::expr {

enum class Tok {
  End,
  Int,
  Float,
  Name,
  LParen,
  RParen,
  Comma,
  Question,
  Colon,
  Plus,
  Minus,
  Star,
  Slash,
  SlashSlash,
  Percent,
  StarStar,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  AndAnd,
  OrOr,
  Bang,
  KwAnd,
  KwOr,
  KwNot,
  KwTrue,
  KwFalse,
};

struct Token {
  Tok kind = Tok::End;
  int column = 0;
  std::string text;
  int64_t intValue = 0;
  double floatValue = 0.0;
};

/// The tokens of `text`, ending with Tok::End at the column after the last
/// character.
Expected<std::vector<Token>> lex(std::string_view text);

} // namespace ktune::expr

#endif
