// Runs `cuabi compile`'s jobs as one compile batch of the library (cuabi_compile_batch_start):
// it compiles up to --jobs of them at once on its compile workers while this thread takes the
// results in order, and a progress line on a terminal shows what the batch reports. A job the
// library refuses before the batch starts (an --arch target it does not know) fails alone, with
// its own message; the others still compile.
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
