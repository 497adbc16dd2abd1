// A fleet's cache through the real CLI and real NVRTC, one process per step as on real machines:
// a CI job fills a cache for several targets in one run and exports a bundle; nodes without NVRTC
// are served from that cache directory or that bundle as a read-only layer, or from their own disk
// after importing it; a damaged bundle is refused entry by entry.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace {

namespace fs = std::filesystem;

std::string cli_path() { return std::string(CUABI_TEST_BINARY_DIR) + "/../src/cli/cuabi"; }

size_t count_of(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    return count;
}

class CacheFleetCli : public ::testing::Test {
protected:
    // One CI job for the whole suite: two NVRTC compiles, then an export.
    static void SetUpTestSuite() {
        char pattern[] = "/tmp/cuabi-fleet-cli-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir_ = pattern;
        std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n";
        ci_ = run("compile " + path("k.cu") + " --arch sm_80,sm_90", {{"CUABI_CACHE_DIR", path("ci")}});
        exported_ = run("cache export " + path("fleet.bundle"), {{"CUABI_CACHE_DIR", path("ci")}});
    }
    static void TearDownTestSuite() { fs::remove_all(dir_); }

    static test_support::ChildResult run(const std::string& args,
                                         std::vector<std::pair<std::string, std::string>> environment) {
        environment.push_back({"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"});
        return test_support::run_child({"/bin/sh", "-c", cli_path() + " " + args + " 2>&1"}, environment);
    }
    // A node: its own cache directory, no NVRTC at all.
    static test_support::ChildResult on_node(const std::string& node, const std::string& args,
                                             std::vector<std::pair<std::string, std::string>> more = {}) {
        more.push_back({"CUABI_CACHE_DIR", path(node.c_str())});
        more.push_back({"CUABI_NVRTC_PATH", "/nonexistent/libnvrtc.so.13"});
        return run(args, more);
    }
    static std::string path(const char* name) { return (dir_ / name).string(); }

    static fs::path dir_;
    static test_support::ChildResult ci_, exported_;
};

fs::path CacheFleetCli::dir_;
test_support::ChildResult CacheFleetCli::ci_, CacheFleetCli::exported_;

TEST_F(CacheFleetCli, CompileFillsEveryTargetOfTheArchListInOneRun) {
    ASSERT_EQ(ci_.exit_status, 0) << ci_.output;
    EXPECT_EQ(count_of(ci_.output, "compiled by NVRTC, now cached on disk"), 2u) << ci_.output;
    EXPECT_NE(ci_.output.find("CUBIN for sm_80"), std::string::npos) << ci_.output;
    EXPECT_NE(ci_.output.find("CUBIN for sm_90"), std::string::npos) << ci_.output;
    ASSERT_EQ(exported_.exit_status, 0) << exported_.output;
    EXPECT_NE(exported_.output.find("exported 2 entries"), std::string::npos) << exported_.output;
    // One bad target fails the run, the good ones are still compiled; -o takes one target.
    test_support::ChildResult mixed =
        run("compile " + path("k.cu") + " --arch sm_90,sm_1", {{"CUABI_CACHE_DIR", path("ci")}});
    EXPECT_EQ(mixed.exit_status, 1) << mixed.output;
    EXPECT_NE(mixed.output.find("from the disk cache"), std::string::npos) << mixed.output;
    EXPECT_EQ(run("compile " + path("k.cu") + " --arch sm_80,sm_90 -o " + path("x.cubin"), {}).exit_status, 2);
}

TEST_F(CacheFleetCli, ReadOnlyDirectoryServesANodeWithoutNvrtc) {
    ASSERT_EQ(ci_.exit_status, 0) << ci_.output;
    test_support::ChildResult node = on_node("node-dir", "compile " + path("k.cu") + " --arch sm_90",
                                             {{"CUABI_CACHE_READONLY_DIRS", "/nonexistent-layer:" + path("ci")}});
    ASSERT_EQ(node.exit_status, 0) << node.output;
    EXPECT_NE(node.output.find("from a read-only cache layer"), std::string::npos) << node.output;
    // Not copied unless asked: without the layer the node has nothing.
    EXPECT_EQ(on_node("node-dir", "compile " + path("k.cu") + " --arch sm_90").exit_status, 1);
}

TEST_F(CacheFleetCli, BundleServesANodeWithoutNvrtcAndCopiesWhenAsked) {
    ASSERT_EQ(exported_.exit_status, 0) << exported_.output;
    std::vector<std::pair<std::string, std::string>> layer = {{"CUABI_CACHE_READONLY_DIRS", path("fleet.bundle")},
                                                              {"CUABI_CACHE_READONLY_COPY", "1"}};
    test_support::ChildResult node = on_node("node-bundle", "compile " + path("k.cu") + " --arch sm_80", layer);
    ASSERT_EQ(node.exit_status, 0) << node.output;
    EXPECT_NE(node.output.find("from a read-only cache layer"), std::string::npos) << node.output;
    test_support::ChildResult later = on_node("node-bundle", "compile " + path("k.cu") + " --arch sm_80");
    ASSERT_EQ(later.exit_status, 0) << later.output;
    EXPECT_NE(later.output.find("from the disk cache"), std::string::npos) << later.output;
    test_support::ChildResult stats = on_node("node-bundle", "cache stats", layer);
    EXPECT_NE(stats.output.find("tier read-only   1 layers"), std::string::npos) << stats.output;
}

