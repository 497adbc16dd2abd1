// The remote tier against a real redis-server on loopback, through the real helper process (and
// the same helper built with ASan and UBSan): hits, first-writer-wins, leases, forged values,
// timeouts and the circuit breaker. The fleet of node processes is in cache_remote_fleet_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>
#include <cstring>

#include "cache/entry_format.hpp"
#include "cache/remote_config.hpp"
#include "cache/remote_protocol.hpp"
#include "cache_support/test_images.hpp"
#include "remote_support/redis_server.hpp"

namespace {

using cuabi::cache::CachedImage;
using cuabi::cache::Key;
using cuabi::cache::RemoteBreaker;
using cuabi::cache::RemoteConfig;
using cuabi::cache::RemoteLease;
using cuabi::cache::RemoteResult;
using cuabi::cache::RemoteTier;

#ifdef CUABI_REMOTE_HELPER_SANITIZED
constexpr const char* kSanitizedHelper = CUABI_REMOTE_HELPER_SANITIZED;
#else
constexpr const char* kSanitizedHelper = nullptr;
#endif

Key node_key(uint64_t index) {
    Key key = cache_test::make_key(index);
    key.nvrtc = 0x5eed0000 + index % 3;  // as compiled by some NVRTC
    return key;
}

std::string value_key(const Key& key) {
    return "cuabi:" + std::to_string(cuabi::cache::kFormatVersion) + ":e:" + key.hex() + ":" + key.nvrtc_hex();
}

std::string write_key_file(const std::string& directory, const std::string& name, char fill) {
    std::string path = directory + "/" + name;
    std::ofstream(path) << std::string(40, fill);
    chmod(path.c_str(), 0600);
    return path;
}

// The helper under test: the installed one, or (GetParam() true) the sanitized build.
class RemoteTierTest : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
#ifndef CUABI_REMOTE_HELPER_BUILT
        GTEST_SKIP() << "cuabi-cache-remote was not built (hiredis or libsodium missing): run scripts/setup.sh";
#endif
        if (!redis_.running()) GTEST_SKIP() << "no redis-server (scripts/setup.sh installs it)";
        if (GetParam() && kSanitizedHelper == nullptr) GTEST_SKIP() << "no sanitized helper build";
        char pattern[] = "/tmp/cuabi-remote-test-XXXXXX";
        directory_ = mkdtemp(pattern);
        if (GetParam()) {
            // A report ends the helper (halt on error) and leaves a file; the test checks there is none.
            setenv("ASAN_OPTIONS", ("log_path=" + directory_ + "/asan:detect_leaks=1").c_str(), 1);
            setenv("UBSAN_OPTIONS", ("log_path=" + directory_ + "/ubsan:halt_on_error=1:print_stacktrace=1").c_str(), 1);
        }
    }
    void TearDown() override {
        if (directory_.empty()) return;
        unsetenv("ASAN_OPTIONS");
        unsetenv("UBSAN_OPTIONS");
        std::system(("rm -rf '" + directory_ + "'").c_str());
    }

    RemoteConfig config(bool readwrite, const std::string& key_file = "") {
        RemoteConfig config;
        std::string why;
        EXPECT_TRUE(RemoteConfig::parse_url(redis_.url(), &config, &why)) << why;
        config.readwrite = readwrite;
        config.key_file = key_file;
        if (GetParam()) config.helper = kSanitizedHelper;
        return config;
    }

    // No sanitizer report from any helper this test started (they have all ended by now).
    void expect_no_sanitizer_report() {
        if (!GetParam()) return;
        std::string listing;
        FILE* pipe = popen(("ls " + directory_ + " | grep -E '^(asan|ubsan)' || true").c_str(), "r");
        char line[256];
        while (pipe != nullptr && fgets(line, sizeof line, pipe) != nullptr) listing += line;
        if (pipe != nullptr) pclose(pipe);
        EXPECT_EQ(listing, "") << "the sanitized helper reported errors in " << directory_;
    }

    test_support::RedisServer redis_;
    std::string directory_;
};

