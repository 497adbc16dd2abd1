// Compiling and loading modules on a real GPU: the default target is the device's own CUBIN, an
// identical second compile reuses the loaded image, images read back load again (CUBIN without
// any PTX JIT, PTX through it), and images that cannot run are refused before the driver is asked.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "../unit/child_process.hpp"
#include "module_test_support.hpp"
#include "raw_driver.hpp"

namespace {

bool nvrtc_supports(int arch) {
    size_t count = 0;
    if (cuabi_nvrtc_get_supported_archs(nullptr, 0, &count) != CUABI_SUCCESS) return false;
    std::vector<int32_t> archs(count);
    cuabi_nvrtc_get_supported_archs(archs.data(), archs.size(), &count);
    return std::find(archs.begin(), archs.end(), arch) != archs.end();
}

TEST_F(ModuleTest, DefaultTargetIsTheDevicesOwnCubin) {
    cuabi_module* module = compile(kIntKernels);
    ASSERT_NE(module, nullptr);
    cuabi_module_info facts = info(module);
    EXPECT_EQ(facts.loaded, 1u);
    if (nvrtc_supports(device_arch)) {
        EXPECT_EQ(facts.image_kind, static_cast<uint32_t>(CUABI_IMAGE_CUBIN));
        EXPECT_EQ(std::string(facts.target), "sm_" + std::to_string(device_arch));
        EXPECT_EQ(facts.ptx_fallback, 0u);
    } else {
        EXPECT_EQ(facts.image_kind, static_cast<uint32_t>(CUABI_IMAGE_PTX));
        EXPECT_EQ(facts.ptx_fallback, 1u);
    }
    expect_computes(kernel(module, "negate"), true, 0, 1);
}

TEST_F(ModuleTest, SecondCompileInTheContextIsAMemoryHitSharingTheLoadedImage) {
    std::string salt = "gpu-" + std::to_string(getpid()) + "-" +
                       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    options.salt = salt.data();
    options.salt_size = salt.size();
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));
    cuabi_module* first = compile(kIntKernels);
    cuabi_module* second = compile(kIntKernels);
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(info(first).origin, CUABI_MODULE_ORIGIN_COMPILED);
    EXPECT_EQ(info(second).origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    EXPECT_EQ(after.compiles - before.compiles, 1u) << "NVRTC runs once";
    EXPECT_GE(after.memory_cache_hits - before.memory_cache_hits, 1u);
    // One loaded image: the driver hands out the same function for it in this context.
    void* first_function = nullptr;
    void* second_function = nullptr;
    ASSERT_OK(cuabi_kernel_get_native(kernel(first, "negate"), &first_function));
    ASSERT_OK(cuabi_kernel_get_native(kernel(second, "negate"), &second_function));
    EXPECT_EQ(first_function, second_function);
    cuabi_module_destroy(first);  // the library stays loaded for `second`
    expect_computes(kernel(second, "negate"), true, 0, 2);
}

