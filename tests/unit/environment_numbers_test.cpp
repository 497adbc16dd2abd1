// Numbers from the environment are read strictly: a prefix of digits is not a number.
#include <gtest/gtest.h>

#include <stdlib.h>

#include "core/environment.hpp"

TEST(EnvironmentNumbers, OnlyWholeNumbersInRangeAreRead) {
    const char* name = "CUABI_TEST_ENVIRONMENT_NUMBER";
    struct Case {
        const char* text;
        bool read;
        uint64_t value;
    } cases[] = {{"2", true, 2},       {"64", true, 64},     {"2abc", false, 0}, {"abc", false, 0},
                 {"-1", false, 0},     {" 2", false, 0},     {"2 ", false, 0},   {"0", false, 0},
                 {"65", false, 0},     {"99999999999999999999999", false, 0}};
    for (const Case& c : cases) {
        setenv(name, c.text, 1);
        uint64_t value = 7;
        std::string problem;
        EXPECT_EQ(cuabi::read_environment_number(name, 1, 64, &value, &problem), c.read) << c.text;
        if (c.read) {
            EXPECT_EQ(value, c.value) << c.text;
            EXPECT_TRUE(problem.empty()) << problem;
        } else {
            EXPECT_EQ(value, 7u) << c.text;
            EXPECT_NE(problem.find(std::string(name) + "='" + c.text + "'"), std::string::npos) << problem;
            EXPECT_NE(problem.find("from 1 to 64"), std::string::npos) << problem;
        }
    }
    unsetenv(name);
    std::string problem = "stale";
    uint64_t value = 7;
    EXPECT_FALSE(cuabi::read_environment_number(name, 1, 64, &value, &problem));
    EXPECT_TRUE(problem.empty()) << "unset is not a problem";
}

TEST(EnvironmentNumbers, AProblemIsReportedOnceAndListed) {
    cuabi::EnvironmentProblem problem("CUABI_TEST_X='y' is not a number; 3 is used", "set CUABI_TEST_X to a number");
    EXPECT_EQ(problem.report_once(), CUABI_ERROR_INVALID_ARGUMENT);
    std::string said = cuabi::last_error_message();
    EXPECT_NE(said.find("CUABI_TEST_X='y'"), std::string::npos) << said;
    EXPECT_NE(said.find("Fix: set CUABI_TEST_X"), std::string::npos) << said;
    EXPECT_EQ(problem.report_once(), CUABI_SUCCESS);
    EXPECT_NE(cuabi::environment_problems().find("CUABI_TEST_X='y'"), std::string::npos);
    cuabi::EnvironmentProblem none("", "unused");
    EXPECT_EQ(none.report_once(), CUABI_SUCCESS);
}
