// Settings from the environment, read strictly and never ignored in silence.
//
// A number is whole decimal digits within its range: "2abc", "abc", "-1", " 2" and "" are not
// numbers (strtoul would read "2abc" as 2 and "abc" as 0). A value that is refused makes the
// setting take its default, and the refusal is reported once: as the failure of the first call
// that the setting affects (EnvironmentProblem::report_once), so that a program learns of it
// without a log, and in environment_problems() from then on.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace cuabi {

// The variable's value when it is set to a number in [min, max]. Unset or empty: false, with
// *problem "". Anything else: false, with *problem naming the variable, the value and the range.
bool read_environment_number(const char* name, uint64_t min, uint64_t max, uint64_t* out, std::string* problem);

// One refused setting, said once.
class EnvironmentProblem {
public:
    // `what` names the variable, its value, what was expected and what is used instead; "" for
    // none. `fix` is the remedy.
    EnvironmentProblem(std::string what, std::string fix);
    bool empty() const { return what_.empty(); }
    const std::string& what() const { return what_; }
    // CUABI_ERROR_INVALID_ARGUMENT with the problem's message the first time it is called for a
    // problem; CUABI_SUCCESS for none and on every later call.
    Status report_once();

private:
    std::string what_, fix_;
    std::atomic<bool> reported_{false};
};

// A number setting as read once: its value (`fallback` when unset or refused), whether the
// environment set it, and its problem, said as "<problem>; <fallback> is used" (never freed:
// settings are read at exit too).
struct NumberSetting {
    uint64_t value = 0;
    bool from_environment = false;
    EnvironmentProblem* problem = nullptr;
};
NumberSetting read_number_setting(const char* name, uint64_t min, uint64_t max, uint64_t fallback, const char* fix);

// Adds `what` (a sentence naming the variable, its value and what is used instead) to
// environment_problems(), once. For a setting whose refusal fails no call: it is a warning only.
void record_environment_problem(const std::string& what);

// Every problem found so far, one sentence a line ("" for none): cuabi_environment_get_problems().
std::string environment_problems();

}  // namespace cuabi
