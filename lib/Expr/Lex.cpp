//===- Lex.cpp - Lexer of the expression language -------------------------===//

#include "ExprInternal.h"
#include "Lexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ktune::expr {

Expected<std::vector<Token>> lex(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  auto isIdentStart = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  };
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (i < s.size()) {
    char c = s[i];
    int column = static_cast<int>(i) + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.column = column;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() &&
         std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t start = i;
      bool isFloat = false;
      while (i < s.size() &&
             (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_'))
        ++i;
      if (i < s.size() && s[i] == '.') {
        isFloat = true;
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
          ++i;
      }
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t save = i;
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
          ++i;
        if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
          isFloat = true;
          while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
            ++i;
        } else {
          i = save;
        }
      }
      std::string text(s.substr(start, i - start));
      text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
      if (i < s.size() && isIdent(s[i]))
        return makeError(columnPrefix(column) + "malformed number '" +
                         elide(s.substr(start, i - start + 1)) + "'");
      t.text = text;
      if (isFloat) {
        t.kind = Tok::Float;
        // from_chars: locale-independent, and out of range (1e999, 1e-999)
        // is an error rather than inf or 0.
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                         t.floatValue);
        if (ec != std::errc() || ptr != text.data() + text.size())
          return makeError(columnPrefix(column) + "floating literal '" +
                           elide(text) + "' is out of range");
      } else {
        t.kind = Tok::Int;
        auto [ptr, ec] =
            std::from_chars(text.data(), text.data() + text.size(), t.intValue);
        if (ec != std::errc() || ptr != text.data() + text.size())
          return makeError(columnPrefix(column) + "integer literal '" +
                           elide(text) + "' is out of range");
      }
      tokens.push_back(std::move(t));
      continue;
    }
    if (isIdentStart(c)) {
      size_t start = i;
      while (i < s.size() && isIdent(s[i]))
        ++i;
      t.text = std::string(s.substr(start, i - start));
      if (t.text == "and")
        t.kind = Tok::KwAnd;
      else if (t.text == "or")
        t.kind = Tok::KwOr;
      else if (t.text == "not")
        t.kind = Tok::KwNot;
      else if (t.text == "True" || t.text == "true")
        t.kind = Tok::KwTrue;
      else if (t.text == "False" || t.text == "false")
        t.kind = Tok::KwFalse;
      else
        t.kind = Tok::Name;
      tokens.push_back(std::move(t));
      continue;
    }
    auto two = s.substr(i, 2);
    struct Punct {
      std::string_view text;
      Tok kind;
    };
    static const Punct puncts[] = {
        {"**", Tok::StarStar}, {"//", Tok::SlashSlash}, {"<=", Tok::Le},
        {">=", Tok::Ge},       {"==", Tok::EqEq},       {"!=", Tok::Ne},
        {"&&", Tok::AndAnd},   {"||", Tok::OrOr},       {"(", Tok::LParen},
        {")", Tok::RParen},    {",", Tok::Comma},       {"?", Tok::Question},
        {":", Tok::Colon},     {"+", Tok::Plus},        {"-", Tok::Minus},
        {"*", Tok::Star},      {"/", Tok::Slash},       {"%", Tok::Percent},
        {"<", Tok::Lt},        {">", Tok::Gt},          {"!", Tok::Bang},
    };
    bool matched = false;
    for (const auto &p : puncts) {
      if (s.substr(i, p.text.size()) == p.text) {
        t.kind = p.kind;
        t.text = std::string(p.text);
        i += p.text.size();
        matched = true;
        break;
      }
    }
    (void)two;
    if (!matched)
      return makeError(columnPrefix(column) + "unexpected character '" +
                       std::string(1, c) + "'");
    tokens.push_back(std::move(t));
  }
  Token end;
  end.kind = Tok::End;
  end.column = static_cast<int>(s.size()) + 1;
  tokens.push_back(end);
  return tokens;
}

} // namespace ktune::expr
