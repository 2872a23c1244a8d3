// The two rendezvous stores: values, counters, waits and their timeouts.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "ember/distributed/error.h"
#include "ember/distributed/file_store.h"
#include "ember/distributed/tcp_store.h"
#include "support/expect.h"
#include "support/held_port.h"

namespace ember {
namespace {

using namespace distributed;

// The behaviour both stores share, on a server/first client and a second client.
void exercise(Store& a, Store& b) {
  a.set("k", std::string("v\0w", 3));
  EXPECT_EQ(b.get("k"), std::string("v\0w", 3));
  b.set("k", "");  // replaced, and empty values are values
  EXPECT_EQ(a.get("k"), "");
  EXPECT_TRUE(a.check({"k"}));
  EXPECT_FALSE(a.check({"k", "missing"}));
  EXPECT_EQ(a.add("n", 5), 5);
  EXPECT_EQ(b.add("n", -2), 3);
  EXPECT_EQ(a.get("n"), "3");
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    b.set("late", "x");
  });
  a.wait({"late"}, Milliseconds(5000));
  later.join();
  EXPECT_EQ(a.get("late"), "x");
  testing::expect_error<StoreError>([&] { a.wait({"late", "never"}, Milliseconds(100)); },
                                    {"timed out after 100 ms", "'never'"});
  std::string big(3 << 20, 'z');
  a.set("big", big);
  EXPECT_EQ(b.get("big"), big);
}

TEST(StoreTest, TCPStoreServesItsClients) {
  TCPStore server("127.0.0.1", 0, true, Milliseconds(5000));
  ASSERT_GT(server.port(), 0);
  TCPStore client("127.0.0.1", server.port(), false, Milliseconds(5000));
  exercise(server, client);
  PrefixStore p1("one", std::make_shared<TCPStore>("127.0.0.1", server.port(), false));
  PrefixStore p2("two", std::make_shared<TCPStore>("127.0.0.1", server.port(), false));
  p1.set("k", "1");
  EXPECT_FALSE(p2.check({"k"}));
  EXPECT_EQ(client.get("one/k"), "1");
}

TEST(StoreTest, TCPStoreClientGivesUpWhenNoServerComes) {
  // A port held unserved for the whole test (one just freed could be taken by a concurrent test's store).
  testing::HeldPort nothing_listens;
  int port = nothing_listens.port();
  testing::expect_error<DistributedError>(
      [&] { TCPStore("127.0.0.1", port, false, Milliseconds(200)); },
      {"TCPStore", "cannot connect to 127.0.0.1:" + std::to_string(port), "within 200 ms"});
}

TEST(StoreTest, TCPStoreClientRaisesWhenTheServerGoesAway) {
  auto server = std::make_unique<TCPStore>("127.0.0.1", 0, true, Milliseconds(2000));
  TCPStore client("127.0.0.1", server->port(), false, Milliseconds(2000));
  client.set("a", "b");
  server.reset();
  testing::expect_error<StoreError>([&] { client.set("a", "c"); }, {"TCPStore: lost the store", "during set of 'a'"});
}

TEST(StoreTest, KeyNeverSetIsNamedWithTheTimeout) {
  TCPStore server("127.0.0.1", 0, true, Milliseconds(300));
  TCPStore client("127.0.0.1", server.port(), false, Milliseconds(300));
  auto t0 = std::chrono::steady_clock::now();
  testing::expect_error<StoreError>([&] { client.get("job/never"); },
                                    {"Store: timed out after 300 ms waiting for 'job/never' to be set"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  PrefixStore prefixed("job", std::make_shared<TCPStore>("127.0.0.1", server.port(), false, Milliseconds(300)));
  testing::expect_error<StoreError>([&] { prefixed.wait({"ready", "never"}, Milliseconds(100)); },
                                    {"timed out after 100 ms", "'ready', 'never'"});
}

TEST(StoreTest, StoreThatNeverAnswersIsNamedWithTheKeyAndTheTimeout) {
  // A server that accepts (the kernel completes the connection) and never answers, as a stopped
  // rank 0 does.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const int port = ntohs(a.sin_port);
  TCPStore client("127.0.0.1", port, false, Milliseconds(300));
  auto t0 = std::chrono::steady_clock::now();
  testing::expect_error<StoreError>(
      [&] { client.get("default_pg/1"); },
      {"TCPStore: no answer from the store at 127.0.0.1:" + std::to_string(port), "check of 'default_pg/1'",
       "within 300 ms", "stopped or hung"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  ::close(fd);
}

TEST(StoreTest, FileStoreSharesADirectory) {
  auto dir = std::filesystem::temp_directory_path() / ("ember_file_store_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    FileStore a(dir.string(), Milliseconds(5000)), b(dir.string(), Milliseconds(5000));
    exercise(a, b);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ember
