// Runs `cuabi compile`'s jobs: --jobs threads, each calling the library for the next job (the
// library's compile workers run the NVRTC compiles side by side), with a progress line on a
// terminal. Everything a job's report needs is read on the thread that compiled it, since
// cuabi's last error and compile log are per thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compile_plan.hpp"
#include "cuabi/cuabi.h"

namespace cli {

struct CompileResult {
    cuabi_status status = CUABI_SUCCESS;
    std::string message;  // cuabi_last_error_message() of a failure
    std::string log;      // NVRTC's log, failed or not
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    std::vector<std::pair<std::string, std::string>> lowered_names;  // expression, lowered name
    std::string image;                                                // the image when -o asked for it
};

// Compiles every job; `sources[i]` is the text of args.files[i]; `context` is NULL for --arch.
std::vector<CompileResult> run_jobs(const CompileArguments& args, const std::vector<std::string>& sources,
                                    const std::vector<CompileJob>& jobs, cuabi_context* context);

}  // namespace cli
