// cuabi never changes the process environment behind the host's back: setenv races with every
// getenv of other threads (glibc's environment is not thread-safe), which Go, Rust and JVM
// runtimes call all the time. The helper replaces setenv/unsetenv/putenv/clearenv with counting
// versions and reads the environment on four threads while cuabi loads the driver, opens the
// cache, reports its settings and compiles; only cuabi_cache_configure_driver_jit() -- documented
// for start-up, before threads -- may change it.
#include <gtest/gtest.h>

#include "cache_support/process.hpp"

TEST(CacheEnvironment, NothingChangesTheEnvironmentWhileOtherThreadsReadIt) {
    cache_test::TempDir dir;
    cache_test::HelperResult race = cache_test::run_helper(
        {"env-race"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUDA_CACHE_PATH=", "CUDA_CACHE_MAXSIZE=",
                       "CUDA_CACHE_DISABLE=", "CUABI_CACHE_DISABLE="});
    ASSERT_EQ(race.exit_code, 0) << race.output;
    EXPECT_EQ(race.number("compile_status"), 0u) << race.output;
    EXPECT_EQ(race.number("changes_while_running"), 0u) << race.output;
    EXPECT_EQ(race.number("changes_before"), 0u) << race.output;
    EXPECT_EQ(race.values["CUDA_CACHE_PATH"], "<unset>");
    EXPECT_GT(race.number("reads"), 0u);
}

TEST(CacheEnvironment, OnlyTheStartUpCallSetsTheDriverJitCacheVariables) {
    cache_test::TempDir dir;
    cache_test::HelperResult race = cache_test::run_helper(
        {"env-race", "configure"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUDA_CACHE_PATH=", "CUDA_CACHE_MAXSIZE=",
                                    "CUDA_CACHE_DISABLE=", "CUABI_CACHE_DISABLE="});
    ASSERT_EQ(race.exit_code, 0) << race.output;
    EXPECT_EQ(race.number("configure_status"), 0u);
    EXPECT_EQ(race.number("changes_before"), 2u) << "CUDA_CACHE_PATH and CUDA_CACHE_MAXSIZE, at start-up";
    EXPECT_EQ(race.number("changes_while_running"), 0u) << race.output;
    EXPECT_EQ(race.values["CUDA_CACHE_PATH"], dir / "cache/driver-jit");
}
