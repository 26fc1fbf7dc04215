//===- ktune/Cluster/Wire.h - JSON messages over TCP ------------*- C++ -*-===//
//
// The work traffic of a run across hosts: JSON messages, each preceded by
// its length (4 bytes, big-endian), over one TCP connection per rank. A
// peer that dies has its socket closed by its kernel, which the other side
// sees at once; one that hangs or loses its network is found by its
// silence (heartbeats, Cluster.h).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CLUSTER_WIRE_H
#define KTUNE_CLUSTER_WIRE_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ktune::cluster {

/// The largest message either side accepts.
inline constexpr size_t MaxMessageBytes = 16u << 20;

class Connection {
public:
  /// Tries each "host:port" in turn, again and again until one answers or
  /// `timeoutSeconds` have passed.
  static Expected<std::unique_ptr<Connection>>
  connect(const std::vector<std::string> &addresses, double timeoutSeconds);
  ~Connection();
  Connection(const Connection &) = delete;
  Connection &operator=(const Connection &) = delete;

  /// Sends one message; safe to call from several threads.
  Status send(const nlohmann::json &message);
  /// The next message, or nullopt when none came within `timeoutSeconds`.
  /// An error when the peer closed the connection or sent a bad frame.
  /// One thread receives.
  Expected<std::optional<nlohmann::json>> receive(double timeoutSeconds);
  /// "10.0.0.2:41234"
  const std::string &peer() const { return Peer; }

private:
  friend class Listener;
  Connection(int fd, std::string peer);
  int Fd;
  std::string Peer;
  std::mutex SendLock;
  std::string Buffer; // bytes received, not yet a whole message
};

class Listener {
public:
  /// Listens on every IPv4 interface, on `port` (0: a free one).
  static Expected<std::unique_ptr<Listener>> open(int port = 0);
  ~Listener();
  Listener(const Listener &) = delete;
  Listener &operator=(const Listener &) = delete;

  int port() const { return Port; }
  /// The next connection, or nullptr when none came within
  /// `timeoutSeconds`.
  Expected<std::unique_ptr<Connection>> accept(double timeoutSeconds);

private:
  Listener(int fd, int port) : Fd(fd), Port(port) {}
  int Fd;
  int Port;
};

/// This host's name.
std::string hostName();
/// This host's IPv4 addresses, loopback last: where the other ranks may
/// reach a listener here.
std::vector<std::string> hostAddresses();

} // namespace ktune::cluster

#endif
