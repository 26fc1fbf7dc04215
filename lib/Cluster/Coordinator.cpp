//===- Coordinator.cpp - Rank 0: the other ranks' GPUs as workers ---------===//
#include "ClusterInternal.h"

#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <atomic>
#include <climits>
#include <condition_variable>
#include <map>
#include <random>
#include <set>
#include <thread>

namespace ktune::cluster {

using nlohmann::json;

namespace {

/// The GPUs a hello lists (none when the list is not one).
std::vector<int> gpusOf(const JsonReader &hello) {
  auto gpus = hello["gpus"].readArray(
      [](const JsonReader &e) { return e.integer(0, INT_MAX); });
  return gpus ? std::vector<int>(gpus->begin(), gpus->end())
              : std::vector<int>{};
}

/// One admitted rank: its connection, the evaluations waiting for an
/// answer, and whether it is lost.
class RankLink {
public:
  RankLink(int rank, std::string host, std::unique_ptr<Connection> conn,
           Log log)
      : Rank(rank), Host(std::move(host)), Conn(std::move(conn)),
        Report(std::move(log)), LastHeard(Clock::now()) {}

  /// The result of `config` on the rank's worker `slot`; nullopt when the
  /// rank is lost before it answers.
  std::optional<EvalResult> call(size_t slot, const Shape &shape,
                                 const Configuration &config) {
    uint64_t id;
    {
      std::lock_guard<std::mutex> guard(Lock);
      if (Lost)
        return std::nullopt;
      id = NextId++;
      Pending[id];
    }
    json message = {{"type", "eval"},
                    {"id", id},
                    {"slot", slot},
                    {"shape", shape},
                    {"config", config}};
    if (auto sent = Conn->send(message); !sent)
      markLost(sent.error().message, false);
    std::unique_lock<std::mutex> guard(Lock);
    Changed.wait(guard, [&] { return Pending[id].has_value() || Lost; });
    std::optional<EvalResult> out = std::move(Pending[id]);
    Pending.erase(id);
    return out;
  }

  /// Reads results and heartbeats until stopped or lost.
  void read(double silenceSeconds) {
    while (!Stopping) {
      auto message = Conn->receive(PollSeconds);
      if (!message) {
        if (!Stopping)
          markLost(message.error().message, false);
        return;
      }
      if (!*message) {
        if (secondsSince(LastHeard) > silenceSeconds) {
          markLost("silent for " +
                       std::to_string(static_cast<int>(silenceSeconds)) + " s",
                   true);
          return;
        }
        continue;
      }
      LastHeard = Clock::now();
      const json &m = **message;
      if (m.value("type", "") != "result")
        continue;
      auto id = m.value("id", uint64_t(0));
      auto result = resultFromWire(m.value("result", json()), name());
      if (!result) {
        markLost(result.error().str(), false);
        return;
      }
      std::lock_guard<std::mutex> guard(Lock);
      if (auto it = Pending.find(id); it != Pending.end())
        it->second = std::move(*result);
      Changed.notify_all();
    }
  }

  void beat() {
    if (!lost())
      if (auto sent = Conn->send({{"type", "beat"}}); !sent)
        markLost(sent.error().message, false);
  }

  /// Tells the rank the run is over and stops reading.
  void finish(bool together) {
    Stopping = true;
    if (!lost())
      (void)Conn->send({{"type", "done"}, {"finalize", together}});
  }

  void markLost(const std::string &reason, bool silent) {
    {
      std::lock_guard<std::mutex> guard(Lock);
      if (Lost)
        return;
      Lost = true;
      Why = LostRank{Rank, Host, reason, silent};
      Changed.notify_all();
    }
    Report(name() + " lost: " + reason +
           "; its configurations in flight go to the other workers");
  }

