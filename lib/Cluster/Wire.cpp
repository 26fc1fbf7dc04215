//===- Wire.cpp - JSON messages over TCP ----------------------------------===//
#include "ktune/Cluster/Wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace ktune::cluster {

namespace {

using Clock = std::chrono::steady_clock;

double secondsLeft(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

int millisecondsLeft(Clock::time_point deadline) {
  return std::max(0, static_cast<int>(secondsLeft(deadline) * 1000.0));
}

std::string errnoText() { return std::strerror(errno); }

/// A send that blocks longer than this is a peer that stopped reading.
constexpr int SendTimeoutSeconds = 10;

void configure(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{SendTimeoutSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/// One attempt at `address` ("host:port"); -1 when it does not answer.
int tryConnect(const std::string &address, int timeoutMs) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos)
    return -1;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (::getaddrinfo(address.substr(0, colon).c_str(),
                    address.substr(colon + 1).c_str(), &hints, &found) != 0)
    return -1;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    ::freeaddrinfo(found);
    return -1;
  }
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof error;
    if (::poll(&p, 1, timeoutMs) == 1 &&
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0)
      rc = 0;
  }
  if (rc != 0) {
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, flags);
  configure(fd);
  return fd;
}

} // namespace

Connection::Connection(int fd, std::string peer)
    : Fd(fd), Peer(std::move(peer)) {}

Connection::~Connection() { ::close(Fd); }

Expected<std::unique_ptr<Connection>>
Connection::connect(const std::vector<std::string> &addresses,
                    double timeoutSeconds) {
  if (addresses.empty())
    return makeError("no address to connect to");
  auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeoutSeconds));
  for (;;) {
    for (const auto &address : addresses) {
      int fd =
          tryConnect(address, std::clamp(millisecondsLeft(deadline), 1, 2000));
      if (fd >= 0)
        return std::unique_ptr<Connection>(new Connection(fd, address));
    }
    if (secondsLeft(deadline) <= 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::string all;
  for (const auto &a : addresses)
    all += (all.empty() ? "" : ", ") + a;
  return makeError("no answer from " + all + " in " +
                   std::to_string(static_cast<int>(timeoutSeconds)) + " s");
}

Status Connection::send(const nlohmann::json &message) {
  std::string text = message.dump();
  if (text.size() > MaxMessageBytes)
    return makeError("message of " + std::to_string(text.size()) +
                     " bytes is over the limit");
  uint32_t size = htonl(static_cast<uint32_t>(text.size()));
  std::string frame(reinterpret_cast<const char *>(&size), 4);
  frame += text;
  std::lock_guard<std::mutex> guard(SendLock);
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t n =
        ::send(Fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return makeError("cannot send to " + Peer + ": " +
                       (errno == EAGAIN || errno == EWOULDBLOCK
                            ? std::string("it stopped reading")
                            : errnoText()));
    sent += static_cast<size_t>(n);
  }
  return {};
}

Expected<std::optional<nlohmann::json>>
Connection::receive(double timeoutSeconds) {
  auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeoutSeconds));
  for (;;) {
    if (Buffer.size() >= 4) {
      uint32_t size;
      std::memcpy(&size, Buffer.data(), 4);
      size = ntohl(size);
      if (size > MaxMessageBytes)
        return makeError(Peer + " sent a frame of " + std::to_string(size) +
                         " bytes (over the limit)");
      if (Buffer.size() >= 4 + size) {
        std::string text = Buffer.substr(4, size);
        Buffer.erase(0, 4 + size);
        auto json = nlohmann::json::parse(text, nullptr, false);
        if (json.is_discarded() || !json.is_object())
          return makeError(Peer + " sent a message that is not a JSON object");
        return json;
      }
    }
    pollfd p{Fd, POLLIN, 0};
    int ready = ::poll(&p, 1, millisecondsLeft(deadline));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      return makeError("cannot wait for " + Peer + ": " + errnoText());
    if (ready == 0)
      return std::nullopt;
    char chunk[65536];
    ssize_t n = ::recv(Fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0)
      return makeError(Peer + " closed the connection");
    if (n < 0)
      return makeError("cannot read from " + Peer + ": " + errnoText());
    Buffer.append(chunk, static_cast<size_t>(n));
  }
}

Listener::~Listener() { ::close(Fd); }

Expected<std::unique_ptr<Listener>> Listener::open(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return makeError("cannot open a socket: " + errnoText());
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
      ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    std::string why = errnoText();
    ::close(fd);
    return makeError("cannot listen on port " + std::to_string(port) + ": " +
                     why);
  }
  return std::unique_ptr<Listener>(new Listener(fd, ntohs(addr.sin_port)));
}

Expected<std::unique_ptr<Connection>> Listener::accept(double timeoutSeconds) {
  pollfd p{Fd, POLLIN, 0};
  int ready = ::poll(&p, 1, static_cast<int>(timeoutSeconds * 1000.0));
  if (ready < 0 && errno != EINTR)
    return makeError("cannot wait for connections: " + errnoText());
  if (ready <= 0)
    return nullptr;
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  int fd = ::accept(Fd, reinterpret_cast<sockaddr *>(&addr), &len);
  if (fd < 0)
    return nullptr; // gone before it was accepted: wait for the next
  configure(fd);
  char ip[INET_ADDRSTRLEN] = "?";
  ::inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
  return std::unique_ptr<Connection>(new Connection(
      fd, std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port))));
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0)
    return "?";
  return name;
}

std::vector<std::string> hostAddresses() {
  std::vector<std::string> out;
  ifaddrs *all = nullptr;
  if (::getifaddrs(&all) == 0) {
    for (ifaddrs *i = all; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
          !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
        continue;
      char ip[INET_ADDRSTRLEN];
      auto *in = reinterpret_cast<sockaddr_in *>(i->ifa_addr);
      if (::inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip))
        out.push_back(ip);
    }
    ::freeifaddrs(all);
  }
  out.push_back("127.0.0.1");
  return out;
}

} // namespace ktune::cluster
