//===- CompileDatabase.cpp - compile_commands.json without Clang ----------===//
#include "ktune/Plan/CompileDatabase.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <cctype>
#include <filesystem>
#include <optional>

namespace ktune {

namespace fs = std::filesystem;

/// Splits a shell command line as compile_commands.json's "command" holds
/// it: whitespace separates words, quotes and backslashes group.
std::vector<std::string> splitCommandLine(const std::string &line) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quote) {
      if (ch == quote)
        quote = 0;
      else if (ch == '\\' && quote == '"' && i + 1 < line.size())
        word += line[++i];
      else
        word += ch;
      continue;
    }
    if (ch == '\'' || ch == '"') {
      quote = ch;
      inWord = true;
    } else if (ch == '\\' && i + 1 < line.size()) {
      word += line[++i];
      inWord = true;
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      if (inWord)
        words.push_back(word);
      word.clear();
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord)
    words.push_back(word);
  return words;
}

Expected<CompileCommandInfo>
compileCommandFromDatabase(const std::string &buildDir,
                           const std::string &file) {
  std::string path = (fs::path(buildDir) / "compile_commands.json").string();
  KTUNE_TRY_ASSIGN(auto json, readJsonFile(path));
  JsonReader db(json);
  if (!db.isArray())
    return makeError("expected an array of compile commands", path);
  std::error_code ec;
  fs::path wanted = fs::weakly_canonical(fs::absolute(file), ec);
  std::string wantedName = fs::path(file).filename().string();
  std::optional<JsonReader> byPath, byName;
  for (const JsonReader &entry : db.elements()) {
    KTUNE_TRY_ASSIGN(auto entryFile, entry.requiredString("file"));
    KTUNE_TRY_ASSIGN(auto dir, entry.optionalString("directory"));
    fs::path p = fs::path(entryFile).is_absolute() ? fs::path(entryFile)
                                                   : fs::path(dir) / entryFile;
    if (fs::weakly_canonical(p, ec) == wanted) {
      byPath = entry;
      break;
    }
    if (!byName && p.filename() == wantedName)
      byName = entry;
  }
  const std::optional<JsonReader> &found = byPath ? byPath : byName;
  if (!found)
    return makeError("no compile command for " + file +
                         " (nor for a file "
                         "named " +
                         wantedName + ")",
                     path);
  CompileCommandInfo info;
  KTUNE_TRY_ASSIGN(info.directory, found->optionalString("directory"));
  std::vector<std::string> words;
  if (found->has("arguments")) {
    KTUNE_TRY_ASSIGN(words, (*found)["arguments"].strings());
  } else {
    KTUNE_TRY_ASSIGN(auto line, found->requiredString("command"));
    words = splitCommandLine(line);
  }
  if (words.empty())
    return makeError("empty compile command", found->path());
  info.compiler = words.front();
  KTUNE_TRY_ASSIGN(auto entryFile, found->requiredString("file"));
  for (size_t i = 1; i < words.size(); ++i)
    if (words[i] != entryFile)
      info.arguments.push_back(words[i]);
  return info;
}

std::vector<std::string> nvccQuoteDir(const std::string &dir) {
  if (dir.find(',') != std::string::npos)
    return {"-I" + dir};
  return {"-Xcompiler", "-iquote," + dir};
}

} // namespace ktune
