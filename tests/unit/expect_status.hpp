// Assertions for failures: the status, and a message that explains itself and ends in a fix.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cuabi/cuabi.h"

// Expects `call` to return `expected` with a last-error message containing "Fix: " and, when
// `fragment` is not empty, the text `fragment` (the values the message must name).
#define EXPECT_FAILS_WITH(call, expected, fragment)                                                  \
    do {                                                                                             \
        cuabi_status status_ = (call);                                                               \
        std::string message_ = cuabi_last_error_message();                                           \
        EXPECT_EQ(status_, (expected)) << #call << " -> " << cuabi_status_name(status_) << ": " << message_; \
        EXPECT_NE(message_.find("Fix: "), std::string::npos) << #call << ": " << message_;          \
        EXPECT_NE(message_.find(fragment), std::string::npos)                                        \
            << #call << ": message lacks '" << (fragment) << "': " << message_;                    \
    } while (0)
