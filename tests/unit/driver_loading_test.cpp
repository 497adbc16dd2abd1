// Loading the CUDA driver on machines where it is missing or unusable: every call
// that needs the GPU returns a status and a message saying what is missing and how to fix it.
//
// The driver is loaded once per process, so each case runs in a fresh child process: this test
// binary re-executed with CUABI_TEST_DRIVER_PROBE set, which makes it run probe() below instead
// of the tests. The cases hold on any machine, GPU or not, because they point the loader at a
// file that is not a working driver.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "child_process.hpp"
#include "cuabi/cuabi.h"

namespace {

// In the child: one line per call, "<call> <status name> <message>".
void print_outcome(const char* call, cuabi_status status) {
    std::printf("%s %s %s\n", call, cuabi_status_name(status),
                status == CUABI_SUCCESS ? "-" : cuabi_last_error_message());
}

int probe() {
    int32_t version = 0, count = 0;
    print_outcome("driver_version", cuabi_driver_get_version(&version));
    print_outcome("device_count", cuabi_device_get_count(&count));
    cuabi_context* context = nullptr;
    print_outcome("context_create", cuabi_context_create(nullptr, &context));
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    print_outcome("device_info_get", cuabi_device_get_info(0, &info));
    cuabi_context_destroy(context);
    std::fflush(stdout);
    return 0;
}

// Runs before main() (and so before GoogleTest) in the child only.
const bool probed_in_child = [] {
    if (std::getenv("CUABI_TEST_DRIVER_PROBE") != nullptr) std::_Exit(probe());
    return false;
}();

struct ProbeLine {
    std::string status;
    std::string message;
};

// Runs the probe with CUABI_LIBCUDA_PATH=path and returns the line for `call`.
ProbeLine probe_with_driver_path(const std::string& path, const std::string& call, std::string* all_output) {
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return {"readlink failed", ""};
    self[length] = '\0';
    test_support::ChildResult child =
        test_support::run_child({self}, {{"CUABI_TEST_DRIVER_PROBE", "1"}, {"CUABI_LIBCUDA_PATH", path}});
    *all_output = child.output;
    std::istringstream lines(child.output);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.compare(0, call.size() + 1, call + " ") != 0) continue;
        size_t space = line.find(' ', call.size() + 1);
        return {line.substr(call.size() + 1, space - call.size() - 1), line.substr(space + 1)};
    }
    return {"no line for " + call, ""};
}

TEST(DriverLoading, MissingDriverFileGivesDriverNotFoundNamingThePathAndTheFix) {
    std::string output;
    ProbeLine line = probe_with_driver_path("/nonexistent/libcuda.so.1", "driver_version", &output);
    EXPECT_EQ(line.status, "CUABI_ERROR_DRIVER_NOT_FOUND") << output;
    EXPECT_NE(line.message.find("'/nonexistent/libcuda.so.1' could not be loaded"), std::string::npos) << output;
    EXPECT_NE(line.message.find("Fix: point CUABI_LIBCUDA_PATH at"), std::string::npos) << output;
}

TEST(DriverLoading, EveryGpuCallAfterAFailedLoadReportsTheSameReason) {
    std::string output;
    ProbeLine first = probe_with_driver_path("/nonexistent/libcuda.so.1", "driver_version", &output);
    for (const char* call : {"device_count", "context_create", "device_info_get"}) {
        ProbeLine line = probe_with_driver_path("/nonexistent/libcuda.so.1", call, &output);
        EXPECT_EQ(line.status, "CUABI_ERROR_DRIVER_NOT_FOUND") << call << ": " << output;
        EXPECT_EQ(line.message, first.message) << call;
    }
}

TEST(DriverLoading, FileThatIsNotALibraryGivesDriverNotFoundWithTheLoaderReason) {
    std::string output;
    // This test's own source: a file that exists but is no library. (An absolute path, not
    // __FILE__, which a compiler launcher such as ccache may make relative to the build directory.)
    const std::string not_a_library = CUABI_TEST_SOURCE_DIR "/tests/unit/driver_loading_test.cpp";
    ProbeLine line = probe_with_driver_path(not_a_library, "driver_version", &output);
    EXPECT_EQ(line.status, "CUABI_ERROR_DRIVER_NOT_FOUND") << output;
    EXPECT_NE(line.message.find(not_a_library), std::string::npos) << output;
    EXPECT_NE(line.message.find("Fix: "), std::string::npos) << output;
}

TEST(DriverLoading, ToolkitStubLibraryIsRecognizedAsNotADriver) {
    // The CUDA Toolkit's stubs/libcuda.so exports every symbol so programs can link, but each call
    // returns CUDA_ERROR_STUB_LIBRARY. Users hit it when LD_LIBRARY_PATH points at the stubs.
    std::string stub = std::string(CUABI_TEST_CUDA_STUB_DIR) + "/libcuda.so";
    ASSERT_EQ(access(stub.c_str(), R_OK), 0) << "the toolkit's stub driver is missing at " << stub;
    std::string output;
    ProbeLine line = probe_with_driver_path(stub, "driver_version", &output);
    EXPECT_EQ(line.status, "CUABI_ERROR_DRIVER_NOT_FOUND") << output;
    EXPECT_NE(line.message.find("stub"), std::string::npos) << output;
    EXPECT_NE(line.message.find(stub), std::string::npos) << output;
    EXPECT_NE(line.message.find("Fix: "), std::string::npos) << output;
    ProbeLine context = probe_with_driver_path(stub, "context_create", &output);
    EXPECT_EQ(context.status, "CUABI_ERROR_DRIVER_NOT_FOUND") << output;
}

}  // namespace
