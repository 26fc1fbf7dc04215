//===- ktune/Tune/Journal.h - Append-only record of evaluations -*- C++ -*-===//
//
// Every evaluation is appended to the journal as one JSON line and flushed
// to disk before the tuner goes on, so a run killed at any moment (even by
// SIGKILL) loses at most the evaluation in flight: rerunning the same command
// reads the journal back and never repeats an evaluation it holds. A last
// line cut short by the kill is dropped on loading. Schema: docs/schemas.md
// (## journal).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_JOURNAL_H
#define KTUNE_TUNE_JOURNAL_H

#include "ktune/Tune/Evaluator.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ktune {

/// What an evaluation is of: the same key is never evaluated twice.
struct JournalKey {
  std::string templateSha256; // of the template source (or simulated space)
  std::string kernel;
  std::string device;
  std::string arch;
  Shape shape;
  Configuration config;
  /// The compiler when it is not NVRTC ("nvcc"): code from another
  /// compiler is another measurement.
  std::string compiler;

  bool operator==(const JournalKey &) const = default;
  /// Same template, kernel, device, architecture and compiler: the same
  /// run's key, whatever the shape and configuration.
  bool sameRun(const JournalKey &other) const {
    return templateSha256 == other.templateSha256 && kernel == other.kernel &&
           device == other.device && arch == other.arch &&
           compiler == other.compiler;
  }
  /// Canonical text (sorted keys), for hashing and comparison.
  std::string canonical() const;
};

/// The journal key's compiler for evaluations built by `report`'s backend:
/// empty for NVRTC (keys written before there was a choice), else its name.
std::string journalCompiler(const CompilerReport &report);

/// Why an evaluation was made. Search evaluations (the default included)
/// count towards the per-shape budget; retimes re-measure the finalists;
/// general evaluations measure a candidate general configuration on a shape
/// its search never visited.
enum class JournalPhase { Default, Search, Retime, General };
std::string_view phaseName(JournalPhase phase);
std::optional<JournalPhase> parsePhase(std::string_view name);

struct JournalEntry {
  JournalKey key;
  EvalResult result;
  JournalPhase phase = JournalPhase::Search;
  std::string retimeBatch; // Retime: entries measured together share it
  std::string at;          // UTC, ISO 8601 with milliseconds
  double evalMs = 0;       // wall time of the evaluation, compile included
  double searchMs = 0;     // strategy time since the previous evaluation
};

nlohmann::json journalEntryToJson(const JournalEntry &entry);
/// `where` names the line in errors ("run.jsonl:12").
Expected<JournalEntry> journalEntryFromJson(const nlohmann::json &json,
                                            const std::string &where);

/// The current UTC time as "2026-11-22T10:00:00.123Z".
std::string utcTimestamp();

class Journal {
public:
  /// Opens (creating if needed) the journal at `path` and loads its entries.
  /// A last line without its newline that does not parse (a write cut short
  /// by a crash) is dropped and cut from the file; any complete line that
  /// does not read is an error naming path:line, and the file is untouched.
  static Expected<std::unique_ptr<Journal>> open(const std::string &path);
  ~Journal();
  Journal(const Journal &) = delete;
  Journal &operator=(const Journal &) = delete;

  const std::string &path() const { return Path; }
  /// Every entry, in the order it was written.
  const std::vector<JournalEntry> &entries() const { return Entries; }
  /// True when the last line was dropped on opening.
  bool droppedTruncatedLine() const { return !DroppedTail.empty(); }
  /// What to tell the user about a dropped last line; empty when none was.
  std::string droppedLineNote() const;

  /// The latest non-retime entry for `key`, if any.
  const JournalEntry *find(const JournalKey &key) const;

  /// When an appended line reaches the disk: at once, or (a batch of
  /// evaluations finishing together) at the next sync(). Either way it is
  /// written before append returns, so a killed process loses nothing.
  enum class Sync { Now, Later };
  /// Appends one line, flushes it, and fsyncs it unless `sync` is Later.
  Status append(const JournalEntry &entry, Sync sync = Sync::Now);
  /// Fsyncs the lines appended with Sync::Later.
  void sync();

private:
  Journal() = default;
  std::string Path;
  std::FILE *File = nullptr;
  std::vector<JournalEntry> Entries;
  std::unordered_map<std::string, size_t> Index; // canonical key -> entry
  std::string DroppedTail; // path:line of the dropped torn line
};

} // namespace ktune

#endif
