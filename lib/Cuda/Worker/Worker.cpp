#include "ktune/Cuda/Worker.h"
#include "ktune/Support/Try.h"

#include "DeviceSession.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace ktune {
namespace worker {

using nlohmann::json;

static bool writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

static json limitsReply(const DeviceSession &s, int devices) {
  json j{{"ok", true}, {"protocol", protocol::Version}, {"devices", devices}};
  if (devices > 0)
    j["limits"] = deviceLimitsToJson(s.limits());
  int driver = 0;
  if (cuDriverGetVersion(&driver) == CUDA_SUCCESS)
    j["driver"] = driver;
  return j;
}

static WExpected<DeviceSession::Helpers> helpersFromJson(const json &j) {
  DeviceSession::Helpers h;
  h.image = j.at("helper_image").get<std::string>();
  const json &t = j.at("helpers");
  h.fill = t.at("fill").get<std::map<std::string, std::string>>();
  h.compare = t.at("compare").get<std::map<std::string, std::string>>();
  h.readPair = t.at("read_pair").get<std::map<std::string, std::string>>();
  return h;
}

/// One request -> one reply.
static WExpected<json> handle(DeviceSession &session, bool &opened,
                              const json &req) {
  const std::string op = req.at("op").get<std::string>();
  if (op == "hello") {
    KTUNE_TRY_ASSIGN(auto devices, session.open());
    opened = devices > 0;
    return limitsReply(session, devices);
  }
  if (!opened)
    return workerError("'" + op + "' before a successful hello");
  if (op == "setup") {
    KTUNE_TRY_ASSIGN(auto helpers, helpersFromJson(req));
    std::vector<protocol::BufferSpec> buffers;
    for (const auto &b : req.at("buffers")) {
      auto spec = protocol::bufferSpecFromJson(b);
      if (!spec)
        return workerError(spec.error().str());
      buffers.push_back(*spec);
    }
    auto bytes = session.setup(helpers, buffers);
    if (!bytes)
      return std::unexpected(bytes.error());
    return json{{"ok", true}, {"bytes", *bytes}};
  }
  if (op == "load") {
    FunctionAttributes a;
    KTUNE_TRY_ASSIGN(auto h,
                     session.load(req.at("image").get<std::string>(),
                                  req.at("function").get<std::string>(), a));
    return json{{"ok", true}, {"handle", h}, {"attributes", a}};
  }
  if (op == "unload_all") {
    KTUNE_TRY(session.unloadAll());
    return json{{"ok", true}};
  }
  if (op == "run" || op == "time" || op == "profile") {
    auto launch = protocol::launchFromJson(req.at("launch"));
    if (!launch)
      return workerError(launch.error().str());
    int handleId = req.at("handle").get<int>();
    if (op == "profile") {
      KTUNE_TRY(session.profile(handleId, *launch));
      return json{{"ok", true}};
    }
    if (op == "run") {
      int blocksPerSM = -1;
      KTUNE_TRY_ASSIGN(
          auto r, session.run(handleId, *launch, req.at("poison").get<int>(),
                              req.at("reference").get<bool>(), blocksPerSM));
      json checks = json::array();
      for (const auto &c : r.checks)
        checks.push_back(protocol::toJson(c));
      return json{{"ok", true},
                  {"ms", r.milliseconds},
                  {"blocks_per_sm", blocksPerSM},
                  {"checks", checks}};
    }
    auto options = protocol::timeOptionsFromJson(req.at("options"));
    if (!options)
      return workerError(options.error().str());
    KTUNE_TRY_ASSIGN(auto r, session.time(handleId, *launch, *options));
    json j = protocol::toJson(r);
    j["ok"] = true;
    return j;
  }
  return workerError("unknown op '" + op + "'");
}

int serveWorker(int inFd, int outFd) {
  FILE *in = ::fdopen(inFd, "r");
  if (!in)
    return 2;
  DeviceSession session;
  bool opened = false;
  char *line = nullptr;
  size_t capacity = 0;
  ssize_t length;
  while ((length = ::getline(&line, &capacity, in)) > 0) {
    json reply;
    bool fatal = false;
    try {
      json req = json::parse(std::string(line, static_cast<size_t>(length)));
      if (req.value("op", "") == "quit")
        break;
      auto r = handle(session, opened, req);
      if (r) {
        reply = std::move(*r);
      } else {
        fatal = r.error().fatal;
        reply =
            json{{"ok", false}, {"error", r.error().message}, {"fatal", fatal}};
      }
    } catch (const std::exception &e) {
      reply = json{{"ok", false},
                   {"error", std::string("bad request: ") + e.what()},
                   {"fatal", false}};
    }
    if (!writeAll(outFd, reply.dump() + "\n"))
      break;
    if (fatal) {
      // The context is unusable; the tuner starts a new worker. Leave
      // without running destructors that would talk to the broken context.
      ::_exit(3);
    }
  }
  std::free(line);
  return 0;
}

} // namespace worker

int runWorkerMain(int argc, char **argv) {
  (void)argc;
  (void)argv;
  // Die with the tuner, even while stuck in a kernel: a thread watches for
  // the parent to change (PR_SET_PDEATHSIG would fire when the *thread* that
  // started us ends, which need not be the tuner's end).
  const pid_t parent = ::getppid();
  std::thread([parent] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      if (::getppid() != parent)
        ::_exit(4);
    }
  }).detach();
  // Replies go to the original stdout; anything a library prints goes to
  // stderr, so it cannot corrupt the protocol.
  int protocolFd = ::dup(1);
  if (protocolFd < 0 || ::dup2(2, 1) < 0)
    return 2;
  return worker::serveWorker(0, protocolFd);
}

} // namespace ktune
