//===- Journal.cpp - Append-only, crash-tolerant evaluation log -----------===//
#include "ktune/Tune/Journal.h"

#include "ktune/Support/FileUtil.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ktune {

using nlohmann::json;

std::string JournalKey::canonical() const {
  // nlohmann::json objects keep keys sorted: the dump is canonical.
  json j = {{"template", templateSha256},
            {"kernel", kernel},
            {"device", device},
            {"arch", arch},
            {"shape", shape},
            {"config", config}};
  return j.dump();
}

static constexpr std::pair<JournalPhase, std::string_view> PhaseNames[] = {
    {JournalPhase::Default, "default"},
    {JournalPhase::Search, "search"},
    {JournalPhase::Retime, "retime"},
    {JournalPhase::General, "general"}};

std::string_view phaseName(JournalPhase phase) {
  for (const auto &[p, name] : PhaseNames)
    if (p == phase)
      return name;
  return "search";
}

std::optional<JournalPhase> parsePhase(std::string_view name) {
  for (const auto &[p, text] : PhaseNames)
    if (text == name)
      return p;
  return std::nullopt;
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
  const Resources &r = e.result.resources;
  json res = json::object();
  if (r.registers >= 0)
    res["registers"] = r.registers;
  if (r.spillStores || r.spillLoads) {
    res["spill_stores"] = r.spillStores;
    res["spill_loads"] = r.spillLoads;
  }
  if (r.stackFrame)
    res["stack_frame"] = r.stackFrame;
  if (r.smemStatic >= 0)
    res["smem_static"] = r.smemStatic;
  if (r.smemDynamic)
    res["smem_dynamic"] = r.smemDynamic;
  if (r.threadsPerBlock)
    res["threads_per_block"] = r.threadsPerBlock;
  if (r.blocksPerSM >= 0)
    res["blocks_per_sm"] = r.blocksPerSM;
  if (!res.empty())
    j["resources"] = std::move(res);
  j["compile_ms"] = roundMs(e.result.compileMs);
  j["eval_ms"] = roundMs(e.evalMs);
  j["search_ms"] = roundMs(e.searchMs);
  if (!e.retimeBatch.empty())
    j["retime_batch"] = e.retimeBatch;
  j["at"] = e.at;
  return j;
}

namespace {

Expected<std::map<std::string, int64_t>> readIntMap(const json &j,
                                                    const std::string &where) {
  if (!j.is_object())
    return makeError("expected an object of integers", where);
  std::map<std::string, int64_t> out;
  for (const auto &[name, value] : j.items()) {
    if (!value.is_number_integer())
      return makeError("expected an integer", where + "." + name);
    out[name] = value.get<int64_t>();
  }
  return out;
}

int intOr(const json &j, const char *key, int fallback) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<int>()
                                                       : fallback;
}
double numberOr(const json &j, const char *key, double fallback) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>()
                                               : fallback;
}

} // namespace

