// Every allocation of a compile and of a cache store fails in turn (failing_new.hpp): each run
// returns a status with a message, never an exception or a crash, and leaves nothing behind (the
// ASan build checks for leaks; the cache is checked for half-written entries).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuabi/cuabi.h"
#include "failing_new.hpp"

namespace {

const char* const kSource =
    R"(extern "C" __global__ void k(int* x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 2; })";

// A fresh cache directory for this process, before anything opens the cache.
class CacheDirectory : public ::testing::Environment {
public:
    void SetUp() override {
        static char directory[] = "/tmp/cuabi-alloc-XXXXXX";
        ASSERT_NE(mkdtemp(directory), nullptr);
        setenv("CUABI_CACHE_DIR", directory, 1);
    }
};
const auto* const kCacheDirectory = ::testing::AddGlobalTestEnvironment(new CacheDirectory);

cuabi_status compile(uint32_t flags, const void* salt, size_t salt_size) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = flags;
    options.salt = salt;
    options.salt_size = salt_size;
    cuabi_module* module = nullptr;
    const cuabi_status status = cuabi_module_compile_offline(kSource, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

TEST(AllocationFailure, EveryAllocationOfACompileFailsInTurn) {
    const long sites =
        failing_new::fail_each_allocation([] { return compile(CUABI_COMPILE_NO_CACHE, nullptr, 0); }, 20000);
    EXPECT_GT(sites, 5) << "the injection did not reach the compile";
    std::printf("%ld allocation sites failed in turn\n", sites);
}

TEST(AllocationFailure, EveryAllocationOfACacheStoreFailsInTurn) {
    // A new salt per run: every run misses, compiles and stores (in memory and on disk).
    long run = 0;
    const long sites = failing_new::fail_each_allocation(
        [&run] {
            ++run;
            return compile(CUABI_COMPILE_DEFAULT, &run, sizeof run);
        },
        20000);
    EXPECT_GT(sites, 5);
    std::printf("%ld allocation sites failed in turn\n", sites);
    // No run left a damaged entry behind.
    uint64_t checked = 0, removed = 0;
    ASSERT_EQ(cuabi_cache_verify(&checked, &removed), CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_EQ(removed, 0u) << "of " << checked << " entries";
    EXPECT_GT(checked, 0u);
}

}  // namespace
