// `cuabi compile FILE.cu...`: compiles ahead of time and warms the kernel cache for deployment.
// With --arch it needs no GPU (cuabi_module_compile_offline) and takes a comma-separated list
// (--arch sm_80,sm_90,sm_100) to fill the cache for a fleet's targets in one run, as the CI job
// that builds a bundle does; without, it compiles for device 0 exactly as a program calling
// cuabi_module_compile() would, so that program's first compile is a cache hit. Several files and
// -D variants compile side by side (--jobs). Prints what it made; -o writes the image.
#include <fstream>
#include <sstream>

#include "arguments.hpp"
#include "command.hpp"
#include "compile_plan.hpp"
#include "compile_report.hpp"
#include "compile_run.hpp"
#include "cuabi/cuabi.h"

namespace {

const char* const kUsage = "compile FILE.cu... [options]";
const char* const kHelp =
    "options:\n"
    "  --arch sm_XY[,sm_XY...]   compile for these targets without a GPU (compute_XY: PTX); one compile\n"
    "                            per target. Without --arch: for device 0, as cuabi_module_compile() does\n"
    "  --std c++17               the C++ standard (c++03, c++11, c++14, c++17, c++20; or 17, 20, ...)\n"
    "  -D, --define NAME[=V]     a macro; a NAME given several values makes one variant per value, and\n"
    "                            several such NAMEs every combination (-D B=128 -D B=256 -D T=float: 2)\n"
    "  -I, --include-dir DIR     an include directory (repeatable)\n"
    "  --name-expr EXPR          a C++ name expression to lower, e.g. 'scale<float>' (repeatable)\n"
    "  --program-name NAME       the program's name, part of the cache key (default: the file's base name,\n"
    "                            so ./k.cu, k.cu and /abs/k.cu share one key; a program that leaves\n"
    "                            cuabi_compile_options.program_name NULL compiles as \"kernel.cu\")\n"
    "  -o, --output FILE         write the image (one compile only)\n"
    "  --ptx                     make PTX instead of a CUBIN\n"
    "  --no-cache                compile with NVRTC even on a cache hit, and store nothing\n"
    "  --no-toolkit-includes     leave out the CUDA Toolkit's include directories\n"
    "  --in-process              run NVRTC in this process instead of the compile worker\n"
    "  --timeout-ms N            give up on a compile after N ms (1 to 4294967295)\n"
    "  -j, --jobs N              compile up to N programs at once (1 to 256, default 1)\n"
    "  --json                    the results as one JSON object on stdout, logs included\n"
    "  -h, --help                this text\n\n"
    "Compiles files x variants x targets. On a terminal a progress line shows a compile that runs longer\n"
    "than a second; piped, nothing extra is printed. Exit status: 0 all succeeded, 1 one failed, 2 bad usage.\n";

enum Code {
    kArch = 256, kStd, kNameExpr, kProgramName, kPtx, kNoCache, kNoToolkit, kInProcess, kTimeout, kJson
};

bool take(cli::CompileArguments* args, int code, const char* value) {
    switch (code) {
        case kArch: args->arch = value; return true;
        case kStd: args->standard = value; return true;
        case 'D': args->defines.push_back(value); return true;
        case 'I': args->include_dirs.push_back(value); return true;
        case kNameExpr: args->expressions.push_back(value); return true;
        case 'o': args->output = value; return true;
        case kPtx: args->flags |= CUABI_COMPILE_PTX; return true;
        case kNoCache: args->flags |= CUABI_COMPILE_NO_CACHE; return true;
        case kNoToolkit: args->flags |= CUABI_COMPILE_NO_TOOLKIT_INCLUDES; return true;
        case kInProcess: args->flags |= CUABI_COMPILE_IN_PROCESS; return true;
        case kJson: args->json = true; return true;
        case kTimeout: return cli::parse_number("compile", "--timeout-ms", value, 1, UINT32_MAX, &args->timeout_ms);
        case 'j': return cli::parse_number("compile", "--jobs", value, 1, 256, &args->jobs);
        case kProgramName:
            args->program_name = value;
            if (*value != '\0' && std::string(value).find('/') == std::string::npos) return true;
            std::fprintf(stderr, "cuabi compile: --program-name '%s' is not a file name. Fix: pass a name such as "
                                 "kernel.cu, without '/'\n", value);
            return false;
        default: return false;
    }
}

// Parses argv; returns -1 to go on, else the exit status.
int parse(int argc, char** argv, cli::CompileArguments* args) {
    const option options[] = {{"arch", required_argument, nullptr, kArch},
                              {"std", required_argument, nullptr, kStd},
                              {"define", required_argument, nullptr, 'D'},
                              {"include-dir", required_argument, nullptr, 'I'},
                              {"name-expr", required_argument, nullptr, kNameExpr},
                              {"program-name", required_argument, nullptr, kProgramName},
                              {"output", required_argument, nullptr, 'o'},
                              {"ptx", no_argument, nullptr, kPtx},
                              {"no-cache", no_argument, nullptr, kNoCache},
                              {"no-toolkit-includes", no_argument, nullptr, kNoToolkit},
                              {"in-process", no_argument, nullptr, kInProcess},
                              {"timeout-ms", required_argument, nullptr, kTimeout},
                              {"jobs", required_argument, nullptr, 'j'},
                              {"json", no_argument, nullptr, kJson},
                              {}};
    cli::Parsed parsed = cli::parse_options("compile", argc, argv, "D:I:o:j:", options,
                                            [args](int code, const char* value) { return take(args, code, value); });
    if (!parsed.proceed) return parsed.exit_code;
    args->files = parsed.positional;
    if (args->files.empty()) return cli::usage_error("compile", "no source file given");
    if (!args->program_name.empty() && args->files.size() > 1)
        return cli::usage_error("compile", "--program-name '" + args->program_name + "' names one program, and " +
                                               std::to_string(args->files.size()) + " files were given");
    return -1;
}

bool read_sources(const cli::CompileArguments& args, std::vector<std::string>* out) {
    for (const std::string& path : args.files) {
        std::ifstream file(path, std::ios::binary);
        std::stringstream source;
        source << file.rdbuf();
        if (!file) {
            std::fprintf(stderr, "cuabi compile: cannot read '%s'. Fix: name a readable CUDA C++ file\n", path.c_str());
            return false;
        }
        out->push_back(source.str());
    }
    return true;
}

uint64_t disk_stores() {
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    return cuabi_cache_get_stats(&stats) == CUABI_SUCCESS ? stats.disk_stores : 0;
}

int run_compile(int argc, char** argv) {
    cli::CompileArguments args;
    int exit_code = parse(argc, argv, &args);
    if (exit_code >= 0) return exit_code;
    std::vector<cli::CompileJob> jobs;
    std::string problem;
    if (!cli::plan_jobs(args, &jobs, &problem))
        return cli::usage_error("compile", problem + ". Fix: give fewer -D values, files or targets");
    if (!args.output.empty() && jobs.size() > 1)
        return cli::usage_error("compile", "-o '" + args.output + "' writes one image, and this command makes " +
                                               std::to_string(jobs.size()) + " (files x variants x --arch targets). " +
                                               "Fix: compile each with its own -o, or leave -o out to fill the cache only");
    std::vector<std::string> sources;
    if (!read_sources(args, &sources)) return 1;

    cuabi_context* context = nullptr;
    if (args.arch.empty() && cuabi_context_create(nullptr, &context) != CUABI_SUCCESS) {
        std::fprintf(stderr, "cuabi compile: no device to compile for: %s\n  (pass --arch sm_XY to compile "
                             "without a GPU)\n", cuabi_last_error_message());
        return 1;
    }
    cli::DiskStores stores;
    stores.before = disk_stores();
    std::vector<cli::CompileResult> results = cli::run_jobs(args, sources, jobs, context);
    stores.after = disk_stores();
    exit_code = cli::report_jobs(args, jobs, results, stores);
    cuabi_context_destroy(context);
    return exit_code;
}

}  // namespace

CUABI_CLI_COMMAND(compile, "compile", kUsage, "compile CUDA C++ ahead of time and warm the kernel cache", kHelp,
                  run_compile)
