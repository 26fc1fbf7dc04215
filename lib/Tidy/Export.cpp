#include "ktune/Tidy/Export.h"

#include "ktune/Refactor/Rewrite.h"
#include "ktune/Support/FileUtil.h"

#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

namespace ktune::tidy {

namespace {
std::string absolutePath(const std::string &path, const std::string &base) {
  llvm::SmallString<256> p(path);
  if (!llvm::sys::path::is_absolute(p)) {
    llvm::SmallString<256> b(base);
    if (b.empty())
      llvm::sys::fs::current_path(b);
    llvm::sys::path::append(b, path);
    p = b;
  }
  llvm::sys::path::remove_dots(p, true);
  return std::string(p);
}

clang::tooling::DiagnosticMessage
message(const std::string &text, const std::string &file, unsigned offset) {
  clang::tooling::DiagnosticMessage m(text);
  m.FilePath = file;
  m.FileOffset = offset;
  return m;
}

/// SARIF artifact locations: relative paths stay relative (to the
/// directory the tool ran in, GitHub code scanning's convention), absolute
/// ones become file: URIs.
std::string artifactUri(const std::string &file) {
  if (!llvm::sys::path::is_absolute(file))
    return llvm::sys::path::convert_to_slash(file);
  std::string uri = "file://";
  for (char c : file) {
    if (std::isalnum(static_cast<unsigned char>(c)) ||
        std::string_view("/-._~").find(c) != std::string_view::npos) {
      uri += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    }
  }
  return uri;
}

nlohmann::json region(const SourceSite &s) {
  return {
      {"startLine", s.line},    {"startColumn", s.col},
      {"endLine", s.line},      {"endColumn", s.col + std::max(1u, s.length)},
      {"charOffset", s.offset}, {"charLength", s.length}};
}

/// The files a log names, the main file first: index -> URI.
class Artifacts {
public:
  explicit Artifacts(const std::string &mainFile) { indexOf(mainFile); }
  size_t indexOf(const std::string &file) {
    for (size_t i = 0; i < Files.size(); ++i)
      if (Files[i] == file)
        return i;
    Files.push_back(file);
    return Files.size() - 1;
  }
  nlohmann::json location(const std::string &file) {
    return {{"uri", artifactUri(file)}, {"index", indexOf(file)}};
  }
  nlohmann::json list() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto &f : Files)
      out.push_back({{"location", {{"uri", artifactUri(f)}}}});
    return out;
  }

private:
  std::vector<std::string> Files;
};

nlohmann::json physicalLocation(Artifacts &artifacts, const SourceSite &s) {
  return {{"artifactLocation", artifacts.location(s.file)},
          {"region", region(s)}};
}

std::string ruleText(const std::string &check) {
  return "Hardcoded " + check.substr(std::string("ktune-").size()) +
         " in a CUDA kernel that could be a template parameter";
}
} // namespace

