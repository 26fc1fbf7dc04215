//===- PlanTestSupport.h - Candidates made from real source text -*- C++
//-*-===//
#ifndef KTUNE_TEST_UNIT_PLAN_PLANTESTSUPPORT_H
#define KTUNE_TEST_UNIT_PLAN_PLANTESTSUPPORT_H

#include "ktune/Plan/Plan.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <stdexcept>
#include <string>

namespace ktune::test {

/// The site of the `occurrence`-th (0-based) spelling of `needle` in `text`,
/// with offset, line and column computed from the text.
inline SourceSite siteOf(const std::string &file, const std::string &text,
                         const std::string &needle, unsigned occurrence = 0,
                         SiteRole role = SiteRole::Other,
                         std::string replacement = "{P}") {
  size_t at = text.find(needle);
  for (unsigned i = 0; i < occurrence && at != std::string::npos; ++i)
    at = text.find(needle, at + 1);
  if (at == std::string::npos)
    throw std::logic_error("test source lacks '" + needle + "'");
  SourceSite s;
  s.file = file;
  s.offset = static_cast<unsigned>(at);
  s.length = static_cast<unsigned>(needle.size());
  s.text = needle;
  s.line = 1;
  s.col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++s.line;
      s.col = 1;
    } else {
      ++s.col;
    }
  }
  s.role = role;
  s.replacement = std::move(replacement);
  return s;
}

/// A change that breaks a document, and where the reader must say it is.
struct BrokenField {
  std::function<void(nlohmann::json &)> edit;
  std::string where;
};

/// Sets the value at a JSON pointer ("/kernels/0/params/1/name").
inline std::function<void(nlohmann::json &)> setAt(const std::string &pointer,
                                                   nlohmann::json value) {
  return [pointer, value](nlohmann::json &j) {
    j[nlohmann::json::json_pointer(pointer)] = value;
  };
}

/// Removes the member at a JSON pointer.
inline std::function<void(nlohmann::json &)>
eraseAt(const std::string &pointer) {
  return [pointer](nlohmann::json &j) {
    nlohmann::json::json_pointer p(pointer);
    j[p.parent_pointer()].erase(p.back());
  };
}

inline std::string locationOf(const SourceSite &s) {
  return s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col);
}

/// A candidate of `kernel` read at `sites`, at the default confidence.
inline Candidate candidateOf(const std::string &id, ParamKind kind,
                             const std::string &kernel, int64_t value,
                             const std::string &spelling,
                             std::vector<SourceSite> sites) {
  Candidate c;
  c.id = id;
  c.kind = kind;
  c.kernel = kernel;
  c.value = value;
  c.spelling = spelling;
  c.sites = std::move(sites);
  return c;
}

/// The error `read` (candidatesFromJson, planFromJson) reports for the
/// document `example` after `edit`; a test failure when it still reads.
template <class Read>
Error errorAfterEdit(const char *example, Read read,
                     const std::function<void(nlohmann::json &)> &edit) {
  nlohmann::json j = nlohmann::json::parse(example);
  edit(j);
  auto value = read(j);
  EXPECT_FALSE(value) << "expected an error for " << j.dump();
  return value ? Error{} : value.error();
}

inline const std::string FixtureFile = "k.cu";

/// A kernel source and candidates read off it, built line by line.
struct Fixture {
  std::string Source;
  CandidateSet Set;

  Fixture() { Set.file = FixtureFile; }

  /// Adds `constexpr int <name> = <literal>;` and a candidate for it whose
  /// sites are the literal and `uses` later spellings of the name.
  Candidate &constant(const std::string &id, ParamKind kind,
                      const std::string &name, const std::string &literal,
                      int64_t value, Confidence confidence = Confidence::High,
                      const std::string &kernel = "rmsnorm", int uses = 1) {
    std::string decl = "constexpr int " + name + " = " + literal + ";";
    Source += decl + "\n";
    Candidate c = candidateOf(id, kind, kernel, value, name,
                              {site(decl, literal, SiteRole::Definition)});
    c.confidence = confidence;
    for (int i = 0; i < uses; ++i) {
      std::string line = "use(" + name + ");";
      Source += line + "\n";
      c.sites.push_back(site(line, name, SiteRole::Other));
    }
    Set.candidates.push_back(c);
    return Set.candidates.back();
  }

  /// The site of `needle` inside the line just appended.
  SourceSite site(const std::string &line, const std::string &needle,
                  SiteRole role) {
    size_t lineStart = Source.size() - line.size() - 1;
    size_t before = 0;
    for (size_t at = Source.find(needle); at < lineStart;
         at = Source.find(needle, at + 1))
      ++before;
    return siteOf(FixtureFile, Source, needle, static_cast<unsigned>(before),
                  role);
  }

  SourceTexts sources() const { return {{FixtureFile, Source}}; }

