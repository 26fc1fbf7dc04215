//===- MultiDevice.cpp - One search over several GPUs ---------------------===//

#include "ktune/Tune/MultiDevice.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <set>
#include <sstream>
#include <thread>

namespace ktune {

Expected<std::unique_ptr<DeviceGroup>>
DeviceGroup::create(std::vector<std::unique_ptr<Evaluator>> workers,
                    std::vector<int> gpus, std::vector<int> ranks) {
  if (workers.empty())
    return makeError("a device group needs at least one worker");
  if (gpus.size() != workers.size())
    return makeError("one GPU per worker is needed");
  if (!ranks.empty() && ranks.size() != workers.size())
    return makeError("one rank per worker is needed");
  std::unique_ptr<DeviceGroup> group(new DeviceGroup());
  for (size_t i = 0; i < workers.size(); ++i) {
    WorkerActivity a;
    a.gpu = gpus[i];
    a.rank = ranks.empty() ? -1 : ranks[i];
    if (i > 0 && (workers[i]->device() != workers[0]->device() ||
                  workers[i]->arch() != workers[0]->arch()))
      return makeError(workerLabel(a) + " is a " + workers[i]->device() + ", " +
                       workerLabel(group->Activity[0]) + " a " +
                       workers[0]->device() +
                       ": different models are tuned as separate devices");
    group->Activity.push_back(a);
  }
  group->Workers = std::move(workers);
  group->Gpus = std::move(gpus);
  return group;
}

void DeviceGroup::startTask(size_t w) {
  std::lock_guard<std::mutex> guard(Lock);
  Activity[w].busy = true;
}

void DeviceGroup::finishTask(size_t w,
                             std::chrono::steady_clock::time_point begin,
                             size_t evaluations, const std::string &reason) {
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  std::function<void(const WorkerActivity &)> report;
  WorkerActivity lost;
  {
    std::lock_guard<std::mutex> guard(Lock);
    WorkerActivity &a = Activity[w];
    a.busy = false;
    a.busySeconds += seconds;
    if (!Workers[w]->lost()) {
      a.evaluations += evaluations;
      return;
    }
    // Not a measurement: the task goes back to the others.
    a.requeued++;
    if (!a.lost) {
      a.lost = true;
      a.lostReason = reason;
      report = OnLost;
      lost = a;
    }
  }
  if (report)
    report(lost);
}

EvalResult DeviceGroup::runOn(size_t worker, const Shape &shape,
                              const Configuration &config) {
  startTask(worker);
  auto begin = std::chrono::steady_clock::now();
  EvalResult r = Workers[worker]->evaluate(shape, config);
  r.gpu = Gpus[worker];
  r.rank = Activity[worker].rank;
  finishTask(worker, begin, 1, r.reason);
  return r;
}

void DeviceGroup::onWorkers(size_t most, bool thisHostOnly,
                            const std::function<void(size_t)> &serve) {
  std::optional<size_t> aside;
  {
    std::lock_guard<std::mutex> guard(Lock);
    aside = Side.worker;
  }
  std::vector<size_t> live;
  for (size_t w = 0; w < Workers.size() && live.size() < most; ++w)
    if (!Workers[w]->lost() && (!thisHostOnly || Activity[w].rank <= 0) &&
        aside != w)
      live.push_back(w);
  std::vector<std::thread> threads;
  for (size_t k = 1; k < live.size(); ++k)
    threads.emplace_back(serve, live[k]);
  if (!live.empty())
    serve(live[0]);
  for (auto &t : threads)
    t.join();
}

std::optional<size_t> DeviceGroup::firstLive() const {
  std::optional<size_t> aside;
  {
    std::lock_guard<std::mutex> guard(Lock);
    aside = Side.worker;
  }
  for (size_t w = 0; w < Workers.size(); ++w)
    if (!Workers[w]->lost() && aside != w)
      return w;
  return std::nullopt;
}

namespace {
/// The costliest job not started yet.
std::optional<size_t>
costliestLeft(const std::vector<Evaluator::RetimeJob> &jobs,
              const std::vector<bool> &started) {
  std::optional<size_t> best;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!started[i] && (!best || jobs[i].cost > jobs[*best].cost))
      best = i;
  return best;
}
} // namespace

