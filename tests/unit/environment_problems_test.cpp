// Environment values cuabi cannot use fail the first call they affect, once, naming the variable
// and the value, and cuabi_environment_get_problems() lists them. In a child process of this test
// binary, so that the values are in place before anything reads them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "child_process.hpp"
#include "compile/image_verifier.hpp"
#include "cuabi/cuabi.h"

namespace {

// Prints each unmet expectation; the exit status is how many there were.
int probe() {
    int failures = 0;
    auto expect = [&failures](bool met, const char* what) {
        if (!met) {
            std::printf("unmet: %s (last message: %s)\n", what, cuabi_last_error_message());
            ++failures;
        }
    };
    // CUABI_IMAGE_VERIFY=nnone: the first call whose policy comes from the environment fails...
    expect(cuabi::report_verification_environment(CUABI_IMAGE_VERIFY_NONE) == CUABI_SUCCESS,
           "an explicit policy that verifies nothing reads neither variable");
    expect(cuabi::report_verification_environment(CUABI_IMAGE_VERIFY_DEFAULT) == CUABI_ERROR_INVALID_ARGUMENT,
           "the first call of the default policy fails");
    std::string message = cuabi_last_error_message();
    expect(message.find("CUABI_IMAGE_VERIFY='nnone'") != std::string::npos, "the message names the variable and value");
    expect(message.find("\"untrusted\", \"all\" and \"none\"") != std::string::npos, "and lists the accepted values");
    expect(message.find("Fix: ") != std::string::npos, "and ends in a fix");
    // ...once; the safe policy is used.
    expect(cuabi::image_verification_policy(CUABI_IMAGE_VERIFY_DEFAULT) == CUABI_IMAGE_VERIFY_UNTRUSTED,
           "the refused value leaves the safe policy");
    // CUABI_IMAGE_VERIFY_TIMEOUT_MS=soon: said by the first call that runs a trial, not by a load
    // the verdict memo answers.
    expect(cuabi::report_verification_environment(CUABI_IMAGE_VERIFY_ALL) == CUABI_SUCCESS,
           "choosing a policy reads no deadline");
    expect(cuabi::report_trial_environment() == CUABI_ERROR_INVALID_ARGUMENT,
           "a refused trial deadline fails the first call that runs a trial");
    expect(std::string(cuabi_last_error_message()).find("CUABI_IMAGE_VERIFY_TIMEOUT_MS='soon'") != std::string::npos,
           "naming the deadline's variable and value");
    expect(cuabi::report_verification_environment(CUABI_IMAGE_VERIFY_DEFAULT) == CUABI_SUCCESS &&
               cuabi::report_trial_environment() == CUABI_SUCCESS,
           "each is reported once");

    size_t size = 0;
    expect(cuabi_environment_get_problems(nullptr, 0, nullptr) == CUABI_ERROR_INVALID_ARGUMENT, "out_size is required");
    expect(cuabi_environment_get_problems(nullptr, 0, &size) == CUABI_SUCCESS && size > 1, "the size is asked for");
    std::string text(size, '\0');
    expect(cuabi_environment_get_problems(&text[0], 3, &size) == CUABI_ERROR_BUFFER_TOO_SMALL, "a short buffer is refused");
    expect(cuabi_environment_get_problems(&text[0], text.size(), &size) == CUABI_SUCCESS, "the text is copied");
    expect(text.find("CUABI_IMAGE_VERIFY='nnone'") != std::string::npos, "the list has the policy");
    expect(text.find("\nCUABI_IMAGE_VERIFY_TIMEOUT_MS='soon'") != std::string::npos ||
               text.find("CUABI_IMAGE_VERIFY_TIMEOUT_MS='soon'") == 0,
           "and the deadline, each on its own line");
    expect(text.find("CUABI_COMPILE_TIMEOUT_MS") == std::string::npos, "a usable value is not listed");
    return failures;
}

const bool probed_in_child = [] {
    if (std::getenv("CUABI_TEST_ENVIRONMENT_PROBLEMS") != nullptr) {
        int failures = probe();
        std::fflush(stdout);  // _Exit flushes nothing
        std::_Exit(failures);
    }
    return false;
}();

std::string self_path() {
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    return length <= 0 ? std::string() : std::string(self, static_cast<size_t>(length));
}

TEST(EnvironmentProblems, RefusedValuesFailTheFirstCallTheyAffectOnceAndAreListed) {
    ASSERT_FALSE(probed_in_child);
    test_support::ChildResult child = test_support::run_child(
        {self_path()}, {{"CUABI_TEST_ENVIRONMENT_PROBLEMS", "1"},
                        {"CUABI_IMAGE_VERIFY", "nnone"},
                        {"CUABI_IMAGE_VERIFY_TIMEOUT_MS", "soon"},
                        {"CUABI_COMPILE_TIMEOUT_MS", "5000"}});
    EXPECT_EQ(child.exit_status, 0) << child.output;
}

TEST(EnvironmentProblems, UsableValuesFailNothing) {
    // Planted the other way: the same probe with good values must report unmet expectations.
    test_support::ChildResult child = test_support::run_child(
        {self_path()}, {{"CUABI_TEST_ENVIRONMENT_PROBLEMS", "1"},
                        {"CUABI_IMAGE_VERIFY", "none"},
                        {"CUABI_IMAGE_VERIFY_TIMEOUT_MS", "5000"}});
    EXPECT_GT(child.exit_status, 0) << child.output;
    EXPECT_NE(child.output.find("unmet: the first call of the default policy fails"), std::string::npos) << child.output;
    EXPECT_NE(child.output.find("unmet: the list has the policy"), std::string::npos) << child.output;
}

}  // namespace
