//===- NvccSyntax.cpp - Spellings nvcc accepts and Clang does not ---------===//
//
// Spaced launch chevrons (`k << < g, b >> > (x)`) joined, braced launch
// dims (`<<<g, {x, y, 1}>>>`) parenthesised, and `__host__` dropped from an
// explicit specialisation `__host__ __device__` of a `__device__` template
// (nvcc matches them, Clang does not: "target attributes do not match"),
// or from a declaration of a CUDA runtime function that Clang declares
// `__device__` only; offsets kept.
//
//===----------------------------------------------------------------------===//

#include "ParseInternal.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ktune::refactor {

using namespace clang;

/// The raw tokens of `text`; a token's location encodes its offset.
static std::vector<Token> rawTokens(llvm::StringRef text) {
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
  return tokens;
}

std::optional<std::string> joinSpacedLaunchChevrons(llvm::StringRef text) {
  if (!text.contains("<<"))
    return std::nullopt;
  std::vector<Token> tokens = rawTokens(text);
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

namespace {

/// A function declaration's head after `template <...>`: the name before
/// its `(` and the target attributes spelled before it.
struct DeclHead {
  std::string name;
  std::optional<size_t> host; // the `__host__` token's offset
  bool device = false;
};

std::optional<DeclHead> declHead(const std::vector<Token> &tokens, size_t i) {
  DeclHead head;
  for (; i < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if (t.isOneOf(tok::semi, tok::l_brace, tok::r_brace, tok::equal))
      return std::nullopt; // no function (a class, a variable)
    if (t.is(tok::l_paren)) {
      if (i == 0 || !tokens[i - 1].is(tok::raw_identifier))
        return std::nullopt;
      head.name = tokens[i - 1].getRawIdentifier().str();
      return head;
    }
    if (!t.is(tok::raw_identifier))
      continue;
    llvm::StringRef word = t.getRawIdentifier();
    if (word == "__host__")
      head.host = static_cast<size_t>(t.getLocation().getRawEncoding());
    else if (word == "__device__")
      head.device = true;
    else if (word == "operator" || word == "template")
      return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> matchSpecializationTargets(llvm::StringRef text) {
  if (!text.contains("template") || !text.contains("__host__"))
    return std::nullopt;
  std::vector<Token> tokens = rawTokens(text);
  // Primary templates by name: whether each is __device__ only (nullopt
  // where two disagree); explicit specialisations spelled __host__
  // __device__.
  std::map<std::string, std::optional<bool>> deviceOnly;
  std::vector<DeclHead> specializations;
  for (size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (!tokens[i].is(tok::raw_identifier) ||
        tokens[i].getRawIdentifier() != "template" ||
        !tokens[i + 1].is(tok::less))
      continue;
    if (tokens[i + 2].is(tok::greater)) {
      if (auto head = declHead(tokens, i + 3);
          head && head->host && head->device)
        specializations.push_back(*head);
      continue;
    }
    size_t j = i + 2;
    for (int depth = 1; j < tokens.size() && depth > 0; ++j) {
      if (tokens[j].is(tok::less))
        ++depth;
      else if (tokens[j].is(tok::greater))
        --depth;
      else if (tokens[j].is(tok::greatergreater))
        depth -= 2;
      else if (tokens[j].isOneOf(tok::semi, tok::l_brace))
        break;
    }
    if (auto head = declHead(tokens, j)) {
      bool only = head->device && !head->host;
      auto [it, added] = deviceOnly.emplace(head->name, only);
      if (!added && it->second != only)
        it->second.reset();
    }
  }
  std::string out = text.str();
  bool changed = false;
  for (const DeclHead &s : specializations) {
    auto primary = deviceOnly.find(s.name);
    if (primary == deviceOnly.end() || primary->second != true)
      continue;
    out.replace(*s.host, 8, std::string(8, ' '));
    changed = true;
  }
  return changed ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

std::optional<std::string> matchRuntimeDeclarations(llvm::StringRef text) {
  // Declared `__host__ __device__` by CUDA's CRT headers, `__device__` only
  // by Clang's runtime wrapper.
  static const char *const deviceOnlyInClang[] = {"__assertfail"};
  if (std::none_of(std::begin(deviceOnlyInClang), std::end(deviceOnlyInClang),
                   [&](const char *n) { return text.contains(n); }))
    return std::nullopt;
  std::vector<Token> tokens = rawTokens(text);
  std::string out = text.str();
  bool changed = false;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!tokens[i].is(tok::raw_identifier) || !tokens[i + 1].is(tok::l_paren))
      continue;
    llvm::StringRef name = tokens[i].getRawIdentifier();
    if (std::none_of(std::begin(deviceOnlyInClang), std::end(deviceOnlyInClang),
                     [&](const char *n) { return name == n; }))
      continue;
    // The declaration's head: back to the end of what comes before it.
    std::vector<size_t> host;
    bool device = false;
    for (size_t j = i; j-- > 0;) {
      const Token &t = tokens[j];
      if (t.isOneOf(tok::semi, tok::l_brace, tok::r_brace, tok::l_paren,
                    tok::r_paren, tok::comma, tok::equal))
        break;
      if (!t.is(tok::raw_identifier))
        continue;
      if (t.getRawIdentifier() == "__host__")
        host.push_back(static_cast<size_t>(t.getLocation().getRawEncoding()));
      else if (t.getRawIdentifier() == "__device__")
        device = true;
    }
    if (!device)
      continue;
    for (size_t at : host)
      out.replace(at, 8, std::string(8, ' '));
    changed |= !host.empty();
  }
  return changed ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

std::optional<std::string> nvccSpellings(llvm::StringRef text) {
  std::optional<std::string> joined = joinSpacedLaunchChevrons(text);
  std::optional<std::string> matched =
      matchSpecializationTargets(joined ? llvm::StringRef(*joined) : text);
  if (matched)
    joined = std::move(matched);
  std::optional<std::string> runtime =
      matchRuntimeDeclarations(joined ? llvm::StringRef(*joined) : text);
  return runtime ? runtime : joined;
}

} // namespace ktune::refactor