bool DeviceGroup::retimeAside(const RetimeJob &job) {
  {
    std::lock_guard<std::mutex> guard(Lock);
    size_t local = 0;
    for (size_t w = 0; w < Workers.size(); ++w)
      local += !Workers[w]->lost() && Activity[w].rank <= 0;
    if (Side.closed || local < 2)
      return false;
    Side.queue.jobs.push_back(job);
    Side.queue.results.emplace_back();
    Side.queue.started.push_back(false);
  }
  startAside();
  return true;
}

void DeviceGroup::startAside() {
  std::thread finished;
  {
    std::lock_guard<std::mutex> guard(Lock);
    if (Side.worker || Side.closed ||
        !costliestLeft(Side.queue.jobs, Side.queue.started))
      return;
    // The last live GPU of this host, never the first (it compiles for the
    // search), and only while another stays with the search.
    std::optional<size_t> pick;
    size_t live = 0;
    for (size_t w = 0; w < Workers.size(); ++w) {
      if (Workers[w]->lost())
        continue;
      ++live;
      if (w > 0 && Activity[w].rank <= 0)
        pick = w;
    }
    if (!pick || live < 2)
      return;
    Side.worker = pick;
    finished = std::move(Side.thread); // done: it gave its worker back
    Side.thread = std::thread([this, w = *pick] {
      drain(w, Side.queue);
      std::lock_guard<std::mutex> guard(Lock);
      Side.worker.reset(); // back to the search
      SideDone.notify_all();
    });
  }
  if (finished.joinable())
    finished.join();
}

void DeviceGroup::drain(size_t w, RetimeQueue &queue) {
  for (;;) {
    size_t i;
    RetimeJob job;
    {
      std::lock_guard<std::mutex> guard(Lock);
      auto next = costliestLeft(queue.jobs, queue.started);
      if (!next || Workers[w]->lost())
        return;
      i = *next;
      queue.started[i] = true;
      job = queue.jobs[i];
    }
    auto results = retimeOn(w, job.shape, job.configs);
    std::lock_guard<std::mutex> guard(Lock);
    if (Workers[w]->lost()) {
      queue.started[i] = false; // for another worker
      return;
    }
    queue.results[i] = std::move(results);
  }
}

std::vector<std::optional<std::vector<EvalResult>>>
DeviceGroup::collectAside() {
  size_t left = 0;
  {
    std::lock_guard<std::mutex> guard(Lock);
    Side.closed = true;
    for (bool s : Side.queue.started)
      left += !s;
  }
  // Every other GPU of this host joins the spared one on what is left.
  if (left > 0)
    onWorkers(left, /*thisHostOnly=*/true,
              [this](size_t w) { drain(w, Side.queue); });
  std::thread done;
  std::vector<std::optional<std::vector<EvalResult>>> out;
  {
    std::unique_lock<std::mutex> guard(Lock);
    SideDone.wait(guard, [&] { return !Side.worker.has_value(); });
    out = std::move(Side.queue.results);
    done = std::move(Side.thread);
    Side = Aside{}; // open again for another search
  }
  if (done.joinable())
    done.join();
  return out;
}

DeviceGroup::~DeviceGroup() { (void)collectAside(); }

namespace {
EvalResult allLost() {
  EvalResult r;
  r.status = EvalStatus::RuntimeError;
  r.reason = "every worker was lost";
  return r;
}
} // namespace

EvalResult DeviceGroup::evaluate(const Shape &shape,
                                 const Configuration &config) {
  while (auto w = firstLive()) {
    EvalResult r = runOn(*w, shape, config);
    if (!Workers[*w]->lost())
      return r;
  }
  return allLost();
}