TEST_P(RemoteTierTest, PublishedEntryIsFetchedVerifiedByAnotherNode) {
    Key key = node_key(1);
    {
        auto writer = cuabi::cache::open_remote_tier(config(true));
        CachedImage absent;
        EXPECT_EQ(writer->fetch(key, &absent), RemoteResult::Miss);
        writer->publish(key, *cache_test::make_image(1));
        EXPECT_EQ(writer->stats().publishes, 1u);
        writer->publish(key, *cache_test::make_image(2));  // first writer wins: the second is not stored
        EXPECT_EQ(writer->stats().publishes, 1u);
    }
    auto reader = cuabi::cache::open_remote_tier(config(false));
    CachedImage got;
    ASSERT_EQ(reader->fetch(key, &got), RemoteResult::Hit) << reader->stats().reason;
    EXPECT_TRUE(cache_test::same_image(got, *cache_test::make_image(1)));
    Key any = key;
    any.nvrtc = cuabi::cache::kAnyNvrtc;  // a node without NVRTC asks for any NVRTC's entry
    CachedImage through_alias;
    ASSERT_EQ(reader->fetch(any, &through_alias), RemoteResult::Hit);
    EXPECT_TRUE(cache_test::same_image(through_alias, *cache_test::make_image(1)));
    reader->publish(node_key(2), *cache_test::make_image(2));  // read-only: publishes nothing
    EXPECT_EQ(redis_.command({"EXISTS", value_key(node_key(2))}), ":0");
    EXPECT_EQ(reader->stats().hits, 2u);
    EXPECT_EQ(reader->stats().refused, 0u);
    EXPECT_NE(redis_.command({"TTL", value_key(key)}), ":-1") << "published entries must expire";
    reader.reset();
    expect_no_sanitizer_report();
}

TEST_P(RemoteTierTest, OneLeaseHolderTheOthersWaitForItsEntry) {
    Key key = node_key(3);
    auto first = cuabi::cache::open_remote_tier(config(true));
    auto second = cuabi::cache::open_remote_tier(config(true));
    EXPECT_EQ(first->take_lease(key), RemoteLease::Won);
    EXPECT_EQ(second->take_lease(key), RemoteLease::Lost);
    std::thread winner([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        first->publish(key, *cache_test::make_image(3));
    });
    CachedImage got;
    int64_t deadline = cuabi::frames::now_ms() + 5000;
    EXPECT_EQ(second->wait_for(key, deadline, &got), RemoteResult::Hit);
    winner.join();
    EXPECT_TRUE(cache_test::same_image(got, *cache_test::make_image(3)));
    EXPECT_EQ(second->stats().lease_waits, 1u);
    EXPECT_EQ(second->stats().lease_wait_hits, 1u);
    EXPECT_EQ(redis_.command({"EXISTS", "cuabi:" + std::to_string(cuabi::cache::kFormatVersion) + ":l:" + key.hex() +
                                            ":" + key.nvrtc_hex()}),
              ":0")
        << "publishing drops the winner's lease";
    EXPECT_EQ(second->take_lease(key), RemoteLease::Lost) << "no lease while the entry is there: it would compile again";

    // A winner whose compile failed releases its lease: a waiter stops waiting at once.
    Key failed = node_key(4);
    EXPECT_EQ(first->take_lease(failed), RemoteLease::Won);
    EXPECT_EQ(second->take_lease(failed), RemoteLease::Lost);
    second->release_lease(failed);  // not its lease: nothing happens
    first->release_lease(failed);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(second->wait_for(failed, cuabi::frames::now_ms() + 5000, &got), RemoteResult::Miss);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
    first.reset();
    second.reset();
    expect_no_sanitizer_report();
}

