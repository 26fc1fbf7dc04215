//===- NvccSyntax.cpp - Spellings nvcc accepts and Clang does not ---------===//
//
// Spaced launch chevrons (`k << < g, b >> > (x)`) joined and braced launch
// dims (`<<<g, {x, y, 1}>>>`) parenthesised, offsets kept.
//
//===----------------------------------------------------------------------===//

#include "ParseInternal.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"

#include <vector>

namespace ktune::refactor {

using namespace clang;

std::optional<std::string> joinSpacedLaunchChevrons(llvm::StringRef text) {
  if (!text.contains("<<"))
    return std::nullopt;
  LangOptions lo;
  lo.CPlusPlus = lo.CPlusPlus11 = lo.CPlusPlus17 = true;
  lo.CUDA = true;
  Lexer lexer(SourceLocation(), lo, text.begin(), text.begin(), text.end());
  std::vector<Token> tokens;
  Token tok;
  while (true) {
    bool atEnd = lexer.LexFromRawLexer(tok);
    if (tok.is(tok::eof))
      break;
    tokens.push_back(tok);
    if (atEnd)
      break;
  }
  auto offset = [](const Token &t) {
    return static_cast<size_t>(t.getLocation().getRawEncoding());
  };
  std::string out = text.str();
  bool changed = false;
  // `two` then `one` with only whitespace between: joined in place.
  auto join = [&](size_t i, const char *three) {
    size_t begin = offset(tokens[i]), second = offset(tokens[i + 1]);
    std::string gap = out.substr(begin + 2, second - begin - 2);
    out.replace(begin, second + 1 - begin, std::string(three) + gap);
    changed = true;
  };
  // `first` then `second` with only whitespace (maybe a newline) between.
  auto spaced = [&](size_t i, tok::TokenKind first, tok::TokenKind second) {
    return i + 1 < tokens.size() && tokens[i].is(first) &&
           tokens[i + 1].is(second) &&
           offset(tokens[i + 1]) > offset(tokens[i]) + 2;
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    size_t after; // the first token of the launch configuration
    if (tokens[i].is(tok::lesslessless)) {
      after = i + 1;
    } else if (spaced(i, tok::lessless, tok::less)) {
      // `operator<< <T>` names a template specialisation: no launch.
      if (i > 0 && tokens[i - 1].is(tok::raw_identifier) &&
          tokens[i - 1].getRawIdentifier() == "operator")
        continue;
      join(i, "<<<");
      after = i + 2;
    } else {
      continue;
    }
    // The closer: the first `>>>`, or `>>` `>`, outside brackets. A braced
    // list as a whole argument (`<<<grid, {bx, by, 1}>>>`, a dim3 nvcc
    // accepts) is parenthesised: collectDims reads the comma list as dims.
    int depth = 0;
    for (size_t j = after; j < tokens.size(); ++j) {
      tok::TokenKind k = tokens[j].getKind();
      bool argumentStart =
          j == after || (depth == 0 && tokens[j - 1].is(tok::comma));
      if (k == tok::l_brace && argumentStart) {
        int inner = 0;
        for (size_t e = j + 1; e < tokens.size(); ++e) {
          tok::TokenKind ke = tokens[e].getKind();
          if (ke == tok::l_paren || ke == tok::l_square || ke == tok::l_brace)
            ++inner;
          else if ((ke == tok::r_paren || ke == tok::r_square ||
                    ke == tok::r_brace) &&
                   inner-- == 0) {
            if (ke == tok::r_brace) {
              out[offset(tokens[j])] = '(';
              out[offset(tokens[e])] = ')';
              changed = true;
            }
            break;
          } else if (ke == tok::semi) {
            break;
          }
        }
      }
      if (k == tok::l_paren || k == tok::l_square || k == tok::l_brace) {
        ++depth;
      } else if (k == tok::r_paren || k == tok::r_square || k == tok::r_brace) {
        if (--depth < 0)
          break;
      } else if (k == tok::semi ||
                 (depth == 0 && k == tok::greatergreatergreater)) {
        break;
      } else if (depth == 0 && spaced(j, tok::greatergreater, tok::greater)) {
        join(j, ">>>");
        break;
      }
    }
  }
  return changed ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

} // namespace ktune::refactor