TEST_F(CacheFleetCli, InfoShowsTheTiersInLookupOrder) {
    ASSERT_EQ(exported_.exit_status, 0) << exported_.output;
    std::vector<std::pair<std::string, std::string>> layer = {{"CUABI_CACHE_DIR", path("node-info")},
                                                              {"CUABI_CACHE_READONLY_DIRS", path("fleet.bundle")}};
    test_support::ChildResult text = run("info", layer);
    EXPECT_NE(text.output.find("tiers              memory, disk (read-write), 1 read-only layers, no remote, NVRTC"),
              std::string::npos)
        << text.output;
    test_support::ChildResult json = run("info --json", layer);
    EXPECT_NE(json.output.find("\"tiers\":{\"disk\":\"read-write\",\"readonly_layers\":1,\"remote_configured\":false,"
                                 "\"remote_breaker_open\":false}"), std::string::npos)
        << json.output;
    // A remote set (TLS is refused, so nothing is started or reached): shown after the layers.
    layer.push_back({"CUABI_CACHE_REMOTE", "rediss://127.0.0.1:1"});
    test_support::ChildResult remote = run("info", layer);
    EXPECT_NE(remote.output.find("1 read-only layers, remote (breaker closed), NVRTC"), std::string::npos)
        << remote.output;
    test_support::ChildResult stats = run("cache stats", layer);
    EXPECT_NE(stats.output.find("tier remote      breaker closed (opened 0 times): 0 hits"), std::string::npos)
        << stats.output;
}

TEST_F(CacheFleetCli, ImportedBundleServesANodeFromItsOwnDisk) {
    ASSERT_EQ(exported_.exit_status, 0) << exported_.output;
    test_support::ChildResult imported = on_node("node-import", "cache import " + path("fleet.bundle"));
    ASSERT_EQ(imported.exit_status, 0) << imported.output;
    EXPECT_NE(imported.output.find("imported 2 entries, refused 0"), std::string::npos) << imported.output;
    for (const char* arch : {"sm_80", "sm_90"}) {
        test_support::ChildResult node = on_node("node-import", "compile " + path("k.cu") + " --arch " + arch);
        ASSERT_EQ(node.exit_status, 0) << node.output;
        EXPECT_NE(node.output.find("from the disk cache"), std::string::npos) << node.output;
    }
}

TEST_F(CacheFleetCli, DamagedBundleIsRefusedEntryByEntry) {
    ASSERT_EQ(exported_.exit_status, 0) << exported_.output;
    std::ifstream in(path("fleet.bundle"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 200u);
    bytes[bytes.size() - 1] ^= 0x20;  // the last entry's target
    std::ofstream(path("damaged.bundle"), std::ios::binary) << bytes;
    test_support::ChildResult imported = on_node("node-damaged", "cache import " + path("damaged.bundle"));
    EXPECT_EQ(imported.exit_status, 1) << imported.output;
    EXPECT_NE(imported.output.find("imported 1 entries, refused 1 damaged"), std::string::npos) << imported.output;
    EXPECT_NE(imported.output.find("checksum mismatch"), std::string::npos) << imported.output;
    EXPECT_NE(imported.output.find("Fix: "), std::string::npos) << imported.output;
}

// On a GPU: an entry served by a read-only layer goes to the image verifier before the driver
// loads it (here a verifier that cannot start: CUABI_ERROR_UNSUPPORTED), while the same entry
// compiled into the node's own cache loads without one. Skipped without a device.
TEST_F(CacheFleetCli, ReadOnlyEntryIsVerifiedBeforeLoadingOnAGpu) {
    auto on_gpu = [](const std::string& args, std::vector<std::pair<std::string, std::string>> environment) {
        environment.push_back({"CUABI_IMAGE_VERIFIER", "/nonexistent/cuabi-image-verifier"});
        return test_support::run_child({"/bin/sh", "-c", cli_path() + " " + args + " 2>&1"}, environment);
    };
    test_support::ChildResult own = on_gpu("compile " + path("k.cu"), {{"CUABI_CACHE_DIR", path("gpu-own")}});
    if (own.output.find("no device to compile for") != std::string::npos)
        GTEST_SKIP() << "no CUDA device: " << own.output;
    ASSERT_EQ(own.exit_status, 0) << "cuabi's own compile needs no verifier: " << own.output;
    ASSERT_EQ(run("cache export " + path("gpu.bundle"), {{"CUABI_CACHE_DIR", path("gpu-own")}}).exit_status, 0);
    std::vector<std::pair<std::string, std::string>> node = {{"CUABI_CACHE_DIR", path("gpu-node")},
                                                             {"CUABI_CACHE_READONLY_DIRS", path("gpu.bundle")},
                                                             {"CUABI_NVRTC_PATH", "/nonexistent/libnvrtc.so.13"}};
    test_support::ChildResult refused = on_gpu("compile " + path("k.cu"), node);
    EXPECT_EQ(refused.exit_status, 1) << refused.output;
    EXPECT_NE(refused.output.find("CUABI_ERROR_UNSUPPORTED"), std::string::npos) << refused.output;
    node.push_back({"CUABI_IMAGE_VERIFY", "none"});
    test_support::ChildResult trusted = on_gpu("compile " + path("k.cu"), node);
    EXPECT_EQ(trusted.exit_status, 0) << trusted.output;
    EXPECT_NE(trusted.output.find("from a read-only cache layer"), std::string::npos) << trusted.output;
}

}  // namespace
