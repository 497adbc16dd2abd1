// Every allocation of a compile and of a cache store fails in turn (failing_new.hpp): each run
// returns a status with a message, never an exception or a crash, and leaves nothing behind (the
// ASan build checks for leaks; the cache is checked for half-written entries).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "cuabi/cuabi.h"
#include "failing_new.hpp"
#include "../unit/worker_support/worker_processes.hpp"

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

// The worker path alone: encoding the job, taking a slot, the frames -- and, with the idle
// workers killed before each run, starting a worker and reading its greeting. Warmed up first, so
// that the runs fail the allocations of the compile as it is from then on (one-time set-up would
// otherwise use up the count). A failure that kept its slot would leave every later compile
// waiting for a worker until its deadline, so the compiles after it are given a short one.
cuabi_status compile_in_worker(uint32_t timeout_ms) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = CUABI_COMPILE_NO_CACHE | CUABI_COMPILE_ISOLATED;
    options.timeout_ms = timeout_ms;
    cuabi_module* module = nullptr;
    const cuabi_status status = cuabi_module_compile_offline(kSource, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

void expect_the_pool_whole() {
    for (int i = 0; i < 4; ++i) {
        auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(compile_in_worker(4000), CUABI_SUCCESS) << "compile " << i << ": " << cuabi_last_error_message();
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
    }
}

TEST(AllocationFailure, NoAllocationFailureOnTheWorkerPathCostsThePoolAWorker) {
    ASSERT_EQ(compile_in_worker(8000), CUABI_SUCCESS) << cuabi_last_error_message();
    const long sites = failing_new::fail_each_allocation([] { return compile_in_worker(8000); }, 20000);
    EXPECT_GT(sites, 5);
    std::printf("%ld allocation sites failed in turn\n", sites);
    expect_the_pool_whole();
}

TEST(AllocationFailure, NoAllocationFailureStartingAWorkerCostsThePoolAWorker) {
    ASSERT_EQ(compile_in_worker(8000), CUABI_SUCCESS) << cuabi_last_error_message();
    const long sites = failing_new::fail_each_allocation(
        [] {
            failing_new::pause();
            for (pid_t pid : worker_test::workers_of(getpid())) {
                kill(pid, SIGKILL);
                worker_test::wait_until([pid] { return worker_test::gone(pid); }, std::chrono::seconds(3));
            }
            failing_new::resume();
            return compile_in_worker(8000);
        },
        20000);
    EXPECT_GT(sites, 5);
    std::printf("%ld allocation sites failed in turn\n", sites);
    expect_the_pool_whole();
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
    // The run whose failed allocation was the encoding of the disk entry paused disk writes for a
    // second (cache/kernel_cache.hpp), so the runs after it -- the last, clean one too -- kept
    // their entries in memory. Whether a run reaches that allocation depends on how many
    // one-time allocations come before it; once the pause is over, one more store reaches disk.
    char reason[1024] = "";
    size_t size = 0;
    ASSERT_EQ(cuabi_cache_get_degradation_reason(reason, sizeof reason, &size), CUABI_SUCCESS);
    if (std::strstr(reason, "disk cache writes paused for 1 s") != nullptr) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        ++run;
        ASSERT_EQ(compile(CUABI_COMPILE_DEFAULT, &run, sizeof run), CUABI_SUCCESS) << cuabi_last_error_message();
    }
    // No run left a damaged entry behind.
    uint64_t checked = 0, removed = 0;
    ASSERT_EQ(cuabi_cache_verify(&checked, &removed), CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_EQ(removed, 0u) << "of " << checked << " entries";
    EXPECT_GT(checked, 0u);
}

}  // namespace