TEST_P(RemoteTierTest, ForgedValuesAreRefusedAndReportedOnce) {
    std::string fleet_key = write_key_file(directory_, "fleet.key", 'f');
    std::string other_key = write_key_file(directory_, "other.key", 'o');
    auto signer = cuabi::cache::open_remote_tier(config(true, fleet_key));
    auto forger = cuabi::cache::open_remote_tier(config(true, other_key));
    auto unsigned_writer = cuabi::cache::open_remote_tier(config(true));
    auto node = cuabi::cache::open_remote_tier(config(false, fleet_key));
    auto trusting_node = cuabi::cache::open_remote_tier(config(false));  // no key: structure checks only

    Key good = node_key(10), other_signed = node_key(11), unsigned_key = node_key(12);
    signer->publish(good, *cache_test::make_image(10));
    forger->publish(other_signed, *cache_test::make_image(11));
    unsigned_writer->publish(unsigned_key, *cache_test::make_image(12));
    CachedImage got;
    ASSERT_EQ(node->fetch(good, &got), RemoteResult::Hit) << node->stats().reason;  // the control

    std::string signed_value = redis_.command({"GET", value_key(good)});
    std::string unsigned_value = redis_.command({"GET", value_key(unsigned_key)});
    ASSERT_GT(signed_value.size(), 200u);
    ASSERT_GT(unsigned_value.size(), 200u);
    std::string bad_mac = signed_value;
    bad_mac[20] ^= 1;
    std::string huge_claim = unsigned_value;  // the entry's header claims 1 GiB in total
    uint64_t gib = uint64_t(1) << 30;
    for (int i = 0; i < 8; ++i) huge_claim[48 + 88 + i] = static_cast<char>(gib >> (8 * i));

    struct Forgery {
        const char* what;
        std::string value;
        bool refused_without_key;  // also by a node that checks no signatures
    };
    const Forgery forgeries[] = {
        {"bad signature", bad_mac, false},
        {"signed with another key", redis_.command({"GET", value_key(other_signed)}), false},
        {"unsigned", unsigned_value, false},
        {"another key's entry", signed_value, true},  // planted under the next key below
        {"truncated", signed_value.substr(0, signed_value.size() / 2), true},
        {"1 GiB claim", huge_claim, true},
        {"garbage", std::string(300, 'x'), true},
        {"empty", "", true},
    };
    uint64_t index = 100;
    for (const Forgery& forgery : forgeries) {
        Key target = node_key(index++);
        ASSERT_EQ(redis_.command({"SET", value_key(target), forgery.value}), "+OK") << forgery.what;
        EXPECT_EQ(node->fetch(target, &got), RemoteResult::Miss) << forgery.what;
        RemoteResult without_key = trusting_node->fetch(target, &got);
        if (forgery.refused_without_key) EXPECT_EQ(without_key, RemoteResult::Miss) << forgery.what;
    }
    // A value that is not a string, and one over the size cap (refused before it is read).
    Key list_key = node_key(200), big_key = node_key(201);
    redis_.command({"RPUSH", value_key(list_key), "x"});
    EXPECT_EQ(node->fetch(list_key, &got), RemoteResult::Miss);
    RemoteConfig capped = config(false);
    capped.max_bytes = 4096;
    auto capped_node = cuabi::cache::open_remote_tier(capped);
    redis_.command({"SET", value_key(big_key), std::string(5000, 'b')});
    EXPECT_EQ(capped_node->fetch(big_key, &got), RemoteResult::Miss);
    EXPECT_EQ(capped_node->stats().refused, 1u);
    EXPECT_NE(capped_node->stats().reason.find("5000 bytes, over the remote cap of 4096"), std::string::npos)
        << capped_node->stats().reason;

    cuabi::cache::RemoteStats stats = node->stats();
    EXPECT_EQ(stats.refused, 8u);  // the 7 non-empty forgeries and the list; "empty" is simply absent
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.errors, 0u);
    EXPECT_EQ(stats.breaker, RemoteBreaker::Closed) << "refusing a value is not a failing remote";
    // Reported once: the first refusal is what the stats say, with a fix.
    EXPECT_NE(stats.reason.find("signature does not verify"), std::string::npos) << stats.reason;
    EXPECT_EQ(stats.reason.find("unsigned entry"), std::string::npos) << stats.reason;
    EXPECT_NE(stats.reason.find("Fix: "), std::string::npos);
    signer.reset(), forger.reset(), unsigned_writer.reset(), node.reset(), trusting_node.reset(), capped_node.reset();
    expect_no_sanitizer_report();
}

