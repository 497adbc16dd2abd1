// cuabi's GPU-side ranges as a profiler sees them: a launch and a graph replay, run in a child
// process with the NVTX recorder injected (tests/nvtx_injection/record.hpp). The scenarios check
// the kernel's results too, so a range cannot be counted for a launch that did nothing. On a GPU
// machine every catalog entry must be emitted by some scenario.
#include <gtest/gtest.h>

#include <iostream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cuabi/cuabi.h"
#include "record.hpp"

namespace {

using nvtx_record::Child;

class RangeGpu : public ::testing::Test {
protected:
    void SetUp() override {
        int32_t count = 0;
        if (cuabi_device_get_count(&count) != CUABI_SUCCESS)
            GTEST_SKIP() << "no CUDA device: " << cuabi_last_error_message();
        cache_ = std::make_unique<nvtx_record::TempDir>();
    }
    Child run(const std::string& scenario) {
        Child child = nvtx_record::run(CUABI_NVTX_SCENARIO_PATH, CUABI_NVTX_RECORDER_PATH, scenario,
                                       {"CUABI_CACHE_DIR=" + cache_->path()});
        EXPECT_EQ(child.output.find("no device"), std::string::npos) << child.output;
        return child;
    }
    // The nesting of the one thread that marked ranges.
    static std::string nesting(const Child& child) {
        std::vector<long> threads = nvtx_record::pushing_threads(child.events);
        EXPECT_EQ(threads.size(), 1u);
        return threads.empty() ? std::string() : nvtx_record::nesting(child.events, threads[0]);
    }
    std::unique_ptr<nvtx_record::TempDir> cache_;
};

// "cuabi:cuabi.launch" or "cuabi:cuabi.launch: saxpy" (the launch may name its kernel).
const std::string kLaunch = R"(cuabi:cuabi\.launch(: saxpy)?\(\))";

TEST_F(RangeGpu, LaunchIsMarkedInsideTheCallersRangeAndTheModuleLoadInsideSetup) {
    Child child = run("launch");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::string text = nvtx_record::without_keys(nesting(child));
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(cuabi:step\()" + kLaunch + R"(\))"))) << text;
    // setup holds the compile's leaf ranges (lookups, NVRTC, store) and then loads the module.
    std::smatch setup;
    ASSERT_TRUE(std::regex_search(text, setup, std::regex(R"(cuabi:setup\(((?:cuabi:[^()]*\(\))*)\))"))) << text;
    std::string inside = setup[1];
    EXPECT_NE(inside.find("cuabi:cuabi.compile: saxpy.cu()"), std::string::npos) << inside;
    EXPECT_NE(inside.find("cuabi:cuabi.module.load"), std::string::npos) << inside;
    EXPECT_LT(inside.find("cuabi.compile"), inside.find("cuabi.module.load")) << inside;
}

TEST_F(RangeGpu, EveryLaunchOfABatchIsMarked) {
    Child child = run("launch-batch");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::string text = nvtx_record::without_keys(nesting(child));
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(cuabi:step\()" + kLaunch + kLaunch + kLaunch + R"(\))"))) << text;
}

TEST_F(RangeGpu, GraphReplayIsMarkedOncePerReplayAndCaptureMarksEachCapturedLaunch) {
    Child child = run("graph");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::string text = nvtx_record::without_keys(nesting(child));
    EXPECT_NE(text.find("cuabi:replay(cuabi:cuabi.graph.launch()cuabi:cuabi.graph.launch()cuabi:cuabi.graph.launch())"),
              std::string::npos)
        << text;
    // capture: begin, the two validated launches, end (with instantiation somewhere inside).
    std::smatch capture;
    ASSERT_TRUE(std::regex_search(text, capture, std::regex(R"(cuabi:capture\((.*?)\)cuabi:cuabi\.graph\.upload)")))
        << text;
    std::string inside = capture[1];
    EXPECT_TRUE(std::regex_search(inside, std::regex("^cuabi:cuabi\\.graph\\.capture\\(\\)" + kLaunch + kLaunch +
                                                     "cuabi:cuabi\\.graph\\.capture")))
        << inside;
    EXPECT_NE(inside.find("cuabi.graph.instantiate"), std::string::npos) << inside;
    EXPECT_NE(text.find("cuabi:cuabi.graph.update"), std::string::npos) << text;
}

TEST_F(RangeGpu, EveryCatalogEntryIsEmittedOnAGpuMachine) {
    std::set<std::string> seen;
    nvtx_record::TempDir pruned;
    for (const char* scenario : {"compile", "compile-disk-hit", "driver", "launch", "graph"}) {
        Child child = run(scenario);
        ASSERT_EQ(child.exit_code, 0) << scenario << ":\n" << child.output;
        for (const std::string& name : nvtx_record::library_ranges(child.events)) seen.insert(name);
    }
    Child prune = nvtx_record::run(CUABI_NVTX_SCENARIO_PATH, CUABI_NVTX_RECORDER_PATH, "cache-prune",
                                   {"CUABI_CACHE_DIR=" + pruned.path()});
    ASSERT_EQ(prune.exit_code, 0) << prune.output;
    for (const std::string& name : nvtx_record::library_ranges(prune.events)) seen.insert(name);

    size_t count = 0;
    ASSERT_EQ(cuabi_range_get_catalog_count(&count), CUABI_SUCCESS);
    std::set<std::string> catalog;
    std::cout << "range coverage on the GPU:\n";
    for (size_t i = 0; i < count; ++i) {
        const char* name = nullptr;
        const char* description = nullptr;
        ASSERT_EQ(cuabi_range_get_catalog_entry(i, &name, &description), CUABI_SUCCESS);
        catalog.insert(name);
        std::cout << "  " << (seen.count(name) ? "seen     " : "MISSING  ") << name << "\n";
        EXPECT_EQ(seen.count(name), 1u) << name << " is in the catalog but no scenario emitted it";
    }
    for (const std::string& name : seen) EXPECT_EQ(catalog.count(name), 1u) << name << " is emitted but not cataloged";
}

}  // namespace
