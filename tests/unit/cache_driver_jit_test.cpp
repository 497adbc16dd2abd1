// The CUDA driver's JIT cache settings: cuabi fills in what the operator left unset and never
// overrides a choice, least of all CUDA_CACHE_DISABLE=1.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "cache/driver_jit_cache.hpp"
#include "cache_support/process.hpp"

using namespace cuabi::cache;

namespace {

DriverJitInputs inputs_with_cuabi_dir() {
    DriverJitInputs inputs;
    inputs.home = "/home/user";
    inputs.cuabi_jit_directory = "/home/user/.cache/cuabi/driver-jit";
    return inputs;
}

}  // namespace

TEST(CacheDriverJit, UnsetVariablesPointTheDriverIntoTheCuabiDirectoryWithOneGiB) {
    DriverJitSettings settings = plan_driver_jit_cache(inputs_with_cuabi_dir());
    EXPECT_TRUE(settings.enabled);
    EXPECT_EQ(settings.path_source, Source::Cuabi);
    EXPECT_EQ(settings.path, "/home/user/.cache/cuabi/driver-jit");
    EXPECT_EQ(settings.max_bytes_source, Source::Cuabi);
    EXPECT_EQ(settings.max_bytes, 1073741824u);
}

TEST(CacheDriverJit, AnOperatorPathIsKeptAndTheSizeStillRaised) {
    DriverJitInputs inputs = inputs_with_cuabi_dir();
    inputs.path = "/scratch/jit";
    DriverJitSettings settings = plan_driver_jit_cache(inputs);
    EXPECT_EQ(settings.path_source, Source::Environment);
    EXPECT_EQ(settings.path, "/scratch/jit");
    EXPECT_EQ(settings.max_bytes_source, Source::Cuabi);
}

TEST(CacheDriverJit, AnOperatorSizeIsKeptEvenBelowOneGiB) {
    DriverJitInputs inputs = inputs_with_cuabi_dir();
    inputs.max_size = "1000";
    DriverJitSettings settings = plan_driver_jit_cache(inputs);
    EXPECT_EQ(settings.max_bytes_source, Source::Environment);
    EXPECT_EQ(settings.max_bytes, 1000u);
    EXPECT_EQ(settings.path_source, Source::Cuabi);
}

TEST(CacheDriverJit, DisableOneChangesNothing) {
    DriverJitInputs inputs = inputs_with_cuabi_dir();
    inputs.disable = "1";
    DriverJitSettings settings = plan_driver_jit_cache(inputs);
    EXPECT_FALSE(settings.enabled);
    EXPECT_EQ(settings.path_source, Source::DriverDefault);
    EXPECT_EQ(settings.path, "/home/user/.nv/ComputeCache");
    EXPECT_EQ(settings.max_bytes_source, Source::DriverDefault);
    EXPECT_EQ(settings.max_bytes, 0u);
}

TEST(CacheDriverJit, DisableZeroIsAnEnabledCache) {
    DriverJitInputs inputs = inputs_with_cuabi_dir();
    inputs.disable = "0";
    EXPECT_EQ(plan_driver_jit_cache(inputs).path_source, Source::Cuabi);
}

TEST(CacheDriverJit, ADriverStartedBeforeCuabiIsLeftAlone) {
    DriverJitInputs inputs = inputs_with_cuabi_dir();
    inputs.driver_started_first = true;
    DriverJitSettings settings = plan_driver_jit_cache(inputs);
    EXPECT_TRUE(settings.driver_started_first);
    EXPECT_EQ(settings.path_source, Source::DriverDefault);
    EXPECT_EQ(settings.max_bytes_source, Source::DriverDefault);
}

TEST(CacheDriverJit, WithoutATrustedCuabiDirectoryTheDriverDefaultStays) {
    DriverJitInputs inputs = inputs_with_cuabi_dir();
    inputs.cuabi_jit_directory.clear();
    DriverJitSettings settings = plan_driver_jit_cache(inputs);
    EXPECT_EQ(settings.path_source, Source::DriverDefault);
    EXPECT_EQ(settings.max_bytes_source, Source::DriverDefault);
}