TEST_P(RemoteTierTest, StoppedRedisCostsTimeoutsThenTheBreakerSkipsIt) {
    RemoteConfig settings = config(true);
    settings.timeout_ms = 50;
    settings.backoff_ms = 300;
    auto tier = cuabi::cache::open_remote_tier(settings);
    tier->publish(node_key(30), *cache_test::make_image(30));
    CachedImage got;
    ASSERT_EQ(tier->fetch(node_key(30), &got), RemoteResult::Hit);

    redis_.pause();  // SIGSTOP: connections are accepted, nothing is answered
    int64_t budget_ms = 2 * 50 + 100 + 150;  // the exchange's deadline, and scheduling on a busy host
    for (int i = 0; i < 10; ++i) {
        auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(tier->fetch(node_key(30), &got), RemoteResult::Unavailable);
        auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        EXPECT_LE(took.count(), budget_ms) << "operation " << i;
    }
    cuabi::cache::RemoteStats stats = tier->stats();
    EXPECT_EQ(stats.breaker, RemoteBreaker::Open);
    EXPECT_EQ(stats.breaker_opens, 1u);
    EXPECT_EQ(stats.errors, 10u);
    EXPECT_NE(stats.reason.find("Fix: "), std::string::npos) << stats.reason;

    redis_.resume();
    std::this_thread::sleep_for(std::chrono::milliseconds(350));  // past the back-off: one probe goes
    EXPECT_EQ(tier->fetch(node_key(30), &got), RemoteResult::Hit) << tier->stats().reason;
    EXPECT_EQ(tier->stats().breaker, RemoteBreaker::Closed);
    EXPECT_EQ(tier->stats().reason, "") << "healthy again";

    redis_.stop();  // killed: refused connections fail fast, and the breaker opens again
    for (int i = 0; i < 5; ++i) EXPECT_EQ(tier->fetch(node_key(30), &got), RemoteResult::Unavailable);
    EXPECT_EQ(tier->stats().breaker, RemoteBreaker::Open);
    EXPECT_EQ(tier->stats().breaker_opens, 2u);
    tier.reset();
    expect_no_sanitizer_report();
}

