// A module's __device__ and __constant__ variables as buffers (cuabi_module_get_global): found by
// name or name expression (also on a cache hit), written and read bounds-checked, seen by the
// module's kernels, and keeping the module loaded.
#include <cstring>
#include <string>
#include <vector>

#include "module_test_support.hpp"

namespace {

const char* const kGlobals = R"(
__constant__ float coefficients[4];
__device__ unsigned counter;
template <typename T> __device__ T table[8];

extern "C" __global__ void apply(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = coefficients[i % 4] * x[i];
    if (i == 0) atomicAdd(&counter, n);
}
extern "C" __global__ void copy_table(float* out) {
    out[threadIdx.x] = table<float>[threadIdx.x] + 0.5f;
}
)";

class ModuleGlobalTest : public ModuleTest {
protected:
    void TearDown() override {
        for (cuabi_buffer* buffer : buffers_) cuabi_buffer_destroy(buffer);
        ModuleTest::TearDown();
    }
    cuabi_buffer* global(cuabi_module* module, const char* name) {
        cuabi_buffer* found = nullptr;
        cuabi_status status = cuabi_module_get_global(module, name, &found);
        EXPECT_EQ(status, CUABI_SUCCESS) << name << ": " << cuabi_failure_text(status);
        if (found != nullptr) buffers_.push_back(found);
        return found;
    }
    cuabi_buffer* device_buffer(size_t size) {
        cuabi_buffer* made = nullptr;
        EXPECT_OK(cuabi_buffer_create(context, size, nullptr, &made));
        if (made != nullptr) buffers_.push_back(made);
        return made;
    }
    void run(cuabi_kernel* kernel, uint32_t threads, std::vector<cuabi_kernel_arg> args) {
        cuabi_launch_config launch = CUABI_LAUNCH_CONFIG_INIT;
        launch.grid[0] = 1;
        launch.block[0] = threads;
        ASSERT_OK(cuabi_launch(kernel, &launch, args.data(), args.size()));
    }

private:
    std::vector<cuabi_buffer*> buffers_;
};

TEST_F(ModuleGlobalTest, ConstantMemoryWrittenThroughTheBufferIsSeenByKernels) {
    cuabi_module* module = compile(kGlobals);
    ASSERT_NE(module, nullptr);
    cuabi_buffer* coefficients = global(module, "coefficients");
    cuabi_buffer* counter = global(module, "counter");
    ASSERT_NE(coefficients, nullptr);
    ASSERT_NE(counter, nullptr);
    size_t size = 0;
    ASSERT_OK(cuabi_buffer_get_size(coefficients, &size));
    EXPECT_EQ(size, 4 * sizeof(float));
    ASSERT_OK(cuabi_buffer_get_size(counter, &size));
    EXPECT_EQ(size, sizeof(unsigned));

    const float factors[4] = {2.0f, -1.0f, 0.5f, 4.0f};
    cuabi_stream* on = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &on));
    ASSERT_OK(cuabi_buffer_write(coefficients, 0, factors, sizeof factors, on));  // ordered before the launch
    const unsigned zero = 0;
    ASSERT_OK(cuabi_buffer_write(counter, 0, &zero, sizeof zero, nullptr));

    constexpr unsigned kCount = 64;
    std::vector<float> values(kCount);
    for (unsigned i = 0; i < kCount; ++i) values[i] = static_cast<float>(i + 1);
    cuabi_buffer* data = device_buffer(kCount * sizeof(float));
    ASSERT_OK(cuabi_buffer_write(data, 0, values.data(), kCount * sizeof(float), on));
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(data, &address));
    cuabi_kernel* apply = kernel(module, "apply");
    ASSERT_NE(apply, nullptr);
    unsigned n = kCount;
    cuabi_launch_config launch = CUABI_LAUNCH_CONFIG_INIT;
    launch.grid[0] = 1;
    launch.block[0] = kCount;
    launch.stream = on;
    cuabi_kernel_arg args[] = {{&address, sizeof address}, {&n, sizeof n}};
    ASSERT_OK(cuabi_launch(apply, &launch, args, 2));
    ASSERT_OK(cuabi_stream_synchronize(on));
    cuabi_stream_destroy(on);

    std::vector<float> result(kCount);
    ASSERT_OK(cuabi_buffer_read(data, 0, result.data(), kCount * sizeof(float), nullptr));
    for (unsigned i = 0; i < kCount; ++i) EXPECT_EQ(result[i], factors[i % 4] * values[i]) << "at " << i;
    unsigned counted = 0;
    ASSERT_OK(cuabi_buffer_read(counter, 0, &counted, sizeof counted, nullptr));
    EXPECT_EQ(counted, kCount);
    float back[4] = {};
    ASSERT_OK(cuabi_buffer_read(coefficients, 0, back, sizeof back, nullptr));
    EXPECT_EQ(std::memcmp(back, factors, sizeof back), 0);
}

