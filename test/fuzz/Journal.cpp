//===- Journal.cpp - Fuzzes reading a journal -----------------------------===//
//
// The input is a journal: opened as ktune-tune --journal opens it (from a
// file: torn tails are cut), and replayed as ktune-tune --simulate reads one.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Journal.h"
#include "FuzzSupport.h"
#include "ktune/Tune/Simulator.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace ktune;

namespace {
/// One file per process, rewritten for each input.
const std::string &journalPath() {
  static const std::string Path = [] {
    const char *dir = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(dir && *dir ? dir : "/tmp") + "/ktune-fuzz-journal-XXXXXX";
    int fd = mkstemp(tmpl.data());
    if (fd < 0)
      std::abort();
    ::close(fd);
    std::atexit([] { ::unlink(journalPath().c_str()); });
    return tmpl;
  }();
  return Path;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text = fuzz::text(data, size);
  if (auto replay = ReplayEvaluator::fromJournal(text, "fuzz"))
    fuzz::use(spaceFromRecords(*replay));
  if (FILE *f = std::fopen(journalPath().c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  if (auto journal = Journal::open(journalPath()))
    for (const JournalEntry &e : (*journal)->entries())
      fuzz::use(journalEntryToJson(e).dump());
  return 0;
}
