// Shared by the module and kernel GPU suites: a fixture that compiles and loads modules on the
// test's context, releases everything it made, and runs small int kernels on random inputs so
// that a test proves WHICH kernel it found by what the kernel computes.
#pragma once

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

// Kernels of these suites: negate (extern "C"), and add_k<K> (a template, found by expression).
inline const char* const kIntKernels = R"(
extern "C" __global__ void negate(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = -x[i];
}
template <int K>
__global__ void add_k(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += K;
}
)";

class ModuleTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        ASSERT_OK(cuabi_context_get_device_info(context, &device));
        device_arch = device.compute_capability_major * 10 + device.compute_capability_minor;
        cuabi_compile_options_init(sizeof options, &options);
    }

    void TearDown() override {
        for (cuabi_kernel* kernel : kernels_) cuabi_kernel_destroy(kernel);
        for (cuabi_module* module : modules_) cuabi_module_destroy(module);
        GpuTest::TearDown();
    }

    cuabi_module* track(cuabi_module* module) {
        if (module != nullptr) modules_.push_back(module);
        return module;
    }
    cuabi_kernel* track(cuabi_kernel* kernel) {
        if (kernel != nullptr) kernels_.push_back(kernel);
        return kernel;
    }

    // Compiles `source` with `options` on the context; fails the test on error.
    cuabi_module* compile(const char* source) {
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile(context, source, &options, &module);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        return track(module);
    }

    cuabi_kernel* kernel(cuabi_module* module, const char* name) {
        cuabi_kernel* found = nullptr;
        cuabi_status status = cuabi_module_get_kernel(module, name, &found);
        EXPECT_EQ(status, CUABI_SUCCESS) << name << ": " << cuabi_failure_text(status);
        return track(found);
    }

    cuabi_module_info info(cuabi_module* module) {
        cuabi_module_info facts = CUABI_MODULE_INFO_INIT;
        EXPECT_OK(cuabi_module_get_info(module, &facts));
        return facts;
    }

    std::vector<uint8_t> image(cuabi_module* module) {
        size_t size = 0;
        EXPECT_OK(cuabi_module_get_image(module, nullptr, 0, &size));
        std::vector<uint8_t> bytes(size);
        EXPECT_OK(cuabi_module_get_image(module, bytes.data(), bytes.size(), &size));
        return bytes;
    }

    // Runs kernel(int* x, int n) on `count` random ints and returns what it left in x. The
    // inputs are returned through *out_inputs so the caller can compute the expected result.
    std::vector<int32_t> run_int_kernel(cuabi_kernel* kernel, std::vector<int32_t>* out_inputs, uint32_t seed,
                                        int32_t count = 1000) {
        std::mt19937 generator(seed);
        std::vector<int32_t> inputs(static_cast<size_t>(count));
        for (int32_t& value : inputs) value = static_cast<int32_t>(generator() % 2000001) - 1000000;
        *out_inputs = inputs;
        size_t bytes = inputs.size() * sizeof(int32_t);
        cuabi_buffer* buffer = nullptr;
        EXPECT_OK(cuabi_buffer_create(context, bytes, nullptr, &buffer));
        if (buffer == nullptr) return {};
        EXPECT_OK(cuabi_buffer_write(buffer, 0, inputs.data(), bytes, nullptr));
        uint64_t address = 0;
        EXPECT_OK(cuabi_buffer_get_device_address(buffer, &address));
        cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
        config.grid[0] = static_cast<uint32_t>((count + 127) / 128);
        config.block[0] = 128;
        cuabi_kernel_arg args[] = {{&address, sizeof address}, {&count, sizeof count}};
        EXPECT_OK(cuabi_launch(kernel, &config, args, 2));
        std::vector<int32_t> outputs(inputs.size(), static_cast<int32_t>(0xA5A5A5A5));  // poisoned
        EXPECT_OK(cuabi_buffer_read(buffer, 0, outputs.data(), bytes, nullptr));
        cuabi_buffer_destroy(buffer);
        return outputs;
    }

    // Expects `kernel` to add `k` to every element (negate: k is ignored, pass `negate` true).
    void expect_computes(cuabi_kernel* kernel, bool negate, int32_t k, uint32_t seed) {
        ASSERT_NE(kernel, nullptr);
        std::vector<int32_t> inputs;
        std::vector<int32_t> outputs = run_int_kernel(kernel, &inputs, seed);
        ASSERT_EQ(outputs.size(), inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
            ASSERT_EQ(outputs[i], negate ? -inputs[i] : inputs[i] + k) << "element " << i;
    }

    cuabi_device_info device = CUABI_DEVICE_INFO_INIT;
    int device_arch = 0;
    cuabi_compile_options options;

private:
    std::vector<cuabi_module*> modules_;
    std::vector<cuabi_kernel*> kernels_;
};