std::vector<EvalResult>
DeviceGroup::retimeOn(size_t w, const Shape &shape,
                      const std::vector<Configuration> &configs) {
  startTask(w);
  auto begin = std::chrono::steady_clock::now();
  auto out = Workers[w]->retime(shape, configs);
  std::string reason;
  for (auto &r : out) {
    r.gpu = Gpus[w];
    r.rank = Activity[w].rank;
    if (r.status != EvalStatus::Ok && reason.empty())
      reason = r.reason;
  }
  finishTask(w, begin, out.size(), reason);
  return out;
}

std::vector<EvalResult>
DeviceGroup::retime(const Shape &shape,
                    const std::vector<Configuration> &configs) {
  // Finalists are compared on one GPU: interleaved, same conditions.
  auto w = firstLive();
  if (!w)
    return std::vector<EvalResult>(configs.size(), allLost());
  return retimeOn(*w, shape, configs);
}

std::vector<std::vector<EvalResult>>
DeviceGroup::retimeShapes(const std::vector<RetimeJob> &jobs) {
  // Each worker takes the costliest shape left when it is free; a lost
  // worker puts its shape back. This host's GPUs only: another rank's
  // worker times one configuration per call, which is no interleaved
  // re-timing.
  RetimeQueue queue{
      jobs, std::vector<std::optional<std::vector<EvalResult>>>(jobs.size()),
      std::vector<bool>(jobs.size(), false)};
  onWorkers(jobs.size(), /*thisHostOnly=*/true,
            [&](size_t w) { drain(w, queue); });
  // A shape whose worker was lost after the others had stopped (or with no
  // worker of this host left): once more on a live one, else lost.
  std::vector<std::vector<EvalResult>> out(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i)
    out[i] = queue.results[i] ? std::move(*queue.results[i])
             : firstLive()
                 ? retime(jobs[i].shape, jobs[i].configs)
                 : std::vector<EvalResult>(jobs[i].configs.size(), allLost());
  return out;
}

void DeviceGroup::evaluateBatch(const Shape &shape,
                                const std::vector<Configuration> &configs,
                                const BatchDone &done) {
  std::vector<const Shape *> shapes(configs.size(), &shape);
  std::vector<const Configuration *> pointers;
  for (const auto &c : configs)
    pointers.push_back(&c);
  runQueue(shapes, pointers, done);
}

void DeviceGroup::evaluateAcrossShapes(const std::vector<ShapedConfig> &tasks,
                                       const BatchDone &done) {
  std::vector<const Shape *> shapes;
  std::vector<const Configuration *> configs;
  for (const auto &t : tasks) {
    shapes.push_back(&t.shape);
    configs.push_back(&t.config);
  }
  runQueue(shapes, configs, done);
}

void DeviceGroup::runQueue(const std::vector<const Shape *> &shapes,
                           const std::vector<const Configuration *> &configs,
                           const BatchDone &done) {
  // Each worker takes the next task when it is free: one at a time per GPU,
  // and a slow host holds up nobody. It prefers the shape it last ran (no
  // new reference run). Results are handed on under a lock, as each
  // finishes. A lost worker puts its task back.
  std::mutex queueLock, doneLock;
  std::condition_variable changed;
  std::deque<size_t> queue;
  for (size_t i = 0; i < configs.size(); ++i)
    queue.push_back(i);
  size_t pending = configs.size();
  auto serve = [&](size_t w) {
    const Shape *last = nullptr;
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> guard(queueLock);
        changed.wait(guard, [&] { return !queue.empty() || pending == 0; });
        if (pending == 0)
          return;
        auto next = queue.begin();
        if (last)
          for (auto it = queue.begin(); it != queue.end(); ++it)
            if (*shapes[*it] == *last) {
              next = it;
              break;
            }
        i = *next;
        queue.erase(next);
      }
      last = shapes[i];
      EvalResult r = runOn(w, *shapes[i], *configs[i]);
      if (Workers[w]->lost()) {
        {
          std::lock_guard<std::mutex> guard(queueLock);
          queue.push_front(i);
        }
        changed.notify_all();
        return;
      }
      {
        std::lock_guard<std::mutex> guard(doneLock);
        done(i, std::move(r));
      }
      {
        std::lock_guard<std::mutex> guard(queueLock);
        --pending;
      }
      changed.notify_all();
    }
  };
  onWorkers(configs.size(), /*thisHostOnly=*/false, serve);
  // Only when every worker was lost is anything left.
  for (size_t i : queue)
    done(i, allLost());
}

