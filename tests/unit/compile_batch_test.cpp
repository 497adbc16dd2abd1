// Compile batches with real NVRTC in real workers, offline for sm_90 (no GPU): each request keeps
// its own status and log, memory hits are served before the start call returns, a running heavy
// compile is cancelled from another thread within a bound and the pool works afterwards, and
// hostile arguments are refused with messages that name them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "worker_support/worker_processes.hpp"
#include "cuabi/cuabi.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

const char* const kGood = "extern \"C\" __global__ void good(int* p) { p[0] = VALUE; }\n";
const char* const kWarns = "#warning \"batch request one warns\"\nextern \"C\" __global__ void warns(int* p) { p[0] = 1; }\n";
const char* const kBroken = "extern \"C\" __global__ void broken(int* p) { p[0] = undeclared_in_batch; }\n";
// Many seconds of NVRTC time: a binary tree of 2^11 force-inlined calls (depth 14 takes minutes).
// NVRTC 12.9+ keeps a cache of its own, which cuabi's salt does not reach: each test compiles it
// with a comment of its own (unique_source), so that NVRTC really runs.
const char* const kHeavy =
    "template <int D> struct Tree {\n"
    "    __device__ __forceinline__ static float run(float x, const float* p) {\n"
    "        return Tree<D - 1>::run(x * 1.0001f + p[D], p) * Tree<D - 1>::run(x - p[D + 1], p);\n"
    "    }\n"
    "};\n"
    "template <> struct Tree<0> {\n"
    "    __device__ __forceinline__ static float run(float x, const float* p) { return x + p[0]; }\n"
    "};\n"
    "extern \"C\" __global__ void heavy(float* p) { p[threadIdx.x] = Tree<12>::run(p[threadIdx.x], p); }\n";

std::string unique_salt() {
    static std::atomic<int> next{0};
    return std::to_string(getpid()) + ":" + std::to_string(Clock::now().time_since_epoch().count()) + ":" +
           std::to_string(++next);
}

std::string last_log() {
    size_t size = 0;
    EXPECT_EQ(cuabi_last_compile_log(nullptr, 0, &size), CUABI_SUCCESS);
    std::string log(size, '\0');
    EXPECT_EQ(cuabi_last_compile_log(&log[0], log.size(), &size), CUABI_SUCCESS);
    if (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
}

uint64_t compiles_so_far() {
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    EXPECT_EQ(cuabi_cache_get_stats(&stats), CUABI_SUCCESS);
    return stats.compiles;
}

// Options that own their strings: offline for sm_90, with a salt no cache layer has seen.
struct Options {
    explicit Options(const std::string& salt_text, const char* define = nullptr) : salt(salt_text) {
        options.target = "sm_90";
        options.salt = salt.data();
        options.salt_size = salt.size();
        if (define != nullptr) {
            defines[0] = define;
            options.defines = defines;
            options.define_count = 1;
        }
    }
    std::string salt;
    const char* defines[1] = {nullptr};
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
};

cuabi_compile_request offline(const char* source, const cuabi_compile_options* options) {
    cuabi_compile_request request{};
    request.source = source;
    request.options = options;
    return request;
}

int32_t state_of(cuabi_compile_batch* batch, size_t index, cuabi_status* status = nullptr) {
    int32_t state = -1;
    cuabi_status ended = CUABI_ERROR_INTERNAL;
    EXPECT_EQ(cuabi_compile_batch_get_state(batch, index, &state, &ended), CUABI_SUCCESS);
    if (status != nullptr) *status = ended;
    return state;
}

}  // namespace

