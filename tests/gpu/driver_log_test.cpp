// Messages of driver-caused failures quote the driver's own error log (CUDA 12.9+): "Driver log:
// <the driver's line>" before the fix. Which failures the driver explains is the driver's choice,
// so this provokes several real ones and requires the log in at least one of them -- and never in a
// failure cuabi found without the driver.
#include <sys/mman.h>

#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

class DriverLogTest : public GpuTest {};

// "... Driver log: Returning 2 (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2. Fix: ..." -- a quote
// that names an entry point.
bool quotes_the_driver(const std::string& message) {
    const size_t quote = message.find("Driver log: ");
    return quote != std::string::npos && message.find("cu", quote + 12) < message.find("Fix: ");
}

TEST_F(DriverLogTest, DriverFailuresQuoteWhatTheDriverLogged) {
    int32_t version = 0;
    ASSERT_OK(cuabi_driver_get_version(&version));
    if (version < 12090) GTEST_SKIP() << "the driver (CUDA " << version << ") keeps no error log before CUDA 12.9";

    std::vector<std::string> messages;
    // 1. Allocating device memory that is not there: two buffers of 70% of the device each.
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    ASSERT_OK(cuabi_context_get_device_info(context, &info));
    const size_t big = static_cast<size_t>(info.total_memory_bytes / 10 * 7);
    cuabi_buffer* first = nullptr;
    cuabi_buffer* second = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, big, nullptr, &first));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create(context, big, nullptr, &second), CUABI_ERROR_DEVICE_OUT_OF_MEMORY);
    messages.push_back(cuabi_last_error_message());
    cuabi_buffer_destroy(first);

    // 2. Registering host memory twice.
    const size_t size = 1 << 20;
    void* mapping = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapping, MAP_FAILED);
    cuabi_host_memory* registered = nullptr;
    cuabi_host_memory* twice = nullptr;
    ASSERT_OK(cuabi_host_memory_register(context, mapping, size, nullptr, &registered));
    EXPECT_STATUS_WITH_FIX(cuabi_host_memory_register(context, mapping, size, nullptr, &twice),
                           CUABI_ERROR_INVALID_ARGUMENT);
    messages.push_back(cuabi_last_error_message());
    cuabi_host_memory_destroy(registered);
    munmap(mapping, size);

    // 3. An attribute the driver does not know.
    int32_t value = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_device_get_attribute(0, 100000, &value), CUABI_ERROR_INVALID_ARGUMENT);
    messages.push_back(cuabi_last_error_message());

    size_t quoting = 0;
    for (const std::string& message : messages) {
        std::printf("  message: %s\n", message.c_str());
        if (quotes_the_driver(message)) {
            ++quoting;
            EXPECT_LT(message.find("Driver log: "), message.find("Fix: ")) << "the quote comes before the fix";
        }
    }
    EXPECT_GT(quoting, 0u) << "no driver failure quoted the driver's log";

    // A failure cuabi finds itself never reaches the driver, so it quotes nothing.
    EXPECT_STATUS_WITH_FIX(cuabi_device_get_attribute(0, 0, &value), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_FALSE(quotes_the_driver(cuabi_last_error_message())) << cuabi_last_error_message();
}

}  // namespace
