// A compile batch for a context: every variant's module is loaded on the device, found by its
// name expression and computes what its own template argument says.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

const char* const kSource =
    "template <int V> __global__ void put(int* out) { out[threadIdx.x] = V * 1000 + OFFSET + threadIdx.x; }\n";

}  // namespace

class CompileBatchGpu : public GpuTest {};

TEST_F(CompileBatchGpu, EachVariantOfABatchLaunchesAndComputesItsOwnResult) {
    constexpr int kVariants = 6;
    constexpr unsigned kThreads = 64;
    const std::string salt = std::to_string(getpid()) + ":" +
                             std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    std::vector<std::string> expressions(kVariants), defines(kVariants);
    std::vector<const char*> expression_ptrs(kVariants), define_ptrs(kVariants);
    std::vector<cuabi_compile_options> options(kVariants);
    std::vector<cuabi_compile_request> requests(kVariants);
    for (int k = 0; k < kVariants; ++k) {
        expressions[k] = "put<" + std::to_string(k + 1) + ">";
        defines[k] = "OFFSET=" + std::to_string(7 * k);
        expression_ptrs[k] = expressions[k].c_str();
        define_ptrs[k] = defines[k].c_str();
        ASSERT_OK(cuabi_compile_options_init(sizeof options[k], &options[k]));
        options[k].name_expressions = &expression_ptrs[k];
        options[k].name_expression_count = 1;
        options[k].defines = &define_ptrs[k];
        options[k].define_count = 1;
        options[k].salt = salt.data();
        options[k].salt_size = salt.size();
        requests[k] = {context, kSource, &options[k]};
    }
    cuabi_compile_batch* batch = nullptr;
    ASSERT_OK(cuabi_compile_batch_start(requests.data(), requests.size(), 0, &batch));
    cuabi_buffer* out = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, kThreads * sizeof(int), nullptr, &out));
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(out, &address));
    for (int k = 0; k < kVariants; ++k) {
        cuabi_module* module = nullptr;
        ASSERT_OK(cuabi_compile_batch_get_module(batch, k, &module));
        cuabi_kernel* kernel = nullptr;
        ASSERT_OK(cuabi_module_get_kernel(module, expressions[k].c_str(), &kernel));
        cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
        config.block[0] = kThreads;
        cuabi_kernel_arg arg{&address, sizeof address};
        ASSERT_OK(cuabi_launch(kernel, &config, &arg, 1));
        std::vector<int> got(kThreads, -1);
        ASSERT_OK(cuabi_buffer_read(out, 0, got.data(), got.size() * sizeof(int), nullptr));
        for (unsigned i = 0; i < kThreads; ++i)
            ASSERT_EQ(got[i], (k + 1) * 1000 + 7 * k + static_cast<int>(i)) << "variant " << k << ", thread " << i;
        cuabi_kernel_destroy(kernel);
        cuabi_module_destroy(module);
    }
    cuabi_buffer_destroy(out);
    cuabi_compile_batch_destroy(batch);
}