TEST(CompileBatch, MixedSuccessesAndFailuresKeepEachStatusMessageAndLog) {
    const std::string salt = unique_salt();
    cuabi_compile_batch* batch = nullptr;
    {
        // The caller's strings die with this scope: the batch must have copied them.
        std::string define = "VALUE=7";
        Options good(salt, define.c_str()), warns(salt), broken(salt), untargeted(salt);
        untargeted.options.target = nullptr;
        cuabi_compile_request requests[] = {offline(kGood, &good.options), offline(kWarns, &warns.options),
                                            offline(kBroken, &broken.options), offline(kGood, &untargeted.options)};
        ASSERT_EQ(cuabi_compile_batch_start(requests, 4, 0, &batch), CUABI_SUCCESS) << cuabi_last_error_message();
        define.assign(define.size(), 'X');
        good.salt.assign(good.salt.size(), 'X');
    }
    size_t count = 0;
    ASSERT_EQ(cuabi_compile_batch_get_count(batch, &count), CUABI_SUCCESS);
    EXPECT_EQ(count, 4u);

    cuabi_module* module = nullptr;
    ASSERT_EQ(cuabi_compile_batch_get_module(batch, 0, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    size_t size = 0;
    EXPECT_EQ(cuabi_module_get_image(module, nullptr, 0, &size), CUABI_SUCCESS);
    EXPECT_GT(size, 0u);
    cuabi_module_destroy(module);

    module = nullptr;
    ASSERT_EQ(cuabi_compile_batch_get_module(batch, 1, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_NE(last_log().find("batch request one warns"), std::string::npos) << last_log();
    cuabi_module_destroy(module);

    module = nullptr;
    EXPECT_EQ(cuabi_compile_batch_get_module(batch, 2, &module), CUABI_ERROR_COMPILE);
    EXPECT_EQ(module, nullptr);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("undeclared_in_batch"), std::string::npos)
        << cuabi_last_error_message();
    EXPECT_NE(last_log().find("undeclared_in_batch"), std::string::npos) << last_log();

    EXPECT_EQ(cuabi_compile_batch_get_module(batch, 3, &module), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("cuabi_compile_options.target"), std::string::npos)
        << cuabi_last_error_message();

    // The results stay: asked again, in another order, they are the same.
    EXPECT_EQ(cuabi_compile_batch_get_module(batch, 2, &module), CUABI_ERROR_COMPILE);
    EXPECT_NE(last_log().find("undeclared_in_batch"), std::string::npos) << last_log();
    cuabi_status status = CUABI_ERROR_INTERNAL;
    EXPECT_EQ(state_of(batch, 1, &status), CUABI_REQUEST_DONE);
    EXPECT_EQ(status, CUABI_SUCCESS);
    EXPECT_EQ(state_of(batch, 2, &status), CUABI_REQUEST_DONE);
    EXPECT_EQ(status, CUABI_ERROR_COMPILE);
    cuabi_compile_batch_destroy(batch);
}

TEST(CompileBatch, MemoryHitsAreDoneBeforeStartReturnsAndRunNoCompile) {
    const std::string salt = unique_salt();
    constexpr size_t kVariants = 4;
    std::vector<std::string> defines;
    std::vector<Options> options;
    options.reserve(kVariants);
    for (size_t i = 0; i < kVariants; ++i) defines.push_back("VALUE=" + std::to_string(100 + i));
    for (size_t i = 0; i < kVariants; ++i) options.emplace_back(salt, defines[i].c_str());
    std::vector<cuabi_compile_request> requests;
    for (Options& each : options) requests.push_back(offline(kGood, &each.options));

    cuabi_compile_batch* cold = nullptr;
    ASSERT_EQ(cuabi_compile_batch_start(requests.data(), requests.size(), 0, &cold), CUABI_SUCCESS);
    for (size_t i = 0; i < kVariants; ++i) {
        cuabi_module* module = nullptr;
        ASSERT_EQ(cuabi_compile_batch_get_module(cold, i, &module), CUABI_SUCCESS) << cuabi_last_error_message();
        cuabi_module_destroy(module);
    }
    cuabi_compile_batch_destroy(cold);

    const uint64_t before = compiles_so_far();
    cuabi_compile_batch* warm = nullptr;
    ASSERT_EQ(cuabi_compile_batch_start(requests.data(), requests.size(), 0, &warm), CUABI_SUCCESS);
    for (size_t i = 0; i < kVariants; ++i) {
        cuabi_status status = CUABI_ERROR_INTERNAL;
        EXPECT_EQ(state_of(warm, i, &status), CUABI_REQUEST_DONE) << "request " << i << " was not served at start";
        EXPECT_EQ(status, CUABI_SUCCESS);
        cuabi_module* module = nullptr;
        ASSERT_EQ(cuabi_compile_batch_get_module(warm, i, &module), CUABI_SUCCESS);
        cuabi_module_info info = CUABI_MODULE_INFO_INIT;
        ASSERT_EQ(cuabi_module_get_info(module, &info), CUABI_SUCCESS);
        EXPECT_EQ(info.origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
        cuabi_module_destroy(module);
    }
    EXPECT_EQ(compiles_so_far(), before);
    cuabi_compile_batch_destroy(warm);
}

TEST(CompileBatch, CancelEndsARunningHeavyCompileWithinABoundAndThePoolStillWorks) {
    Options heavy(unique_salt());
    const std::string source = std::string(kHeavy) + "// " + heavy.salt + "\n";
    cuabi_compile_request request = offline(source.c_str(), &heavy.options);
    cuabi_compile_batch* batch = nullptr;
    ASSERT_EQ(cuabi_compile_batch_start(&request, 1, 0, &batch), CUABI_SUCCESS) << cuabi_last_error_message();
    const auto started = Clock::now();
    while (state_of(batch, 0) == CUABI_REQUEST_QUEUED && Clock::now() - started < 10s) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(200ms);  // NVRTC is well into its run by now
    cuabi_status status = CUABI_ERROR_INTERNAL;
    ASSERT_EQ(state_of(batch, 0, &status), CUABI_REQUEST_COMPILING)
        << "the heavy compile ended by itself (" << cuabi_status_name(status) << "): nothing left to cancel";

    std::atomic<int64_t> returned_ns{0};
    cuabi_status got = CUABI_ERROR_INTERNAL;
    std::string message;
    std::thread waiter([&] {
        cuabi_module* module = nullptr;
        got = cuabi_compile_batch_get_module(batch, 0, &module);
        returned_ns = Clock::now().time_since_epoch().count();
        message = cuabi_last_error_message();
        cuabi_module_destroy(module);
    });
    std::this_thread::sleep_for(50ms);  // the waiter is waiting
    const std::vector<pid_t> workers = worker_test::workers_of(getpid());  // idle ones and the busy one
    const auto cancelled = Clock::now();
    ASSERT_EQ(cuabi_compile_batch_cancel(batch), CUABI_SUCCESS);
    waiter.join();
    const auto latency = std::chrono::nanoseconds(returned_ns.load()) - cancelled.time_since_epoch();
    EXPECT_EQ(got, CUABI_ERROR_CANCELLED) << message;
    EXPECT_NE(message.find("was cancelled"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
    // 50 ms is the goal (bench_compile measures it); a shared 2-core machine gets some slack.
    EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(latency).count(), 250);
    EXPECT_EQ(state_of(batch, 0, &status), CUABI_REQUEST_DONE);
    EXPECT_EQ(status, CUABI_ERROR_CANCELLED);
    // The worker that ran NVRTC is killed, not left compiling for seconds more.
    EXPECT_TRUE(worker_test::wait_until(
        [&] {
            for (pid_t pid : workers)
                if (worker_test::gone(pid)) return true;
            return false;
        },
        500ms))
        << workers.size() << " workers, none ended";
    cuabi_compile_batch_destroy(batch);

    Options after(unique_salt(), "VALUE=3");
    cuabi_module* module = nullptr;
    EXPECT_EQ(cuabi_module_compile_offline(kGood, &after.options, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    cuabi_module_destroy(module);
}

TEST(CompileBatch, ACallerJoinedToACancelledCompileCompilesAgainForItself) {
    Options shared(unique_salt(), "VALUE=11");
    cuabi_compile_request request = offline(kGood, &shared.options);
    // The first batch leads the compile; cancelling it at once must not fail the second caller.
    cuabi_compile_batch* first = nullptr;
    ASSERT_EQ(cuabi_compile_batch_start(&request, 1, 0, &first), CUABI_SUCCESS);
    std::thread other([&] {
        cuabi_module* module = nullptr;
        EXPECT_EQ(cuabi_module_compile_offline(kGood, &shared.options, &module), CUABI_SUCCESS)
            << cuabi_last_error_message();
        cuabi_module_destroy(module);
    });
    std::this_thread::sleep_for(20ms);
    ASSERT_EQ(cuabi_compile_batch_cancel(first), CUABI_SUCCESS);
    other.join();
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_compile_batch_get_module(first, 0, &module);
    EXPECT_TRUE(status == CUABI_SUCCESS || status == CUABI_ERROR_CANCELLED) << cuabi_status_name(status);
    cuabi_module_destroy(module);
    cuabi_compile_batch_destroy(first);
}

TEST(CompileBatch, DestroyCancelsAndReturnsPromptly) {
    Options heavy(unique_salt());
    const std::string source = std::string(kHeavy) + "// " + heavy.salt + "\n";
    cuabi_compile_request request = offline(source.c_str(), &heavy.options);
    cuabi_compile_batch* batch = nullptr;
    ASSERT_EQ(cuabi_compile_batch_start(&request, 1, 0, &batch), CUABI_SUCCESS);
    std::this_thread::sleep_for(500ms);
    const auto before = Clock::now();
    cuabi_compile_batch_destroy(batch);
    EXPECT_LT(Clock::now() - before, 1s);
    int32_t state = 0;
    cuabi_status status = CUABI_SUCCESS;
    EXPECT_EQ(cuabi_compile_batch_get_state(batch, 0, &state, &status), CUABI_ERROR_INVALID_HANDLE);
}

TEST(CompileBatch, HostileArgumentsAreRefusedWithMessagesThatNameThem) {
    cuabi_compile_batch* batch = nullptr;
    EXPECT_EQ(cuabi_compile_batch_start(nullptr, 3, 0, &batch), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("requests is NULL and count is 3"), std::string::npos);
    cuabi_compile_request one = offline(kGood, nullptr);
    EXPECT_EQ(cuabi_compile_batch_start(&one, SIZE_MAX, 0, &batch), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("CUABI_COMPILE_BATCH_MAX_REQUESTS"), std::string::npos);
    EXPECT_EQ(cuabi_compile_batch_start(&one, 1, 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(batch, nullptr);

    Options fine(unique_salt());
    cuabi_compile_options bad_size = fine.options;
    bad_size.struct_size = 7;
    cuabi_compile_request requests[] = {offline(kGood, &fine.options), offline(nullptr, &fine.options)};
    EXPECT_EQ(cuabi_compile_batch_start(requests, 2, 0, &batch), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(cuabi_last_error_message()).rfind("cuabi_compile_batch_start request 1 of 2: source is NULL", 0), 0u)
        << cuabi_last_error_message();
    requests[1] = offline(kGood, &bad_size);
    EXPECT_EQ(cuabi_compile_batch_start(requests, 2, 0, &batch), CUABI_ERROR_STRUCT_SIZE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("request 1 of 2"), std::string::npos);
    requests[1] = offline(kGood, &fine.options);
    requests[1].context = reinterpret_cast<cuabi_context*>(uintptr_t{0x1234567});
    EXPECT_EQ(cuabi_compile_batch_start(requests, 2, 0, &batch), CUABI_ERROR_INVALID_HANDLE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("request 1 of 2"), std::string::npos);
    EXPECT_EQ(batch, nullptr);

    // An empty batch is a batch: nothing to wait for, no index to ask about.
    ASSERT_EQ(cuabi_compile_batch_start(nullptr, 0, 0, &batch), CUABI_SUCCESS);
    size_t count = 99;
    EXPECT_EQ(cuabi_compile_batch_get_count(batch, &count), CUABI_SUCCESS);
    EXPECT_EQ(count, 0u);
    int32_t state = 0;
    cuabi_status status = CUABI_SUCCESS;
    cuabi_module* module = nullptr;
    EXPECT_EQ(cuabi_compile_batch_get_state(batch, 0, &state, &status), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("index 0 is past the batch's 0 requests"), std::string::npos);
    EXPECT_EQ(cuabi_compile_batch_get_module(batch, SIZE_MAX, &module), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(cuabi_compile_batch_get_state(batch, 0, nullptr, &status), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(cuabi_compile_batch_get_module(batch, 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    cuabi_compile_batch_destroy(batch);

    // Stale, forged and wrong-type handles.
    auto* forged = reinterpret_cast<cuabi_compile_batch*>(uintptr_t{0xdeadbeef});
    for (cuabi_compile_batch* handle : {batch, forged, static_cast<cuabi_compile_batch*>(nullptr)}) {
        EXPECT_EQ(cuabi_compile_batch_get_count(handle, &count), CUABI_ERROR_INVALID_HANDLE);
        EXPECT_EQ(cuabi_compile_batch_get_state(handle, 0, &state, &status), CUABI_ERROR_INVALID_HANDLE);
        EXPECT_EQ(cuabi_compile_batch_get_module(handle, 0, &module), CUABI_ERROR_INVALID_HANDLE);
        EXPECT_EQ(cuabi_compile_batch_cancel(handle), CUABI_ERROR_INVALID_HANDLE);
        cuabi_compile_batch_destroy(handle);
    }
    Options target(unique_salt(), "VALUE=5");
    ASSERT_EQ(cuabi_module_compile_offline(kGood, &target.options, &module), CUABI_SUCCESS);
    EXPECT_EQ(cuabi_compile_batch_cancel(reinterpret_cast<cuabi_compile_batch*>(module)), CUABI_ERROR_INVALID_HANDLE);
    cuabi_compile_batch_destroy(reinterpret_cast<cuabi_compile_batch*>(module));  // not a batch: left alone
    size_t size = 0;
    EXPECT_EQ(cuabi_module_get_image(module, nullptr, 0, &size), CUABI_SUCCESS);
    cuabi_module_destroy(module);
}

TEST(CompileBatch, AnUnusableWorkerCountIsReportedByTheFirstBatchThatNeedsWorkers) {
    for (const char* value : {"0", "abc", "65", "4x"}) {
        SCOPED_TRACE(value);
        test_support::ChildResult result =
            test_support::run_child({CUABI_WORKER_TEST_HOST, "batch", "2"}, {{"CUABI_COMPILE_WORKERS", value}});
        EXPECT_EQ(result.exit_status, 0) << result.output;
        EXPECT_EQ(result.output.rfind("start=CUABI_ERROR_INVALID_ARGUMENT\n", 0), 0u) << result.output;
        EXPECT_NE(result.output.find(std::string("CUABI_COMPILE_WORKERS='") + value + "'"), std::string::npos)
            << result.output;
        EXPECT_NE(result.output.find("Fix: "), std::string::npos) << result.output;
        // Said once: the next batch runs with the default.
        EXPECT_NE(result.output.find("start=CUABI_SUCCESS\nrequest=CUABI_SUCCESS\nrequest=CUABI_SUCCESS\n"),
                  std::string::npos)
            << result.output;
    }
    test_support::ChildResult fine =
        test_support::run_child({CUABI_WORKER_TEST_HOST, "batch", "2"}, {{"CUABI_COMPILE_WORKERS", "1"}});
    EXPECT_EQ(fine.output.rfind("start=CUABI_SUCCESS\nrequest=CUABI_SUCCESS\nrequest=CUABI_SUCCESS\n", 0), 0u)
        << fine.output;
}
