// Node processes -- each with its own cache directory, as separate machines would have -- sharing
// one real redis-server on loopback: the whole compile path (memory, disk, remote, NVRTC in the
// compile worker) as a program runs it. NVRTC runs are counted by each node's cache statistics.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "remote_support/node_fleet.hpp"
#include "remote_support/redis_server.hpp"

namespace {

using test_support::Node;
using test_support::number;
using test_support::Report;

class RemoteFleetTest : public ::testing::Test {
protected:
    void SetUp() override {
#ifndef CUABI_REMOTE_HELPER_BUILT
        GTEST_SKIP() << "cuabi-cache-remote was not built (hiredis or libsodium missing): run scripts/setup.sh";
#endif
        if (!redis_.running()) GTEST_SKIP() << "no redis-server (scripts/setup.sh installs it)";
        if (test_support::kRemoteNode == nullptr) GTEST_SKIP() << "no node program";
        char pattern[] = "/tmp/cuabi-fleet-test-XXXXXX";
        directory_ = mkdtemp(pattern);
    }
    void TearDown() override {
        if (!directory_.empty()) std::system(("rm -rf '" + directory_ + "'").c_str());
    }

    // Tests of what the remote serves give Redis a second per operation: on a loaded CI host,
    // 8 nodes, their helpers and NVRTC starve a single-threaded Redis past the 50 ms default, and
    // a timeout (rightly) sends the node to NVRTC. The timeout tests set their own.
    std::vector<std::pair<std::string, std::string>> node_environment(const std::string& name, bool readwrite,
                                                                      const char* timeout_ms = "1000") {
        return {{"CUABI_CACHE_DIR", directory_ + "/" + name},
                {"CUABI_CACHE_REMOTE", redis_.url()},
                {"CUABI_CACHE_REMOTE_MODE", readwrite ? "readwrite" : "read"},
                {"CUABI_CACHE_REMOTE_TIMEOUT_MS", timeout_ms}};
    }

