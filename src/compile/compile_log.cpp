#include "compile/compile_log.hpp"

namespace cuabi {
namespace {

std::shared_ptr<const std::string>& slot() {
    thread_local std::shared_ptr<const std::string> log;
    return log;
}

}  // namespace

void set_last_compile_log(std::shared_ptr<const std::string> log) { slot() = std::move(log); }

const std::string& last_compile_log() {
    static const std::string empty;
    const std::shared_ptr<const std::string>& log = slot();
    return log ? *log : empty;
}

}  // namespace cuabi