std::vector<WorkerActivity> DeviceGroup::activity() const {
  std::lock_guard<std::mutex> guard(Lock);
  return Activity;
}

std::string workerLabel(const WorkerActivity &a) {
  return (a.rank >= 0 ? "rank " + std::to_string(a.rank) + " " : "") + "GPU " +
         std::to_string(a.gpu);
}

bool speedupIsMeasurable(double busySeconds, double wallSeconds) {
  // Half a second: less than one real compile-and-time, more than thousands
  // of synthetic lookups, whatever the machine's load.
  return wallSeconds > 0 && busySeconds >= 0.5 &&
         busySeconds >= 0.01 * wallSeconds;
}

std::string formatGpuActivity(const std::vector<WorkerActivity> &activity,
                              double wallSeconds) {
  std::string out;
  double busy = 0;
  char line[160];
  for (const auto &a : activity) {
    std::snprintf(line, sizeof line, ": %llu evaluation(s), busy %.1f s",
                  static_cast<unsigned long long>(a.evaluations),
                  a.busySeconds);
    out += workerLabel(a) + line;
    if (a.lost)
      out += "; lost (" + a.lostReason + "), " + std::to_string(a.requeued) +
             " configuration(s) in flight given to the others";
    out += "\n";
    busy += a.busySeconds;
  }
  if (speedupIsMeasurable(busy, wallSeconds)) {
    std::snprintf(line, sizeof line,
                  "%zu workers: %.2fx the wall-clock speed of one GPU "
                  "(busy %.1f s in %.1f s)\n",
                  activity.size(), busy / wallSeconds, busy, wallSeconds);
    out += line;
  } else if (wallSeconds > 0) {
    out += std::to_string(activity.size()) +
           " workers: evaluations took no measurable time, no speedup to "
           "report\n";
  }
  return out;
}

std::string
formatGpuActivityBrief(const std::vector<WorkerActivity> &activity) {
  std::string out = "GPUs";
  for (const auto &a : activity) {
    out += " ";
    if (a.rank >= 0)
      out += std::to_string(a.rank) + ".";
    out += std::to_string(a.gpu) + ":";
    out += a.lost ? std::string("lost")
                  : std::to_string(a.evaluations) + (a.busy ? "*" : "");
  }
  return out;
}

Expected<std::vector<int>> parseGpuList(const std::string &text,
                                        int available) {
  std::vector<int> out;
  if (text == "all") {
    for (int i = 0; i < available; ++i)
      out.push_back(i);
    if (out.empty())
      return makeError("no GPU found", "--gpus");
    return out;
  }
  std::set<int> seen;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char *end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v < 0)
      return makeError("expected \"all\" or GPU ordinals such as 0,2,3; got '" +
                           text + "'",
                       "--gpus");
    if (v >= available)
      return makeError("GPU " + item + " does not exist (" +
                           std::to_string(available) + " found)",
                       "--gpus");
    if (!seen.insert(static_cast<int>(v)).second)
      return makeError("GPU " + item + " is listed twice", "--gpus");
    out.push_back(static_cast<int>(v));
  }
  if (out.empty())
    return makeError("no GPU listed", "--gpus");
  return out;
}

} // namespace ktune
