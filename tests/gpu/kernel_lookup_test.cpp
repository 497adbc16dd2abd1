// Finding kernels on a real GPU: by symbol name and by C++ name expression (resolved through the
// module's lowered-name map, also on a cache hit), proven by what each found kernel computes;
// unknown names fail listing what the module has; attributes describe the kernel on the device.
#include <unistd.h>

#include <chrono>
#include <string>

#include "module_test_support.hpp"

namespace {

class KernelLookup : public ModuleTest {
protected:
    void SetUp() override {
        ModuleTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        options.name_expressions = expressions;
        options.name_expression_count = 2;
    }
    const char* expressions[2] = {"add_k<3>", "add_k<-5>"};
};

TEST_F(KernelLookup, NamesAndExpressionsFindTheKernelsThatComputeThem) {
    cuabi_module* module = compile(kIntKernels);
    ASSERT_NE(module, nullptr);
    expect_computes(kernel(module, "negate"), true, 0, 11);
    expect_computes(kernel(module, "add_k<3>"), false, 3, 12);
    expect_computes(kernel(module, "add_k<-5>"), false, -5, 13);
}

TEST_F(KernelLookup, ExpressionsResolveOnACacheHitWithoutNvrtc) {
    std::string salt = "lookup-" + std::to_string(getpid()) + "-" +
                       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    options.salt = salt.data();
    options.salt_size = salt.size();
    ASSERT_NE(compile(kIntKernels), nullptr);
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));
    cuabi_module* cached = compile(kIntKernels);
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    EXPECT_EQ(after.compiles, before.compiles) << "a hit must not run NVRTC";
    EXPECT_EQ(info(cached).origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    expect_computes(kernel(cached, "add_k<-5>"), false, -5, 14);
}

TEST_F(KernelLookup, MangledNameFindsTheSameKernelAsItsExpression) {
    cuabi_module* module = compile(kIntKernels);
    char lowered[256];
    size_t size = 0;
    ASSERT_OK(cuabi_module_get_lowered_name(module, "add_k<3>", lowered, sizeof lowered, &size));
    void* by_expression = nullptr;
    void* by_symbol = nullptr;
    ASSERT_OK(cuabi_kernel_get_native(kernel(module, "add_k<3>"), &by_expression));
    ASSERT_OK(cuabi_kernel_get_native(kernel(module, lowered), &by_symbol));
    EXPECT_EQ(by_expression, by_symbol);
}

TEST_F(KernelLookup, ExpressionNotCompiledIsKernelNotFoundListingTheCompiledOnes) {
    cuabi_module* module = compile(kIntKernels);
    cuabi_kernel* found = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_kernel(module, "add_k<7>", &found), CUABI_ERROR_KERNEL_NOT_FOUND);
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("'add_k<7>'"), std::string::npos) << message;
    EXPECT_NE(message.find("\"add_k<3>\""), std::string::npos) << message;
    EXPECT_NE(message.find("\"add_k<-5>\""), std::string::npos) << message;
    EXPECT_EQ(found, nullptr);
}

TEST_F(KernelLookup, UnknownSymbolIsKernelNotFoundListingTheModulesKernels) {
    cuabi_module* module = compile(kIntKernels);
    cuabi_kernel* found = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_kernel(module, "saxpy", &found), CUABI_ERROR_KERNEL_NOT_FOUND);
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("'saxpy'"), std::string::npos) << message;
    int32_t driver = 0;
    ASSERT_OK(cuabi_driver_get_version(&driver));
    if (driver >= 12040) EXPECT_NE(message.find("\"negate\""), std::string::npos) << message;
}

TEST_F(KernelLookup, AttributesDescribeTheKernelOnTheDevice) {
    const char* source = R"(
extern "C" __global__ void __launch_bounds__(128) tiled(float* x) {
    __shared__ float tile[256];
    tile[threadIdx.x] = x[threadIdx.x];
    tile[threadIdx.x + 128] = x[threadIdx.x + 128];
    __syncthreads();
    x[threadIdx.x] = tile[255 - threadIdx.x];
}
)";
    options.name_expression_count = 0;
    cuabi_module* module = compile(source);
    cuabi_kernel* tiled = kernel(module, "tiled");
    ASSERT_NE(tiled, nullptr);
    cuabi_kernel_attributes attributes = CUABI_KERNEL_ATTRIBUTES_INIT;
    ASSERT_OK(cuabi_kernel_get_attributes(tiled, &attributes));
    EXPECT_EQ(attributes.struct_size, sizeof attributes);
    EXPECT_EQ(attributes.max_threads_per_block, 128);
    EXPECT_EQ(attributes.static_shared_memory_bytes, 256 * 4);
    EXPECT_GT(attributes.registers_per_thread, 0);
    EXPECT_LE(attributes.registers_per_thread, 255);
    EXPECT_EQ(attributes.local_memory_bytes, 0);
    EXPECT_EQ(attributes.binary_version, device_arch);
    EXPECT_GT(attributes.ptx_version, 0);
    EXPECT_LE(attributes.ptx_version, device_arch);
    EXPECT_GT(attributes.max_dynamic_shared_memory_bytes, 0);

    // A size no release had (the struct has been 40 bytes since 1.0) is refused, nothing written.
    cuabi_kernel_attributes small = CUABI_KERNEL_ATTRIBUTES_INIT;
    small.struct_size = 12;
    small.max_threads_per_block = -7;
    EXPECT_EQ(cuabi_kernel_get_attributes(tiled, &small), CUABI_ERROR_STRUCT_SIZE);
    EXPECT_EQ(small.max_threads_per_block, -7);
}

TEST_F(KernelLookup, MaxRegistersShowsInTheKernelsAttributes) {
    const char* source = R"(
extern "C" __global__ void heavy(float* x) {
    float a[24];
    for (int i = 0; i < 24; ++i) a[i] = x[i * threadIdx.x];
    float s = 0;
    for (int i = 0; i < 24; ++i)
        for (int j = 0; j < 24; ++j) s += a[i] * a[j] * x[i + j];
    x[threadIdx.x] = s;
}
)";
    options.name_expression_count = 0;
    options.max_registers = 32;
    cuabi_kernel_attributes attributes = CUABI_KERNEL_ATTRIBUTES_INIT;
    ASSERT_OK(cuabi_kernel_get_attributes(kernel(compile(source), "heavy"), &attributes));
    EXPECT_LE(attributes.registers_per_thread, 32);
}

TEST_F(KernelLookup, KernelKeepsItsModuleAlive) {
    cuabi_module* module = nullptr;
    ASSERT_OK(cuabi_module_compile(context, kIntKernels, &options, &module));
    cuabi_kernel* add = nullptr;
    ASSERT_OK(cuabi_module_get_kernel(module, "add_k<3>", &add));
    track(add);
    cuabi_module_destroy(module);
    expect_computes(add, false, 3, 15);
    cuabi_kernel* again = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_kernel(module, "negate", &again), CUABI_ERROR_INVALID_HANDLE);
}

}  // namespace
