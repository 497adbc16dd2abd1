// The last-error message: thread-local, never NULL, names the values, ends in a fix.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {
namespace {

TEST(ErrorMessages, AFreshThreadReadsNoErrorNeverNull) {
    std::string seen;
    int32_t cu_result = -1, nvrtc_result = -1;
    std::thread([&] {
        const char* message = cuabi_last_error_message();
        seen = message != nullptr ? message : "<NULL>";
        cu_result = cuabi_last_cu_result();
        nvrtc_result = cuabi_last_nvrtc_result();
    }).join();
    EXPECT_EQ(seen, "no error");
    EXPECT_EQ(cu_result, 0);
    EXPECT_EQ(nvrtc_result, 0);
}

TEST(ErrorMessages, FailFormatsValuesAndAppendsTheFix) {
    Status status = fail(CUABI_ERROR_INVALID_ARGUMENT, "pass fewer widgets", "got %d widgets, at most %d fit", 7, 4);
    EXPECT_EQ(status, CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(cuabi_last_error_message(), "got 7 widgets, at most 4 fit. Fix: pass fewer widgets");
}

TEST(ErrorMessages, AMessageAlreadyEndingInAPeriodGetsNoSecondOne) {
    fail(CUABI_ERROR_INTERNAL, "report it", "sentence.");
    EXPECT_STREQ(cuabi_last_error_message(), "sentence. Fix: report it");
}

TEST(ErrorMessages, LongMessagesAreKeptWhole) {
    std::string long_value(2000, 'x');
    fail(CUABI_ERROR_INVALID_ARGUMENT, "shorten it", "value '%s' is too long", long_value.c_str());
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find(long_value), std::string::npos);
    EXPECT_EQ(message.substr(message.size() - 15), "Fix: shorten it");
}

TEST(ErrorMessages, EachThreadKeepsItsOwnLastError) {
    fail(CUABI_ERROR_OUT_OF_BOUNDS, "fix main", "main thread failure");
    std::string other;
    std::thread([&] {
        fail(CUABI_ERROR_NOT_FOUND, "fix other", "other thread failure");
        other = cuabi_last_error_message();
    }).join();
    EXPECT_EQ(other, "other thread failure. Fix: fix other");
    EXPECT_STREQ(cuabi_last_error_message(), "main thread failure. Fix: fix main");
}

TEST(ErrorMessages, TheDriverAndNvrtcResultsBehindAFailureAreKept) {
    fail_with_cu_result(CUABI_ERROR_CUDA, 700, "restart the process", "an illegal address");
    EXPECT_EQ(cuabi_last_cu_result(), 700);
    EXPECT_EQ(cuabi_last_nvrtc_result(), 0);
    fail_with_nvrtc_result(CUABI_ERROR_NVRTC, 6, "fix the source", "compilation failed");
    EXPECT_EQ(cuabi_last_nvrtc_result(), 6);
    EXPECT_EQ(cuabi_last_cu_result(), 0) << "a later failure that did not come from the driver clears it";
}

// PreserveLastError (what every destroy runs in): what is recorded inside its scope is seen
// there, and gone when it ends.
struct SeenError {
    std::string message;
    int32_t cu_result;
    int32_t nvrtc_result;
    bool operator==(const SeenError& other) const {
        return message == other.message && cu_result == other.cu_result && nvrtc_result == other.nvrtc_result;
    }
};
std::ostream& operator<<(std::ostream& out, const SeenError& error) {
    return out << error.message << " (cu " << error.cu_result << ", nvrtc " << error.nvrtc_result << ")";
}
SeenError seen_error() { return {cuabi_last_error_message(), cuabi_last_cu_result(), cuabi_last_nvrtc_result()}; }

TEST(PreserveLastError, AnErrorRaisedInsideLeavesTheCallersLastError) {
    fail_again(CUABI_ERROR_CUDA, "the caller's failure. Fix: look at it", 700);
    const SeenError callers = seen_error();
    {
        PreserveLastError keep;
        EXPECT_EQ(seen_error(), callers);  // still readable inside
        fail_with_nvrtc_result(CUABI_ERROR_NVRTC, 6, "fix the inner one", "inner failure %d", 1);
        EXPECT_STREQ(cuabi_last_error_message(), "inner failure 1. Fix: fix the inner one");
        EXPECT_EQ(cuabi_last_nvrtc_result(), 6);
        fail_again(CUABI_ERROR_CUDA, "a second inner failure. Fix: none", 1);
        fail(CUABI_ERROR_INVALID_ARGUMENT, "fix", "a third (%s)", std::string(600, 'x').c_str());  // allocates
    }
    EXPECT_EQ(seen_error(), callers);
}

TEST(PreserveLastError, NothingRaisedInsideLeavesItAsItWas) {
    fail_with_nvrtc_result(CUABI_ERROR_NVRTC, 5, "fix it", "a failure with an NVRTC result");
    const SeenError callers = seen_error();
    { PreserveLastError keep; }
    EXPECT_EQ(seen_error(), callers);
    std::string on_a_fresh_thread;
    std::thread([&] {
        { PreserveLastError keep; }
        on_a_fresh_thread = cuabi_last_error_message();
    }).join();
    EXPECT_EQ(on_a_fresh_thread, "no error");
}

TEST(PreserveLastError, NestedScopesEachRestoreWhatTheyBeganWith) {
    fail(CUABI_ERROR_INVALID_ARGUMENT, "fix 0", "error 0");
    const SeenError zero = seen_error();
    {
        PreserveLastError outer;
        {
            PreserveLastError inner;  // the first record happens here, with the outer keeper not saved
            fail(CUABI_ERROR_INVALID_ARGUMENT, "fix 1", "error 1");
        }
        EXPECT_EQ(seen_error(), zero);
        fail(CUABI_ERROR_INVALID_ARGUMENT, "fix 2", "error 2");
        const SeenError two = seen_error();
        {
            PreserveLastError inner;
            EXPECT_EQ(seen_error(), two);
            fail_again(CUABI_ERROR_CUDA, "error 3. Fix: 3", 3);
            {
                PreserveLastError innermost;
                fail(CUABI_ERROR_INVALID_ARGUMENT, "fix 4", "error 4");
            }
            EXPECT_STREQ(cuabi_last_error_message(), "error 3. Fix: 3");
            EXPECT_EQ(cuabi_last_cu_result(), 3);
        }
        EXPECT_EQ(seen_error(), two);
        { PreserveLastError inner; }
        EXPECT_EQ(seen_error(), two);
    }
    EXPECT_EQ(seen_error(), zero);
}

}  // namespace
}  // namespace cuabi
