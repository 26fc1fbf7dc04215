#include "ktune/Cuda/WorkerClient.h"
#include "ktune/Support/Try.h"

namespace ktune {

using nlohmann::json;

Expected<std::unique_ptr<WorkerClient>>
WorkerClient::start(const Settings &settings) {
  std::unique_ptr<WorkerClient> c(new WorkerClient());
  c->Config = settings;
  std::string program = settings.executable;
  std::vector<std::string> args;
  if (!settings.wrapper.empty()) {
    program = settings.wrapper.front();
    args.assign(settings.wrapper.begin() + 1, settings.wrapper.end());
    args.push_back(settings.executable);
  }
  auto process = WorkerProcess::start(program, args, settings.stderrPath,
                                      settings.environment);
  if (!process)
    return std::unexpected(process.error());
  c->Process = std::move(*process);
  // Driver initialisation can take seconds on a cold machine.
  auto hello =
      c->call(json{{"op", "hello"}}, std::max(60.0, settings.watchdogSeconds));
  if (!hello)
    return makeError("the worker (" + settings.executable +
                     ") did not start: " + hello.error().message);
  try {
    if (hello->at("protocol").get<int>() != protocol::Version)
      return makeError("the worker speaks protocol " +
                       hello->at("protocol").dump() + ", this tuner " +
                       std::to_string(protocol::Version) +
                       ": ktune-worker is from another build");
    c->Devices = hello->at("devices").get<int>();
    if (c->Devices > 0) {
      KTUNE_TRY_ASSIGN(auto limits, deviceLimitsFromJson(hello->at("limits")));
      c->Limits = limits;
    }
  } catch (const json::exception &e) {
    return makeError(std::string("malformed hello from the worker: ") +
                     e.what());
  }
  return c;
}

void WorkerClient::kill() {
  if (Process)
    Process->kill();
}

WorkerResult<json> WorkerClient::call(const json &request,
                                      double timeoutSeconds) {
  if (!alive())
    return std::unexpected(
        WorkerFailure{false, true, "the worker is not running"});
  auto outcome = Process->request(request, timeoutSeconds);
  using Kind = WorkerProcess::Outcome::Kind;
  if (outcome.kind == Kind::Timeout)
    return std::unexpected(WorkerFailure{true, true, outcome.detail});
  if (outcome.kind == Kind::Died)
    return std::unexpected(WorkerFailure{false, true, outcome.detail});
  const json &r = outcome.reply;
  if (!r.is_object() || !r.contains("ok")) {
    Process->kill();
    return std::unexpected(
        WorkerFailure{false, true, "the worker sent a reply without 'ok'"});
  }
  if (!r.at("ok").get<bool>()) {
    bool fatal = r.value("fatal", false);
    std::string message = r.value("error", std::string("unknown worker error"));
    if (fatal) {
      Process->kill(); // it exits by itself; make sure and reap it
      message += " (the CUDA context is lost; the worker restarts)";
    }
    return std::unexpected(WorkerFailure{false, fatal, message});
  }
  return r;
}

WorkerResult<int64_t>
WorkerClient::setup(const json &helpers,
                    const std::vector<protocol::BufferSpec> &buffers) {
  json req = helpers;
  req["op"] = "setup";
  req["buffers"] = json::array();
  for (const auto &b : buffers)
    req["buffers"].push_back(protocol::toJson(b));
  KTUNE_TRY_ASSIGN(auto r, call(req, 3 * Config.watchdogSeconds + 60));
  return r.value("bytes", int64_t(0));
}

WorkerResult<LoadedKernel> WorkerClient::load(const std::string &image,
                                              const std::string &function) {
  KTUNE_TRY_ASSIGN(
      auto r,
      call(json{{"op", "load"}, {"image", image}, {"function", function}},
           Config.watchdogSeconds + 30));
  try {
    LoadedKernel k;
    k.handle = r.at("handle").get<int>();
    r.at("attributes").get_to<protocol::FunctionAttributes>(k);
    return k;
  } catch (const json::exception &e) {
    return std::unexpected(WorkerFailure{
        false, false, std::string("malformed load reply: ") + e.what()});
  }
}

WorkerResult<void> WorkerClient::unloadAll() {
  KTUNE_TRY(call(json{{"op", "unload_all"}}, Config.watchdogSeconds + 30));
  return {};
}

WorkerResult<void> WorkerClient::profile(int handle,
                                         const protocol::Launch &launch) {
  // A profiler replays the launch once per pass of counters.
  KTUNE_TRY(call(json{{"op", "profile"},
                      {"handle", handle},
                      {"launch", protocol::toJson(launch)}},
                 10 * Config.watchdogSeconds + 60));
  return {};
}

ExitStatus WorkerClient::quit(double graceSeconds) {
  if (!Process)
    return {};
  return Process->finish(json{{"op", "quit"}}, graceSeconds);
}

WorkerResult<RunReply> WorkerClient::run(int handle,
                                         const protocol::Launch &launch,
                                         int poison, bool makeReference) {
  KTUNE_TRY_ASSIGN(auto r, call(json{{"op", "run"},
                                     {"handle", handle},
                                     {"launch", protocol::toJson(launch)},
                                     {"poison", poison},
                                     {"reference", makeReference}},
                                Config.watchdogSeconds + 5));
  RunReply reply;
  try {
    reply.result.milliseconds = r.at("ms").get<double>();
    reply.blocksPerSM = r.at("blocks_per_sm").get<int>();
    for (const auto &c : r.at("checks")) {
      auto check = protocol::bufferCheckFromJson(c);
      if (!check)
        return std::unexpected(
            WorkerFailure{false, false, check.error().str()});
      reply.result.checks.push_back(*check);
    }
  } catch (const json::exception &e) {
    return std::unexpected(WorkerFailure{
        false, false, std::string("malformed run reply: ") + e.what()});
  }
  return reply;
}

WorkerResult<protocol::TimeResult>
WorkerClient::time(int handle, const protocol::Launch &launch,
                   const protocol::TimeOptions &options) {
  // Warm-up, the estimate and graph capture come on top of the timing cap.
  double deadline = Config.watchdogSeconds + 3 * options.rule.maxSeconds + 10;
  KTUNE_TRY_ASSIGN(auto r, call(json{{"op", "time"},
                                     {"handle", handle},
                                     {"launch", protocol::toJson(launch)},
                                     {"options", protocol::toJson(options)}},
                                deadline));
  auto result = protocol::timeResultFromJson(r);
  if (!result)
    return std::unexpected(WorkerFailure{false, false, result.error().str()});
  return *result;
}

} // namespace ktune
