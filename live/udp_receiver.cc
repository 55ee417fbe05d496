#include "live/udp_receiver.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace cookgraph {
namespace {

constexpr size_t kMaxDatagram = 65536;
constexpr int kPollMs = 20;  // how soon Stop() is noticed

Error UrlError(std::string_view url, const std::string& message) {
  return Error{.where = "--listen",
               .message = message + ": '" + std::string(url.substr(0, 200)) +
                          "' (expected udp://HOST:PORT, e.g. udp://127.0.0.1:9000)"};
}

}  // namespace

Result<ListenAddress> ParseListenUrl(std::string_view url) {
  constexpr std::string_view kScheme = "udp://";
  if (!url.starts_with(kScheme)) {
    return UrlError(url, url.find("://") != std::string_view::npos ? "only udp:// is supported"
                                                                   : "not a udp:// URL");
  }
  std::string_view rest = url.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  ListenAddress address{.url = std::string(url)};
  size_t colon;
  if (rest.starts_with("[")) {  // [IPv6]:PORT
    size_t close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return UrlError(url, "an IPv6 host is written [ADDRESS]:PORT");
    }
    address.host = std::string(rest.substr(1, close - 1));
    colon = close + 1;
  } else {
    colon = rest.rfind(':');
    if (colon == std::string_view::npos) return UrlError(url, "no port");
    address.host = std::string(rest.substr(0, colon));
  }
  if (address.host.empty()) return UrlError(url, "no host (0.0.0.0 listens on every interface)");
  std::string_view port = rest.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return UrlError(url, "the port must be a number from 0 to 65535");
  }
  address.port = static_cast<uint16_t>(value);
  return address;
}

Result<std::unique_ptr<UdpReceiver>> UdpReceiver::Open(const ListenAddress& address,
                                                       int receive_buffer) {
  auto fail = [&](const std::string& message) {
    return Error{.file = address.url, .message = message};
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  if (int rc = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return fail("cannot resolve the host '" + address.host + "': " + gai_strerror(rc));
  }
  std::unique_ptr<UdpReceiver> receiver(new UdpReceiver());
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    // Root may go past net.core.rmem_max (SO_RCVBUFFORCE); others get at most that.
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &receive_buffer, sizeof receive_buffer) != 0) {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
      const int err = errno;
      last_error = err == EADDRINUSE ? "port " + port +
                                           " is in use (another program, or another cookgraph "
                                           "watch, listens on it): pick another port"
                   : err == EADDRNOTAVAIL
                       ? "'" + address.host + "' is not an address of this machine"
                       : std::string("cannot listen: ") + std::strerror(err);
      close(fd);
      continue;
    }
    receiver->fd_ = fd;
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    receiver->port_ =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    int granted = 0;
    socklen_t size = sizeof granted;
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &size);
    receiver->receive_buffer_ = granted;
    break;
  }
  freeaddrinfo(found);
  if (receiver->fd_ < 0) return fail(last_error);
  return receiver;
}

UdpReceiver::~UdpReceiver() {
  Stop();
  if (fd_ >= 0) close(fd_);
}

void UdpReceiver::Start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
}

void UdpReceiver::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void UdpReceiver::Take(std::vector<std::string>& out) {
  out.clear();
  std::lock_guard lock(mutex_);
  out.swap(pending_);
}

// Reads every datagram the socket holds now; false on an error that ends reading.
bool UdpReceiver::ReadAvailable(std::vector<std::string>& batch) {
  static thread_local char buffer[kMaxDatagram];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(uint32_t))];
  for (;;) {
    iovec iov{buffer, sizeof buffer};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(fd_, &message, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
        uint32_t dropped = 0;  // the socket's running count
        std::memcpy(&dropped, CMSG_DATA(c), sizeof dropped);
        kernel_drops_.store(dropped);
      }
    }
    if (message.msg_flags & MSG_TRUNC) {
      truncated_.fetch_add(1);
      continue;
    }
    batch.emplace_back(buffer, static_cast<size_t>(n));
  }
}

void UdpReceiver::Run() {
  std::vector<std::string> batch;
  for (;;) {
    const bool stopping = stop_.load();
    pollfd p{fd_, POLLIN, 0};
    if (!stopping) poll(&p, 1, kPollMs);
    const bool ok = ReadAvailable(batch);
    if (!batch.empty()) {
      std::lock_guard lock(mutex_);
      if (pending_.empty()) {
        pending_.swap(batch);
      } else {
        for (std::string& d : batch) pending_.push_back(std::move(d));
      }
      batch.clear();
    }
    if (stopping || !ok) return;  // a final read after Stop() drained the socket
  }
}

}  // namespace cookgraph
