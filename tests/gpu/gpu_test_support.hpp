// Shared by the GPU test suites (label gpu). They use only the public header, as a user would.
//
// GpuTest gives each test a context on device 0; without a usable device or driver every test
// skips and says why (the message from cuabi, which names what is missing and how to fix it).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuabi/cuabi.h"

// "CUABI_ERROR_X: <message>" for assertion output.
inline std::string cuabi_failure_text(cuabi_status status) {
    return std::string(cuabi_status_name(status)) + ": " + cuabi_last_error_message();
}

// ASSERT_OK(cuabi_call(...)) / EXPECT_OK(...): on failure, print the call, the status name and
// the message. Both accept further `<< context` like any gtest assertion.
inline ::testing::AssertionResult cuabi_ok(cuabi_status status, const char* call) {
    if (status == CUABI_SUCCESS) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << call << " -> " << cuabi_failure_text(status);
}
#define ASSERT_OK(call) ASSERT_TRUE(cuabi_ok((call), #call))
#define EXPECT_OK(call) EXPECT_TRUE(cuabi_ok((call), #call))

// Asserts `status` is `expected` and the message ends its explanation with a fix.
#define EXPECT_STATUS_WITH_FIX(call, expected)                                             \
    do {                                                                                   \
        cuabi_status cuabi_expect_status_ = (call);                                        \
        EXPECT_EQ(cuabi_expect_status_, (expected)) << #call << " -> "                     \
                                                    << cuabi_failure_text(cuabi_expect_status_); \
        EXPECT_NE(std::string(cuabi_last_error_message()).find("Fix: "), std::string::npos) \
            << cuabi_last_error_message();                                                 \
    } while (0)

// `size` bytes from a seeded generator: a failing test reproduces with the same seed.
inline std::vector<uint8_t> random_bytes(size_t size, uint32_t seed) {
    std::mt19937 generator(seed);
    std::vector<uint8_t> bytes(size);
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(generator());
    return bytes;
}

// A poisoned destination: a read that writes nothing leaves 0xA5 bytes that a comparison sees.
inline std::vector<uint8_t> poisoned(size_t size) { return std::vector<uint8_t>(size, 0xA5); }

class GpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        int32_t count = 0;
        cuabi_status status = cuabi_device_get_count(&count);
        if (status != CUABI_SUCCESS) GTEST_SKIP() << "no CUDA device: " << cuabi_last_error_message();
        status = cuabi_context_create(nullptr, &context);
        ASSERT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
    }
    void TearDown() override {
        cuabi_stream_destroy(other_stream_);
        cuabi_context_destroy(other_context_);
        cuabi_context_destroy(context);
        context = nullptr;
    }

    // For tests of work across devices: *out receives a stream on device 1 (destroyed with the
    // test). With one device the test is skipped and *out stays NULL; the caller then returns.
    void other_device_stream(cuabi_stream** out) {
        *out = nullptr;
        int32_t devices = 0;
        ASSERT_OK(cuabi_device_get_count(&devices));
        if (devices < 2) GTEST_SKIP() << "needs two devices (one device's contexts share its CUDA context)";
        cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
        options.device_ordinal = 1;
        ASSERT_OK(cuabi_context_create(&options, &other_context_));
        ASSERT_OK(cuabi_stream_create(other_context_, nullptr, &other_stream_));
        *out = other_stream_;
    }

    cuabi_context* context = nullptr;

private:
    cuabi_context* other_context_ = nullptr;
    cuabi_stream* other_stream_ = nullptr;
};
