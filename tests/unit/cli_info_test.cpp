// `cuabi info` on a machine without a usable driver says so, says how to fix it, and exits 0;
// `--json` says the same for machines. Runs the real CLI binary in a child process with the
// driver path pointed at nothing, so it holds on GPU machines too.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <string>

#include "cache_support/process.hpp"
#include "child_process.hpp"
#include "cuabi/cuabi.h"

namespace {

std::string cli_path() { return std::string(CUABI_TEST_BINARY_DIR) + "/../src/cli/cuabi"; }

test_support::ChildResult run_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {cli_path()};
    argv.insert(argv.end(), args.begin(), args.end());
    return test_support::run_child(argv, {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"}});
}

class CliInfo : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(access(cli_path().c_str(), X_OK), 0)
            << "the cuabi CLI is not built at " << cli_path() << "; build the cuabi_cli target";
    }
};

TEST_F(CliInfo, WithoutADriverSaysWhatIsMissingAndHowToFixItAndExitsZero) {
    test_support::ChildResult result = run_cli({"info"});
    EXPECT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("cuabi 1."), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("not usable (CUABI_ERROR_DRIVER_NOT_FOUND)"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("/nonexistent/libcuda.so.1"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("Fix: "), std::string::npos) << result.output;
}

TEST_F(CliInfo, JsonReportsTheMissingDriverForMachines) {
    test_support::ChildResult result = run_cli({"info", "--json"});
    EXPECT_EQ(result.exit_status, 0) << result.output;
    EXPECT_EQ(result.output.front(), '{') << result.output;
    EXPECT_NE(result.output.find("\"abi_version\":1"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\"found\":false"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\"status\":\"CUABI_ERROR_DRIVER_NOT_FOUND\""), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\"devices\":[]"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\"nvrtc\":{\"found\":"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\"cache\":{\"directory\":"), std::string::npos) << result.output;
}

TEST_F(CliInfo, UnknownArgumentIsAUsageError) {
    test_support::ChildResult result = run_cli({"info", "--bogus"});
    EXPECT_EQ(result.exit_status, 2);
}

}  // namespace

namespace {

TEST_F(CliInfo, ShowsTheNvrtcFileItsPairingStateAndTheToolkitIncludeDirectories) {
    test_support::ChildResult result = run_cli({"info"});
    ASSERT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("  path               "), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("libnvrtc.so."), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("no CUDA driver to pair with"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("state at start     not loaded"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("  include dirs       "), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("/include"), std::string::npos) << result.output;

    test_support::ChildResult json = run_cli({"info", "--json"});
    EXPECT_NE(json.output.find("\"include_dirs\":[\""), std::string::npos) << json.output;
    EXPECT_NE(json.output.find("\"state_at_start\":0"), std::string::npos) << json.output;
    EXPECT_NE(json.output.find("\"pairing\":"), std::string::npos) << json.output;
}

// The nvJitLink lines say what the library says: its version and file, or, where
// CUABI_NVJITLINK_PATH names no file, that it is not usable, naming the file, with a fix.
TEST_F(CliInfo, ShowsNvJitLinksVersionAndFileOrWhyThereIsNone) {
    int32_t major = 0, minor = 0;
    ASSERT_EQ(cuabi_nvjitlink_get_version(&major, &minor), CUABI_SUCCESS) << cuabi_last_error_message();
    size_t size = 0;
    ASSERT_EQ(cuabi_nvjitlink_get_path(nullptr, 0, &size), CUABI_SUCCESS) << cuabi_last_error_message();
    std::string path(size, '\0');
    ASSERT_EQ(cuabi_nvjitlink_get_path(&path[0], path.size(), &size), CUABI_SUCCESS);
    path.resize(size - 1);
    EXPECT_NE(path.find("libnvJitLink.so"), std::string::npos) << path;
    const std::string version = std::to_string(major) + "." + std::to_string(minor);

    test_support::ChildResult text = run_cli({"info"});
    ASSERT_EQ(text.exit_status, 0) << text.output;
    EXPECT_NE(text.output.find("\nnvjitlink            " + version + "\n  path               " + path + "\n"),
              std::string::npos)
        << text.output;
    test_support::ChildResult json = run_cli({"info", "--json"});
    EXPECT_NE(json.output.find("\"nvjitlink\":{\"found\":true,\"status\":\"CUABI_SUCCESS\",\"path\":\"" + path +
                               "\",\"major\":" + std::to_string(major) + ",\"minor\":" + std::to_string(minor) + "}"),
              std::string::npos)
        << json.output;

    const std::string missing = "/nonexistent/libnvJitLink.so." + std::to_string(major);
    test_support::ChildResult without = test_support::run_child(
        {cli_path(), "info"}, {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"}, {"CUABI_NVJITLINK_PATH", missing}});
    ASSERT_EQ(without.exit_status, 0) << without.output;
    const size_t line = without.output.find("\nnvjitlink            not usable (CUABI_ERROR_NVJITLINK_NOT_FOUND)\n  ");
    ASSERT_NE(line, std::string::npos) << without.output;
    const std::string reason = without.output.substr(line, without.output.find("\nkernel cache", line) - line);
    EXPECT_NE(reason.find(missing), std::string::npos) << reason;
    EXPECT_NE(reason.find("Fix: "), std::string::npos) << reason;
}

TEST_F(CliInfo, ShowsThePchModeAndCountsOnlyRegularPchFilesOfTheStore) {
    cache_test::TempDir root;  // removed with everything `info` made in it
    const std::string cache = root / "cache", store = cache + "/pch";
    ASSERT_EQ(mkdir(cache.c_str(), 0700), 0);
    ASSERT_EQ(mkdir(store.c_str(), 0700), 0);
    {
        std::ofstream pch(store + "/a.pch", std::ios::binary);
        pch << std::string(1024, 'p');
    }
    ASSERT_EQ(symlink((store + "/a.pch").c_str(), (store + "/b.pch").c_str()), 0);
    test_support::ChildResult json = test_support::run_child(
        {cli_path(), "info", "--json"},
        {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"}, {"CUABI_CACHE_DIR", cache}, {"CUABI_PCH", "off"}});
    test_support::ChildResult text =
        test_support::run_child({cli_path(), "info"}, {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"},
                                                       {"CUABI_CACHE_DIR", cache}});
    EXPECT_NE(json.output.find("\"precompiled_headers\":{\"mode\":\"off\",\"nvrtc_supports\":true,\"store_files\":1,"
                               "\"store_bytes\":1024}"),
              std::string::npos)
        << json.output;
    EXPECT_NE(text.output.find("  precompiled hdrs   auto (CUABI_PCH), NVRTC has them; store 1 PCH, 0.0 MiB"),
              std::string::npos)
        << text.output;
}

}  // namespace
