// What `cuabi compile` was asked to make: one job per file, per --define variant, per --arch
// target. A macro given several values by repeated -D / --define (-D BLOCK=128 -D BLOCK=256)
// makes one variant per value; several such macros make every combination.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cli {

struct CompileArguments {
    std::vector<std::string> files;
    std::string arch, standard, output, program_name;
    std::vector<std::string> defines, include_dirs, expressions;
    uint32_t flags = 0;
    uint64_t timeout_ms = 0;
    uint64_t jobs = 1;
    bool json = false;
};

struct CompileJob {
    size_t file = 0;                   // index into CompileArguments::files
    std::string program_name;          // --program-name, else the file's base name
    std::vector<std::string> defines;  // this variant's, in the order given
    std::string variant;               // "BLOCK=128 T=float" when the defines vary, else ""
    std::string target;                // one of --arch's, "" for device 0
};

// The most jobs one command makes; more is almost surely a mistyped variant list.
constexpr size_t kMaxJobs = 4096;

// The variants the defines describe: each a full define list. One (possibly empty) when no macro
// is given twice.
std::vector<std::vector<std::string>> define_variants(const std::vector<std::string>& defines);

// The base name of `path`: the program name a file gets, so that ./k.cu, k.cu and /abs/k.cu give
// one cache key.
std::string base_name(const std::string& path);

// Every job, files outermost. Fails (false, *problem set) above kMaxJobs.
bool plan_jobs(const CompileArguments& args, std::vector<CompileJob>* out, std::string* problem);

}  // namespace cli
