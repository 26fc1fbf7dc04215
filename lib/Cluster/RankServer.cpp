//===- RankServer.cpp - A rank other than 0: evaluates what it is sent ----===//
#include "ClusterInternal.h"

#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/Journal.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <thread>

namespace ktune::cluster {

using nlohmann::json;

json resultToWire(const EvalResult &result) {
  JournalEntry e;
  e.result = result;
  json j = journalEntryToJson(e);
  for (const char *k : {"key", "phase", "at", "eval_ms", "search_ms"})
    j.erase(k);
  return j;
}

Expected<EvalResult> resultFromWire(const json &wire, const std::string &from) {
  if (!wire.is_object())
    return makeError("a result that is not a JSON object", from);
  json j = wire;
  j["key"] = {{"template", ""}, {"kernel", ""}, {"device", ""}, {"arch", ""}};
  KTUNE_TRY_ASSIGN(JournalEntry e, journalEntryFromJson(j, from));
  return e.result;
}

std::string rankName(int rank, const std::string &host) {
  return "rank " + std::to_string(rank) + " (" + host + ")";
}

namespace {

json helloOf(const std::string &token, int rank, const HostWorkers &self) {
  return {{"type", "hello"},
          {"token", token},
          {"rank", rank},
          {"host", hostName()},
          {"device", self.device},
          {"arch", self.arch},
          {"inputs", self.inputsSha256},
          {"gpus", self.gpus},
          {"virtual", self.virtualDevices}};
}

/// One of this rank's workers: evaluates what comes for it, one at a time.
class Slot {
public:
  Slot(Evaluator &worker, Connection &conn) : Worker(worker), Conn(conn) {
    Thread = std::thread([this] { serve(); });
  }
  ~Slot() {
    {
      std::lock_guard<std::mutex> guard(Lock);
      Stopping = true;
    }
    Wake.notify_all();
    Thread.join();
  }
  void push(uint64_t id, Shape shape, Configuration config) {
    {
      std::lock_guard<std::mutex> guard(Lock);
      Queue.push_back({id, std::move(shape), std::move(config)});
    }
    Wake.notify_all();
  }

private:
  struct Job {
    uint64_t id = 0;
    Shape shape;
    Configuration config;
  };
  void serve() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> guard(Lock);
        Wake.wait(guard, [&] { return Stopping || !Queue.empty(); });
        if (Stopping)
          return;
        job = std::move(Queue.front());
        Queue.pop_front();
      }
      EvalResult r = Worker.evaluate(job.shape, job.config);
      // A send that fails means rank 0 is gone: the reader sees it.
      (void)Conn.send(
          {{"type", "result"}, {"id", job.id}, {"result", resultToWire(r)}});
    }
  }
  Evaluator &Worker;
  Connection &Conn;
  std::mutex Lock;
  std::condition_variable Wake;
  std::deque<Job> Queue;
  bool Stopping = false;
  std::thread Thread;
};

/// Reads one eval message into its parts.
Status readEval(const json &m, size_t slots, size_t &slot, uint64_t &id,
                Shape &shape, Configuration &config) {
  JsonReader r(m);
  KTUNE_TRY_ASSIGN(id, r["id"].unsignedInteger());
  KTUNE_TRY_ASSIGN(uint64_t s, r["slot"].unsignedInteger());
  if (s >= slots)
    return makeError("no worker " + std::to_string(s) + " here");
  slot = static_cast<size_t>(s);
  KTUNE_TRY_ASSIGN(auto shapeFields, r["shape"].integerFields());
  KTUNE_TRY_ASSIGN(auto configFields, r["config"].integerFields());
  shape = Shape(shapeFields.begin(), shapeFields.end());
  config = Configuration(configFields.begin(), configFields.end());
  return {};
}

} // namespace

void reportSetupFailure(const Invitation &rankZero, int rank,
                        const Error &error, const ClusterOptions &options) {
  auto conn = Connection::connect(rankZero.addresses, options.joinSeconds);
  if (conn)
    (void)(*conn)->send({{"type", "hello"},
                         {"token", rankZero.token},
                         {"rank", rank},
                         {"host", hostName()},
                         {"error", error.str()}});
}

Expected<bool> serveRank(const Invitation &rankZero, int rank,
                         RankWorkers workers, const ClusterOptions &options,
                         Log log) {
  KTUNE_TRY_ASSIGN(
      auto conn, Connection::connect(rankZero.addresses, options.joinSeconds));
  KTUNE_TRY(conn->send(helloOf(rankZero.token, rank, workers.self)));
  // Rank 0 admits the others once its own GPUs are ready.
  KTUNE_TRY_ASSIGN(auto answer, conn->receive(options.joinSeconds + 30));
  if (!answer)
    return makeError("rank 0 did not admit this rank in time");
  if (answer->value("type", "") == "refused")
    return makeError("rank 0 left this rank out: " +
                     answer->value("reason", std::string("?")));
  if (answer->value("type", "") != "welcome")
    return makeError("rank 0 answered with neither welcome nor refusal");
  log(rankName(rank, hostName()) + ": tuning for rank 0 on " +
      std::to_string(workers.workers.size()) + " worker(s)");

  std::vector<std::unique_ptr<Slot>> slots;
  for (auto &w : workers.workers)
    slots.push_back(std::make_unique<Slot>(*w, *conn));
  std::atomic<bool> stopping{false};
  std::thread heart([&] {
    auto last = Clock::now();
    while (!stopping) {
      std::this_thread::sleep_for(std::chrono::duration<double>(PollSeconds));
      if (secondsSince(last) >= options.heartbeatSeconds) {
        (void)conn->send({{"type", "beat"}});
        last = Clock::now();
      }
    }
  });
  Expected<bool> outcome = false;
  auto lastHeard = Clock::now();
  for (;;) {
    auto message = conn->receive(PollSeconds);
    if (!message) {
      outcome = makeError("lost rank 0: " + message.error().message);
      break;
    }
    if (!*message) {
      if (secondsSince(lastHeard) > options.silenceSeconds) {
        outcome = makeError(
            "lost rank 0: silent for " +
            std::to_string(static_cast<int>(options.silenceSeconds)) + " s");
        break;
      }
      continue;
    }
    lastHeard = Clock::now();
    std::string type = (*message)->value("type", "");
    if (type == "done") {
      outcome = (*message)->value("finalize", false);
      break;
    }
    if (type != "eval")
      continue;
    size_t slot = 0;
    uint64_t id = 0;
    Shape shape;
    Configuration config;
    if (auto ok = readEval(**message, slots.size(), slot, id, shape, config);
        !ok) {
      outcome = makeError("rank 0 sent a bad request: " + ok.error().str());
      break;
    }
    slots[slot]->push(id, std::move(shape), std::move(config));
  }
  stopping = true;
  heart.join();
  slots.clear(); // each finishes the evaluation it is in
  return outcome;
}

} // namespace ktune::cluster