  Plan plan(Confidence least = Confidence::High) {
    SourceTexts texts = sources();
    HeuristicOptions options;
    options.minConfidence = least;
    options.sources = &texts;
    Plan p = heuristicPlan(Set, options);
    auto errors = validatePlan(p, Set, texts);
    EXPECT_TRUE(errors.empty()) << formatPlanErrors(errors) << "\n"
                                << planToJson(p).dump(2);
    return p;
  }
};

/// A randomly generated kernel source and candidates with the hostile
/// features real detectors and users produce: colliding macros, repeated
/// spellings, values the kind does not allow, stale sites, candidates
/// claiming each other's sites, repeated ids and malformed implied
/// constraints. Deterministic for a seed.
struct RandomCase {
  Fixture Kernel;
  Confidence MinConfidence = Confidence::High;
};

inline RandomCase randomCase(unsigned seed) {
  const std::vector<ParamKind> kinds = {
      ParamKind::BlockSize,      ParamKind::TileSize,
      ParamKind::Unroll,         ParamKind::VectorWidth,
      ParamKind::ItemsPerThread, ParamKind::WarpsPerBlock,
      ParamKind::Other};
  // clang-format off
  const std::vector<int64_t> values = {
      -3,  0,   1,   2,   3,    4,    6,   8,  16, 32, 48, 96, 100,
      128, 256, 512, 1024, 2048, int64_t(1) << 40};
  const std::vector<std::string> spellings = {
      "kBlockSize", "kBlockX", "kBlockY",    "TILE_X", "tile_y", "kUnroll",
      "BLOCK_SIZE", "kPad",    "num_stages", "VEC",    "_",      "x"};
  const std::vector<std::string> macros = {
      "BLOCK_SIZE", "TILE", "UNROLL", "VEC", "RMSNORM_BLOCK_SIZE",
      "K0_BLOCK_SIZE", "BLOCK_SIZE_2", "PAD", "PARAM", "NUM_STAGES",
      "ITEMS_PER_THREAD", "WARPS_PER_BLOCK", "TILE_X"};
  // clang-format on
  const std::vector<std::string> implied = {"{self} % 32 == 0",
                                            "{self} <= 1024",
                                            "{other} * {self} <= 4096",
                                            "{c999} > 1",
                                            "{self} <",
                                            "{self} > 100000",
                                            "{self",
                                            "{self} / 0 == 1",
                                            "{self} * {other} % 2 == 0"};
  std::mt19937 rng(seed);
  auto pick = [&](const auto &list) -> const auto & {
    return list[std::uniform_int_distribution<size_t>(0, list.size() - 1)(rng)];
  };
  auto chance = [&](double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
  };
  RandomCase out;
  Fixture &f = out.Kernel;
  for (int m = 0; m < 3; ++m)
    if (chance(0.3))
      f.Source += "#define " + pick(macros) + " 1\n";
  int count = std::uniform_int_distribution<int>(0, 7)(rng);
  for (int i = 0; i < count; ++i) {
    std::string id = "c" + std::to_string(i);
    int64_t value = pick(values);
    std::string name = pick(spellings) + "_" + std::to_string(i);
    if (chance(0.2))
      name = pick(spellings); // may repeat or hit a macro: fine
    Candidate &c = f.constant(
        id, pick(kinds), name, std::to_string(value), value,
        static_cast<Confidence>(std::uniform_int_distribution<int>(0, 2)(rng)),
        chance(0.7) ? "k0" : "k1",
        std::uniform_int_distribution<int>(0, 3)(rng));
    if (chance(0.15) && i > 0) // claim a site of an earlier candidate
      c.sites.push_back(pick(f.Set.candidates[i - 1].sites));
    if (chance(0.1))
      c.sites.back().text += "x"; // stale
    if (chance(0.1))
      c.sites.back().replacement = "{P} - 1";
    if (chance(0.05))
      c.sites.back().replacement = "oops";
    if (chance(0.1))
      c.spelling = "16 / sizeof(T)";
    int constraints = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int k = 0; k < constraints; ++k) {
      std::string text = pick(implied);
      std::string other = "c";
      other +=
          std::to_string(std::uniform_int_distribution<int>(0, count - 1)(rng));
      for (size_t at; (at = text.find("self")) != std::string::npos;)
        text.replace(at, 4, id);
      for (size_t at; (at = text.find("other")) != std::string::npos;)
        text.replace(at, 5, other);
      c.impliedConstraints.push_back(text);
    }
  }
  if (chance(0.1) && count > 1) // a repeated id
    f.Set.candidates[1].id = f.Set.candidates[0].id;

  out.MinConfidence =
      static_cast<Confidence>(std::uniform_int_distribution<int>(0, 2)(rng));
  return out;
}

} // namespace ktune::test

#endif
