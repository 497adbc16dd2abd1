// `cuabi compile`'s report of its jobs: text (stdout, with logs and failures on stderr) or one
// JSON object on stdout (--json).
#pragma once

#include <cstdint>
#include <vector>

#include "compile_plan.hpp"
#include "compile_run.hpp"

namespace cli {

// Whether the images compiled by NVRTC reached the disk cache: the cache's store count before and
// after the jobs, against the number of images NVRTC made.
struct DiskStores {
    uint64_t before = 0, after = 0;
};

// Prints every job's result; writes -o's image. Returns the exit status: 0 when every job
// succeeded, else 1.
int report_jobs(const CompileArguments& args, const std::vector<CompileJob>& jobs,
                const std::vector<CompileResult>& results, const DiskStores& stores);

}  // namespace cli
