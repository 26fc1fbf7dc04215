//===- ReplyJson.cpp - Finding the plan in a planner's reply --------------===//
//
// Models wrap JSON in prose, fences or a reasoning preamble. The reply is
// only searched for a JSON object here; what it says is judged by
// planFromJson and validatePlan.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/Prompt.h"
#include "ktune/Support/FileUtil.h"

#include <cctype>
#include <optional>

namespace ktune::planner {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::optional<nlohmann::json> asObject(std::string_view text) {
  text = trim(text);
  if (text.empty() || text.front() != '{')
    return std::nullopt;
  auto j = parseJson(std::string(text), "the reply");
  if (!j || !j->is_object())
    return std::nullopt;
  return std::move(*j);
}

struct Fence {
  std::string info; // the word after the opening fence, lower case
  std::string_view body;
};

/// Fenced blocks (``` or ~~~, three or more) at the start of a line, in order.
std::vector<Fence> fences(std::string_view text) {
  std::vector<Fence> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos);
    size_t indent = 0;
    while (indent < line.size() && indent < 3 && line[indent] == ' ')
      ++indent;
    std::string_view rest = line.substr(indent);
    char mark = rest.empty() ? 0 : rest.front();
    size_t run = 0;
    while (run < rest.size() && rest[run] == mark)
      ++run;
    if ((mark == '`' || mark == '~') && run >= 3 && eol != text.npos) {
      Fence f;
      std::string_view info = trim(rest.substr(run));
      for (char c : info.substr(0, info.find_first_of(" \t{")))
        f.info +=
            static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      // The closing fence: the same mark, at least as long, alone on a line.
      size_t bodyStart = eol + 1, scan = bodyStart;
      size_t bodyEnd = text.npos, after = text.size();
      while (scan < text.size()) {
        size_t e = text.find('\n', scan);
        std::string_view l =
            trim(text.substr(scan, e == text.npos ? text.npos : e - scan));
        size_t n = 0;
        while (n < l.size() && l[n] == mark)
          ++n;
        if (n >= run && n == l.size()) {
          bodyEnd = scan;
          after = e == text.npos ? text.size() : e + 1;
          break;
        }
        if (e == text.npos)
          break;
        scan = e + 1;
      }
      if (bodyEnd == text.npos) // unclosed: the rest of the reply
        bodyEnd = text.size();
      f.body = text.substr(bodyStart, bodyEnd - bodyStart);
      out.push_back(f);
      pos = after;
      continue;
    }
    if (eol == text.npos)
      break;
    pos = eol + 1;
  }
  return out;
}

} // namespace

Expected<nlohmann::json> extractPlanJson(std::string_view reply) {
  if (reply.size() > MaxReplyBytes)
    return makeError("the reply is " + std::to_string(reply.size()) +
                     " bytes; at most " + std::to_string(MaxReplyBytes) +
                     " are read");
  std::string_view text = trim(reply);
  // Reasoning models may think aloud first; braces in there are not the plan.
  if (text.starts_with("<think>")) {
    size_t end = text.find("</think>");
    text = end == text.npos ? std::string_view() : trim(text.substr(end + 8));
  }
  if (text.empty())
    return makeError("the reply is empty: answer with the plan as one JSON "
                     "object");
  if (auto j = asObject(text))
    return *j;
  std::vector<Fence> blocks = fences(text);
  for (const Fence &f : blocks)
    if (f.info == "json")
      if (auto j = asObject(f.body))
        return *j;
  for (const Fence &f : blocks)
    if (auto j = asObject(f.body))
      return *j;
  size_t first = text.find('{'), last = text.rfind('}');
  if (first != text.npos && last != text.npos && last > first)
    if (auto j = asObject(text.substr(first, last - first + 1)))
      return *j;

  // Say why, as precisely as possible, for the corrective round.
  std::string_view attempt = text;
  for (const Fence &f : blocks)
    if (f.info == "json" || trim(f.body).starts_with("{")) {
      attempt = trim(f.body);
      break;
    }
  if (attempt == text && first != text.npos && last != text.npos &&
      last > first)
    attempt = text.substr(first, last - first + 1);
  if (attempt.empty() || attempt.front() != '{')
    return makeError("the reply holds no JSON object: answer with the plan as "
                     "one JSON object (a ```json fenced block is accepted)");
  if (auto parsed = parseJson(std::string(attempt), "the reply"); !parsed) {
    // "invalid JSON: number overflow parsing '1e999'" -> the reason alone.
    std::string why = parsed.error().message;
    if (why.starts_with("invalid JSON: "))
      why = why.substr(14);
    return makeError("the reply's JSON does not parse: " + why);
  }
  return makeError("the reply holds no JSON object");
}

} // namespace ktune::planner
