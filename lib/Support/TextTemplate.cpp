//===- TextTemplate.cpp - {{placeholder}} templates -----------------------===//
//
// The template is split into tokens first and rendered from them, so that
// inserted text is never scanned; problems are reported in the order they
// appear in the template.
//
//===----------------------------------------------------------------------===//
#include "ktune/Support/TextTemplate.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace ktune {

namespace {

struct Token {
  enum class Type {
    Text,
    Value,
    Open,
    Close,
    Malformed,   // strict syntax: `{{...}}` that is not a tag
    Unterminated // strict syntax: `{{` without `}}`
  };
  Type type = Type::Text;
  std::string text; // Text: the text; Malformed: what the braces hold;
                    // otherwise the name
  unsigned line = 1;
};

bool isNameChar(char c, const TextTemplateSyntax &syntax) {
  auto u = static_cast<unsigned char>(c);
  return std::islower(u) || std::isdigit(u) || c == '_' ||
         (syntax.upperCaseNames && std::isupper(u));
}

/// Splits the template. Without strict syntax, `{{` that does not start a
/// well-formed tag is text.
std::vector<Token> tokenize(std::string_view t,
                            const TextTemplateSyntax &syntax) {
  std::vector<Token> out;
  unsigned line = 1;
  std::string text;
  auto flushText = [&] {
    if (!text.empty())
      out.push_back({Token::Type::Text, std::move(text), line});
    text.clear();
  };
  size_t i = 0;
  while (i < t.size()) {
    if (t.compare(i, 2, "{{") == 0) {
      size_t p = i + 2;
      Token::Type type = Token::Type::Value;
      if (p < t.size() && (t[p] == '#' || t[p] == '/')) {
        type = t[p] == '#' ? Token::Type::Open : Token::Type::Close;
        ++p;
      }
      size_t nameStart = p;
      while (p < t.size() && isNameChar(t[p], syntax))
        ++p;
      if (p > nameStart && t.compare(p, 2, "}}") == 0) {
        std::string name(t.substr(nameStart, p - nameStart));
        bool lineStart = i == 0 || t[i - 1] == '\n';
        flushText();
        out.push_back({type, std::move(name), line});
        i = p + 2;
        // A section tag alone on its line takes the line with it.
        if (type != Token::Type::Value && lineStart && i < t.size() &&
            t[i] == '\n') {
          ++i;
          ++line;
        }
        continue;
      }
      if (syntax.strict) {
        flushText();
        size_t close = t.find("}}", i + 2);
        if (close == std::string_view::npos) {
          out.push_back({Token::Type::Unterminated, "", line});
          return out;
        }
        std::string_view inside = t.substr(i + 2, close - i - 2);
        out.push_back({Token::Type::Malformed, std::string(inside), line});
        line += static_cast<unsigned>(
            std::count(inside.begin(), inside.end(), '\n'));
        i = close + 2;
        continue;
      }
    }
    if (t[i] == '\n')
      ++line;
    text += t[i++];
  }
  flushText();
  return out;
}

} // namespace

Expected<std::string> renderTextTemplate(
    std::string_view text, const std::map<std::string, std::string> &values,
    const std::string &origin, const TextTemplateSyntax &syntax) {
  auto where = [&](unsigned line) {
    return origin.empty() ? "line " + std::to_string(line)
                          : origin + ":" + std::to_string(line);
  };
  auto unknown = [&](const std::string &tag, unsigned line) {
    std::string names;
    for (const auto &[name, value] : values)
      names += (names.empty() ? "" : ", ") + name;
    return makeError(
        "unknown placeholder {{" + tag + "}} (" +
            (names.empty() ? std::string("none is known") : "known: " + names) +
            ")",
        where(line));
  };

  std::string out;
  // Open sections: their tokens, and whether each is being emitted.
  std::vector<std::pair<const Token *, bool>> open;
  auto emitting = [&] {
    return std::all_of(open.begin(), open.end(),
                       [](const auto &s) { return s.second; });
  };
  std::vector<Token> tokens = tokenize(text, syntax);
  for (const Token &tok : tokens) {
    switch (tok.type) {
    case Token::Type::Text:
      if (emitting())
        out += tok.text;
      break;
    case Token::Type::Value: {
      auto it = values.find(tok.text);
      if (it == values.end())
        return unknown(tok.text, tok.line);
      if (emitting())
        out += it->second;
      break;
    }
    case Token::Type::Open: {
      auto it = values.find(tok.text);
      if (it == values.end())
        return unknown("#" + tok.text, tok.line);
      open.emplace_back(&tok, !it->second.empty());
      break;
    }
    case Token::Type::Close:
      if (open.empty() || open.back().first->text != tok.text)
        return makeError(
            "{{/" + tok.text + "}} closes no open section" +
                (open.empty()
                     ? std::string()
                     : " (open: {{#" + open.back().first->text + "}})"),
            where(tok.line));
      open.pop_back();
      break;
    case Token::Type::Malformed:
      return unknown(tok.text, tok.line);
    case Token::Type::Unterminated:
      return makeError("unterminated placeholder '{{'", where(tok.line));
    }
  }
  if (!open.empty())
    return makeError("section {{#" + open.back().first->text +
                         "}} is never closed",
                     where(open.back().first->line));
  return out;
}

} // namespace ktune
