// cuabi's own ranges as a profiler sees them, for the phases that need no GPU: a cold compile, a
// memory hit, a disk hit in a fresh process (real NVRTC, real cache directory), each inside the
// caller's range. The child runs with the NVTX recorder injected (record.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "range/catalog.hpp"
#include "record.hpp"

namespace {

using nvtx_record::Child;
using nvtx_record::Event;

Child run(const std::string& scenario, const std::vector<std::string>& env) {
    return nvtx_record::run(CUABI_NVTX_SCENARIO_PATH, CUABI_NVTX_RECORDER_PATH, scenario, env);
}

// The key the child printed ("cache key <hex>").
std::string printed_key(const Child& child) {
    size_t at = child.output.find("cache key ");
    return at == std::string::npos ? std::string() : child.output.substr(at + 10, 32);
}

std::string main_thread_nesting(const Child& child) {
    std::vector<long> threads = nvtx_record::pushing_threads(child.events);
    EXPECT_EQ(threads.size(), 1u) << "only the calling thread marks ranges";
    return threads.empty() ? std::string() : nvtx_record::nesting(child.events, threads[0]);
}

TEST(RangeLibrary, ColdCompileShowsLookupsCompileAndStoreInsideTheCallersRange) {
    nvtx_record::TempDir cache;
    Child child = run("compile", {"CUABI_CACHE_DIR=" + cache.path()});
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::string nesting = main_thread_nesting(child);
    EXPECT_EQ(nvtx_record::without_keys(nesting),
              "cuabi:build("
              "cuabi:cuabi.cache.lookup.memory()"
              "cuabi:cuabi.cache.lookup.disk: KEY()"
              "cuabi:cuabi.compile: saxpy.cu()"
              "cuabi:cuabi.cache.store: KEY())"
              "cuabi:build again(cuabi:cuabi.cache.lookup.memory())")
        << "the second, identical compile is a memory hit: one lookup, nothing else";
    std::string key = printed_key(child);
    ASSERT_EQ(key.size(), 32u) << child.output;
    EXPECT_NE(nesting.find("cuabi.cache.lookup.disk: " + key), std::string::npos) << nesting;
    EXPECT_NE(nesting.find("cuabi.cache.store: " + key), std::string::npos) << nesting;
}

TEST(RangeLibrary, DiskHitInAFreshProcessRunsNoCompile) {
    nvtx_record::TempDir cache;
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + cache.path()};
    Child cold = run("compile", env);
    ASSERT_EQ(cold.exit_code, 0) << cold.output;
    Child warm = run("compile-disk-hit", env);
    ASSERT_EQ(warm.exit_code, 0) << warm.output;
    EXPECT_EQ(nvtx_record::without_keys(main_thread_nesting(warm)),
              "cuabi:build(cuabi:cuabi.cache.lookup.memory()cuabi:cuabi.cache.lookup.disk: KEY())");
    EXPECT_EQ(printed_key(warm), printed_key(cold));
}

TEST(RangeLibrary, RangesWithoutDetailUseRegisteredNamesAndEveryRangeItsPhaseCategory) {
    nvtx_record::TempDir cache;
    Child child = run("compile", {"CUABI_CACHE_DIR=" + cache.path()});
    ASSERT_EQ(child.exit_code, 0) << child.output;
    size_t checked = 0;
    for (const Event& e : child.events) {
        if (e.event != "push" || e.message.rfind("cuabi.", 0) != 0) continue;
        std::string name = e.message.substr(0, e.message.find(": "));
        bool has_detail = name.size() != e.message.size();
        EXPECT_EQ(e.message_type, has_detail ? "ascii" : "registered") << e.message;
        size_t index = 0;
        while (index < cuabi::range::kCatalogSize &&
               name != cuabi::range::catalog_entry(static_cast<cuabi::range::Phase>(index)).name)
            ++index;
        ASSERT_LT(index, cuabi::range::kCatalogSize) << name << " is not in the catalog";
        EXPECT_EQ(e.category, index + 1) << e.message;
        ++checked;
    }
    EXPECT_EQ(checked, 5u);
}

TEST(RangeLibrary, NvtxOffSilencesTheLibrarysRanges) {
    nvtx_record::TempDir cache;
    Child child = run("compile", {"CUABI_CACHE_DIR=" + cache.path(), "CUABI_NVTX=0"});
    ASSERT_EQ(child.exit_code, 0) << child.output;
    EXPECT_TRUE(child.events.empty()) << child.events.size() << " NVTX calls recorded";
}

}  // namespace
