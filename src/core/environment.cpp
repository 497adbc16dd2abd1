#include "core/environment.hpp"

#include <stdlib.h>

#include <mutex>

namespace cuabi {
namespace {

std::mutex problems_mutex;
std::string* all_problems = nullptr;  // never freed: read at exit too

}  // namespace

bool read_environment_number(const char* name, uint64_t min, uint64_t max, uint64_t* out, std::string* problem) {
    problem->clear();
    const char* text = secure_getenv(name);
    if (text == nullptr || *text == '\0') return false;
    uint64_t value = 0;
    bool digits = true;
    for (const char* at = text; *at != '\0' && digits; ++at) {
        digits = *at >= '0' && *at <= '9' && value <= (UINT64_MAX - 9) / 10;
        value = value * 10 + static_cast<uint64_t>(*at - '0');
    }
    if (digits && value >= min && value <= max) {
        *out = value;
        return true;
    }
    *problem = format("%s='%s' is not a whole number from %llu to %llu", name, bounded(text, 40).c_str(),
                      static_cast<unsigned long long>(min), static_cast<unsigned long long>(max));
    return false;
}

void record_environment_problem(const std::string& what) {
    if (what.empty()) return;
    std::string sentence = what.back() == '.' ? what : what + ".";
    std::lock_guard<std::mutex> lock(problems_mutex);
    if (all_problems == nullptr) all_problems = new std::string();
    // Settings read again (a second cache configuration) find the same problem: said once.
    if (all_problems->find(sentence) != std::string::npos) return;
    *all_problems += (all_problems->empty() ? "" : "\n") + sentence;
}

EnvironmentProblem::EnvironmentProblem(std::string what, std::string fix) : what_(std::move(what)), fix_(std::move(fix)) {
    record_environment_problem(what_);
}

Status EnvironmentProblem::report_once() {
    if (what_.empty() || reported_.exchange(true)) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, fix_.c_str(), "%s (reported once; later calls use that)", what_.c_str());
}

NumberSetting read_number_setting(const char* name, uint64_t min, uint64_t max, uint64_t fallback, const char* fix) {
    NumberSetting setting;
    std::string problem;
    setting.from_environment = read_environment_number(name, min, max, &setting.value, &problem);
    if (!setting.from_environment) setting.value = fallback;
    setting.problem = new EnvironmentProblem(
        problem.empty() ? "" : format("%s; %llu is used", problem.c_str(), static_cast<unsigned long long>(fallback)),
        fix);
    return setting;
}

std::string environment_problems() {
    std::lock_guard<std::mutex> lock(problems_mutex);
    return all_problems == nullptr ? std::string() : *all_problems;
}

}  // namespace cuabi
