#include "compile_report.hpp"

#include <cstdio>
#include <fstream>

#include "arguments.hpp"
#include "json.hpp"

namespace cli {
namespace {

const char* origin_name(int32_t origin) {
    switch (origin) {
        case CUABI_MODULE_ORIGIN_MEMORY_CACHE: return "memory_cache";
        case CUABI_MODULE_ORIGIN_DISK_CACHE: return "disk_cache";
        case CUABI_MODULE_ORIGIN_READONLY_CACHE: return "readonly_cache";
        default: return "compiled";
    }
}

// Where the module came from; for a fresh compile, whether it really reached the disk cache.
std::string origin_text(const CompileArguments& args, int32_t origin, bool all_stored) {
    switch (origin) {
        case CUABI_MODULE_ORIGIN_MEMORY_CACHE: return "from the memory cache";
        case CUABI_MODULE_ORIGIN_DISK_CACHE: return "from the disk cache";
        case CUABI_MODULE_ORIGIN_READONLY_CACHE: return "from a read-only cache layer";
        default: break;
    }
    if ((args.flags & CUABI_COMPILE_NO_CACHE) != 0) return "compiled by NVRTC, not cached (--no-cache)";
    if (all_stored) return "compiled by NVRTC, now cached on disk";
    std::string reason = read_text(cuabi_cache_get_degradation_reason);
    return "compiled by NVRTC, NOT cached on disk" + (reason.empty() ? std::string() : ": " + reason);
}

// "k.cu", "k.cu [BLOCK=128]".
std::string label(const CompileArguments& args, const CompileJob& job) {
    return args.files[job.file] + (job.variant.empty() ? "" : " [" + job.variant + "]");
}

// For an option the library refused: the command-line argument that set it.
const char* argument_behind(const std::string& message) {
    static const struct {
        const char* field;
        const char* argument;
    } kFields[] = {{"cuabi_compile_options.target", "--arch"},
                   {"cuabi_compile_options.cpp_standard", "--std"},
                   {"cuabi_compile_options.defines", "-D/--define"},
                   {"cuabi_compile_options.include_dirs", "-I/--include-dir"},
                   {"cuabi_compile_options.name_expressions", "--name-expr"},
                   {"cuabi_compile_options.program_name", "--program-name"},
                   {"cuabi_compile_options.timeout_ms", "--timeout-ms"}};
    for (const auto& field : kFields)
        if (message.find(field.field) != std::string::npos) return field.argument;
    return nullptr;
}

bool write_image(const std::string& path, const std::string& image) {
    std::ofstream file(path, std::ios::binary);
    file.write(image.data(), static_cast<std::streamsize>(image.size()));
    return static_cast<bool>(file);
}

int print_text(const CompileArguments& args, const std::vector<CompileJob>& jobs,
               const std::vector<CompileResult>& results, bool all_stored) {
    int exit_code = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const CompileResult& r = results[i];
        if (r.status != CUABI_SUCCESS) {
            const char* argument = argument_behind(r.message);
            std::fprintf(stderr, "cuabi compile: %s: %s%s%s%s: %s\n", label(args, jobs[i]).c_str(),
                         cuabi_status_name(r.status), argument != nullptr ? " (from " : "",
                         argument != nullptr ? argument : "", argument != nullptr ? ")" : "", r.message.c_str());
            if (!r.log.empty()) std::fprintf(stderr, "%s\n", r.log.c_str());
            exit_code = 1;
            continue;
        }
        const char* kind = r.info.image_kind == CUABI_IMAGE_PTX ? "PTX" : "CUBIN";
        std::printf("%s: %s for %s, %llu bytes, %s\n  program %s, cache key %s\n", label(args, jobs[i]).c_str(), kind,
                    r.info.target, static_cast<unsigned long long>(r.info.image_size),
                    origin_text(args, r.info.origin, all_stored).c_str(), jobs[i].program_name.c_str(),
                    r.info.cache_key);
        if (r.info.ptx_fallback)
            std::printf("  NVRTC does not know this device's architecture: PTX, compiled by the driver at load\n");
        for (const auto& name : r.lowered_names) std::printf("  %s -> %s\n", name.first.c_str(), name.second.c_str());
        if (!r.log.empty()) std::fprintf(stderr, "%s\n", r.log.c_str());
        if (args.output.empty()) continue;
        if (!write_image(args.output, r.image)) {
            std::fprintf(stderr, "cuabi compile: could not write '%s'\n", args.output.c_str());
            exit_code = 1;
        } else {
            std::printf("  wrote %s\n", args.output.c_str());
        }
    }
    return exit_code;
}

void write_result_json(JsonWriter& json, const CompileArguments& args, const CompileJob& job, const CompileResult& r,
                       bool all_stored, bool* failed) {
    json.begin_object();
    json.string("file", args.files[job.file].c_str());
    json.string("program_name", job.program_name.c_str());
    json.begin_array("defines");
    for (const std::string& define : job.defines) json.string(nullptr, define.c_str());
    json.end_array();
    if (job.target.empty()) json.null("requested_target");
    else json.string("requested_target", job.target.c_str());
    json.boolean("ok", r.status == CUABI_SUCCESS);
    json.string("status", cuabi_status_name(r.status));
    if (r.status != CUABI_SUCCESS) {
        json.string("message", r.message.c_str());
        if (const char* argument = argument_behind(r.message)) json.string("argument", argument);
        *failed = true;
    } else {
        json.string("image_kind", r.info.image_kind == CUABI_IMAGE_PTX ? "PTX" : "CUBIN");
        json.string("target", r.info.target);
        json.unsigned_number("image_size", r.info.image_size);
        json.string("origin", origin_name(r.info.origin));
        json.boolean("cached_on_disk", r.info.origin != CUABI_MODULE_ORIGIN_COMPILED ||
                                           ((args.flags & CUABI_COMPILE_NO_CACHE) == 0 && all_stored));
        json.string("cache_key", r.info.cache_key);
        json.boolean("ptx_fallback", r.info.ptx_fallback != 0);
        json.begin_object("lowered_names");
        for (const auto& name : r.lowered_names) json.string(name.first.c_str(), name.second.c_str());
        json.end_object();
        if (!args.output.empty()) {
            bool written = write_image(args.output, r.image);
            json.string("output", args.output.c_str());
            json.boolean("written", written);
            *failed = *failed || !written;
        }
    }
    json.string("log", r.log.c_str());
    json.end_object();
}

}  // namespace

int report_jobs(const CompileArguments& args, const std::vector<CompileJob>& jobs,
                const std::vector<CompileResult>& results, const DiskStores& stores) {
    uint64_t compiled = 0;
    for (const CompileResult& r : results)
        if (r.status == CUABI_SUCCESS && r.info.origin == CUABI_MODULE_ORIGIN_COMPILED) ++compiled;
    bool all_stored = stores.after - stores.before >= compiled;
    if (!args.json) return print_text(args, jobs, results, all_stored);
    JsonWriter json(stdout);
    json.begin_object();
    json.begin_array("results");
    bool failed = false;
    for (size_t i = 0; i < jobs.size(); ++i) write_result_json(json, args, jobs[i], results[i], all_stored, &failed);
    json.end_array();
    json.boolean("ok", !failed);
    json.end_object();
    json.finish();
    return failed ? 1 : 0;
}

}  // namespace cli