  bool lost() const {
    std::lock_guard<std::mutex> guard(Lock);
    return Lost;
  }
  std::optional<LostRank> why() const {
    std::lock_guard<std::mutex> guard(Lock);
    if (!Lost)
      return std::nullopt;
    return Why;
  }
  std::string name() const { return rankName(Rank, Host); }

private:
  int Rank;
  std::string Host;
  std::unique_ptr<Connection> Conn;
  Log Report;
  mutable std::mutex Lock;
  std::condition_variable Changed;
  std::map<uint64_t, std::optional<EvalResult>> Pending;
  uint64_t NextId = 1;
  bool Lost = false;
  LostRank Why;
  std::atomic<bool> Stopping{false};
  Clock::time_point LastHeard; // by the reader only
};

/// One GPU of another rank, as a worker of rank 0's DeviceGroup.
class RemoteWorker : public Evaluator {
public:
  RemoteWorker(std::shared_ptr<RankLink> link, size_t slot, std::string device,
               std::string arch)
      : Link(std::move(link)), Slot(slot), Device(std::move(device)),
        Arch(std::move(arch)) {}
  std::string device() const override { return Device; }
  std::string arch() const override { return Arch; }
  EvalResult evaluate(const Shape &shape,
                      const Configuration &config) override {
    if (!Lost)
      if (auto r = Link->call(Slot, shape, config))
        return std::move(*r);
    Lost = true;
    EvalResult r;
    r.status = EvalStatus::RuntimeError;
    auto why = Link->why();
    r.reason = why ? why->reason : "lost";
    return r;
  }
  bool lost() const override { return Lost; }

private:
  std::shared_ptr<RankLink> Link;
  size_t Slot;
  std::string Device, Arch;
  std::atomic<bool> Lost{false};
};

} // namespace

struct Coordinator::Impl {
  ClusterOptions Options;
  Log Report;
  std::string Token;
  std::unique_ptr<Listener> Listening;
  std::mutex LinksLock; // the heart reads Links while join adds to them
  std::vector<std::shared_ptr<RankLink>> Links;
  std::vector<std::thread> Readers;
  std::thread Heart;
  std::mutex HeartLock;
  std::condition_variable HeartWake;
  bool Stopping = false;
  std::vector<LostRank> NeverJoined;

  void admit(int rank, const std::string &host,
             std::unique_ptr<Connection> conn, const JsonReader &hello,
             const HostWorkers &self, ExtraWorkers &out) {
    auto link = std::make_shared<RankLink>(rank, host, std::move(conn), Report);
    std::vector<int> gpus = gpusOf(hello);
    for (size_t slot = 0; slot < gpus.size(); ++slot) {
      out.workers.push_back(
          std::make_unique<RemoteWorker>(link, slot, self.device, self.arch));
      out.gpus.push_back(gpus[slot]);
      out.ranks.push_back(rank);
    }
    Readers.emplace_back(
        [link, silence = Options.silenceSeconds] { link->read(silence); });
    std::lock_guard<std::mutex> guard(LinksLock);
    Links.push_back(std::move(link));
  }

  /// Every admitted rank hears from rank 0 each heartbeatSeconds, from the
  /// moment it is admitted (others may still be joining).
  void beatUntilStopped() {
    std::unique_lock<std::mutex> guard(HeartLock);
    while (!HeartWake.wait_for(
        guard, std::chrono::duration<double>(Options.heartbeatSeconds),
        [&] { return Stopping; })) {
      std::vector<std::shared_ptr<RankLink>> links;
      {
        std::lock_guard<std::mutex> linksGuard(LinksLock);
        links = Links;
      }
      for (auto &link : links)
        link->beat();
    }
  }

