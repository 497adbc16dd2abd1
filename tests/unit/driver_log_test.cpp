// Which line of the driver's error log a failure's message quotes (driver/driver_log.hpp). The
// selection is pure, so it is tested here on lines shaped like the driver's; the GPU suite checks
// that a real driver failure carries a quote.
#include <gtest/gtest.h>

#include <string>

#include "driver/driver_log.hpp"

namespace cuabi {
namespace {

TEST(DriverLog, ParsesTheBracketedHeader) {
    const driver_log::Line line =
        driver_log::parse_line("[22:21:32.099][25642][CUDA][E][cuMemAlloc_v2] Allocation of 1 PiB failed");
    EXPECT_EQ(line.thread_id, 25642u);
    EXPECT_EQ(line.entry_point, "cuMemAlloc_v2");
    EXPECT_EQ(line.text, "Allocation of 1 PiB failed");
}

TEST(DriverLog, ParsesTheDriversOwnLines) {
    // As a CUDA 13.0 driver (580) logs a failed cuMemAlloc.
    const driver_log::Line line = driver_log::parse_line(
        "[01:12:56.144][140377359672832][CUDA][E] Returning 2 (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2");
    EXPECT_EQ(line.thread_id, 140377359672832u);
    EXPECT_EQ(line.entry_point, "cuMemAlloc_v2");
    EXPECT_EQ(line.text, "Returning 2 (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2");
    EXPECT_EQ(driver_log::choose("cuMemAlloc failed with CUDA_ERROR_OUT_OF_MEMORY", "",
                                 std::string(line.whole) + "\n", 140377359672832u),
              "Returning 2 (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2");
    EXPECT_EQ(driver_log::choose("cuMemHostRegister failed", "", std::string(line.whole) + "\n", 1), "");
}

TEST(DriverLog, LinesWithoutTheHeaderAreKeptWhole) {
    for (const char* text : {"plain text", "[only][three][fields] text", "[unclosed", ""}) {
        const driver_log::Line line = driver_log::parse_line(text);
        EXPECT_EQ(line.thread_id, 0u) << text;
        EXPECT_TRUE(line.entry_point.empty()) << text;
        EXPECT_EQ(line.text, text);
    }
    EXPECT_EQ(driver_log::parse_line("[t][12x][CUDA][E][cuInit] x").thread_id, 0u) << "a thread id that is not a number";
}

TEST(DriverLog, QuotesThisThreadsLineOfTheEntryPointTheMessageNames) {
    const std::string fresh =
        "[t][7][CUDA][E][cuMemAlloc_v2] another thread's allocation failed\n"
        "[t][5][CUDA][E][cuLaunchKernel] grid too large\n"
        "[t][5][CUDA][E][cuMemAlloc_v2] out of memory for 1 PiB\n";
    EXPECT_EQ(driver_log::choose("cuMemAlloc failed for 1 PiB", "", fresh, 5),
              "[cuMemAlloc_v2] out of memory for 1 PiB");
    // Another thread's line of the same entry point, when this thread logged none.
    EXPECT_EQ(driver_log::choose("cuMemAlloc failed", "", fresh, 9), "[cuMemAlloc_v2] out of memory for 1 PiB");
    // Entry points are matched as whole words: cuMemAllocHost is not cuMemAlloc.
    EXPECT_EQ(driver_log::choose("cuMemAllocHost failed", "", fresh, 5), "");
    EXPECT_EQ(driver_log::choose("cuModuleLoad failed", "", fresh, 5), "");
}

TEST(DriverLog, AnEarlierReadKeepsThisThreadsLineForIt) {
    // Another thread's failure read the driver's ring first; this thread's line waits in `earlier`.
    const std::string earlier = "[t][5][CUDA][E][cuGraphInstantiate] node 3 is invalid\n";
    const std::string fresh = "[t][8][CUDA][E][cuGraphInstantiate] unrelated\n";
    EXPECT_EQ(driver_log::choose("cuGraphInstantiate failed", earlier, fresh, 5),
              "[cuGraphInstantiate] node 3 is invalid");
    // A stale line of another thread is not quoted: only fresh lines are, when none is this thread's.
    EXPECT_EQ(driver_log::choose("cuGraphInstantiate failed", earlier, "", 6), "");
}

TEST(DriverLog, QuotesAreBounded) {
    const std::string line = "[t][5][CUDA][E][cuMemAlloc_v2] " + std::string(10000, 'x') + "\n";
    const std::string quote = driver_log::choose("cuMemAlloc failed", "", line, 5);
    EXPECT_LT(quote.size(), driver_log::kQuoteLimit + 32);
    EXPECT_EQ(quote.rfind("[cuMemAlloc_v2] xxx", 0), 0u) << quote;
}

}  // namespace
}  // namespace cuabi
