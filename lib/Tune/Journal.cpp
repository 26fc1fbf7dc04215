//===- Journal.cpp - Append-only, crash-tolerant evaluation log -----------===//
#include "ktune/Tune/Journal.h"

#include "ktune/Support/EnumNames.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Limits.h"
#include "ktune/Support/Try.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ktune {

using nlohmann::json;

std::string journalCompiler(const CompilerReport &report) {
  return report.backend == "nvrtc" ? std::string() : report.backend;
}

std::string JournalKey::canonical() const {
  // nlohmann::json objects keep keys sorted: the dump is canonical.
  json j = {{"template", templateSha256},
            {"kernel", kernel},
            {"device", device},
            {"arch", arch},
            {"shape", shape},
            {"config", config}};
  if (!compiler.empty())
    j["compiler"] = compiler;
  return j.dump();
}

static constexpr EnumName<JournalPhase> PhaseNames[] = {
    {JournalPhase::Default, "default"},
    {JournalPhase::Search, "search"},
    {JournalPhase::Retime, "retime"},
    {JournalPhase::General, "general"}};

std::string_view phaseName(JournalPhase phase) {
  return nameOf(PhaseNames, phase, "search");
}

std::optional<JournalPhase> parsePhase(std::string_view name) {
  return parseName(PhaseNames, name);
}

std::string utcTimestamp() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

/// Milliseconds rounded to microseconds: enough, and keeps lines short.
static double roundMs(double ms) { return std::round(ms * 1000.0) / 1000.0; }

json journalEntryToJson(const JournalEntry &e) {
  json key = {{"template", e.key.templateSha256},
              {"kernel", e.key.kernel},
              {"device", e.key.device},
              {"arch", e.key.arch},
              {"shape", e.key.shape},
              {"config", e.key.config}};
  if (!e.key.compiler.empty())
    key["compiler"] = e.key.compiler;
  json j = {{"key", std::move(key)},
            {"status", statusName(e.result.status)},
            {"phase", phaseName(e.phase)}};
  if (!e.result.reason.empty())
    j["reason"] = e.result.reason;
  if (e.result.time) {
    const Timing &t = *e.result.time;
    j["time_us"] = {{"median", t.medianUs},
                    {"iqr", t.iqrUs},
                    {"reps", t.reps},
                    {"graph_batched", t.graphBatched},
                    {"cold_l2", t.coldL2}};
  }
  json res = resourcesToJson(e.result.resources,
                             {.zeroSpills = false, .stackFrame = true});
  if (!res.empty())
    j["resources"] = std::move(res);
  j["compile_ms"] = roundMs(e.result.compileMs);
  j["eval_ms"] = roundMs(e.evalMs);
  j["search_ms"] = roundMs(e.searchMs);
  if (e.result.gpu >= 0)
    j["gpu"] = e.result.gpu; // which of several GPUs measured it
  if (e.result.rank >= 0)
    j["rank"] = e.result.rank; // on which host (MPI rank), across hosts
  if (!e.retimeBatch.empty())
    j["retime_batch"] = e.retimeBatch;
  j["at"] = e.at;
  return j;
}

namespace {

Expected<JournalEntry> readEntry(const JsonReader &j) {
  JournalEntry e;
  JsonReader k = j["key"];
  KTUNE_TRY_ASSIGN(e.key.templateSha256, k["template"].string());
  KTUNE_TRY_ASSIGN(e.key.kernel, k["kernel"].string());
  KTUNE_TRY_ASSIGN(e.key.device, k["device"].string());
  KTUNE_TRY_ASSIGN(e.key.arch, k["arch"].string());
  KTUNE_TRY_ASSIGN(e.key.compiler, k.optionalString("compiler"));
  if (k.has("shape")) {
    KTUNE_TRY_ASSIGN(auto shape, k["shape"].integerFields());
    e.key.shape = Shape(shape.begin(), shape.end());
  }
  if (k.has("config")) {
    KTUNE_TRY_ASSIGN(auto config, k["config"].integerFields());
    e.key.config = Configuration(config.begin(), config.end());
  }

  KTUNE_TRY_ASSIGN(std::string status, j["status"].string());
  auto parsed = parseStatus(status);
  if (!parsed)
    return j.failAt("status", "unknown status \"" + status + "\"");
  e.result.status = *parsed;
  KTUNE_TRY_ASSIGN(e.result.reason, j.optionalString("reason"));
  KTUNE_TRY_ASSIGN(std::string phaseText, j.optionalString("phase", "search"));
  auto phase = parsePhase(phaseText);
  if (!phase)
    return j.failAt("phase", "unknown phase");
  e.phase = *phase;
  if (JsonReader t = j["time_us"]; t.isObject()) {
    Timing timing;
    KTUNE_TRY_ASSIGN(timing.medianUs, t.requiredNumber("median"));
    KTUNE_TRY_ASSIGN(timing.iqrUs, t.optionalNumber("iqr", 0.0));
    KTUNE_TRY_ASSIGN(timing.reps, t.optionalInteger("reps", 0, 0, INT_MAX));
    KTUNE_TRY_ASSIGN(timing.graphBatched,
                     t.optionalBool("graph_batched", false));
    KTUNE_TRY_ASSIGN(timing.coldL2, t.optionalBool("cold_l2", true));
    e.result.time = timing;
  }
  if (j["resources"].isObject()) {
    KTUNE_TRY_ASSIGN(e.result.resources, resourcesFromJson(j["resources"]));
  }
  KTUNE_TRY_ASSIGN(e.result.compileMs, j.optionalNumber("compile_ms", 0.0));
  KTUNE_TRY_ASSIGN(e.evalMs, j.optionalNumber("eval_ms", 0.0));
  KTUNE_TRY_ASSIGN(e.searchMs, j.optionalNumber("search_ms", 0.0));
  KTUNE_TRY_ASSIGN(int64_t gpu, j.optionalInteger("gpu", -1, -1, INT_MAX));
  e.result.gpu = static_cast<int>(gpu);
  KTUNE_TRY_ASSIGN(int64_t rank, j.optionalInteger("rank", -1, -1, INT_MAX));
  e.result.rank = static_cast<int>(rank);
  KTUNE_TRY_ASSIGN(e.retimeBatch, j.optionalString("retime_batch"));
  KTUNE_TRY_ASSIGN(e.at, j.optionalString("at"));
  return e;
}

} // namespace

