//===- MultiDevice.cpp - One search over several GPUs ---------------------===//

#include "ktune/Tune/MultiDevice.h"

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

namespace ktune {

Expected<std::unique_ptr<DeviceGroup>>
DeviceGroup::create(std::vector<std::unique_ptr<Evaluator>> workers,
                    std::vector<int> gpus) {
  if (workers.empty())
    return makeError("a device group needs at least one worker");
  if (gpus.size() != workers.size())
    return makeError("one GPU per worker is needed");
  for (size_t i = 1; i < workers.size(); ++i)
    if (workers[i]->device() != workers[0]->device() ||
        workers[i]->arch() != workers[0]->arch())
      return makeError("GPU " + std::to_string(gpus[i]) + " is a " +
                       workers[i]->device() + ", GPU " +
                       std::to_string(gpus[0]) + " a " + workers[0]->device() +
                       ": different models are tuned as separate devices");
  std::unique_ptr<DeviceGroup> group(new DeviceGroup());
  group->Workers = std::move(workers);
  group->Gpus = std::move(gpus);
  for (int gpu : group->Gpus)
    group->Activity.push_back(WorkerActivity{gpu, 0, 0, false});
  return group;
}

EvalResult DeviceGroup::runOn(size_t worker, const Shape &shape,
                              const Configuration &config) {
  {
    std::lock_guard<std::mutex> guard(Lock);
    Activity[worker].busy = true;
  }
  auto begin = std::chrono::steady_clock::now();
  EvalResult r = Workers[worker]->evaluate(shape, config);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  r.gpu = Gpus[worker];
  std::lock_guard<std::mutex> guard(Lock);
  Activity[worker].busy = false;
  Activity[worker].evaluations++;
  Activity[worker].busySeconds += seconds;
  return r;
}

EvalResult DeviceGroup::evaluate(const Shape &shape,
                                 const Configuration &config) {
  return runOn(0, shape, config);
}

std::vector<EvalResult>
DeviceGroup::retime(const Shape &shape,
                    const std::vector<Configuration> &configs) {
  // Finalists are compared on one GPU: interleaved, same conditions.
  auto begin = std::chrono::steady_clock::now();
  auto out = Workers[0]->retime(shape, configs);
  for (auto &r : out)
    r.gpu = Gpus[0];
  std::lock_guard<std::mutex> guard(Lock);
  Activity[0].evaluations += out.size();
  Activity[0].busySeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  return out;
}

void DeviceGroup::evaluateBatch(const Shape &shape,
                                const std::vector<Configuration> &configs,
                                const BatchDone &done) {
  // Worker w takes configurations w, w + N, ... in turn: one at a time per
  // GPU. Results are handed on under a lock, as each finishes.
  std::mutex doneLock;
  auto serve = [&](size_t w) {
    for (size_t i = w; i < configs.size(); i += Workers.size()) {
      EvalResult r = runOn(w, shape, configs[i]);
      std::lock_guard<std::mutex> guard(doneLock);
      done(i, std::move(r));
    }
  };
  size_t used = std::min(Workers.size(), configs.size());
  std::vector<std::thread> threads;
  for (size_t w = 1; w < used; ++w)
    threads.emplace_back(serve, w);
  if (used > 0)
    serve(0);
  for (auto &t : threads)
    t.join();
}

std::vector<WorkerActivity> DeviceGroup::activity() const {
  std::lock_guard<std::mutex> guard(Lock);
  return Activity;
}

std::string formatGpuActivity(const std::vector<WorkerActivity> &activity,
                              double wallSeconds) {
  std::string out;
  double busy = 0;
  char line[160];
  for (const auto &a : activity) {
    std::snprintf(
        line, sizeof line, "GPU %d: %llu evaluation(s), busy %.1f s\n", a.gpu,
        static_cast<unsigned long long>(a.evaluations), a.busySeconds);
    out += line;
    busy += a.busySeconds;
  }
  if (wallSeconds > 0) {
    std::snprintf(line, sizeof line,
                  "%zu workers: %.2fx the wall-clock speed of one GPU "
                  "(busy %.1f s in %.1f s)\n",
                  activity.size(), busy / wallSeconds, busy, wallSeconds);
    out += line;
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
