// Every entry of the range catalog is emitted by some scenario, and everything emitted is in the
// catalog. Without a GPU only the phases that need none (compile, cache, driver loading) can be
// seen, and only they are required; with one, all are. The test prints which it saw.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "range/catalog.hpp"
#include "record.hpp"

namespace {

bool needs_gpu(const std::string& name) {
    return name != "cuabi.compile" && name.rfind("cuabi.cache.", 0) != 0 && name != "cuabi.driver.load";
}

TEST(RangeCoverage, EveryCatalogEntryIsEmittedAndEveryEmittedRangeIsCataloged) {
    nvtx_record::TempDir cache;
    nvtx_record::TempDir pruned_cache;
    struct Run {
        const char* scenario;
        std::string cache_dir;
    };
    const Run runs[] = {{"compile", cache.path()}, {"compile-disk-hit", cache.path()},
                        {"cache-prune", pruned_cache.path()}, {"driver", cache.path()},
                        {"launch", cache.path()}, {"graph", cache.path()}};
    std::set<std::string> seen;
    bool gpu = true;
    for (const Run& run : runs) {
        nvtx_record::Child child = nvtx_record::run(CUABI_NVTX_SCENARIO_PATH, CUABI_NVTX_RECORDER_PATH,
                                                    run.scenario, {"CUABI_CACHE_DIR=" + run.cache_dir});
        ASSERT_EQ(child.exit_code, 0) << run.scenario << ":\n" << child.output;
        if (child.output.find("no device: ") != std::string::npos) gpu = false;
        for (const std::string& name : nvtx_record::library_ranges(child.events)) seen.insert(name);
    }
    std::set<std::string> catalog;
    for (size_t i = 0; i < cuabi::range::kCatalogSize; ++i)
        catalog.insert(cuabi::range::catalog_entry(static_cast<cuabi::range::Phase>(i)).name);

    std::cout << "range coverage (" << (gpu ? "GPU present" : "no GPU: GPU phases not required") << "):\n";
    for (const std::string& name : catalog) {
        bool required = gpu || !needs_gpu(name);
        std::cout << "  " << (seen.count(name) ? "seen     " : required ? "MISSING  " : "not run  ") << name << "\n";
        if (required) EXPECT_EQ(seen.count(name), 1u) << name << " is in the catalog but no scenario emitted it";
    }
    for (const std::string& name : seen) EXPECT_EQ(catalog.count(name), 1u) << name << " is emitted but not cataloged";
}

}  // namespace
