// `cuabi compile FILE.cu ...`: compiles ahead of time and warms the kernel cache for deployment.
// With --arch it needs no GPU (cuabi_module_compile_offline) and takes a comma-separated list
// (--arch sm_80,sm_90,sm_100) to fill the cache for a fleet's targets in one run, as the CI job
// that builds a bundle does; without, it compiles for device 0
// exactly as a program calling cuabi_module_compile() would, so that program's first compile is
// a cache hit. Prints what it made; -o writes the image (CUBIN, or PTX with --ptx).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "cuabi/cuabi.h"

namespace {

const char* const kUsage =
    "compile FILE.cu [--arch sm_XY[,sm_XY]...] [--std c++17] [-D NAME[=V]]... [-I DIR]... [--name-expr E]... [-o OUT] [--ptx]\n"
    "          [--no-toolkit-includes] [--in-process] [--timeout-ms N]";

struct Arguments {
    std::string file, arch, standard, output, timeout;
    std::vector<std::string> defines, include_dirs, expressions;
    uint32_t flags = CUABI_COMPILE_DEFAULT;
};

// Parses argv; returns false (after printing why) on bad usage.
bool parse(int argc, char** argv, Arguments* out) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto value = [&](const char* flag, std::string* into) {
            if (arg == flag) {
                if (i + 1 >= argc) return false;
                *into = argv[++i];
                return true;
            }
            size_t length = std::strlen(flag);
            bool attached = arg.compare(0, length, flag) == 0 && arg.size() > length;
            if (attached) *into = arg.substr(length + (arg[length] == '=' ? 1 : 0));
            return attached;
        };
        std::string text;
        if (arg == "--ptx") out->flags |= CUABI_COMPILE_PTX;
        else if (arg == "--no-toolkit-includes") out->flags |= CUABI_COMPILE_NO_TOOLKIT_INCLUDES;
        else if (arg == "--in-process") out->flags |= CUABI_COMPILE_IN_PROCESS;
        else if (value("--arch", &out->arch) || value("--std", &out->standard) || value("-o", &out->output) ||
                 value("--timeout-ms", &out->timeout))
            continue;
        else if (value("-D", &text)) out->defines.push_back(text);
        else if (value("-I", &text)) out->include_dirs.push_back(text);
        else if (value("--name-expr", &text)) out->expressions.push_back(text);
        else if (!arg.empty() && arg[0] != '-' && out->file.empty()) out->file = arg;
        else {
            std::fprintf(stderr, "cuabi compile: unexpected argument '%s'\nusage: cuabi %s\n", arg.c_str(), kUsage);
            return false;
        }
    }
    if (out->arch.find(',') != std::string::npos && !out->output.empty()) {
        std::fprintf(stderr, "cuabi compile: -o writes one image, and --arch '%s' names several targets. Fix: "
                             "compile each target with its own -o, or leave -o out to fill the cache only\n",
                     out->arch.c_str());
        return false;
    }
    if (out->file.empty()) {
        std::fprintf(stderr, "cuabi compile: no source file given\nusage: cuabi %s\n", kUsage);
        return false;
    }
    return true;
}

std::vector<const char*> pointers(const std::vector<std::string>& strings) {
    std::vector<const char*> result;
    for (const std::string& text : strings) result.push_back(text.c_str());
    return result;
}

// Reads a two-call text result: `read(buffer, capacity, &size)`.
template <typename Read>
std::string read_text(Read read) {
    size_t size = 0;
    if (read(nullptr, 0, &size) != CUABI_SUCCESS || size == 0) return std::string();
    std::string text(size, '\0');
    if (read(&text[0], size, &size) != CUABI_SUCCESS) return std::string();
    text.resize(size - 1);
    return text;
}

uint64_t disk_stores() {
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    return cuabi_cache_get_stats(&stats) == CUABI_SUCCESS ? stats.disk_stores : 0;
}

// Where the module came from; for a fresh compile, whether it really reached the disk cache.
std::string origin_text(uint32_t origin, uint64_t stores_before) {
    switch (origin) {
        case CUABI_MODULE_ORIGIN_MEMORY_CACHE: return "from the memory cache";
        case CUABI_MODULE_ORIGIN_DISK_CACHE: return "from the disk cache";
        case CUABI_MODULE_ORIGIN_READONLY_CACHE: return "from a read-only cache layer";
        default: break;
    }
    if (disk_stores() > stores_before) return "compiled by NVRTC, now cached on disk";
    std::string reason = read_text(cuabi_cache_get_degradation_reason);
    return "compiled by NVRTC, NOT cached on disk" + (reason.empty() ? std::string() : ": " + reason);
}