  /// Why `hello` may not join; empty when it may.
  std::string refusal(const JsonReader &hello, const HostWorkers &self,
                      std::set<std::pair<std::string, int>> &taken) {
    if (hello.has("error"))
      return "it could not set up its GPUs: " +
             hello.optionalString("error").value_or("?");
    auto field = [&](const char *name) {
      return hello.optionalString(name).value_or("");
    };
    if (field("inputs") != self.inputsSha256)
      return "its template, manifest or spec (or recording) differ from "
             "rank 0's: every rank must read the same files";
    if (field("device") != self.device || field("arch") != self.arch)
      return "its GPUs are " + field("device") + " (" + field("arch") +
             "), rank 0's " + self.device + " (" + self.arch +
             "): different models are tuned as separate devices";
    std::vector<int> gpus = gpusOf(hello);
    if (gpus.empty())
      return "it has no GPU";
    if (!self.virtualDevices)
      for (int gpu : gpus)
        if (taken.count({field("host"), gpu}))
          return "GPU " + std::to_string(gpu) + " of " + field("host") +
                 " is another rank's: start one rank per host";
    for (int gpu : gpus)
      taken.insert({field("host"), gpu});
    return "";
  }
};

Coordinator::Coordinator(std::unique_ptr<Impl> impl) : I(std::move(impl)) {}

Coordinator::~Coordinator() { finish(); }

Expected<std::unique_ptr<Coordinator>>
Coordinator::listen(const ClusterOptions &options, Log log) {
  auto impl = std::make_unique<Impl>();
  impl->Options = options;
  impl->Report = std::move(log);
  std::random_device random;
  for (int i = 0; i < 4; ++i) {
    char word[9];
    std::snprintf(word, sizeof word, "%08x", random());
    impl->Token += word;
  }
  KTUNE_TRY_ASSIGN(impl->Listening, Listener::open());
  impl->Heart = std::thread([i = impl.get()] { i->beatUntilStopped(); });
  return std::unique_ptr<Coordinator>(new Coordinator(std::move(impl)));
}

Invitation Coordinator::invitation() const {
  Invitation out;
  for (const auto &ip : hostAddresses())
    out.addresses.push_back(ip + ":" + std::to_string(I->Listening->port()));
  out.token = I->Token;
  return out;
}

Expected<ExtraWorkers> Coordinator::join(int ranks, const HostWorkers &self) {
  ExtraWorkers out;
  std::set<std::pair<std::string, int>> taken;
  for (int gpu : self.gpus)
    taken.insert({hostName(), gpu});
  std::set<int> answered;
  auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(I->Options.joinSeconds));
  while (static_cast<int>(answered.size()) < ranks && Clock::now() < deadline) {
    double left =
        std::chrono::duration<double>(deadline - Clock::now()).count();
    KTUNE_TRY_ASSIGN(auto conn, I->Listening->accept(left));
    if (!conn)
      break;
    auto message = conn->receive(std::max(1.0, left));
    if (!message || !*message)
      continue; // not a rank, or gone before it said hello
    const json hello = std::move(**message);
    JsonReader reader(hello);
    int rank =
        static_cast<int>(reader.optionalInteger("rank", -1).value_or(-1));
    std::string host = reader.optionalString("host").value_or("?");
    if (reader.optionalString("type").value_or("") != "hello" ||
        reader.optionalString("token").value_or("") != I->Token || rank < 1 ||
        rank > ranks || answered.count(rank))
      continue; // not one of this run's ranks
    answered.insert(rank);
    std::string why = I->refusal(reader, self, taken);
    if (!why.empty()) {
      (void)conn->send({{"type", "refused"}, {"reason", why}});
      I->Report(rankName(rank, host) + " left out: " + why);
      I->NeverJoined.push_back({rank, host, why, false});
      continue;
    }
    if (auto sent = conn->send({{"type", "welcome"}}); !sent)
      continue;
    I->Report(rankName(rank, host) + " joined with " +
              std::to_string(gpusOf(reader).size()) + " GPU(s)");
    I->admit(rank, host, std::move(conn), reader, self, out);
  }
  for (int rank = 1; rank <= ranks; ++rank)
    if (!answered.count(rank)) {
      std::string why =
          "did not join within " +
          std::to_string(static_cast<int>(I->Options.joinSeconds)) + " s";
      I->Report(rankName(rank, "?") + " " + why + ": tuning without it");
      I->NeverJoined.push_back({rank, "?", why, true});
    }
  return out;
}

void Coordinator::finish(bool together) {
  {
    std::lock_guard<std::mutex> guard(I->HeartLock);
    if (I->Stopping)
      return;
    I->Stopping = true;
  }
  I->HeartWake.notify_all();
  if (I->Heart.joinable())
    I->Heart.join();
  for (auto &link : I->Links)
    link->finish(together);
  for (auto &reader : I->Readers)
    reader.join();
  I->Listening.reset(); // ranks still waiting to join hear it closed
}

std::vector<LostRank> Coordinator::lost() const {
  std::vector<LostRank> out = I->NeverJoined;
  std::lock_guard<std::mutex> guard(I->LinksLock);
  for (const auto &link : I->Links)
    if (auto why = link->why())
      out.push_back(*why);
  return out;
}

} // namespace ktune::cluster