    // Each test compiles kernels no other test does (the NVRTC counts must be its own).
    test_support::RedisServer redis_;
    std::string directory_;
};

TEST_F(RemoteFleetTest, NodeThatSetsNoRemoteHasNoRemoteTier) {
    Report report = Node({"5000", "1"}, {{"CUABI_CACHE_DIR", directory_ + "/plain"}, {"CUABI_CACHE_REMOTE", ""}}).finish();
    EXPECT_EQ(number(report, "failures"), 0) << report["first_failure"];
    EXPECT_EQ(report.count("remote_hits"), 0u) << "RemoteTier::instance() must be null: nothing started, nothing loaded";
    EXPECT_EQ(number(report, "api_remote_configured"), 0);
    Report with_remote = Node({"5000", "1"}, node_environment("remote", false)).finish();
    EXPECT_EQ(number(with_remote, "remote_misses"), 1) << "the control: a node that sets one has it";
    EXPECT_EQ(number(with_remote, "api_remote_configured"), 1);
    EXPECT_EQ(number(with_remote, "api_remote_misses"), 1) << "cuabi_cache_get_stats reports the tier's counts";
    EXPECT_EQ(number(with_remote, "api_remote_breaker_open"), 0);
}

TEST_F(RemoteFleetTest, MissingHelperIsReportedAndCompilesGoOnLocally) {
    auto environment = node_environment("no-helper", true);
    environment.push_back({"CUABI_CACHE_REMOTE_HELPER", directory_ + "/not-installed/cuabi-cache-remote"});
    Report report = Node({"5100", "2"}, environment).finish();
    EXPECT_EQ(number(report, "failures"), 0) << report["first_failure"];
    EXPECT_EQ(number(report, "compiles"), 2);
    EXPECT_EQ(number(report, "remote_hits"), 0);
    EXPECT_NE(report["remote_reason"].find("its helper cannot be used"), std::string::npos) << report["remote_reason"];
    EXPECT_NE(report["remote_reason"].find("does not exist. Fix: "), std::string::npos) << report["remote_reason"];
}

TEST_F(RemoteFleetTest, TlsUrlIsRefusedWithAFixAndCompilesGoOnLocally) {
    auto environment = node_environment("tls", true);
    environment[1].second = "rediss://127.0.0.1:" + std::to_string(redis_.port());
    Report report = Node({"5200", "1"}, environment).finish();
    EXPECT_EQ(number(report, "failures"), 0) << report["first_failure"];
    EXPECT_EQ(number(report, "remote_errors"), 3) << "the fetch, the lease and the publish, all skipped";
    EXPECT_NE(report["remote_reason"].find("asks for TLS"), std::string::npos) << report["remote_reason"];
}

TEST_F(RemoteFleetTest, EightNodesStartingTogetherRunNvrtcOncePerKernel) {
    const std::string go = directory_ + "/go";
    std::vector<std::unique_ptr<Node>> nodes;
    for (int i = 0; i < 8; ++i)
        nodes.emplace_back(new Node({"--go", go, "1000", "20"}, node_environment("node" + std::to_string(i), true)));
    std::ofstream(go) << "go";
    long long compiles = 0, waits = 0, hits = 0;
    for (auto& node : nodes) {
        Report report = node->finish();
        EXPECT_EQ(report["exit"], "0");
        EXPECT_EQ(number(report, "failures"), 0) << report["first_failure"];
        EXPECT_EQ(number(report, "remote_errors"), 0) << report["remote_reason"];
        compiles += number(report, "compiles");
        waits += number(report, "remote_lease_waits");
        hits += number(report, "remote_hits") + number(report, "remote_lease_wait_hits");
    }
    EXPECT_EQ(compiles, 20) << "NVRTC runs over all 8 nodes (" << waits << " lease waits, " << hits << " remote hits)";
}

TEST_F(RemoteFleetTest, NodeWithoutNvrtcIsServedFromRedisThenFromItsOwnDisk) {
    Report builder = Node({"2000", "5"}, node_environment("builder", true)).finish();
    ASSERT_EQ(number(builder, "failures"), 0) << builder["first_failure"];
    ASSERT_EQ(number(builder, "compiles"), 5);
    auto without_nvrtc = node_environment("gpu-node", false);
    without_nvrtc.push_back({"CUABI_NVRTC_PATH", directory_ + "/no-nvrtc-here/libnvrtc.so"});

    Report first = Node({"2000", "5"}, without_nvrtc).finish();
    EXPECT_EQ(number(first, "failures"), 0) << first["first_failure"];
    EXPECT_EQ(number(first, "compiles"), 0);
    EXPECT_EQ(number(first, "remote_hits"), 5) << first["remote_reason"];
    EXPECT_EQ(number(first, "api_remote_hits"), 5) << "cuabi_cache_get_stats reports the remote hits";
    EXPECT_EQ(number(first, "api_remote_errors"), 0);

    redis_.stop();
    Report second = Node({"2000", "5"}, without_nvrtc).finish();
    EXPECT_EQ(number(second, "failures"), 0) << second["first_failure"];
    EXPECT_EQ(number(second, "disk_hits"), 5);
    EXPECT_EQ(number(second, "remote_hits"), 0);

    // The control: a node with neither Redis nor its own entries has nothing to serve.
    auto empty = without_nvrtc;
    empty[0].second = directory_ + "/empty-node";
    Report nothing = Node({"2000", "5"}, empty).finish();
    EXPECT_EQ(number(nothing, "failures"), 5);
}

TEST_F(RemoteFleetTest, RedisKilledMidRunCompilesLocallyAndOpensTheBreaker) {
    auto environment = node_environment("node", true, "50");
    environment.push_back({"CUABI_CACHE_REMOTE_BACKOFF_MS", "60000"});
    Node node({"--pause-ms", "100", "3000", "12"}, environment);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    redis_.stop();
    Report report = node.finish();
    EXPECT_EQ(number(report, "failures"), 0) << report["first_failure"];
    EXPECT_EQ(number(report, "compiles"), 12);
    EXPECT_GT(number(report, "remote_publishes"), 0) << "Redis was used before it died";
    EXPECT_EQ(number(report, "remote_breaker_opens"), 1);
    EXPECT_EQ(number(report, "remote_breaker"), 1) << "open (back-off 60 s)";
    // The same through cuabi_cache_get_stats.
    EXPECT_EQ(number(report, "api_remote_publishes"), number(report, "remote_publishes"));
    EXPECT_GT(number(report, "api_remote_errors"), 0) << "Redis died: operations failed, then the breaker skipped them";
    EXPECT_EQ(number(report, "api_remote_breaker_open"), 1);
    EXPECT_EQ(number(report, "api_remote_breaker_opens"), 1);
}

// Entries fetched from the remote are written locally without fsync (cache.md, "Remote tier"):
// one a crash tore is refused by its checks and served by the remote again, never loaded.
TEST_F(RemoteFleetTest, TornLocalCopyOfARemoteEntryIsRefusedAndFetchedAgain) {
    Report builder = Node({"6000", "3"}, node_environment("builder", true)).finish();
    ASSERT_EQ(number(builder, "compiles"), 3);
    auto without_nvrtc = node_environment("gpu-node", false);
    without_nvrtc.push_back({"CUABI_NVRTC_PATH", directory_ + "/no-nvrtc-here/libnvrtc.so"});
    Report first = Node({"6000", "3"}, without_nvrtc).finish();
    ASSERT_EQ(number(first, "remote_hits"), 3) << first["remote_reason"];

    int torn = 0;
    for (const auto& file : std::filesystem::recursive_directory_iterator(directory_ + "/gpu-node/kernels")) {
        if (file.path().extension() != ".cuabi") continue;
        std::filesystem::resize_file(file.path(), std::filesystem::file_size(file.path()) / 2);
        ++torn;
    }
    ASSERT_EQ(torn, 3);
    Report second = Node({"6000", "3"}, without_nvrtc).finish();
    EXPECT_EQ(number(second, "failures"), 0) << second["first_failure"];
    EXPECT_EQ(number(second, "compiles"), 0);
    EXPECT_EQ(number(second, "disk_hits"), 0);
    EXPECT_EQ(number(second, "disk_corrupt_recovered"), 3);
    EXPECT_EQ(number(second, "api_remote_hits"), 3) << second["remote_reason"];
}

TEST_F(RemoteFleetTest, StoppedRedisBoundsEveryCompileAndTheBreakerClosesWhenItAnswersAgain) {
    Report builder = Node({"4000", "20"}, node_environment("builder", true)).finish();
    ASSERT_EQ(number(builder, "compiles"), 20);
    auto environment = node_environment("gpu-node", false, "50");
    environment.push_back({"CUABI_NVRTC_PATH", directory_ + "/no-nvrtc-here/libnvrtc.so"});
    environment.push_back({"CUABI_CACHE_REMOTE_BACKOFF_MS", "100"});
    redis_.pause();  // SIGSTOP: accepts connections, never answers
    Node node({"--pause-ms", "100", "4000", "20"}, environment);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // three timeouts open the breaker
    redis_.resume();
    Report report = node.finish();
    // Without NVRTC a kernel Redis cannot give fails fast; each compile costs at most one
    // exchange's deadline (2 x 50 ms + 100 ms) and a busy host's scheduling.
    EXPECT_LE(std::atof(report["slowest_ms"].c_str()), 600.0) << report["origins"];
    EXPECT_GT(number(report, "failures"), 0) << "Redis was stopped for the first kernels";
    EXPECT_GT(number(report, "remote_hits"), 0) << "and answered again for the last: " << report["remote_reason"];
    EXPECT_EQ(number(report, "failures") + number(report, "remote_hits"), 20);
    EXPECT_GE(number(report, "remote_breaker_opens"), 1);
    EXPECT_EQ(number(report, "remote_breaker"), 0) << "closed again";
}

}  // namespace
