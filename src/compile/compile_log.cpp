#include "compile/compile_log.hpp"

namespace cuabi {
namespace {

std::shared_ptr<const std::string>& slot() {
    thread_local std::shared_ptr<const std::string> log;
    return log;
}

}  // namespace

void set_last_compile_log(std::shared_ptr<const std::string> log) { slot() = std::move(log); }

const std::shared_ptr<const std::string>& last_compile_log_shared() { return slot(); }

Status fail_as_recorded(Status status, int32_t nvrtc_result, const std::string& message) {
    size_t fix = message.rfind(" Fix: ");
    if (fix == std::string::npos)
        return fail_with_nvrtc_result(status, nvrtc_result, "report this as a cuabi bug", "%s", message.c_str());
    std::string what = message.substr(0, fix), remedy = message.substr(fix + 6);
    return fail_with_nvrtc_result(status, nvrtc_result, remedy.c_str(), "%s", what.c_str());
}

const std::string& last_compile_log() {
    static const std::string empty;
    const std::shared_ptr<const std::string>& log = slot();
    return log ? *log : empty;
}

}  // namespace cuabi
