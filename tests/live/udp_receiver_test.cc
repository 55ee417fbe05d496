// Listening: the --listen URL, a port in use, and every datagram received in order.

#include "live/udp_receiver.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace cookgraph {
namespace {

TEST(ListenUrl, HostAndPort) {
  auto a = ParseListenUrl("udp://127.0.0.1:9000");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9000);
  auto b = ParseListenUrl("udp://[::1]:0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 0);
}

TEST(ListenUrl, BadUrlsSayWhatIsExpected) {
  const std::pair<const char*, const char*> cases[] = {
      {"tcp://127.0.0.1:9000",
       "--listen: only udp:// is supported: 'tcp://127.0.0.1:9000' "
       "(expected udp://HOST:PORT, e.g. udp://127.0.0.1:9000)"},
      {"127.0.0.1:9000",
       "--listen: not a udp:// URL: '127.0.0.1:9000' (expected "
       "udp://HOST:PORT, e.g. udp://127.0.0.1:9000)"},
      {"udp://127.0.0.1",
       "--listen: no port: 'udp://127.0.0.1' (expected udp://HOST:PORT, "
       "e.g. udp://127.0.0.1:9000)"},
      {"udp://127.0.0.1:70000",
       "--listen: the port must be a number from 0 to 65535: "
       "'udp://127.0.0.1:70000' (expected udp://HOST:PORT, e.g. "
       "udp://127.0.0.1:9000)"},
      {"udp://:9000",
       "--listen: no host (0.0.0.0 listens on every interface): 'udp://:9000' "
       "(expected udp://HOST:PORT, e.g. udp://127.0.0.1:9000)"},
  };
  for (const auto& [url, message] : cases) {
    auto a = ParseListenUrl(url);
    ASSERT_FALSE(a) << url;
    EXPECT_EQ(a.error().Format(), message);
  }
}

TEST(UdpReceiver, APortInUseIsOneLineNamingIt) {
  auto first = UdpReceiver::Open(*ParseListenUrl("udp://127.0.0.1:0"));
  ASSERT_TRUE(first);
  const std::string url = "udp://127.0.0.1:" + std::to_string((*first)->port());
  auto second = UdpReceiver::Open(*ParseListenUrl(url));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().Format(),
            url + ": port " + std::to_string((*first)->port()) +
                " is in use (another program, or another cookgraph watch, listens on it): pick "
                "another port");
  auto foreign = UdpReceiver::Open(*ParseListenUrl("udp://192.0.2.1:0"));
  ASSERT_FALSE(foreign);
  EXPECT_EQ(foreign.error().Format(),
            "udp://192.0.2.1:0: '192.0.2.1' is not an address of this machine");
}

TEST(UdpReceiver, EveryDatagramArrivesInOrder) {
  auto opened = UdpReceiver::Open(*ParseListenUrl("udp://127.0.0.1:0"));
  ASSERT_TRUE(opened);
  UdpReceiver& receiver = **opened;
  // Root forces the whole buffer (the kernel reports twice the size asked for);
  // others get what net.core.rmem_max allows.
  if (geteuid() == 0) {
    EXPECT_GE(receiver.receive_buffer(), kDefaultReceiveBuffer);
  }
  EXPECT_GT(receiver.receive_buffer(), 0);
  receiver.Start();
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(receiver.port());
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  constexpr int kCount = 5000;
  for (int i = 0; i < kCount; ++i) {
    std::string d = "datagram " + std::to_string(i);
    ASSERT_EQ(sendto(fd, d.data(), d.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
              static_cast<ssize_t>(d.size()));
  }
  close(fd);
  std::vector<std::string> all, batch;
  for (int tries = 0; tries < 200 && all.size() < kCount; ++tries) {
    receiver.Take(batch);
    all.insert(all.end(), batch.begin(), batch.end());
    if (all.size() < kCount) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  receiver.Stop();
  receiver.Take(batch);
  all.insert(all.end(), batch.begin(), batch.end());
  ASSERT_EQ(all.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i) EXPECT_EQ(all[i], "datagram " + std::to_string(i));
  EXPECT_EQ(receiver.kernel_drops(), 0u);
}

}  // namespace
}  // namespace cookgraph
