// N threads compiling the same new source at once run NVRTC once: the first leads, the others
// wait for its image (or its failure) and take it as theirs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cuabi/cuabi.h"

namespace {

cuabi_cache_stats stats() {
    cuabi_cache_stats s = CUABI_CACHE_STATS_INIT;
    EXPECT_EQ(cuabi_cache_get_stats(&s), CUABI_SUCCESS);
    return s;
}

// Runs `body(i)` on `threads` threads released together.
template <typename Body>
void all_at_once(int threads, Body body) {
    std::atomic<int> arrived{0};
    std::vector<std::thread> running;
    for (int i = 0; i < threads; ++i)
        running.emplace_back([&, i] {
            ++arrived;
            while (arrived.load() < threads) std::this_thread::yield();
            body(i);
        });
    for (std::thread& thread : running) thread.join();
}

std::string unique_salt() {
    return std::to_string(getpid()) + ":" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

TEST(CompileSingleFlight, EightThreadsCompilingOneNewSourceRunNvrtcOnce) {
    const std::string salt = unique_salt();  // a key no cache layer has seen
    cuabi_cache_stats before = stats();
    std::vector<cuabi_status> statuses(8, CUABI_ERROR_INTERNAL);
    std::vector<std::string> keys(8);
    all_at_once(8, [&](int i) {
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.target = "sm_90";
        options.salt = salt.data();
        options.salt_size = salt.size();
        cuabi_module* module = nullptr;
        statuses[i] = cuabi_module_compile_offline("extern \"C\" __global__ void once(int* p) { p[0] = 1; }\n",
                                                   &options, &module);
        cuabi_module_info info = CUABI_MODULE_INFO_INIT;
        if (statuses[i] == CUABI_SUCCESS && cuabi_module_get_info(module, &info) == CUABI_SUCCESS) keys[i] = info.cache_key;
        cuabi_module_destroy(module);
    });
    cuabi_cache_stats after = stats();
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(statuses[i], CUABI_SUCCESS) << "thread " << i;
        EXPECT_EQ(keys[i], keys[0]) << "thread " << i;
    }
    EXPECT_EQ(after.compiles - before.compiles, 1u) << "NVRTC ran more than once for one key";
    EXPECT_EQ((after.compiles_joined - before.compiles_joined) + (after.memory_hits - before.memory_hits), 7u);
    EXPECT_GT(after.compiles_joined, before.compiles_joined) << "no thread waited for the running compile";
}

TEST(CompileSingleFlight, ThreadsWaitingOnAFailedCompileGetItsError) {
    const std::string salt = unique_salt();
    cuabi_cache_stats before = stats();
    std::vector<cuabi_status> statuses(4, CUABI_SUCCESS);
    std::vector<std::string> messages(4);
    all_at_once(4, [&](int i) {
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.target = "sm_90";
        options.salt = salt.data();
        options.salt_size = salt.size();
        cuabi_module* module = nullptr;
        statuses[i] = cuabi_module_compile_offline("__global__ void k() { not_declared(); }\n", &options, &module);
        messages[i] = cuabi_last_error_message();
    });
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(statuses[i], CUABI_ERROR_COMPILE) << "thread " << i;
        EXPECT_NE(messages[i].find("not_declared"), std::string::npos) << messages[i];
    }
    // Failures are not cached: followers share a running compile, latecomers run their own.
    EXPECT_GE(stats().compiles - before.compiles, 1u);
    EXPECT_LE(stats().compiles - before.compiles, 4u);
}
