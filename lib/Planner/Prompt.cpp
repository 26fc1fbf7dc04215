//===- Prompt.cpp - Rendering the planner prompt --------------------------===//
//
// A template is text with {{name}} placeholders and {{#name}}...{{/name}}
// sections (kept only when `name` is not empty). It is tokenised once and
// rendered from the tokens, so inserted text (kernel source, replies) is
// never scanned for placeholders.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/Prompt.h"

#include "PlannerInternal.h"

#include "ktune/Support/FileUtil.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ktune::planner {

std::string fenced(std::string_view text, std::string_view language) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(language) + "\n" + std::string(text);
  if (out.empty() || out.back() != '\n')
    out += '\n';
  return out + fence;
}

std::string redact(std::string text, const std::string &secret) {
  if (secret.empty())
    return text;
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 3))
    text.replace(at, secret.size(), "***");
  return text;
}

std::string clip(std::string_view text, size_t max) {
  if (text.size() <= max)
    return std::string(text);
  return std::string(text.substr(0, max)) + "\n[... " +
         std::to_string(text.size() - max) + " more bytes left out]";
}

std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string tail(std::string_view text, size_t max) {
  if (text.size() <= max)
    return std::string(text);
  return "..." + std::string(text.substr(text.size() - max));
}

namespace {

struct Token {
  enum class Type { Text, Value, Open, Close } type = Type::Text;
  std::string text; // Text: the text; otherwise the name
  unsigned line = 1;
};

bool isNameChar(char c) {
  return std::islower(static_cast<unsigned char>(c)) ||
         std::isdigit(static_cast<unsigned char>(c)) || c == '_';
}

/// Splits the template; `{{` that does not start a well-formed tag is text.
std::vector<Token> tokenize(std::string_view t) {
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
      while (p < t.size() && isNameChar(t[p]))
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
    }
    if (t[i] == '\n')
      ++line;
    text += t[i++];
  }
  flushText();
  return out;
}

} // namespace

Expected<std::string>
substitutePlaceholders(std::string_view templateText,
                       const std::map<std::string, std::string> &values) {
  std::vector<Token> tokens = tokenize(templateText);
  auto known = [&](const Token &tok) -> Status {
    if (values.count(tok.text))
      return {};
    std::string names;
    for (const auto &[name, value] : values)
      names += (names.empty() ? "" : ", ") + name;
    return makeError("unknown placeholder {{" + tok.text +
                         "}} (known: " + names + ")",
                     "prompt template line " + std::to_string(tok.line));
  };
  std::string out;
  // Open sections: their names, and whether each is being emitted.
  std::vector<std::pair<std::string, bool>> open;
  auto emitting = [&] {
    return std::all_of(open.begin(), open.end(),
                       [](const auto &s) { return s.second; });
  };
  for (const Token &tok : tokens) {
    switch (tok.type) {
    case Token::Type::Text:
      if (emitting())
        out += tok.text;
      break;
    case Token::Type::Value:
      if (auto s = known(tok); !s)
        return std::unexpected(s.error());
      if (emitting())
        out += values.at(tok.text);
      break;
    case Token::Type::Open:
      if (auto s = known(tok); !s)
        return std::unexpected(s.error());
      open.emplace_back(tok.text, !values.at(tok.text).empty());
      break;
    case Token::Type::Close:
      if (open.empty() || open.back().first != tok.text)
        return makeError("{{/" + tok.text + "}} closes no open section" +
                             (open.empty()
                                  ? std::string()
                                  : " (open: {{#" + open.back().first + "}})"),
                         "prompt template line " + std::to_string(tok.line));
      open.pop_back();
      break;
    }
  }
  if (!open.empty())
    return makeError("section {{#" + open.back().first + "}} is never closed",
                     "prompt template");
  return out;
}

std::map<std::string, std::string> promptValues(const PlannerRequest &request,
                                                const std::string &planSchema) {
  std::map<std::string, std::string> v;
  v["kernel_file"] = request.file;
  v["plan_version"] = PlanVersion;

  // The main file first, then the others (headers) by name.
  std::vector<std::string> files;
  if (request.sources.count(request.file))
    files.push_back(request.file);
  for (const auto &[name, text] : request.sources)
    if (name != request.file)
      files.push_back(name);
  std::string sources;
  for (const auto &name : files) {
    if (!sources.empty())
      sources += "\n\n";
    sources +=
        "File `" + name + "`:\n\n" + fenced(request.sources.at(name), "cuda");
  }
  v["kernel_source"] = sources;
  v["candidates"] =
      fenced(dumpJson(candidatesToJson(request.candidates), 2), "json");
  std::string schema = planSchema;
  while (!schema.empty() &&
         std::isspace(static_cast<unsigned char>(schema.back())))
    schema.pop_back();
  v["plan_schema"] = fenced(schema, "json");
  v["device_limits"] = fenced(dumpJson(request.device.toJson(), 2), "json");
  v["previous_plan"] =
      request.previousPlan
          ? fenced(dumpJson(planToJson(*request.previousPlan), 2), "json")
          : std::string();
  v["tuning_summary"] =
      request.tuningSummary.is_null()
          ? std::string()
          : fenced(dumpJson(request.tuningSummary, 2), "json");
  v["rejection_reasons"] = request.rejections.empty()
                               ? std::string()
                               : formatPlanErrors(request.rejections);
  v["rejected_reply"] = request.rejections.empty()
                            ? std::string()
                            : fenced(request.rejectedReply.empty()
                                         ? std::string("(an empty reply)")
                                         : clip(request.rejectedReply, 8000),
                                     "text");
  return v;
}

Expected<std::string> renderPrompt(const PlannerRequest &request,
                                   const PromptOptions &options) {
  auto templatePath = findPromptTemplate(options);
  if (!templatePath)
    return std::unexpected(templatePath.error());
  auto templateText = readFile(*templatePath);
  if (!templateText)
    return std::unexpected(templateText.error());
  auto schemaPath = findPlanSchema(options);
  if (!schemaPath)
    return std::unexpected(schemaPath.error());
  auto schema = readFile(*schemaPath);
  if (!schema)
    return std::unexpected(schema.error());
  auto text =
      substitutePlaceholders(*templateText, promptValues(request, *schema));
  if (!text)
    return std::unexpected(withContext(text.error(), *templatePath));
  return text;
}

} // namespace ktune::planner
