// User ranges in-process, with no profiler attached: the checks hold all the same (bad names,
// pop with nothing pushed, ending twice), and push depth is tracked per thread.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "cuabi/cuabi.h"
#include "range/text_check.hpp"
#include "range/user_ranges.hpp"

namespace {

std::string message() { return cuabi_last_error_message(); }
bool has_fix(const std::string& text) { return text.find(" Fix: ") != std::string::npos; }

TEST(RangeUser, RangesAreOnAndNoProfilerIsAttachedByDefault) {
    if (std::getenv("NVTX_INJECTION64_PATH") != nullptr || std::getenv("CUABI_NVTX") != nullptr)
        GTEST_SKIP() << "this run has a profiler or CUABI_NVTX set; the defaults cannot be observed";
    EXPECT_EQ(cuabi_range_get_enabled(), 1u);
    EXPECT_EQ(cuabi_range_get_profiler_attached(), 0u);
}

TEST(RangeUser, PushAndPopBalanceOnTheCallingThread) {
    ASSERT_EQ(cuabi::range::user_depth(), 0u);
    ASSERT_EQ(cuabi_range_push("outer", nullptr), CUABI_SUCCESS);
    ASSERT_EQ(cuabi_range_push("inner", "app"), CUABI_SUCCESS);
    EXPECT_EQ(cuabi::range::user_depth(), 2u);
    EXPECT_EQ(cuabi_range_pop(), CUABI_SUCCESS);
    EXPECT_EQ(cuabi_range_pop(), CUABI_SUCCESS);
    EXPECT_EQ(cuabi::range::user_depth(), 0u);
}

TEST(RangeUser, PopWithNothingPushedIsARangeError) {
    EXPECT_EQ(cuabi_range_pop(), CUABI_ERROR_RANGE);
    EXPECT_NE(message().find("no range pushed"), std::string::npos) << message();
    EXPECT_TRUE(has_fix(message())) << message();
}

TEST(RangeUser, AnotherThreadCannotPopThisThreadsRange) {
    ASSERT_EQ(cuabi_range_push("mine", nullptr), CUABI_SUCCESS);
    cuabi_status other = CUABI_SUCCESS;
    std::thread([&other] { other = cuabi_range_pop(); }).join();
    EXPECT_EQ(other, CUABI_ERROR_RANGE);
    EXPECT_EQ(cuabi_range_pop(), CUABI_SUCCESS);
}

TEST(RangeUser, NullEmptyAndNonUtf8NamesAreInvalidArguments) {
    EXPECT_EQ(cuabi_range_push(nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(message().find("name is NULL"), std::string::npos) << message();
    EXPECT_EQ(cuabi_range_push("", nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(message().find("name is empty"), std::string::npos) << message();
    EXPECT_EQ(cuabi_range_push("caf\xE9", nullptr), CUABI_ERROR_INVALID_ARGUMENT);  // Latin-1, not UTF-8
    EXPECT_NE(message().find("byte 0xE9 at offset 3"), std::string::npos) << message();
    EXPECT_NE(message().find("after \"caf\""), std::string::npos) << message();
    EXPECT_TRUE(has_fix(message())) << message();
    EXPECT_EQ(cuabi_range_push("name", ""), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(message().find("domain is empty"), std::string::npos) << message();
    EXPECT_EQ(cuabi_range_push("name", "\x80"), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(message().find("domain is not valid UTF-8"), std::string::npos) << message();
    EXPECT_EQ(cuabi::range::user_depth(), 0u) << "a refused push must not count";
}

TEST(RangeUser, StartAndEndWorkAcrossThreads) {
    cuabi_range* range = nullptr;
    ASSERT_EQ(cuabi_range_start("transfer", "io", &range), CUABI_SUCCESS);
    ASSERT_NE(range, nullptr);
    cuabi_status ended = CUABI_ERROR_INTERNAL;
    std::thread([&] { ended = cuabi_range_end(range); }).join();
    EXPECT_EQ(ended, CUABI_SUCCESS);
}

TEST(RangeUser, EndingTwiceIsAnInvalidHandle) {
    cuabi_range* range = nullptr;
    ASSERT_EQ(cuabi_range_start("once", nullptr, &range), CUABI_SUCCESS);
    ASSERT_EQ(cuabi_range_end(range), CUABI_SUCCESS);
    EXPECT_EQ(cuabi_range_end(range), CUABI_ERROR_INVALID_HANDLE);
    EXPECT_NE(message().find("range"), std::string::npos) << message();
    EXPECT_TRUE(has_fix(message())) << message();
}

TEST(RangeUser, EndRejectsNullAndForeignHandles) {
    EXPECT_EQ(cuabi_range_end(nullptr), CUABI_ERROR_INVALID_HANDLE);
    EXPECT_TRUE(has_fix(message())) << message();
    EXPECT_EQ(cuabi_range_end(reinterpret_cast<cuabi_range*>(uintptr_t{0x1234})), CUABI_ERROR_INVALID_HANDLE);
}

TEST(RangeUser, StartChecksItsArguments) {
    cuabi_range* range = nullptr;
    EXPECT_EQ(cuabi_range_start("r", nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(message().find("out_range"), std::string::npos) << message();
    EXPECT_EQ(cuabi_range_start(nullptr, nullptr, &range), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(cuabi_range_start("ok", "\xED\xA0\x80", &range), CUABI_ERROR_INVALID_ARGUMENT);  // a surrogate
    EXPECT_EQ(range, nullptr) << "outputs are written only on success";
}

struct Utf8Case {
    const char* text;
    size_t valid_prefix;
};

TEST(RangeUser, Utf8CheckFindsTheFirstBadByte) {
    const Utf8Case cases[] = {
        {"plain ascii", 11},
        {"\xC3\xA9t\xC3\xA9", 5},           // "été"
        {"\xE2\x82\xAC", 3},                // U+20AC
        {"\xF0\x9F\x9A\x80", 4},            // U+1F680
        {"\xF4\x8F\xBF\xBF", 4},            // U+10FFFF, the largest
        {"ab\x80", 2},                      // stray continuation byte
        {"\xC0\xAF", 0},                    // overlong '/'
        {"\xE0\x80\xAF", 0},                // overlong '/'
        {"\xED\xA0\x80", 0},                // surrogate U+D800
        {"\xF4\x90\x80\x80", 0},            // U+110000, past the end
        {"x\xE2\x82", 1},                   // truncated at the NUL
        {"\xF8\x88\x80\x80\x80", 0},        // 5-byte forms do not exist
    };
    for (const Utf8Case& c : cases) EXPECT_EQ(cuabi::range::valid_utf8_prefix(c.text), c.valid_prefix) << c.text;
}

}  // namespace
