#include "SourceScan.h"

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

  std::map<std::string, IdentifierUse> run() {
    bool lineStart = true; // only whitespace seen on this line so far
    while (I < Text.size()) {
      char c = Text[I];
      if (c == '\n') {
        advance();
        lineStart = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        advance();
        continue;
      }
      if (c == '\\' && I + 1 < Text.size() && Text[I + 1] == '\n') {
        advance(2); // line continuation
        continue;
      }
      if (startsWith("//")) {
        while (I < Text.size() && Text[I] != '\n')
          advance(Text[I] == '\\' && I + 1 < Text.size() ? 2 : 1);
        continue;
      }
      if (startsWith("/*")) {
        advance(2);
        while (I < Text.size() && !startsWith("*/"))
          advance();
        advance(2);
        continue;
      }
      if (c == '#' && lineStart) {
        lineStart = false;
        Position at = here();
        advance();
        skipHorizontalSpace();
        std::string directive = readIdentifier();
        if (directive == "include" || directive == "include_next") {
          // Header names are not identifiers of the program.
          skipRestOfLine();
        } else if (directive == "define") {
          skipHorizontalSpace();
          Position namePos = here();
          std::string name = readIdentifier();
          if (!name.empty()) {
            IdentifierUse &use = record(name, namePos);
            use.macro = true;
            use.definedAt = at;
          }
        }
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
        Position at = here();
        std::string name = readIdentifier();
        if (I < Text.size() && (Text[I] == '"' || Text[I] == '\'') &&
            isLiteralPrefix(name)) {
          if (name.back() == 'R' && Text[I] == '"')
            skipRawString();
          else
            skipQuoted(Text[I]);
          continue;
        }
        record(name, at);
        continue;
      }
      advance();
    }
    return std::move(Found);
  }

private:
  std::string_view Text;
  size_t I = 0;
  unsigned Line = 1, Col = 1;
  std::map<std::string, IdentifierUse> Found;

  Position here() const { return {Line, Col}; }

  void advance(size_t n = 1) {
    for (; n > 0 && I < Text.size(); --n, ++I) {
      if (Text[I] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
  }

  bool startsWith(std::string_view s) const {
    return Text.substr(I, s.size()) == s;
  }

  void skipHorizontalSpace() {
    while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
      advance();
  }

  void skipRestOfLine() {
    while (I < Text.size() && Text[I] != '\n')
      advance(Text[I] == '\\' && I + 1 < Text.size() ? 2 : 1);
  }

  std::string readIdentifier() {
    size_t start = I;
    while (I < Text.size() && isIdentChar(Text[I]))
      advance();
    return std::string(Text.substr(start, I - start));
  }

  static bool isLiteralPrefix(std::string_view s) {
    return s == "L" || s == "u" || s == "U" || s == "u8" || s == "R" ||
           s == "LR" || s == "uR" || s == "UR" || s == "u8R";
  }

  void skipQuoted(char quote) {
    advance();
    while (I < Text.size() && Text[I] != quote && Text[I] != '\n') {
      if (Text[I] == '\\')
        advance();
      advance();
    }
    advance();
  }

  void skipRawString() {
    advance(); // the quote
    size_t open = Text.find('(', I);
    if (open == std::string_view::npos) {
      advance(Text.size() - I);
      return;
    }
    std::string close(1, ')');
    close.append(Text.data() + I, open - I);
    close.push_back('"');
    size_t end = Text.find(close, open);
    size_t stop =
        end == std::string_view::npos ? Text.size() : end + close.size();
    advance(stop - I);
  }

  void skipNumber() {
    // A pp-number: digits, letters, '.', digit separators and exponent signs.
    while (I < Text.size()) {
      char c = Text[I];
      if ((c == '+' || c == '-') && I > 0 &&
          (Text[I - 1] == 'e' || Text[I - 1] == 'E' || Text[I - 1] == 'p' ||
           Text[I - 1] == 'P')) {
        advance();
        continue;
      }
      if (isIdentChar(c) || c == '.' || c == '\'') {
        advance();
        continue;
      }
      break;
    }
  }

  IdentifierUse &record(const std::string &name, Position at) {
    auto [it, inserted] = Found.try_emplace(name);
    if (inserted)
      it->second.first = at;
    return it->second;
  }
};

} // namespace

std::map<std::string, IdentifierUse> scanIdentifiers(std::string_view text) {
  return Scanner(text).run();
}

Position positionOf(std::string_view text, size_t offset) {
  Position p{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.col = 1;
    } else {
      ++p.col;
    }
  }
  return p;
}

} // namespace ktune::source_scan
