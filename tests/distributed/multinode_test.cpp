// ember-run on several "nodes": launchers started side by side on this machine, each with its own
// loopback address (127.0.0.2 serves the launchers' store and rank 0's, 127.0.0.3 is the second
// node), training dcp_worker's DDP + ZeRO model. The result equals one node's run of the same world
// size bit for bit; a rank killed on one node stops both, naming the node and the rank; restarts
// are taken together and resume exactly; a node that never joins, or whose launcher dies, is named.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "support/run_command.h"

namespace {

namespace fs = std::filesystem;
using Node = ember::testing::CommandResult;
using ember::testing::run_command;

// A free port on `host` (bound, then closed: the launcher of node 0 binds it next).
int free_port(const char* host) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, host, &a.sin_addr);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string launcher(int nnodes, int node, int nproc, int port, const std::string& flags, int join_timeout = 20) {
  const char* addr = node == 0 ? "127.0.0.2" : "127.0.0.3";
  return std::string(EMBER_RUN_PATH) + " --nnodes " + std::to_string(nnodes) + " --node-rank " + std::to_string(node) +
         " --nproc " + std::to_string(nproc) + " --master-addr 127.0.0.2 --master-port " + std::to_string(port) +
         " --local-addr " + addr + " --grace 1 --join-timeout " + std::to_string(join_timeout) + " --node-timeout 3 " +
         flags + " " + EMBER_DCP_WORKER + " ";
}

// Both nodes of a 2-node job, started together.
std::pair<Node, Node> two_nodes(int nproc, const std::string& args, const std::string& flags = "") {
  const int port = free_port("127.0.0.2");
  auto second = std::async(std::launch::async, [&] { return run_command(launcher(2, 1, nproc, port, flags) + args); });
  Node first = run_command(launcher(2, 0, nproc, port, flags) + args);
  return {first, second.get()};
}

Node one_node(int nproc, const std::string& args) {
  return run_command(std::string(EMBER_RUN_PATH) + " --nproc " + std::to_string(nproc) + " --grace 1 " +
                     EMBER_DCP_WORKER + " " + args);
}

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("ember_multinode_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p;
}

// The line "[rank<r>]: saved step <s>, model <checksum>" of `output`, or "".
std::string saved(const std::string& output, int rank, int step) {
  const std::string head = "[rank" + std::to_string(rank) + "]: saved step " + std::to_string(step) + ",";
  const size_t at = output.find(head);
  if (at == std::string::npos) return "";
  return output.substr(at + head.size(), output.find('\n', at) - at - head.size());
}

class Nodes : public ::testing::TestWithParam<int> {};

TEST_P(Nodes, TrainLikeOneNodeOfTheSameWorldSize) {
  const int nproc = GetParam();
  fs::path multi = scratch("multi" + std::to_string(nproc)), single = scratch("single" + std::to_string(nproc));
  auto [n0, n1] = two_nodes(nproc, multi.string() + " 3");
  ASSERT_EQ(n0.code, 0) << n0.output << "\n--- node 1:\n" << n1.output;
  ASSERT_EQ(n1.code, 0) << n1.output;
  Node one = one_node(2 * nproc, single.string() + " 3");
  ASSERT_EQ(one.code, 0) << one.output;
  // Node 0 runs ranks 0 .. nproc-1, node 1 the rest; the parameters match the one-node run's.
  for (int r = 0; r < 2 * nproc; ++r) {
    const Node& node = r < nproc ? n0 : n1;
    EXPECT_FALSE(saved(node.output, r, 3).empty()) << "rank " << r << " on node " << r / nproc << ":\n" << node.output;
    EXPECT_EQ(saved(node.output, r, 3), saved(one.output, r, 3)) << node.output << "\n--- one node:\n" << one.output;
  }
  fs::remove_all(multi);
  fs::remove_all(single);
}

INSTANTIATE_TEST_SUITE_P(RanksPerNode, Nodes, ::testing::Values(1, 2),
                         [](const auto& info) { return "TwoNodesOf" + std::to_string(info.param); });