Expected<JournalEntry> journalEntryFromJson(const json &j,
                                            const std::string &where) {
  JsonReader entry(j);
  if (!entry.isObject() || !entry["key"].isObject())
    return makeError("expected a journal entry {\"key\": ..., \"status\": ...}",
                     where);
  // The line is the location; the field goes into the message
  // ("x.jsonl:3: status: expected a string").
  auto e = readEntry(entry);
  if (!e)
    return makeError(e.error().str(), where);
  return e;
}

Expected<std::unique_ptr<Journal>> Journal::open(const std::string &path) {
  std::unique_ptr<Journal> journal(new Journal());
  journal->Path = path;

  std::string text;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    KTUNE_TRY_ASSIGN(text, readFile(path, limits::MaxJournalBytes));
  }

  // Parse complete lines; the last one may be cut short by a kill.
  size_t pos = 0, goodEnd = 0, lineNo = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    bool complete = nl != std::string::npos;
    std::string line =
        text.substr(pos, complete ? nl - pos : std::string::npos);
    ++lineNo;
    size_t next = complete ? nl + 1 : text.size();
    std::string where = path + ":" + std::to_string(lineNo);
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      pos = next;
      if (complete)
        goodEnd = next;
      continue;
    }
    auto j = parseJson(line, where);
    if (!j) {
      // Only a write cut short by a crash (no newline yet) is dropped; a
      // complete line that does not read is corruption, and nothing is cut.
      if (!complete) {
        journal->DroppedTail = where;
        break;
      }
      return makeError("not a JSON line (the journal is corrupt here; "
                       "remove the line or the file to go on)",
                       where);
    }
    KTUNE_TRY_ASSIGN(JournalEntry entry, journalEntryFromJson(*j, where));
    if (entry.phase != JournalPhase::Retime)
      journal->Index[entry.key.canonical()] = journal->Entries.size();
    journal->Entries.push_back(std::move(entry));
    pos = next;
    goodEnd = next;
  }
  // A whole entry whose newline was lost is kept; the newline is restored.
  bool needsNewline = goodEnd > 0 && text[goodEnd - 1] != '\n';

  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return makeError(std::string("cannot open journal for writing: ") +
                         std::strerror(errno),
                     path);
  // Cut a torn tail so the next append starts on a line of its own.
  if (goodEnd < text.size() &&
      ::ftruncate(fd, static_cast<off_t>(goodEnd)) != 0) {
    int saved = errno;
    ::close(fd);
    return makeError(std::string("cannot truncate a torn last line: ") +
                         std::strerror(saved),
                     path);
  }
  if (::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return makeError("cannot seek to the end of the journal", path);
  }
  // One writer per journal: a second tuner on the same file would
  // interleave lines and repeat evaluations.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return makeError("the journal is in use by another ktune-tune process",
                     path);
  }
  journal->File = ::fdopen(fd, "a");
  if (!journal->File) {
    ::close(fd);
    return makeError("cannot open journal for appending", path);
  }
  if (needsNewline &&
      (std::fputs("\n", journal->File) < 0 || std::fflush(journal->File) != 0))
    return makeError("cannot write to the journal", path);
  return journal;
}

std::string Journal::droppedLineNote() const {
  if (DroppedTail.empty())
    return "";
  return DroppedTail + ": dropped a torn last line (a write cut short, "
                       "without its newline); that evaluation runs again";
}

Journal::~Journal() {
  if (File)
    std::fclose(File);
}

const JournalEntry *Journal::find(const JournalKey &key) const {
  auto it = Index.find(key.canonical());
  return it == Index.end() ? nullptr : &Entries[it->second];
}

Status Journal::append(const JournalEntry &entry, Sync sync) {
  std::string line = journalEntryToJson(entry).dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), File) != line.size() ||
      std::fflush(File) != 0)
    return makeError(std::string("cannot append to the journal: ") +
                         std::strerror(errno),
                     Path);
  // fsync: a power cut, not only a kill, must not lose what was reported.
  // A batch's lines share one (a fsync per line held the GPUs up).
  if (sync == Sync::Now)
    ::fsync(::fileno(File));
  if (entry.phase != JournalPhase::Retime)
    Index[entry.key.canonical()] = Entries.size();
  Entries.push_back(entry);
  return {};
}

void Journal::sync() { ::fsync(::fileno(File)); }

} // namespace ktune
