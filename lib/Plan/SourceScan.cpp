//===- SourceScan.cpp - Identifiers in source text ------------------------===//
#include "ktune/Plan/SourceScan.h"

#include <cctype>

namespace ktune::source_scan {

namespace {

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

class Scanner {
public:
  explicit Scanner(std::string_view text) : Text(text) {}

  std::vector<IdentifierToken> run() {
    bool lineStart = true; // only whitespace seen on this line so far
    while (I < Text.size()) {
      char c = Text[I];
      if (c == '\n') {
        ++I;
        lineStart = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++I;
        continue;
      }
      if (c == '\\' && I + 1 < Text.size() && Text[I + 1] == '\n') {
        I += 2; // line continuation
        continue;
      }
      if (startsWith("//")) {
        skipRestOfLine();
        continue;
      }
      if (startsWith("/*")) {
        size_t end = Text.find("*/", I + 2);
        I = end == std::string_view::npos ? Text.size() : end + 2;
        continue;
      }
      if (c == '#' && lineStart) {
        lineStart = false;
        directive();
        continue;
      }
      lineStart = false;
      if (c == '"' || c == '\'') {
        skipQuoted(c);
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && I + 1 < Text.size() &&
           std::isdigit(static_cast<unsigned char>(Text[I + 1])))) {
        skipNumber();
        continue;
      }
      if (isIdentStart(c)) {
        size_t at = I;
        std::string_view name = readIdentifier();
        if (I < Text.size() && (Text[I] == '"' || Text[I] == '\'') &&
            isLiteralPrefix(name)) {
          if (name.back() == 'R' && Text[I] == '"')
            skipRawString();
          else
            skipQuoted(Text[I]);
          continue;
        }
        Found.push_back({at, name, std::nullopt});
        continue;
      }
      ++I;
    }
    return std::move(Found);
  }

private:
  std::string_view Text;
  size_t I = 0;
  std::vector<IdentifierToken> Found;

  bool startsWith(std::string_view s) const {
    return Text.substr(I, s.size()) == s;
  }

  void advance(size_t n) { I = std::min(Text.size(), I + n); }

  /// At a '#' that starts a line: the directive's name is no identifier of
  /// the program, nor is an #include's header name.
  void directive() {
    size_t hash = I;
    ++I;
    skipHorizontalSpace();
    std::string_view name = readIdentifier();
    if (name == "include" || name == "include_next") {
      skipRestOfLine();
    } else if (name == "define") {
      skipHorizontalSpace();
      size_t at = I;
      std::string_view defined = readIdentifier();
      if (!defined.empty())
        Found.push_back({at, defined, hash});
    }
  }

  void skipHorizontalSpace() {
    while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
      ++I;
  }

  void skipRestOfLine() {
    while (I < Text.size() && Text[I] != '\n')
      advance(Text[I] == '\\' ? 2 : 1);
  }

  std::string_view readIdentifier() {
    size_t start = I;
    while (I < Text.size() && isIdentChar(Text[I]))
      ++I;
    return Text.substr(start, I - start);
  }

  static bool isLiteralPrefix(std::string_view s) {
    return s == "L" || s == "u" || s == "U" || s == "u8" || s == "R" ||
           s == "LR" || s == "uR" || s == "UR" || s == "u8R";
  }

  void skipQuoted(char quote) {
    ++I;
    while (I < Text.size() && Text[I] != quote && Text[I] != '\n')
      advance(Text[I] == '\\' ? 2 : 1);
    advance(1);
  }

  void skipRawString() {
    ++I; // the quote
    size_t open = Text.find('(', I);
    if (open == std::string_view::npos) {
      I = Text.size();
      return;
    }
    std::string close(1, ')');
    close.append(Text.data() + I, open - I);
    close.push_back('"');
    size_t end = Text.find(close, open);
    I = end == std::string_view::npos ? Text.size() : end + close.size();
  }

  void skipNumber() {
    // A pp-number: digits, letters, '.', digit separators and exponent signs.
    while (I < Text.size()) {
      char c = Text[I];
      bool exponentSign =
          (c == '+' || c == '-') && I > 0 &&
          (Text[I - 1] == 'e' || Text[I - 1] == 'E' || Text[I - 1] == 'p' ||
           Text[I - 1] == 'P');
      if (!exponentSign && !isIdentChar(c) && c != '.' && c != '\'')
        break;
      ++I;
    }
  }
};

/// Line and column of increasing offsets, counted once over the text.
class LineCounter {
public:
  explicit LineCounter(std::string_view text) : Text(text) {}

  Position at(size_t offset) {
    for (; I < offset && I < Text.size(); ++I) {
      if (Text[I] == '\n') {
        ++Now.line;
        Now.col = 1;
      } else {
        ++Now.col;
      }
    }
    return Now;
  }

private:
  std::string_view Text;
  size_t I = 0;
  Position Now{1, 1};
};

} // namespace

std::vector<IdentifierToken> identifierTokens(std::string_view text) {
  return Scanner(text).run();
}

std::set<std::string> definedMacros(std::string_view text) {
  std::set<std::string> out;
  for (const IdentifierToken &token : identifierTokens(text))
    if (token.definedAt)
      out.emplace(token.name);
  return out;
}

std::map<std::string, IdentifierUse> scanIdentifiers(std::string_view text) {
  std::map<std::string, IdentifierUse> found;
  LineCounter lines(text), directives(text);
  for (const IdentifierToken &token : identifierTokens(text)) {
    auto [it, inserted] = found.try_emplace(std::string(token.name));
    if (inserted)
      it->second.first = lines.at(token.offset);
    if (token.definedAt) {
      it->second.macro = true;
      it->second.definedAt = directives.at(*token.definedAt);
    }
  }
  return found;
}

Position positionOf(std::string_view text, size_t offset) {
  return LineCounter(text).at(offset);
}

} // namespace ktune::source_scan
