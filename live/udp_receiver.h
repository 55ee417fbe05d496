#ifndef COOKGRAPH_LIVE_UDP_RECEIVER_H_
#define COOKGRAPH_LIVE_UDP_RECEIVER_H_

// Receiving live datagrams without losing any: a socket with a large receive
// buffer and a thread that does nothing but move datagrams from the socket
// into memory, so that drawing, analysis or a slow terminal never keep the
// socket from being read. Decoding happens on the caller's thread.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/error.h"

namespace cookgraph {

/// Where to listen: udp://HOST:PORT, HOST an IPv4 or [IPv6] literal or a name
/// ("localhost"); PORT 0 picks a free port.
struct ListenAddress {
  std::string host;
  uint16_t port = 0;
  std::string url;  // as given
};

/// Parses `url`; the error names the URL and says what is expected.
Result<ListenAddress> ParseListenUrl(std::string_view url);

/// Receive buffer asked for (bytes). The kernel charges each datagram its
/// buffer overhead too (about 1-2 KiB for a small one), so this holds tens of
/// thousands of datagrams: about a minute of small frames at 600 frames/s.
inline constexpr int kDefaultReceiveBuffer = 32 << 20;

class UdpReceiver {
 public:
  ~UdpReceiver();
  UdpReceiver(const UdpReceiver&) = delete;
  UdpReceiver& operator=(const UdpReceiver&) = delete;

  /// Binds the socket (not yet reading). Errors name the URL: a port in use,
  /// a host that is not this machine's.
  static Result<std::unique_ptr<UdpReceiver>> Open(const ListenAddress& address,
                                                   int receive_buffer = kDefaultReceiveBuffer);

  uint16_t port() const { return port_; }                 // the bound port (PORT 0 resolved)
  int receive_buffer() const { return receive_buffer_; }  // bytes the kernel granted

  /// Starts the receiving thread.
  void Start();
  /// Reads what the socket still holds, then stops the thread. Idempotent.
  void Stop();

  /// Moves the datagrams received since the last call into `out` (replacing
  /// its contents), in arrival order.
  void Take(std::vector<std::string>& out);

  /// Datagrams the kernel dropped because the buffer was full (SO_RXQ_OVFL).
  uint64_t kernel_drops() const { return kernel_drops_.load(); }
  /// Datagrams longer than 65,535 bytes, cut by the kernel (not decodable).
  uint64_t truncated() const { return truncated_.load(); }

 private:
  UdpReceiver() = default;
  void Run();
  bool ReadAvailable(std::vector<std::string>& batch);

  int fd_ = -1;
  uint16_t port_ = 0;
  int receive_buffer_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::string> pending_;  // guarded by mutex_
  std::atomic<uint64_t> kernel_drops_{0}, truncated_{0};
};

}  // namespace cookgraph

#endif  // COOKGRAPH_LIVE_UDP_RECEIVER_H_