std::string exportFixesYaml(const std::string &mainFile,
                            const std::vector<Finding> &findings,
                            const refactor::FileEdits &planEdits,
                            const std::string &buildDirectory) {
  std::string dir = buildDirectory;
  if (dir.empty()) {
    llvm::SmallString<256> cwd;
    llvm::sys::fs::current_path(cwd);
    dir = std::string(cwd);
  }
  std::string file = absolutePath(mainFile, dir);
  clang::tooling::TranslationUnitDiagnostics tu;
  tu.MainSourceFile = file;
  for (const Finding &f : findings) {
    clang::tooling::Diagnostic d;
    d.DiagnosticName = f.check;
    d.DiagLevel = clang::tooling::Diagnostic::Warning;
    d.BuildDirectory = dir;
    d.Message =
        message(f.message, absolutePath(f.primary.file, dir), f.primary.offset);
    for (const auto &n : f.notes)
      d.Notes.push_back(
          message(n.message, absolutePath(n.site.file, dir), n.site.offset));
    tu.Diagnostics.push_back(std::move(d));
  }
  bool anyEdit = false;
  for (const auto &[index, edits] : planEdits)
    anyEdit |= !edits.empty();
  if (anyEdit) {
    if (tu.Diagnostics.empty()) {
      clang::tooling::Diagnostic d;
      d.DiagnosticName = "ktune-refactor";
      d.DiagLevel = clang::tooling::Diagnostic::Warning;
      d.BuildDirectory = dir;
      const auto &first = *planEdits.begin()->second.begin();
      d.Message = message("lift tuning constants into template parameters",
                          absolutePath(first.getFilePath().str(), dir),
                          first.getOffset());
      tu.Diagnostics.push_back(std::move(d));
    }
    for (const auto &[index, fileEdits] : planEdits) {
      if (fileEdits.empty())
        continue;
      std::string path =
          absolutePath(fileEdits.begin()->getFilePath().str(), dir);
      clang::tooling::Replacements edits;
      for (const auto &r : fileEdits)
        llvm::cantFail(edits.add(clang::tooling::Replacement(
            path, r.getOffset(), r.getLength(), r.getReplacementText())));
      tu.Diagnostics.front().Message.Fix[path] = std::move(edits);
    }
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::yaml::Output yaml(os);
  yaml << tu;
  os.flush();
  return out;
}

std::string sarifLog(const std::string &mainFile,
                     const std::vector<Finding> &findings,
                     const std::string &toolVersion) {
  Artifacts artifacts(mainFile);
  std::vector<std::string> rules = allCheckNames();
  nlohmann::json ruleList = nlohmann::json::array();
  for (const auto &r : rules)
    ruleList.push_back({{"id", r},
                        {"shortDescription", {{"text", ruleText(r)}}},
                        {"helpUri", "docs/checks/" + r + ".md"},
                        {"defaultConfiguration", {{"level", "warning"}}}});
  nlohmann::json results = nlohmann::json::array();
  for (const Finding &f : findings) {
    size_t ruleIndex =
        std::find(rules.begin(), rules.end(), f.check) - rules.begin();
    nlohmann::json result = {
        {"ruleId", f.check},
        {"ruleIndex", ruleIndex},
        {"level", "warning"},
        {"message", {{"text", f.message}}},
        {"locations",
         nlohmann::json::array(
             {{{"physicalLocation", physicalLocation(artifacts, f.primary)}}})},
    };
    nlohmann::json related = nlohmann::json::array();
    for (size_t i = 0; i < f.notes.size(); ++i)
      related.push_back(
          {{"id", i + 1},
           {"message", {{"text", f.notes[i].message}}},
           {"physicalLocation", physicalLocation(artifacts, f.notes[i].site)}});
    if (!related.empty())
      result["relatedLocations"] = related;
    if (!f.fix.empty()) {
      nlohmann::json changes = nlohmann::json::array();
      for (const auto &[index, edits] : f.fix) {
        if (edits.empty())
          continue;
        nlohmann::json replacements = nlohmann::json::array();
        for (const auto &r : edits)
          replacements.push_back(
              {{"deletedRegion",
                {{"charOffset", r.getOffset()}, {"charLength", r.getLength()}}},
               {"insertedContent", {{"text", r.getReplacementText().str()}}}});
        changes.push_back(
            {{"artifactLocation",
              artifacts.location(edits.begin()->getFilePath().str())},
             {"replacements", replacements}});
      }
      result["fixes"] = nlohmann::json::array(
          {{{"description",
             {{"text", "Lift it to template parameter '" + f.paramName +
                           "' = " + std::to_string(f.value)}}},
            {"artifactChanges", changes}}});
    }
    result["properties"] = {{"kernel", f.kernel},
                            {"parameter", f.paramName},
                            {"value", f.value},
                            {"confidence", confidenceName(f.confidence)}};
    results.push_back(std::move(result));
  }
  nlohmann::json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", nlohmann::json::array({{{"tool",
                                        {{"driver",
                                          {{"name", "ktune-refactor"},
                                           {"version", toolVersion},
                                           {"rules", ruleList}}}}},
                                       {"artifacts", artifacts.list()},
                                       {"columnKind", "unicodeCodePoints"},
                                       {"results", results}}})}};
  return log.dump(2) + "\n";
}

std::string plainDiagnostics(const std::vector<Finding> &findings) {
  std::string out;
  auto where = [](const SourceSite &s) {
    return s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col);
  };
  for (const Finding &f : findings) {
    out +=
        where(f.primary) + ": warning: " + f.message + " [" + f.check + "]\n";
    for (const auto &n : f.notes)
      out += where(n.site) + ": note: " + n.message + "\n";
  }
  return out;
}

llvm::Error writeReports(const refactor::Detection &analysis, const Plan &plan,
                         const ReportOptions &options) {
  std::vector<Finding> findings = findingsForPlan(analysis, plan);
  if (options.warnings)
    llvm::errs() << plainDiagnostics(findings);
  if (!options.exportFixesPath.empty()) {
    // The whole plan's edits, exactly what -o writes; the plan was checked
    // by the caller, but plans are untrusted: check again.
    auto errors = validatePlan(plan, analysis.candidates, analysis.sources());
    if (!errors.empty())
      return llvm::createStringError("plan: " + errors.front().str());
    auto rewrite = refactor::planRewrite(analysis.facts, analysis.candidates,
                                         analysis.index, plan, analysis.source);
    if (!rewrite)
      return rewrite.takeError();
    auto marked =
        refactor::withLineMarks(analysis.facts, analysis.source, *rewrite);
    if (!marked)
      return marked.takeError();
    std::string yaml = exportFixesYaml(analysis.file, findings, *marked, "");
    if (auto s = writeFileAtomically(options.exportFixesPath, yaml); !s)
      return refactor::toLLVMError(s.error());
  }
  if (!options.sarifPath.empty()) {
    std::string log = sarifLog(analysis.file, findings, options.toolVersion);
    if (auto s = writeFileAtomically(options.sarifPath, log); !s)
      return refactor::toLLVMError(s.error());
  }
  return llvm::Error::success();
}

} // namespace ktune::tidy