std::string unique_salt(const char* what) {
    return std::string(what) + "-" + std::to_string(getpid()) + "-" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

TEST_F(ModuleTest, ContextsOfOneDeviceShareOneLoadedImage) {
    std::string salt = unique_salt("shared");
    options.salt = salt.data();
    options.salt_size = salt.size();
    cuabi_context* other = nullptr;
    cuabi_context_options same_device = CUABI_CONTEXT_OPTIONS_INIT;
    same_device.device_ordinal = device.ordinal;
    ASSERT_OK(cuabi_context_create(&same_device, &other));  // another handle, the same primary context
    cuabi_module* here = compile(kIntKernels);
    cuabi_module* there = nullptr;
    ASSERT_OK(cuabi_module_compile(other, kIntKernels, &options, &there));
    track(there);
    void* here_function = nullptr;
    void* there_function = nullptr;
    ASSERT_OK(cuabi_kernel_get_native(kernel(here, "negate"), &here_function));
    ASSERT_OK(cuabi_kernel_get_native(kernel(there, "negate"), &there_function));
    EXPECT_EQ(here_function, there_function) << "one CUmodule for both handles of the device";
    cuabi_context_destroy(other);  // `there` keeps its context alive
    expect_computes(kernel(there, "negate"), true, 0, 3);
}

// Loading and unloading work in the module's context and give the thread back the context it had:
// another library's, or none.
TEST_F(ModuleTest, LoadingAndUnloadingLeaveTheThreadsCurrentContextAlone) {
    RawDriver driver;
    ASSERT_TRUE(driver.ok()) << "libcuda.so.1 lacks an entry point the test needs";
    CUdevice cu_device = 0;
    ASSERT_EQ(driver.device_get(&cu_device, device.ordinal), CUDA_SUCCESS);
    CUcontext foreign = nullptr;
    ASSERT_EQ(driver.ctx_create(&foreign, nullptr, 0, cu_device), CUDA_SUCCESS);
    CUcontext pushed = nullptr;  // creating a context pushes it: give the thread its stack back
    ASSERT_EQ(driver.ctx_pop_current(&pushed), CUDA_SUCCESS);
    ASSERT_EQ(pushed, foreign);
    for (CUcontext current : {foreign, static_cast<CUcontext>(nullptr)}) {
        SCOPED_TRACE(current ? "another context current" : "no context current");
        std::string salt = unique_salt(current ? "foreign" : "none");
        options.salt = salt.data();
        options.salt_size = salt.size();
        ASSERT_EQ(driver.ctx_set_current(current), CUDA_SUCCESS);
        CUcontext before = reinterpret_cast<CUcontext>(1);
        ASSERT_EQ(driver.ctx_get_current(&before), CUDA_SUCCESS);
        ASSERT_EQ(before, current) << "the test could not set the thread's context";
        cuabi_module* module = nullptr;
        ASSERT_OK(cuabi_module_compile(context, kIntKernels, &options, &module));  // a miss: loads
        EXPECT_EQ(info(module).origin, CUABI_MODULE_ORIGIN_COMPILED);
        CUcontext after = reinterpret_cast<CUcontext>(1);
        ASSERT_EQ(driver.ctx_get_current(&after), CUDA_SUCCESS);
        EXPECT_EQ(after, current) << "loading switched the thread's context";
        cuabi_module_destroy(module);  // the last reference: unloads
        ASSERT_EQ(driver.ctx_get_current(&after), CUDA_SUCCESS);
        EXPECT_EQ(after, current) << "unloading switched the thread's context";
    }
    // Loads after those unloads still work, in cuabi's context.
    options.salt = nullptr;
    options.salt_size = 0;
    expect_computes(kernel(compile(kIntKernels), "negate"), true, 0, 4);
    EXPECT_EQ(driver.ctx_destroy(foreign), CUDA_SUCCESS);
}

TEST_F(ModuleTest, CubinReadBackLoadsAsAnImageAndRuns) {
    cuabi_module* compiled = compile(kIntKernels);
    std::vector<uint8_t> bytes = image(compiled);
    cuabi_module* loaded = nullptr;
    ASSERT_OK(cuabi_module_load_image(context, bytes.data(), bytes.size(), &loaded));
    track(loaded);
    bytes.assign(bytes.size(), 0);  // the module holds its own copy
    cuabi_module_info facts = info(loaded);
    EXPECT_EQ(facts.origin, CUABI_MODULE_ORIGIN_IMAGE);
    EXPECT_EQ(facts.image_kind, info(compiled).image_kind);
    EXPECT_STREQ(facts.cache_key, "");
    expect_computes(kernel(loaded, "negate"), true, 0, 3);
}

TEST_F(ModuleTest, PtxModulesRunThroughTheDriverJit) {
    options.flags = CUABI_COMPILE_PTX;
    const char* expressions[] = {"add_k<3>"};
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    cuabi_module* module = compile(kIntKernels);
    ASSERT_NE(module, nullptr);
    EXPECT_EQ(info(module).image_kind, CUABI_IMAGE_PTX);
    expect_computes(kernel(module, "add_k<3>"), false, 3, 4);
    std::vector<uint8_t> ptx = image(module);
    ptx.pop_back();  // without its NUL: cuabi terminates it
    cuabi_module* loaded = nullptr;
    ASSERT_OK(cuabi_module_load_image(context, ptx.data(), ptx.size(), &loaded));
    track(loaded);
    expect_computes(kernel(loaded, "negate"), true, 0, 5);
}

TEST_F(ModuleTest, OfflineImageForTheDeviceLoadsAndResolvesItsNames) {
    std::string target = "sm_" + std::to_string(device_arch);
    if (!nvrtc_supports(device_arch)) GTEST_SKIP() << "NVRTC does not support " << target;
    options.target = target.c_str();
    const char* expressions[] = {"add_k<5>"};
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    cuabi_module* offline = nullptr;
    ASSERT_OK(cuabi_module_compile_offline(kIntKernels, &options, &offline));
    track(offline);
    char lowered[256];
    size_t size = 0;
    ASSERT_OK(cuabi_module_get_lowered_name(offline, "add_k<5>", lowered, sizeof lowered, &size));
    std::vector<uint8_t> bytes = image(offline);
    cuabi_module* loaded = nullptr;
    ASSERT_OK(cuabi_module_load_image(context, bytes.data(), bytes.size(), &loaded));
    track(loaded);
    expect_computes(kernel(loaded, lowered), false, 5, 6);  // a loaded image is found by mangled name
}

TEST_F(ModuleTest, ImagesThatCannotRunHereAreInvalidImages) {
    std::vector<uint8_t> junk = random_bytes(256, 7);
    cuabi_module* module = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_module_load_image(context, junk.data(), junk.size(), &module),
                           CUABI_ERROR_INVALID_IMAGE);
    // A CUBIN of another major architecture.
    const char* foreign = device.compute_capability_major == 8 ? "sm_90" : "sm_80";
    options.target = foreign;
    EXPECT_STATUS_WITH_FIX(cuabi_module_compile(context, kIntKernels, &options, &module), CUABI_ERROR_INVALID_IMAGE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find(foreign), std::string::npos) << cuabi_last_error_message();
    cuabi_module* offline = nullptr;
    ASSERT_OK(cuabi_module_compile_offline(kIntKernels, &options, &offline));
    track(offline);
    std::vector<uint8_t> bytes = image(offline);
    EXPECT_STATUS_WITH_FIX(cuabi_module_load_image(context, bytes.data(), bytes.size(), &module),
                           CUABI_ERROR_INVALID_IMAGE);
    EXPECT_EQ(module, nullptr);
}

