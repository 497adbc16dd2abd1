// Loading NVRTC at run time: the real libnvrtc of the CUDA Toolkit on this machine,
// and -- in a fresh child process, since the outcome is cached per process -- a path that holds no
// NVRTC, which must give CUABI_ERROR_NVRTC_NOT_FOUND with a message naming the path and a fix.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvrtc_api.hpp"

namespace {

// In the child: "<call> <status name> <message>" per public NVRTC call.
int probe() {
    int32_t major = 0, minor = 0;
    cuabi_status status = cuabi_nvrtc_get_version(&major, &minor);
    std::printf("nvrtc_version %s %s\n", cuabi_status_name(status), cuabi_last_error_message());
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.target = "sm_90";
    cuabi_module* module = nullptr;
    status = cuabi_module_compile_offline("__global__ void k() {}", &options, &module);
    std::printf("compile_offline %s %s\n", cuabi_status_name(status), cuabi_last_error_message());
    cuabi_module_destroy(module);
    std::fflush(stdout);
    return 0;
}

const bool probed_in_child = [] {
    if (std::getenv("CUABI_TEST_NVRTC_PROBE") != nullptr) std::_Exit(probe());
    return false;
}();

std::string self_path() {
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return std::string();
    return std::string(self, static_cast<size_t>(length));
}

TEST(NvrtcLoader, LoadsTheToolkitNvrtcWithVersionArchsAndBuildId) {
    cuabi::Status status = CUABI_SUCCESS;
    const cuabi::NvrtcApi* api = cuabi::nvrtc(&status);
    ASSERT_NE(api, nullptr) << cuabi_last_error_message();
    EXPECT_GE(api->major, 12);
    EXPECT_FALSE(api->path.empty());
    EXPECT_NE(api->path.find("libnvrtc"), std::string::npos) << api->path;
    EXPECT_TRUE(std::is_sorted(api->supported_archs.begin(), api->supported_archs.end()));
    EXPECT_TRUE(api->supports(90)) << "CUDA 12 and 13 NVRTC both compile for sm_90";
    EXPECT_FALSE(api->supports(91));
    // The Toolkit's libnvrtc carries a GNU build-id; it goes into every cache key.
    EXPECT_GE(api->build_id.size(), 16u) << api->build_id;
    EXPECT_EQ(api->build_id.find_first_not_of("0123456789abcdef"), std::string::npos) << api->build_id;
}

TEST(NvrtcLoader, PublicVersionAndArchsMatchTheLoadedLibrary) {
    const cuabi::NvrtcApi* api = cuabi::nvrtc(nullptr);
    ASSERT_NE(api, nullptr) << cuabi_last_error_message();
    int32_t major = -1, minor = -1;
    ASSERT_EQ(cuabi_nvrtc_get_version(&major, &minor), CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_EQ(major, api->major);
    EXPECT_EQ(minor, api->minor);

    size_t count = 0;
    ASSERT_EQ(cuabi_nvrtc_get_supported_archs(nullptr, 0, &count), CUABI_SUCCESS);
    ASSERT_EQ(count, api->supported_archs.size());
    std::vector<int32_t> archs(count, -1);
    EXPECT_EQ(cuabi_nvrtc_get_supported_archs(archs.data(), count - 1, &count), CUABI_ERROR_BUFFER_TOO_SMALL);
    EXPECT_EQ(count, api->supported_archs.size()) << "a too-small buffer still reports the count";
    ASSERT_EQ(cuabi_nvrtc_get_supported_archs(archs.data(), archs.size(), &count), CUABI_SUCCESS);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(archs[i], api->supported_archs[i]);
    EXPECT_EQ(cuabi_nvrtc_get_version(nullptr, &minor), CUABI_ERROR_INVALID_ARGUMENT);
}

TEST(NvrtcLoader, MissingLibraryGivesNvrtcNotFoundWithPathAndFix) {
    std::string self = self_path();
    ASSERT_FALSE(self.empty());
    test_support::ChildResult child = test_support::run_child(
        {self}, {{"CUABI_TEST_NVRTC_PROBE", "1"}, {"CUABI_NVRTC_PATH", "/nonexistent/libnvrtc.so.13"}});
    ASSERT_EQ(child.exit_status, 0) << child.output;
    for (const char* call : {"nvrtc_version ", "compile_offline "}) {
        size_t at = child.output.find(call);
        ASSERT_NE(at, std::string::npos) << child.output;
        std::string line = child.output.substr(at, child.output.find('\n', at) - at);
        EXPECT_NE(line.find("CUABI_ERROR_NVRTC_NOT_FOUND"), std::string::npos) << line;
        EXPECT_NE(line.find("/nonexistent/libnvrtc.so.13"), std::string::npos) << line;
        EXPECT_NE(line.find("Fix: "), std::string::npos) << line;
    }
}

TEST(NvrtcLoader, AFileThatIsNotNvrtcIsRefusedNamingWhatIsMissing) {
    std::string self = self_path();
    // libc is a real shared library without a single NVRTC entry point.
    test_support::ChildResult child =
        test_support::run_child({self}, {{"CUABI_TEST_NVRTC_PROBE", "1"}, {"CUABI_NVRTC_PATH", "libc.so.6"}});
    ASSERT_EQ(child.exit_status, 0) << child.output;
    EXPECT_NE(child.output.find("nvrtc_version CUABI_ERROR_NVRTC_NOT_FOUND"), std::string::npos) << child.output;
    EXPECT_NE(child.output.find("nvrtcCompileProgram"), std::string::npos) << child.output;
}

}  // namespace