INSTANTIATE_TEST_SUITE_P(Helper, RemoteTierTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Sanitized" : "Installed"; });

TEST(RemoteTierConfig, RefusesTlsAndMalformedUrlsWithAFix) {
    RemoteConfig config;
    std::string why;
    EXPECT_FALSE(RemoteConfig::parse_url("rediss://cache.example:6380", &config, &why));
    EXPECT_NE(why.find("TLS"), std::string::npos) << why;
    EXPECT_NE(why.find("Fix: "), std::string::npos) << why;
    for (const char* url : {"http://host", "redis://", "redis://host:0", "redis://host:99999", "redis://host/x"}) {
        why.clear();
        EXPECT_FALSE(RemoteConfig::parse_url(url, &config, &why)) << url;
        EXPECT_NE(why.find("Fix: "), std::string::npos) << url << ": " << why;
    }
    RemoteConfig parsed;
    ASSERT_TRUE(RemoteConfig::parse_url("redis://:s3cret@10.0.0.5:6390/2", &parsed, &why)) << why;
    EXPECT_EQ(parsed.host, "10.0.0.5");
    EXPECT_EQ(parsed.port, 6390);
    EXPECT_EQ(parsed.db, 2);
    EXPECT_EQ(parsed.password, "s3cret");
    EXPECT_EQ(parsed.endpoint.find("s3cret"), std::string::npos) << "the password never reaches messages or stats";
}

TEST(RemoteTierConfig, RefusedSettingMakesEveryOperationUnavailable) {
    RemoteConfig config;
    config.refused = "refused for the test. Fix: none";
    auto tier = cuabi::cache::open_remote_tier(config);
    CachedImage got;
    EXPECT_EQ(tier->fetch(node_key(1), &got), RemoteResult::Unavailable);
    EXPECT_EQ(tier->stats().reason, config.refused);
}

TEST(RemoteTierConfig, KeyFileOthersCanReadIsRefused) {
#ifndef CUABI_REMOTE_HELPER_BUILT
    GTEST_SKIP() << "cuabi-cache-remote was not built";
#endif
    test_support::RedisServer redis;
    if (!redis.running()) GTEST_SKIP() << "no redis-server";
    char pattern[] = "/tmp/cuabi-remote-key-XXXXXX";
    std::string directory = mkdtemp(pattern);
    std::string key_file = write_key_file(directory, "fleet.key", 'k');
    chmod(key_file.c_str(), 0644);
    RemoteConfig config;
    std::string why;
    ASSERT_TRUE(RemoteConfig::parse_url(redis.url(), &config, &why));
    config.key_file = key_file;
    auto tier = cuabi::cache::open_remote_tier(config);
    CachedImage got;
    EXPECT_EQ(tier->fetch(node_key(1), &got), RemoteResult::Unavailable);
    EXPECT_NE(tier->stats().reason.find("chmod 600"), std::string::npos) << tier->stats().reason;
    std::system(("rm -rf '" + directory + "'").c_str());
}

}  // namespace

namespace {

// The libraries `ldd` lists that are not the C and C++ runtimes.
std::vector<std::string> foreign_libraries(const std::string& ldd_output) {
    const char* const runtimes[] = {"linux-vdso.so", "libstdc++.so", "libgcc_s.so", "libc.so", "libm.so",
                                    "ld-linux-x86-64.so", "ld-linux-aarch64.so", "libdl.so", "libpthread.so", "librt.so",
                                    // A sanitizer build's runtimes, which that build links into everything.
                                    "libasan.so", "libubsan.so", "libtsan.so"};
    std::vector<std::string> foreign;
    size_t at = 0;
    while (at < ldd_output.size()) {
        size_t end = ldd_output.find('\n', at);
        if (end == std::string::npos) end = ldd_output.size();
        std::string line = ldd_output.substr(at, end - at);
        at = end + 1;
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos) continue;
        std::string name = line.substr(start, line.find_first_of(" \t", start) - start);
        name = name.substr(name.rfind('/') + 1);
        bool runtime = false;
        for (const char* allowed : runtimes) runtime |= name.compare(0, std::strlen(allowed), allowed) == 0;
        if (!runtime) foreign.push_back(name);
    }
    return foreign;
}

TEST(RemoteTierIsolation, LibcuabiLinksOnlyTheCAndCxxRuntimes) {
    std::string output;
    FILE* pipe = popen(("ldd '" + std::string(CUABI_TEST_LIBRARY_PATH) + "' 2>&1").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char line[512];
    while (fgets(line, sizeof line, pipe) != nullptr) output += line;
    ASSERT_EQ(pclose(pipe), 0) << output;
    ASSERT_NE(output.find("libc.so"), std::string::npos) << output;
    EXPECT_EQ(foreign_libraries(output), std::vector<std::string>()) << output;
    // The check itself: the network and crypto libraries the helper uses would be caught.
    EXPECT_EQ(foreign_libraries(output + "\tlibhiredis.so.0.14 => /lib/x86_64-linux-gnu/libhiredis.so.0.14 (0x1)\n"
                                         "\tlibsodium.so.23 => /lib/x86_64-linux-gnu/libsodium.so.23 (0x2)\n"),
              (std::vector<std::string>{"libhiredis.so.0.14", "libsodium.so.23"}));
}

}  // namespace