// Prints the module, its lowered names and warnings, and writes its image to `output`.
int report(cuabi_module* module, const Arguments& args, uint64_t stores_before) {
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    if (cuabi_module_get_info(module, &info) != CUABI_SUCCESS) {
        std::fprintf(stderr, "cuabi compile: %s\n", cuabi_last_error_message());
        return 1;
    }
    const char* kind = info.image_kind == CUABI_IMAGE_PTX ? "PTX" : "CUBIN";
    std::printf("%s: %s for %s, %llu bytes, %s\n  cache key %s\n", args.file.c_str(), kind, info.target,
                static_cast<unsigned long long>(info.image_size), origin_text(info.origin, stores_before).c_str(),
                info.cache_key);
    if (info.ptx_fallback)
        std::printf("  NVRTC does not know this device's architecture: PTX, compiled by the driver at load\n");
    for (const std::string& expression : args.expressions) {
        char lowered[1024];
        size_t size = 0;
        if (cuabi_module_get_lowered_name(module, expression.c_str(), lowered, sizeof lowered, &size) == CUABI_SUCCESS)
            std::printf("  %s -> %s\n", expression.c_str(), lowered);
    }
    std::string log = read_text([module](char* buffer, size_t capacity, size_t* out_size) {
        return cuabi_module_get_log(module, buffer, capacity, out_size);
    });
    if (!log.empty()) std::fprintf(stderr, "%s\n", log.c_str());
    if (args.output.empty()) return 0;

    size_t size = 0;
    cuabi_module_get_image(module, nullptr, 0, &size);
    std::vector<char> image(size);
    cuabi_module_get_image(module, image.data(), image.size(), &size);
    if (info.image_kind == CUABI_IMAGE_PTX && size > 0) --size;  // a .ptx file holds the text, not its NUL
    std::ofstream file(args.output, std::ios::binary);
    file.write(image.data(), static_cast<std::streamsize>(size));
    if (!file) {
        std::fprintf(stderr, "cuabi compile: could not write '%s'\n", args.output.c_str());
        return 1;
    }
    std::printf("  wrote %s\n", args.output.c_str());
    return 0;
}

// Reports one compile (its failure, or the module) and destroys the module.
int finish(cuabi_status status, cuabi_module* module, const Arguments& args, uint64_t stores_before) {
    int exit_code = 0;
    if (status != CUABI_SUCCESS) {
        std::fprintf(stderr, "cuabi compile: %s: %s\n", cuabi_status_name(status), cuabi_last_error_message());
        std::string log = read_text(cuabi_last_compile_log);
        if (!log.empty()) std::fprintf(stderr, "%s\n", log.c_str());
        exit_code = 1;
    } else {
        exit_code = report(module, args, stores_before);
    }
    cuabi_module_destroy(module);
    return exit_code;
}

// --arch: one offline compile per comma-separated target, all of them tried; fails if any did.
int compile_targets(const std::string& source, cuabi_compile_options* options, const Arguments& args) {
    int exit_code = 0;
    size_t start = 0;
    while (start <= args.arch.size()) {
        size_t end = args.arch.find(',', start);
        if (end == std::string::npos) end = args.arch.size();
        std::string target = args.arch.substr(start, end - start);
        start = end + 1;
        options->target = target.c_str();  // empty: the compile's own error names it
        uint64_t stores_before = disk_stores();
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile_offline(source.c_str(), options, &module);
        if (finish(status, module, args, stores_before) != 0) exit_code = 1;
    }
    return exit_code;
}

int run_compile(int argc, char** argv) {
    Arguments args;
    if (!parse(argc, argv, &args)) return 2;
    std::ifstream file(args.file, std::ios::binary);
    if (!file) {
        std::fprintf(stderr, "cuabi compile: cannot read '%s'\n", args.file.c_str());
        return 1;
    }
    std::stringstream source;
    source << file.rdbuf();

    std::vector<const char*> defines = pointers(args.defines), dirs = pointers(args.include_dirs),
                             expressions = pointers(args.expressions);
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.program_name = args.file.c_str();
    options.target = args.arch.empty() ? nullptr : args.arch.c_str();
    options.cpp_standard = args.standard.empty() ? nullptr : args.standard.c_str();
    options.flags = args.flags;
    options.timeout_ms = static_cast<uint32_t>(std::strtoul(args.timeout.c_str(), nullptr, 10));
    options.defines = defines.data();
    options.define_count = defines.size();
    options.include_dirs = dirs.data();
    options.include_dir_count = dirs.size();
    options.name_expressions = expressions.data();
    options.name_expression_count = expressions.size();

    if (!args.arch.empty()) return compile_targets(source.str(), &options, args);
    cuabi_context* context = nullptr;
    cuabi_module* module = nullptr;
    cuabi_status status;
    uint64_t stores_before = disk_stores();
    {
        status = cuabi_context_create(nullptr, &context);
        if (status != CUABI_SUCCESS) {
            std::fprintf(stderr, "cuabi compile: no device to compile for: %s\n  (pass --arch sm_XY to compile "
                                 "without a GPU)\n", cuabi_last_error_message());
            return 1;
        }
        status = cuabi_module_compile(context, source.str().c_str(), &options, &module);
    }
    int exit_code = finish(status, module, args, stores_before);
    cuabi_context_destroy(context);
    return exit_code;
}

}  // namespace

CUABI_CLI_COMMAND(compile, "compile", kUsage, "compile CUDA C++ ahead of time and warm the kernel cache", run_compile)
