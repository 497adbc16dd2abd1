// Cache hits need no NVRTC: a fresh process serves a warm entry without loading NVRTC or starting
// a compile worker, and a process that cannot load NVRTC at all is served what an earlier process
// stored -- templated kernels found by their name expressions -- while a miss says that the entry
// is missing, not just NVRTC. Each process is a real one (the cache helper), sharing a directory.
#include <gtest/gtest.h>

#include "cache_support/process.hpp"
#include "cuabi/cuabi.h"

namespace {

class NvrtcFree : public ::testing::Test {
protected:
    std::vector<std::string> env(std::vector<std::string> more = {}) const {
        more.push_back("CUABI_CACHE_DIR=" + (dir_ / "cache"));
        more.push_back("CUABI_CACHE_DISABLE=");
        return more;
    }
    cache_test::HelperResult compile(const char* source, const std::vector<std::string>& environment) const {
        return cache_test::run_helper({"compile", source}, environment);
    }
    cache_test::TempDir dir_;
};

}  // namespace

TEST_F(NvrtcFree, ACompileRunsNvrtcInAWorkerAndNeverLoadsItHere) {
    cache_test::HelperResult cold = compile("templates", env());
    ASSERT_EQ(cold.number("status"), 0u) << cold.output;
    EXPECT_EQ(cold.number("origin"), static_cast<uint64_t>(CUABI_MODULE_ORIGIN_COMPILED));
    EXPECT_EQ(cold.number("compiles"), 1u);
    EXPECT_EQ(cold.number("nvrtc_state"), static_cast<uint64_t>(CUABI_NVRTC_STATE_LOADED)) << "loaded in the worker";
    EXPECT_EQ(cold.number("nvrtc_mapped"), 0u) << "NVRTC was loaded into the calling process";
    EXPECT_EQ(cold.number("workers"), 1u);
}

TEST_F(NvrtcFree, AFreshProcessServesADiskHitWithoutNvrtcOrAWorker) {
    ASSERT_EQ(compile("templates", env()).number("status"), 0u);
    cache_test::HelperResult warm = compile("templates", env());
    ASSERT_EQ(warm.number("status"), 0u) << warm.output;
    EXPECT_EQ(warm.number("origin"), static_cast<uint64_t>(CUABI_MODULE_ORIGIN_DISK_CACHE)) << warm.output;
    EXPECT_EQ(warm.number("compiles"), 0u);
    EXPECT_EQ(warm.number("nvrtc_state"), static_cast<uint64_t>(CUABI_NVRTC_STATE_NOT_LOADED));
    EXPECT_EQ(warm.number("nvrtc_mapped"), 0u);
    EXPECT_EQ(warm.number("workers"), 0u);
}

TEST_F(NvrtcFree, InProcessIsolationLoadsNvrtcIntoTheCallingProcess) {
    cache_test::HelperResult cold = compile("templates", env({"CUABI_COMPILE_ISOLATION=in-process"}));
    ASSERT_EQ(cold.number("status"), 0u) << cold.output;
    EXPECT_EQ(cold.number("nvrtc_mapped"), 1u);
    EXPECT_EQ(cold.number("workers"), 0u);
}

TEST_F(NvrtcFree, AProcessWithoutNvrtcIsServedTemplatedKernelsByNameExpressionFromTheCache) {
    cache_test::HelperResult filled = compile("templates", env());
    ASSERT_EQ(filled.number("status"), 0u) << filled.output;
    std::vector<std::string> no_nvrtc = env({"CUABI_NVRTC_PATH=/nonexistent/libnvrtc.so.13"});

    cache_test::HelperResult served = compile("templates", no_nvrtc);
    ASSERT_EQ(served.number("status"), 0u) << served.output;
    EXPECT_EQ(served.number("origin"), static_cast<uint64_t>(CUABI_MODULE_ORIGIN_DISK_CACHE));
    EXPECT_EQ(served.values["target"], "sm_90");
    EXPECT_EQ(served.values["lowered0"], filled.values["lowered0"]);
    EXPECT_EQ(served.values["lowered1"], filled.values["lowered1"]);
    EXPECT_NE(served.values["lowered0"].find("fill"), std::string::npos) << served.output;
    EXPECT_EQ(served.number("nvrtc_state"), static_cast<uint64_t>(CUABI_NVRTC_STATE_UNAVAILABLE));
    EXPECT_EQ(served.number("workers"), 0u);

    cache_test::HelperResult missing = compile("other", no_nvrtc);
    EXPECT_EQ(missing.number("status"), static_cast<uint64_t>(CUABI_ERROR_NVRTC_NOT_FOUND)) << missing.output;
    const std::string& message = missing.values["message"];
    EXPECT_NE(message.find("has no entry"), std::string::npos) << message;
    EXPECT_NE(message.find("from any NVRTC"), std::string::npos) << message;
    EXPECT_NE(message.find("/nonexistent/libnvrtc.so.13"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
    EXPECT_NE(message.find("fill the kernel cache"), std::string::npos) << message;
}