TEST_F(ModuleTest, ModuleOutlivesItsContextHandle) {
    cuabi_module* module = compile(kIntKernels);
    cuabi_kernel* negate = kernel(module, "negate");
    ASSERT_NE(negate, nullptr);
    // Release the caller's context handle: the module and kernel keep the CUDA context alive.
    cuabi_context* kept = context;
    cuabi_context_options context_options = CUABI_CONTEXT_OPTIONS_INIT;
    ASSERT_OK(cuabi_context_create(&context_options, &context));  // for the buffers of the run
    cuabi_context_destroy(kept);
    expect_computes(negate, true, 0, 8);
}

// Runs in a child whose driver has PTX JIT disabled (CUDA_DISABLE_PTX_JIT=1): a CUBIN loads and
// runs, PTX of unique content (so no JIT cache entry can stand in) does not.
TEST_F(ModuleTest, ChildWithPtxJitDisabled) {
    if (std::getenv("CUABI_TEST_PTX_JIT_DISABLED_CHILD") == nullptr)
        GTEST_SKIP() << "runs only inside CubinLoadsWithoutPtxJit's child process";
    cuabi_module* cubin = compile(kIntKernels);
    ASSERT_NE(cubin, nullptr);
    ASSERT_EQ(info(cubin).image_kind, CUABI_IMAGE_CUBIN);
    expect_computes(kernel(cubin, "negate"), true, 0, 9);

    std::string unique = "UNIQUE_TAG=" + std::to_string(getpid()) +
                         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
    std::string source = std::string(kIntKernels) + "__device__ long long unique_tag = UNIQUE_TAG;\n";
    const char* defines[] = {unique.c_str()};
    options.defines = defines;
    options.define_count = 1;
    options.flags = CUABI_COMPILE_PTX | CUABI_COMPILE_NO_CACHE;
    cuabi_module* ptx = nullptr;
    cuabi_status status = cuabi_module_compile(context, source.c_str(), &options, &ptx);
    track(ptx);
    cuabi_kernel* found = nullptr;
    if (status == CUABI_SUCCESS) status = cuabi_module_get_kernel(ptx, "negate", &found);
    track(found);
    EXPECT_EQ(status, CUABI_ERROR_INVALID_IMAGE) << "PTX with the driver's PTX JIT disabled: " << cuabi_failure_text(status);
}

TEST(ModuleJit, CubinLoadsWithoutPtxJit) {
    int32_t count = 0;
    if (cuabi_device_get_count(&count) != CUABI_SUCCESS) GTEST_SKIP() << "no CUDA device: " << cuabi_last_error_message();
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    ASSERT_GT(length, 0);
    self[length] = '\0';
    test_support::ChildResult child =
        test_support::run_child({self, "--gtest_filter=ModuleTest.ChildWithPtxJitDisabled"},
                                {{"CUABI_TEST_PTX_JIT_DISABLED_CHILD", "1"}, {"CUDA_DISABLE_PTX_JIT", "1"}});
    EXPECT_EQ(child.exit_status, 0) << child.output;
    EXPECT_NE(child.output.find("[  PASSED  ] 1 test"), std::string::npos) << child.output;
    EXPECT_EQ(child.output.find("SKIPPED"), std::string::npos) << child.output;
}

}  // namespace
