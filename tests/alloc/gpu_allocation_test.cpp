// Every allocation of a first launch and of a capture (begin, a fill, a launch, end, replay)
// fails in turn (failing_new.hpp): each run returns a status with a message, never an exception or
// a crash; no stream is left capturing; and once allocations succeed again the work is right.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <vector>

#include "failing_new.hpp"
#include "gpu_test_support.hpp"

namespace {

const char* const kSource = R"(extern "C" __global__ void twice(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
})";
constexpr int32_t kCount = 1000;

class AllocationFailure : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        // In this process: the worker lives beside the shared library, which this test does not use.
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.flags = CUABI_COMPILE_IN_PROCESS;
        ASSERT_OK(cuabi_module_compile(context, kSource, &options, &module));
        ASSERT_OK(cuabi_stream_create(context, nullptr, &stream));
        ASSERT_OK(cuabi_buffer_create(context, kCount * sizeof(int32_t), nullptr, &buffer));
        ASSERT_OK(cuabi_buffer_get_device_address(buffer, &address));
        config.grid[0] = (kCount + 127) / 128;
        config.block[0] = 128;
        config.stream = stream;
    }
    void TearDown() override {
        cuabi_buffer_destroy(buffer);
        cuabi_stream_destroy(stream);
        cuabi_module_destroy(module);
        GpuTest::TearDown();
    }

    cuabi_status launch(cuabi_kernel* kernel) {
        int32_t count = kCount;
        cuabi_kernel_arg args[] = {{&address, sizeof address}, {&count, sizeof count}};
        return cuabi_launch(kernel, &config, args, 2);
    }

    // Fills the buffer with 0, 1, 2, ... and returns what it holds after `work`.
    std::vector<int32_t> after(const std::function<void()>& work) {
        std::vector<int32_t> values(kCount);
        std::iota(values.begin(), values.end(), 0);
        EXPECT_OK(cuabi_buffer_write(buffer, 0, values.data(), values.size() * sizeof(int32_t), nullptr));
        work();
        EXPECT_OK(cuabi_buffer_read(buffer, 0, values.data(), values.size() * sizeof(int32_t), nullptr));
        return values;
    }

    cuabi_module* module = nullptr;
    cuabi_stream* stream = nullptr;
    cuabi_buffer* buffer = nullptr;
    uint64_t address = 0;
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
};

TEST_F(AllocationFailure, EveryAllocationOfAFirstLaunchFailsInTurn) {
    // A new kernel handle per run: its first launch gathers the kernel's facts (and allocates).
    const long sites = failing_new::fail_each_allocation(
        [&] {
            failing_new::pause();
            cuabi_kernel* kernel = nullptr;
            EXPECT_OK(cuabi_module_get_kernel(module, "twice", &kernel));
            failing_new::resume();
            cuabi_status status = launch(kernel);
            if (status == CUABI_SUCCESS) status = cuabi_stream_synchronize(stream);
            failing_new::pause();
            cuabi_kernel_destroy(kernel);
            return status;
        },
        20000);
    EXPECT_GT(sites, 0) << "the injection did not reach the launch";
    cuabi_kernel* kernel = nullptr;
    ASSERT_OK(cuabi_module_get_kernel(module, "twice", &kernel));
    std::vector<int32_t> values = after([&] {
        EXPECT_OK(launch(kernel));
        EXPECT_OK(cuabi_stream_synchronize(stream));
    });
    for (int32_t i = 0; i < kCount; ++i) ASSERT_EQ(values[i], 2 * i) << "element " << i;
    cuabi_kernel_destroy(kernel);
}

// Loading an image into the context and resolving a kernel of it: a failure after the driver
// loaded the image (the loaded module's own object) unloads it again, and the next run loads anew.
TEST_F(AllocationFailure, EveryAllocationOfALoadFailsInTurn) {
    size_t size = 0;
    ASSERT_OK(cuabi_module_get_image(module, nullptr, 0, &size));
    std::vector<uint8_t> image(size);
    ASSERT_OK(cuabi_module_get_image(module, image.data(), image.size(), &size));
    const long sites = failing_new::fail_each_allocation(
        [&] {
            cuabi_module* loaded = nullptr;
            cuabi_kernel* kernel = nullptr;
            cuabi_status status = cuabi_module_load_image(context, image.data(), image.size(), &loaded);
            if (status == CUABI_SUCCESS) status = cuabi_module_get_kernel(loaded, "twice", &kernel);
            failing_new::pause();
            cuabi_kernel_destroy(kernel);
            cuabi_module_destroy(loaded);  // the last reference: unloads
            return status;
        },
        20000);
    EXPECT_GT(sites, 0) << "the injection did not reach the load";
    cuabi_module* loaded = nullptr;
    cuabi_kernel* kernel = nullptr;
    ASSERT_OK(cuabi_module_load_image(context, image.data(), image.size(), &loaded));
    ASSERT_OK(cuabi_module_get_kernel(loaded, "twice", &kernel));
    std::vector<int32_t> values = after([&] {
        EXPECT_OK(launch(kernel));
        EXPECT_OK(cuabi_stream_synchronize(stream));
    });
    for (int32_t i = 0; i < kCount; ++i) ASSERT_EQ(values[i], 2 * i) << "element " << i;
    cuabi_kernel_destroy(kernel);
    cuabi_module_destroy(loaded);
}

TEST_F(AllocationFailure, EveryAllocationOfACaptureFailsInTurnAndNoStreamStaysCapturing) {
    cuabi_kernel* kernel = nullptr;
    ASSERT_OK(cuabi_module_get_kernel(module, "twice", &kernel));
    ASSERT_OK(launch(kernel));  // the kernel's facts are gathered: the capture's own allocations remain
    ASSERT_OK(cuabi_stream_synchronize(stream));
    auto capture_and_replay = [&] {
        cuabi_status status = cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_RELAXED);
        if (status == CUABI_SUCCESS) status = cuabi_buffer_fill(buffer, 0, 1, 4, kCount, stream);
        if (status == CUABI_SUCCESS) status = launch(kernel);
        cuabi_graph* graph = nullptr;
        if (status == CUABI_SUCCESS) status = cuabi_graph_capture_end(stream, nullptr, &graph);
        if (status == CUABI_SUCCESS) status = cuabi_graph_launch(graph, stream);
        if (status == CUABI_SUCCESS) status = cuabi_stream_synchronize(stream);
        cuabi_graph_destroy(graph);
        return status;
    };
    const long sites = failing_new::fail_each_allocation(
        [&] {
            const cuabi_status status = capture_and_replay();
            failing_new::pause();
            int32_t capturing = -1;
            EXPECT_OK(cuabi_graph_capture_get_status(stream, &capturing));
            EXPECT_EQ(capturing, CUABI_CAPTURE_STATUS_NONE) << "a failed capture left the stream capturing";
            if (capturing != CUABI_CAPTURE_STATUS_NONE) cuabi_graph_capture_abort(stream);
            return status;
        },
        20000);
    EXPECT_GT(sites, 5) << "the injection did not reach the capture";
    std::vector<int32_t> values = after([&] { EXPECT_OK(capture_and_replay()); });
    for (int32_t i = 0; i < kCount; ++i) ASSERT_EQ(values[i], 2) << "element " << i << ": fill 1, then twice";
    cuabi_kernel_destroy(kernel);
}

}  // namespace
