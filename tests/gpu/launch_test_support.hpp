// Shared by the launch GPU suites: a fixture that compiles kernels on the test's context, makes
// device buffers, and cleans everything up; plus packing helpers for cuabi_launch_packed.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

// Kernels the launch-check suites share: `fill` writes value + its global index (blocks and
// threads in x and y), `bounded` has launch bounds below the device's limit, and `rotate` moves
// data through dynamic shared memory of any size.
inline const char* const kFillSource = R"(
extern "C" __global__ void fill(unsigned int* out, unsigned int value) {
    unsigned int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    out[i] = value + i;
}
extern "C" __global__ void __launch_bounds__(128) bounded(unsigned int* out, unsigned int value) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}
)";

inline const char* const kRotateSource = R"(
extern "C" __global__ void rotate(unsigned int* out, unsigned int words) {
    extern __shared__ unsigned int tile[];
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) tile[i] = i * 2654435761u;
    __syncthreads();
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) out[i] = tile[(i + words / 2) % words];
}
)";

// The argument checks, as both launch paths must make them, for a kernel taking
// (unsigned int* out, unsigned int value): a wrong count, a wrong size, a NULL value, a NULL table,
// a wrong packed size and a NULL packed buffer each get their own status and message.
inline void expect_argument_checks(cuabi_kernel* kernel, const cuabi_launch_config& launch, uint64_t out_address,
                                   uint32_t value) {
    auto mentions = [](const char* fragment) {
        std::string text = cuabi_last_error_message();
        EXPECT_NE(text.find(fragment), std::string::npos) << "message lacks '" << fragment << "': " << text;
    };
    cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}, {&value, 4}};
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &launch, args, 1), CUABI_ERROR_ARGUMENT_COUNT);
    mentions("takes 2 parameters but 1 argument was given");
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &launch, args, 3), CUABI_ERROR_ARGUMENT_COUNT);
    uint64_t wide = value;
    cuabi_kernel_arg wrong_size[] = {{&out_address, 8}, {&wide, 8}};
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &launch, wrong_size, 2), CUABI_ERROR_ARGUMENT_SIZE);
    mentions("args[1] is 8 bytes, but parameter 1 is 4 bytes (at offset 8)");
    cuabi_kernel_arg null_value[] = {{&out_address, 8}, {nullptr, 4}};
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &launch, null_value, 2), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &launch, nullptr, 2), CUABI_ERROR_INVALID_ARGUMENT);
    uint8_t packed[16] = {};
    EXPECT_STATUS_WITH_FIX(cuabi_launch_packed(kernel, &launch, packed, 16), CUABI_ERROR_ARGUMENT_SIZE);
    mentions("packed_size is 16, but its 2 parameters take 12 bytes");
    EXPECT_STATUS_WITH_FIX(cuabi_launch_packed(kernel, &launch, nullptr, 12), CUABI_ERROR_INVALID_ARGUMENT);
}

class LaunchTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        info = cuabi_device_info CUABI_DEVICE_INFO_INIT;
        ASSERT_OK(cuabi_context_get_device_info(context, &info));
    }

    void TearDown() override {
        for (cuabi_kernel* kernel : kernels_) cuabi_kernel_destroy(kernel);
        for (cuabi_module* module : modules_) cuabi_module_destroy(module);
        for (cuabi_buffer* buffer : buffers_) cuabi_buffer_destroy(buffer);
        for (cuabi_stream* stream : streams_) cuabi_stream_destroy(stream);
        GpuTest::TearDown();
    }

    // Compiles `source` for the context's device and returns its kernel `name` (a symbol or one
    // of `expressions`); fails the test on error.
    cuabi_kernel* kernel(const char* source, const char* name, std::vector<const char*> expressions = {}) {
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
        options.name_expressions = expressions.empty() ? nullptr : expressions.data();
        options.name_expression_count = expressions.size();
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile(context, source, &options, &module);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        if (status != CUABI_SUCCESS) return nullptr;
        modules_.push_back(module);
        cuabi_kernel* found = nullptr;
        status = cuabi_module_get_kernel(module, name, &found);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        if (status != CUABI_SUCCESS) return nullptr;
        kernels_.push_back(found);
        return found;
    }

    // A device buffer of `size` bytes filled with 0xA5 (poison), and its device address.
    cuabi_buffer* buffer(size_t size, uint64_t* out_address) {
        cuabi_buffer* made = nullptr;
        cuabi_status status = cuabi_buffer_create(context, size, nullptr, &made);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        if (status != CUABI_SUCCESS) return nullptr;
        buffers_.push_back(made);
        EXPECT_EQ(cuabi_buffer_fill(made, 0, 0xA5, 1, size, nullptr), CUABI_SUCCESS) << cuabi_last_error_message();
        EXPECT_EQ(cuabi_buffer_get_device_address(made, out_address), CUABI_SUCCESS) << cuabi_last_error_message();
        return made;
    }

    cuabi_stream* stream() {
        cuabi_stream* made = nullptr;
        cuabi_status status = cuabi_stream_create(context, nullptr, &made);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        if (status == CUABI_SUCCESS) streams_.push_back(made);
        return made;
    }

    // The kernel's arguments in one buffer at the offsets cuabi reports, as an FFI caller builds it.
    static std::vector<uint8_t> pack(cuabi_kernel* kernel, const std::vector<cuabi_kernel_arg>& args) {
        size_t count = 0;
        EXPECT_EQ(cuabi_kernel_get_param_count(kernel, &count), CUABI_SUCCESS) << cuabi_last_error_message();
        EXPECT_EQ(count, args.size());
        std::vector<uint8_t> packed;
        for (size_t i = 0; i < count && i < args.size(); ++i) {
            size_t offset = 0, size = 0;
            EXPECT_EQ(cuabi_kernel_get_param_info(kernel, i, &offset, &size), CUABI_SUCCESS) << cuabi_last_error_message();
            EXPECT_EQ(size, args[i].size) << "parameter " << i;
            if (packed.size() < offset + size) packed.resize(offset + size, 0);
            std::memcpy(packed.data() + offset, args[i].value, size);
        }
        return packed;
    }

    static cuabi_launch_config config(uint32_t grid, uint32_t block, uint32_t shared = 0, uint32_t flags = 0) {
        cuabi_launch_config made;
        cuabi_launch_config_init(sizeof made, &made);
        made.grid[0] = grid;
        made.block[0] = block;
        made.shared_memory_bytes = shared;
        made.flags = flags;
        return made;
    }

    static std::string message() { return cuabi_last_error_message(); }

    cuabi_device_info info{};

private:
    std::vector<cuabi_kernel*> kernels_;
    std::vector<cuabi_module*> modules_;
    std::vector<cuabi_buffer*> buffers_;
    std::vector<cuabi_stream*> streams_;
};
