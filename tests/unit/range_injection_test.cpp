// cuabi's ranges as a profiler sees them: a child process runs a scenario with the NVTX recorder
// injected through NVTX_INJECTION64_PATH (NVTX's own mechanism, the one Nsight uses), and the
// tests assert the exact ranges, their nesting and their threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "range/catalog.hpp"
#include "record.hpp"

namespace {

using nvtx_record::Child;
using nvtx_record::Event;

Child run(const std::string& scenario, const std::vector<std::string>& env = {}) {
    return nvtx_record::run(CUABI_NVTX_SCENARIO_PATH, CUABI_NVTX_RECORDER_PATH, scenario, env);
}

size_t count(const std::vector<Event>& events, const std::string& event, const std::string& domain) {
    size_t n = 0;
    for (const Event& e : events) n += e.event == event && e.domain == domain;
    return n;
}

TEST(RangeInjection, UserPushPopNestOnEachThreadInTheirDomains) {
    Child child = run("user");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    EXPECT_NE(child.output.find("profiler attached: 1"), std::string::npos) << child.output;
    std::vector<long> threads = nvtx_record::pushing_threads(child.events);
    ASSERT_EQ(threads.size(), 5u) << "the main thread and 4 workers";
    EXPECT_EQ(nvtx_record::nesting(child.events, threads[0]), "cuabi:frame(app:inner())");
    for (size_t i = 1; i < threads.size(); ++i)
        EXPECT_EQ(nvtx_record::nesting(child.events, threads[i]), "cuabi:worker(app:step())") << "worker " << i;
}

TEST(RangeInjection, UserPushesUseNamedDomainsCreatedOncePerName) {
    Child child = run("user");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::vector<std::string> created;
    for (const Event& e : child.events)
        if (e.event == "domain_create") created.push_back(e.message);
    // "app" is used from five threads but created once; "cuabi" once, at the first range.
    EXPECT_EQ(created, (std::vector<std::string>{"cuabi", "app"}));
    for (const Event& e : child.events)
        if (e.event == "push" || e.event == "start") EXPECT_EQ(e.message_type, "ascii") << e.message;
}

TEST(RangeInjection, StartEndRangesEndOnAnotherThreadAndMayOverlap) {
    Child child = run("user");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::map<uint64_t, nvtx_record::StartEnd> ranges = nvtx_record::start_end_ranges(child.events);
    ASSERT_EQ(ranges.size(), 6u);
    std::vector<std::string> jobs;
    std::vector<long> main_thread = nvtx_record::pushing_threads(child.events);
    for (const auto& [id, range] : ranges) {
        EXPECT_EQ(range.ends, 1) << range.message << " ends exactly once";
        if (range.message.rfind("job ", 0) == 0) {
            jobs.push_back(range.message);
            EXPECT_EQ(range.domain, "app");
            EXPECT_NE(range.start_thread, range.end_thread) << range.message << " started on a worker";
            EXPECT_EQ(range.end_thread, main_thread[0]) << range.message << " ended on the main thread";
        } else {
            EXPECT_EQ(range.domain, "cuabi");
        }
    }
    std::sort(jobs.begin(), jobs.end());
    EXPECT_EQ(jobs, (std::vector<std::string>{"job 0", "job 1", "job 2", "job 3"}));
    // overlap a, overlap b: started a, b and ended a, b -- in that order.
    std::vector<std::string> overlap;
    for (const Event& e : child.events) {
        if (e.event == "start" && e.message.rfind("overlap", 0) == 0) overlap.push_back("start " + e.message);
        if (e.event == "end" && ranges[e.range_id].message.rfind("overlap", 0) == 0)
            overlap.push_back("end " + ranges[e.range_id].message);
    }
    EXPECT_EQ(overlap, (std::vector<std::string>{"start overlap a", "start overlap b", "end overlap a",
                                                 "end overlap b"}));
}

TEST(RangeInjection, NothingReachesTheProfilerWithNvtxOff) {
    Child child = run("user", {"CUABI_NVTX=0"});
    ASSERT_EQ(child.exit_code, 0) << child.output;
    EXPECT_NE(child.output.find("profiler attached: 0"), std::string::npos) << child.output;
    EXPECT_TRUE(child.events.empty()) << child.events.size() << " NVTX calls recorded, first: "
                                      << child.events.front().event << " " << child.events.front().message;
}

TEST(RangeInjection, MisuseFailsAndReachesNoProfiler) {
    Child child = run("misuse");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::map<uint64_t, nvtx_record::StartEnd> ranges = nvtx_record::start_end_ranges(child.events);
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_EQ(ranges.begin()->second.message, "valid");
    EXPECT_EQ(ranges.begin()->second.ends, 1) << "the second end must not reach the profiler";
    EXPECT_EQ(count(child.events, "push", "cuabi"), 0u);
    EXPECT_EQ(count(child.events, "pop", "cuabi"), 0u);
}

TEST(RangeInjection, DomainsAreCappedAt256Names) {
    Child child = run("domain-limit");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    EXPECT_NE(child.output.find("would make 257 named NVTX domains"), std::string::npos) << child.output;
    size_t created = 0;
    for (const Event& e : child.events) created += e.event == "domain_create";
    EXPECT_EQ(created, 257u) << "cuabi's own domain and 256 named ones";
}

TEST(RangeInjection, LibraryDomainRegistersEveryCatalogNameAndCategory) {
    Child child = run("user");
    ASSERT_EQ(child.exit_code, 0) << child.output;
    std::vector<std::string> registered, categories;
    for (const Event& e : child.events) {
        if (e.domain != "cuabi") continue;
        if (e.event == "register_string") registered.push_back(e.message);
        if (e.event == "name_category")
            categories.push_back(std::to_string(e.category) + "=" + e.message);
    }
    std::vector<std::string> want_registered, want_categories;
    for (size_t i = 0; i < cuabi::range::kCatalogSize; ++i) {
        const char* name = cuabi::range::catalog_entry(static_cast<cuabi::range::Phase>(i)).name;
        want_registered.push_back(name);
        want_categories.push_back(std::to_string(i + 1) + "=" + name);
    }
    EXPECT_EQ(registered, want_registered);
    EXPECT_EQ(categories, want_categories);
}

}  // namespace