TEST_F(ModuleGlobalTest, BoundsAreTheVariablesSize) {
    cuabi_module* module = compile(kGlobals);
    ASSERT_NE(module, nullptr);
    cuabi_buffer* coefficients = global(module, "coefficients");
    ASSERT_NE(coefficients, nullptr);
    const float five[5] = {};
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_write(coefficients, 0, five, sizeof five, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_write(coefficients, 4, five, 4 * sizeof(float), nullptr),
                           CUABI_ERROR_OUT_OF_BOUNDS);
}

TEST_F(ModuleGlobalTest, TemplatedGlobalsResolveByNameExpressionAlsoOnACacheHit) {
    const char* expressions[] = {"table<float>"};
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    for (int round = 0; round < 2; ++round) {  // the second compile is a memory-cache hit
        SCOPED_TRACE(round == 0 ? "compiled" : "cache hit");
        cuabi_module* module = compile(kGlobals);
        ASSERT_NE(module, nullptr);
        cuabi_buffer* table = global(module, "table<float>");
        ASSERT_NE(table, nullptr);
        std::vector<float> entries(8);
        for (int i = 0; i < 8; ++i) entries[i] = static_cast<float>(10 * i + round);
        ASSERT_OK(cuabi_buffer_write(table, 0, entries.data(), 8 * sizeof(float), nullptr));
        cuabi_buffer* out = device_buffer(8 * sizeof(float));
        uint64_t address = 0;
        ASSERT_OK(cuabi_buffer_get_device_address(out, &address));
        cuabi_kernel* copy = kernel(module, "copy_table");
        ASSERT_NE(copy, nullptr);
        run(copy, 8, {{&address, sizeof address}});
        std::vector<float> result(8);
        ASSERT_OK(cuabi_buffer_read(out, 0, result.data(), 8 * sizeof(float), nullptr));
        for (int i = 0; i < 8; ++i) EXPECT_EQ(result[i], entries[i] + 0.5f) << "at " << i;
    }
}

TEST_F(ModuleGlobalTest, UnknownNamesListWhatTheModuleKnows) {
    const char* expressions[] = {"table<float>"};
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    cuabi_module* module = compile(kGlobals);
    ASSERT_NE(module, nullptr);
    cuabi_buffer* none = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_global(module, "coefficent", &none), CUABI_ERROR_NOT_FOUND);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("table<float>"), std::string::npos)
        << cuabi_last_error_message();
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_global(module, "table<int>", &none), CUABI_ERROR_NOT_FOUND);
    // A kernel is not a variable.
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_global(module, "apply", &none), CUABI_ERROR_NOT_FOUND);
    EXPECT_EQ(none, nullptr);
}

TEST_F(ModuleGlobalTest, TheBufferKeepsItsModuleLoaded) {
    cuabi_module* module = nullptr;
    ASSERT_OK(cuabi_module_compile(context, kGlobals, &options, &module));
    cuabi_buffer* counter = nullptr;
    ASSERT_OK(cuabi_module_get_global(module, "counter", &counter));
    cuabi_module_destroy(module);  // the buffer still holds the module
    const unsigned value = 12345;
    EXPECT_OK(cuabi_buffer_write(counter, 0, &value, sizeof value, nullptr));
    unsigned back = 0;
    EXPECT_OK(cuabi_buffer_read(counter, 0, &back, sizeof back, nullptr));
    EXPECT_EQ(back, value);
    cuabi_buffer_destroy(counter);  // frees nothing; unloads the module
}

}  // namespace
