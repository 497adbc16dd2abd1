// NVRTC runs in the compile worker, so that what goes wrong inside it costs a status, never the
// calling process: NVRTC 13.0's own crash on a template typo with a name expression, an #include
// of a FIFO that never delivers, ordinary compile errors. These run in the test process itself,
// which must survive each one and compile normally afterwards.
#include <gtest/gtest.h>

#include <nvrtc.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "cache_support/process.hpp"
#include "cuabi/cuabi.h"

namespace {

const char* const kGood = "extern \"C\" __global__ void good(int* p) { p[0] = 42; }\n";

// A compile that bypasses the cache, so that NVRTC really runs.
cuabi_status compile(const char* source, cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT) {
    options.target = "sm_90";
    options.flags |= CUABI_COMPILE_NO_CACHE;
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(source, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

std::string message() { return cuabi_last_error_message(); }

}  // namespace

TEST(CompileIsolation, NvrtcsOwnCrashCostsAStatusAndTheNextCompileWorks) {
    const char* expressions[] = {"t<1>"};
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    options.program_name = "typo.cu";
    cuabi_status status = compile("template <int M> __global__ void t(bogus* p) {}\n", options);
    ASSERT_NE(status, CUABI_SUCCESS);
    if (status == CUABI_ERROR_COMPILE) GTEST_SKIP() << "this NVRTC reports the typo instead of crashing: " << message();
    EXPECT_EQ(status, CUABI_ERROR_NVRTC) << message();
    EXPECT_NE(message().find("killed by signal"), std::string::npos) << message();
    EXPECT_NE(message().find("typo.cu"), std::string::npos) << message();
    EXPECT_NE(message().find("Fix: "), std::string::npos) << message();
    EXPECT_EQ(compile(kGood), CUABI_SUCCESS) << message();
}

TEST(CompileIsolation, AnIncludeOfAFifoEndsAtTheDeadlineWithTimeout) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkfifo((dir / "stuck.h").c_str(), 0600), 0);
    std::string include_dir = dir.path();
    const char* dirs[] = {include_dir.c_str()};
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.include_dirs = dirs;
    options.include_dir_count = 1;
    options.timeout_ms = 800;
    auto start = std::chrono::steady_clock::now();
    cuabi_status status = compile("#include \"stuck.h\"\n__global__ void k() {}\n", options);
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(status, CUABI_ERROR_TIMEOUT) << message();
    EXPECT_GE(took, std::chrono::milliseconds(700));
    EXPECT_LT(took, std::chrono::seconds(20));
    EXPECT_NE(message().find("deadline"), std::string::npos) << message();
    EXPECT_NE(message().find("timeout_ms"), std::string::npos) << message();
    EXPECT_EQ(compile(kGood), CUABI_SUCCESS) << message();
}

TEST(CompileIsolation, CompileErrorsFromTheWorkerKeepTheirMessageResultAndLog) {
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.program_name = "broken.cu";
    EXPECT_EQ(compile("__global__ void k(int* p) { p[0] = undefined_name; }\n", options), CUABI_ERROR_COMPILE);
    EXPECT_NE(message().find("broken.cu"), std::string::npos) << message();
    EXPECT_NE(message().find("undefined_name"), std::string::npos) << message();
    EXPECT_EQ(cuabi_last_nvrtc_result(), NVRTC_ERROR_COMPILATION);
    size_t size = 0;
    ASSERT_EQ(cuabi_last_compile_log(nullptr, 0, &size), CUABI_SUCCESS);
    EXPECT_GT(size, 1u) << "the worker's log did not come back";
}

TEST(CompileIsolation, AWorkerOutlivesTheThreadThatStartedIt) {
    // Workers are shared by every thread; one started by a thread that has since ended must keep
    // serving (a parent-death signal tied to the starting thread once killed it mid-compile).
    cuabi_status first = CUABI_ERROR_INTERNAL;
    std::thread starter([&] { first = compile(kGood); });
    starter.join();
    ASSERT_EQ(first, CUABI_SUCCESS) << message();
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(compile(kGood), CUABI_SUCCESS) << "compile " << i << ": " << message();
        EXPECT_EQ(compile("#error this source fails on purpose\n"), CUABI_ERROR_COMPILE) << message();
    }
}

TEST(CompileIsolation, InProcessCompilesAreStillAvailable) {
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.flags = CUABI_COMPILE_IN_PROCESS;
    EXPECT_EQ(compile(kGood, options), CUABI_SUCCESS) << message();
    options.flags = CUABI_COMPILE_ISOLATED;
    EXPECT_EQ(compile(kGood, options), CUABI_SUCCESS) << message();
}

TEST(CompileIsolation, BothIsolationFlagsAtOnceAreRefused) {
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.flags = CUABI_COMPILE_IN_PROCESS | CUABI_COMPILE_ISOLATED;
    EXPECT_EQ(compile(kGood, options), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(message().find("CUABI_COMPILE_ISOLATED"), std::string::npos) << message();
}

TEST(CompileIsolation, ExtraFlagsThatLeaveNoLoadableImageAreRefused) {
    for (const char* flag : {"--optix-ir", "-fdevice-syntax-only"}) {
        const char* extra[] = {flag};
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.extra_flags = extra;
        options.extra_flag_count = 1;
        EXPECT_EQ(compile(kGood, options), CUABI_ERROR_INVALID_ARGUMENT) << flag;
        EXPECT_NE(message().find(flag), std::string::npos) << message();
        EXPECT_EQ(message().find("cuabi bug"), std::string::npos) << message();
    }
}

// The worker connection belongs to the process that started it: a fork() child compiles through
// a worker of its own and leaves the parent's alone.
TEST(CompileIsolation, AForkedChildIsRefusedAndTheParentKeepsItsWorker) {
    ASSERT_EQ(compile(kGood), CUABI_SUCCESS) << message();  // the parent's worker runs now
    pid_t child = fork();
    ASSERT_GE(child, 0);
    // The child of a process that used cuabi gets CUABI_ERROR_FORKED (core/fork.hpp): it never
    // talks to the parent's worker through the descriptors it inherited.
    if (child == 0)
        _exit(compile("extern \"C\" __global__ void in_child(int* p) { p[0] = 7; }\n") == CUABI_ERROR_FORKED ? 0 : 1);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child was not refused with CUABI_ERROR_FORKED";
    EXPECT_EQ(compile("extern \"C\" __global__ void in_parent(int* p) { p[0] = 8; }\n"), CUABI_SUCCESS) << message();
}

TEST(CompileIsolation, TheStatisticsCountCompilesAndTheNvrtcState) {
    cuabi_cache_stats before = CUABI_CACHE_STATS_INIT;
    ASSERT_EQ(cuabi_cache_get_stats(&before), CUABI_SUCCESS);
    ASSERT_EQ(compile(kGood), CUABI_SUCCESS) << message();
    cuabi_cache_stats after = CUABI_CACHE_STATS_INIT;
    ASSERT_EQ(cuabi_cache_get_stats(&after), CUABI_SUCCESS);
    EXPECT_EQ(after.compiles, before.compiles + 1);
    EXPECT_EQ(after.nvrtc_state, CUABI_NVRTC_STATE_LOADED);
}