TEST(MultiNode, AKilledRankStopsEveryNodeNamingNodeAndRank) {
  fs::path dir = scratch("kill");
  auto [n0, n1] = two_nodes(2, dir.string() + " 3 kill:3:mid_file 2");
  EXPECT_NE(n0.code, 0) << n0.output;
  EXPECT_NE(n1.code, 0) << n1.output;
  EXPECT_NE(n0.output.find("node 1: rank 3"), std::string::npos) << n0.output;
  EXPECT_NE(n0.output.find("killed by signal 9"), std::string::npos) << n0.output;
  EXPECT_NE(n1.output.find("ember-run (node 1): rank 3"), std::string::npos) << n1.output;
  EXPECT_LT(n0.seconds, 30) << n0.output;
  fs::remove_all(dir);
}

TEST(MultiNode, RestartsAreTakenTogetherAndResumeExactly) {
  fs::path dir = scratch("restart"), single = scratch("restart_single");
  auto [n0, n1] = two_nodes(2, dir.string() + " 3 kill:3:mid_file 2", "--max-restarts 1");
  ASSERT_EQ(n0.code, 0) << n0.output << "\n--- node 1:\n" << n1.output;
  ASSERT_EQ(n1.code, 0) << n1.output;
  for (const Node* n : {&n0, &n1})
    EXPECT_NE(n->output.find("restarting the job (restart 1 of 1)"), std::string::npos) << n->output;
  EXPECT_NE(n1.output.find("[rank3]: restored step 1: checksum ok"), std::string::npos) << n1.output;
  Node one = one_node(4, single.string() + " 3");
  ASSERT_EQ(one.code, 0) << one.output;
  EXPECT_EQ(saved(n0.output, 0, 3), saved(one.output, 0, 3)) << n0.output << "\n--- one node:\n" << one.output;
  fs::remove_all(dir);
  fs::remove_all(single);
}

TEST(MultiNode, ANodeThatNeverJoinsIsNamedAfterTheJoinTimeout) {
  fs::path dir = scratch("alone");
  const int port = free_port("127.0.0.2");
  Node n0 = run_command(launcher(2, 0, 1, port, "", /*join_timeout=*/2) + dir.string() + " 1");
  EXPECT_NE(n0.code, 0) << n0.output;
  EXPECT_NE(n0.output.find("node(s) 1 did not join attempt 0"), std::string::npos) << n0.output;
  EXPECT_LT(n0.seconds, 15) << n0.output;
  fs::remove_all(dir);
}

TEST(MultiNode, ALauncherKilledTakesItsRanksAndIsNamed) {
  fs::path dir = scratch("launcher");
  const int port = free_port("127.0.0.2");
  // Node 1's launcher runs in the background; it is SIGKILLed once its ranks have trained a step.
  const std::string log = (fs::temp_directory_path() / ("ember_multinode_" + std::to_string(::getpid()) + ".log"));
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::string cmd = "exec " + launcher(2, 1, 1, port, "") + dir.string() + " 200 > " + log + " 2>&1";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto killer = std::async(std::launch::async, [&] {
    for (int i = 0; i < 400; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      FILE* f = std::fopen(log.c_str(), "r");
      std::string text;
      if (f) {
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
      }
      if (text.find("saved step 2") != std::string::npos) break;
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  });
  Node n0 = run_command(launcher(2, 0, 1, port, "") + dir.string() + " 200");
  killer.get();
  EXPECT_NE(n0.code, 0) << n0.output;
  // Rank 1 dies with its launcher, so rank 0's collective fails at once; or, at the latest, node 0
  // names the silent node after --node-timeout.
  EXPECT_TRUE(n0.output.find("rank 0") != std::string::npos ||
              n0.output.find("node 1's launcher stopped answering") != std::string::npos)
      << n0.output;
  EXPECT_LT(n0.seconds, 60) << n0.output;
  // No rank of node 1 is left running.
  // NB: "[d]" keeps the shell that runs pgrep, whose command line holds the pattern, from matching.
  Node left = run_command("pgrep -f '[d]cp_worker " + dir.string() + " 200' || true");
  EXPECT_EQ(left.output, "") << left.output;
  fs::remove(log);
  fs::remove_all(dir);
}

}  // namespace