Expected<JournalEntry> journalEntryFromJson(const json &j,
                                            const std::string &where) {
  if (!j.is_object() || !j.contains("key") || !j["key"].is_object())
    return makeError("expected a journal entry {\"key\": ..., \"status\": ...}",
                     where);
  JournalEntry e;
  const json &k = j["key"];
  for (const char *field : {"template", "kernel", "device", "arch"})
    if (!k.contains(field) || !k[field].is_string())
      return makeError(std::string("key.") + field + ": expected a string",
                       where);
  e.key.templateSha256 = k["template"];
  e.key.kernel = k["kernel"];
  e.key.device = k["device"];
  e.key.arch = k["arch"];
  auto shape = readIntMap(k.value("shape", json::object()), "key.shape");
  if (!shape)
    return makeError(shape.error().str(), where);
  e.key.shape = std::move(*shape);
  auto config = readIntMap(k.value("config", json::object()), "key.config");
  if (!config)
    return makeError(config.error().str(), where);
  e.key.config = std::move(*config);

  if (!j.contains("status") || !j["status"].is_string())
    return makeError("status: expected a string", where);
  auto status = parseStatus(j["status"].get<std::string>());
  if (!status)
    return makeError("status: unknown status \"" +
                         j["status"].get<std::string>() + "\"",
                     where);
  e.result.status = *status;
  e.result.reason = j.value("reason", "");
  auto phase = parsePhase(j.value("phase", "search"));
  if (!phase)
    return makeError("phase: unknown phase", where);
  e.phase = *phase;
  if (j.contains("time_us") && j["time_us"].is_object()) {
    const json &t = j["time_us"];
    if (!t.contains("median") || !t["median"].is_number())
      return makeError("time_us.median: expected a number", where);
    Timing timing;
    timing.medianUs = t["median"].get<double>();
    timing.iqrUs = numberOr(t, "iqr", 0.0);
    timing.reps = intOr(t, "reps", 0);
    timing.graphBatched = t.value("graph_batched", false);
    timing.coldL2 = t.value("cold_l2", true);
    e.result.time = timing;
  }
  if (j.contains("resources") && j["resources"].is_object()) {
    const json &r = j["resources"];
    Resources &res = e.result.resources;
    res.registers = intOr(r, "registers", -1);
    res.spillStores = intOr(r, "spill_stores", 0);
    res.spillLoads = intOr(r, "spill_loads", 0);
    res.stackFrame = intOr(r, "stack_frame", 0);
    res.smemStatic = intOr(r, "smem_static", -1);
    res.smemDynamic = intOr(r, "smem_dynamic", 0);
    res.threadsPerBlock = intOr(r, "threads_per_block", 0);
    res.blocksPerSM = intOr(r, "blocks_per_sm", -1);
  }
  e.result.compileMs = numberOr(j, "compile_ms", 0.0);
  e.evalMs = numberOr(j, "eval_ms", 0.0);
  e.searchMs = numberOr(j, "search_ms", 0.0);
  e.retimeBatch = j.value("retime_batch", "");
  e.at = j.value("at", "");
  return e;
}

Expected<std::unique_ptr<Journal>> Journal::open(const std::string &path) {
  std::unique_ptr<Journal> journal(new Journal());
  journal->Path = path;

  std::string text;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    auto content = readFile(path);
    if (!content)
      return std::unexpected(content.error());
    text = std::move(*content);
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
    bool last = next >= text.size();
    std::string where = path + ":" + std::to_string(lineNo);
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      pos = next;
      if (complete)
        goodEnd = next;
      continue;
    }
    json j;
    bool parsed = true;
    try {
      j = json::parse(line);
    } catch (const json::parse_error &) {
      parsed = false;
    }
    if (!parsed) {
      if (last) {
        journal->DroppedTail = true;
        break;
      }
      return makeError("not a JSON line (the journal is corrupt here; "
                       "remove the line or the file to go on)",
                       where);
    }
    auto entry = journalEntryFromJson(j, where);
    if (!entry)
      return std::unexpected(entry.error());
    if (entry->phase != JournalPhase::Retime)
      journal->Index[entry->key.canonical()] = journal->Entries.size();
    journal->Entries.push_back(std::move(*entry));
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

Journal::~Journal() {
  if (File)
    std::fclose(File);
}

const JournalEntry *Journal::find(const JournalKey &key) const {
  auto it = Index.find(key.canonical());
  return it == Index.end() ? nullptr : &Entries[it->second];
}

Status Journal::append(const JournalEntry &entry) {
  std::string line = journalEntryToJson(entry).dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), File) != line.size() ||
      std::fflush(File) != 0)
    return makeError(std::string("cannot append to the journal: ") +
                         std::strerror(errno),
                     Path);
  // fsync: a power cut, not only a kill, must not lose what was reported.
  ::fsync(::fileno(File));
  if (entry.phase != JournalPhase::Retime)
    Index[entry.key.canonical()] = Entries.size();
  Entries.push_back(entry);
  return {};
}

} // namespace ktune
