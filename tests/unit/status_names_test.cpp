// Every status code in cuabi.h has a fixed value and a name; cuabi_status_name() knows them all
// and needs no state (it works before anything else is called, from any thread).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "cuabi/cuabi.h"

namespace {

std::string header_text() {
    // The header as shipped, not as compiled. Not found through __FILE__: a compiler launcher such
    // as ccache with base_dir set makes it relative to the build directory, not to where ctest runs.
    std::ifstream file(std::string(CUABI_TEST_SOURCE_DIR) + "/include/cuabi/cuabi.h");
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

TEST(StatusNames, EveryStatusDefinedInTheHeaderHasItsOwnName) {
    std::string header = header_text();
    ASSERT_FALSE(header.empty()) << "could not read " CUABI_TEST_SOURCE_DIR "/include/cuabi/cuabi.h";
    std::regex define(R"(#define (CUABI_(?:SUCCESS|ERROR_[A-Z_]+)) (-?[0-9]+))");
    int found = 0;
    for (auto it = std::sregex_iterator(header.begin(), header.end(), define); it != std::sregex_iterator(); ++it) {
        std::string name = (*it)[1];
        cuabi_status value = std::stoi((*it)[2]);
        EXPECT_EQ(name, cuabi_status_name(value)) << "value " << value;
        ++found;
    }
    EXPECT_GE(found, 38) << "the header's status list shrank; values are never removed";
}

TEST(StatusNames, ValuesAreFixedForever) {
    // Bindings hard-code these numbers; changing one is an ABI break.
    EXPECT_EQ(CUABI_SUCCESS, 0);
    EXPECT_EQ(CUABI_ERROR_INVALID_ARGUMENT, 1);
    EXPECT_EQ(CUABI_ERROR_INVALID_HANDLE, 2);
    EXPECT_EQ(CUABI_ERROR_STRUCT_SIZE, 3);
    EXPECT_EQ(CUABI_ERROR_OUT_OF_HOST_MEMORY, 4);
    EXPECT_EQ(CUABI_ERROR_BUFFER_TOO_SMALL, 5);
    EXPECT_EQ(CUABI_ERROR_NOT_FOUND, 6);
    EXPECT_EQ(CUABI_ERROR_UNSUPPORTED, 7);
    EXPECT_EQ(CUABI_ERROR_NOT_READY, 8);
    EXPECT_EQ(CUABI_ERROR_CONTEXT_MISMATCH, 9);
    EXPECT_EQ(CUABI_ERROR_INTERNAL, 10);
    EXPECT_EQ(CUABI_ERROR_DRIVER_NOT_FOUND, 20);
    EXPECT_EQ(CUABI_ERROR_DRIVER_TOO_OLD, 21);
    EXPECT_EQ(CUABI_ERROR_NO_DEVICE, 22);
    EXPECT_EQ(CUABI_ERROR_INVALID_DEVICE, 23);
    EXPECT_EQ(CUABI_ERROR_NVRTC_NOT_FOUND, 24);
    EXPECT_EQ(CUABI_ERROR_FORKED, 11);
    EXPECT_EQ(CUABI_ERROR_TIMEOUT, 12);
    EXPECT_EQ(CUABI_ERROR_CANCELLED, 13);
    EXPECT_EQ(CUABI_ERROR_CUDA, 30);
    EXPECT_EQ(CUABI_ERROR_DEVICE_OUT_OF_MEMORY, 31);
    EXPECT_EQ(CUABI_ERROR_OUT_OF_BOUNDS, 32);
    EXPECT_EQ(CUABI_ERROR_COMPILE, 40);
    EXPECT_EQ(CUABI_ERROR_LAUNCH_GRID, 60);
    EXPECT_EQ(CUABI_ERROR_CAPTURE, 80);
    EXPECT_EQ(CUABI_ERROR_RANGE, 100);
}

TEST(StatusNames, UnknownValuesGetOneFixedName) {
    for (cuabi_status value : {-1, 14, 19, 999, INT32_MIN, INT32_MAX})
        EXPECT_STREQ(cuabi_status_name(value), "CUABI_UNKNOWN_STATUS") << value;
}

TEST(StatusNames, NamesNeedNoStateAndWorkFromAnyThread) {
    const char* from_thread = nullptr;
    std::thread([&] { from_thread = cuabi_status_name(CUABI_ERROR_OUT_OF_BOUNDS); }).join();
    EXPECT_STREQ(from_thread, "CUABI_ERROR_OUT_OF_BOUNDS");
}

}  // namespace