TEST(CacheDriverJit, AProcessGetsTheEnvironmentSetAndAPrivateDirectory) {
    cache_test::TempDir dir;
    cache_test::HelperResult jit = cache_test::run_helper(
        {"jit"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUDA_CACHE_PATH=", "CUDA_CACHE_MAXSIZE=",
                  "CUDA_CACHE_DISABLE=", "CUABI_CACHE_DISABLE="});
    ASSERT_EQ(jit.exit_code, 0) << jit.output;
    EXPECT_EQ(jit.values["CUDA_CACHE_PATH"], dir / "cache/driver-jit");
    EXPECT_EQ(jit.values["CUDA_CACHE_MAXSIZE"], "1073741824");
    EXPECT_EQ(jit.values["CUDA_CACHE_DISABLE"], "<unset>");
    struct stat info;
    ASSERT_EQ(stat((dir / "cache/driver-jit").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST(CacheDriverJit, AProcessWithDisableOneKeepsItsEnvironmentUntouched) {
    cache_test::TempDir dir;
    cache_test::HelperResult jit = cache_test::run_helper(
        {"jit"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUDA_CACHE_PATH=", "CUDA_CACHE_MAXSIZE=",
                  "CUDA_CACHE_DISABLE=1"});
    ASSERT_EQ(jit.exit_code, 0) << jit.output;
    EXPECT_EQ(jit.values["CUDA_CACHE_PATH"], "<unset>");
    EXPECT_EQ(jit.values["CUDA_CACHE_MAXSIZE"], "<unset>");
    EXPECT_EQ(jit.values["CUDA_CACHE_DISABLE"], "1");
    EXPECT_EQ(jit.values["enabled"], "0");
}

TEST(CacheDriverJit, AProcessWithTheCuabiDiskCacheOffChangesNothing) {
    cache_test::TempDir dir;
    cache_test::HelperResult jit = cache_test::run_helper(
        {"jit"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUABI_CACHE_DISABLE=1", "CUDA_CACHE_PATH=",
                  "CUDA_CACHE_MAXSIZE=", "CUDA_CACHE_DISABLE="});
    ASSERT_EQ(jit.exit_code, 0) << jit.output;
    EXPECT_EQ(jit.values["CUDA_CACHE_PATH"], "<unset>");
    EXPECT_EQ(jit.values["CUDA_CACHE_MAXSIZE"], "<unset>");
    EXPECT_NE(access((dir / "cache").c_str(), F_OK), 0) << "cuabi wrote to disk with CUABI_CACHE_DISABLE=1";
}

TEST(CacheDriverJit, ThePublicApiShowsWhatTheConfigureCallChose) {
    cache_test::TempDir dir;
    cache_test::HelperResult api = cache_test::run_helper(
        {"api", "configure"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUDA_CACHE_PATH=", "CUDA_CACHE_MAXSIZE=4294967296",
                  "CUDA_CACHE_DISABLE=", "CUABI_CACHE_DISABLE="});
    ASSERT_EQ(api.exit_code, 0) << api.output;
    EXPECT_EQ(api.number("jit_status"), 0u);
    EXPECT_EQ(api.number("jit_enabled"), 1u);
    EXPECT_EQ(api.number("jit_path_source"), static_cast<uint64_t>(CUABI_SETTING_CUABI));
    EXPECT_EQ(api.number("jit_max_bytes"), 4294967296u);
    EXPECT_EQ(api.values["jit_path"], dir / "cache/driver-jit");
}

TEST(CacheDriverJit, WithoutTheConfigureCallNothingIsChangedAndTheDriverDefaultIsShown) {
    cache_test::TempDir dir;
    cache_test::HelperResult api = cache_test::run_helper(
        {"api"}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUDA_CACHE_PATH=", "CUDA_CACHE_MAXSIZE=",
                  "CUDA_CACHE_DISABLE=", "CUABI_CACHE_DISABLE=", "HOME=/home/someone"});
    ASSERT_EQ(api.exit_code, 0) << api.output;
    EXPECT_EQ(api.number("jit_status"), 0u);
    EXPECT_EQ(api.number("jit_path_source"), static_cast<uint64_t>(CUABI_SETTING_DRIVER_DEFAULT));
    EXPECT_EQ(api.number("jit_max_bytes"), 0u);
    EXPECT_EQ(api.values["jit_path"], "/home/someone/.nv/ComputeCache");
    EXPECT_NE(access((dir / "cache/driver-jit").c_str(), F_OK), 0) << "nothing asked for the driver-jit directory";
}
