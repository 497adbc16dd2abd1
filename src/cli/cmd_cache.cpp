// `cuabi cache path|stats|verify|prune --max-bytes N|clear|export FILE [--match P]|import FILE`:
// look after the kernel cache (docs/cache.md). Every subcommand acts on the directory this environment selects
// (CUABI_CACHE_DIR, XDG_CACHE_HOME, HOME), shared by every process that uses it.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "cuabi/cuabi.h"
#include "json.hpp"

namespace {

const char* const kUsage = "cache [--json] path|stats|verify|prune --max-bytes N|clear|export FILE [--match PATTERN]|import FILE";
const char* const kHelp =
    "subcommands:\n"
    "  path                       the cache directory this environment selects\n"
    "  stats                      entries, sizes, per-tier hits and misses, why the disk is off if it is\n"
    "  verify                     read every entry, remove the damaged ones\n"
    "  prune --max-bytes N        evict least recently used entries down to N bytes (512M, 1G, 64KiB)\n"
    "  clear                      remove every entry\n"
    "  export FILE [--match P]    the disk's entries (target or key matching the shell pattern P) as one bundle\n"
    "  import FILE                add a bundle's intact entries to the disk cache\n\n"
    "options:\n"
    "  --json                     the result as one JSON object on stdout (a failure too:\n"
    "                             {\"ok\": false, \"status\": ..., \"message\": ...})\n"
    "  --max-bytes N              prune's limit\n"
    "  --match PATTERN            export only entries whose target (sm_90) or key matches PATTERN (fnmatch)\n"
    "  -h, --help                 this text\n\n"
    "Every subcommand acts on the directory CUABI_CACHE_DIR, XDG_CACHE_HOME or HOME selects.\n";

struct Arguments {
    bool json = false;
    const char* max_bytes = nullptr;
    const char* match = nullptr;
    std::vector<std::string> operands;
};

// The result of a subcommand: its counts, as text or as one JSON object.
class Output {
public:
    explicit Output(bool json) : json_(json), writer_(stdout) {
        if (json_) writer_.begin_object();
    }
    void count(const char* key, uint64_t value) {
        if (json_) writer_.unsigned_number(key, value);
    }
    void text(const char* key, const std::string& value) {
        if (json_) writer_.string(key, value.c_str());
    }
    // Ends the output: the JSON object, or `line` as text.
    int done(const std::string& line) {
        if (!json_) {
            std::printf("%s\n", line.c_str());
            return 0;
        }
        writer_.boolean("ok", true);
        writer_.end_object();
        writer_.finish();
        return 0;
    }
    int failed(const char* what, cuabi_status status) {
        std::fprintf(stderr, "cuabi cache %s: %s\n", what, cuabi_last_error_message());
        if (json_) {
            writer_.boolean("ok", false);
            writer_.string("status", cuabi_status_name(status));
            writer_.string("message", cuabi_last_error_message());
            writer_.end_object();
            writer_.finish();
        }
        return 1;
    }
    cli::JsonWriter& json() { return writer_; }
    bool is_json() const { return json_; }

private:
    bool json_;
    cli::JsonWriter writer_;
};

std::string two_call(cuabi_status (*get)(char*, size_t, size_t*)) { return cli::read_text(get); }

std::string counted(const char* format, uint64_t a, uint64_t b) {
    char line[256];
    std::snprintf(line, sizeof line, format, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    return line;
}

// "1073741824", "512M", "1G", "64KiB" (binary multiples).
bool parse_bytes(const char* text, uint64_t* out) {
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text || errno != 0 || text[0] == '-') return false;
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift != 0) ++end;
    if (shift != 0 && (std::strcmp(end, "iB") == 0 || std::strcmp(end, "B") == 0)) end += std::strlen(end);
    if (*end != '\0' || (value > (UINT64_MAX >> shift))) return false;
    *out = static_cast<uint64_t>(value) << shift;
    return true;
}

const char* source_name(int32_t source) {
    switch (source) {
        case CUABI_SETTING_ENVIRONMENT: return "set by the environment";
        case CUABI_SETTING_CUABI: return "set by cuabi";
        default: return "driver default";
    }
}

void print_stats_text(const cuabi_cache_stats& s) {
    auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf("directory        %s\n", two_call(cuabi_cache_get_directory).c_str());
    std::printf("disk             %s\n", !s.disk_enabled ? "off (memory only)" : s.disk_writable ? "read-write" : "read-only");
    std::printf("disk entries     %llu (%llu bytes of at most %llu)\n", u(s.disk_entries), u(s.disk_bytes),
                u(s.disk_max_bytes));
    std::printf("memory limit     %llu bytes\n", u(s.memory_max_bytes));
    std::printf("lock timeouts    %llu\n", u(s.disk_lock_timeouts));
    std::printf("dead temps swept %llu\n", u(s.disk_temp_files_removed));
    std::printf("corrupt removed  %llu\n", u(s.disk_corrupt_recovered));
    std::printf("tier memory      %llu hits, %llu misses\n", u(s.memory_hits), u(s.memory_misses));
    std::printf("tier disk        %llu hits, %llu misses\n", u(s.disk_hits), u(s.disk_misses));
    std::printf("tier read-only   %llu layers: %llu hits, %llu misses, %llu refused, %llu copied to disk\n",
                u(s.readonly_layers), u(s.readonly_hits), u(s.readonly_misses), u(s.readonly_refused),
                u(s.readonly_copies));
    if (!s.remote_configured) {
        std::printf("tier remote      not configured (CUABI_CACHE_REMOTE unset)\n");
    } else {
        std::printf("tier remote      breaker %s (opened %llu times): %llu hits, %llu misses, %llu errors, %llu refused, "
                    "%llu published, %llu lease waits (%llu served by the other node)\n",
                    s.remote_breaker_open ? "open" : "closed", u(s.remote_breaker_opens), u(s.remote_hits),
                    u(s.remote_misses), u(s.remote_errors), u(s.remote_refused), u(s.remote_publishes),
                    u(s.remote_lease_waits), u(s.remote_lease_wait_hits));
    }
    std::printf("compiles         %llu NVRTC runs\n", u(s.compiles));
    std::printf("nvrtc            %s\n", s.nvrtc_state == CUABI_NVRTC_STATE_UNAVAILABLE
                                              ? "unavailable: cached entries of any NVRTC are served, misses fail"
                                          : s.nvrtc_state == CUABI_NVRTC_STATE_LOADED ? "loaded"
                                                                                      : "not loaded (hits need none)");
    std::string reason = two_call(cuabi_cache_get_degradation_reason);
    if (!reason.empty()) std::printf("reason           %s\n", reason.c_str());
}

void print_jit_text(const cuabi_driver_jit_cache_info& jit) {
    auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf("driver JIT cache %s: %s (%s), max %llu bytes (%s)%s\n", jit.enabled ? "on" : "off (CUDA_CACHE_DISABLE=1)",
                two_call(cuabi_cache_get_driver_jit_path).c_str(), source_name(jit.path_source), u(jit.max_bytes),
                source_name(jit.max_bytes_source),
                jit.driver_started_first ? "; the driver started before cuabi, which changed nothing" : "");
}

void write_stats_json(cli::JsonWriter& json, const cuabi_cache_stats& s, const cuabi_driver_jit_cache_info& jit) {
    json.string("directory", two_call(cuabi_cache_get_directory).c_str());
    json.boolean("disk_enabled", s.disk_enabled != 0);
    json.boolean("disk_writable", s.disk_writable != 0);
    const struct {
        const char* key;
        uint64_t value;
    } counts[] = {{"disk_entries", s.disk_entries}, {"disk_bytes", s.disk_bytes}, {"disk_max_bytes", s.disk_max_bytes},
                  {"memory_max_bytes", s.memory_max_bytes}, {"memory_hits", s.memory_hits},
                  {"memory_misses", s.memory_misses}, {"disk_hits", s.disk_hits}, {"disk_misses", s.disk_misses},
                  {"disk_stores", s.disk_stores}, {"disk_lock_timeouts", s.disk_lock_timeouts},
                  {"disk_temp_files_removed", s.disk_temp_files_removed},
                  {"disk_corrupt_recovered", s.disk_corrupt_recovered}, {"readonly_layers", s.readonly_layers},
                  {"readonly_hits", s.readonly_hits}, {"readonly_misses", s.readonly_misses},
                  {"readonly_refused", s.readonly_refused}, {"readonly_copies", s.readonly_copies},
                  {"remote_hits", s.remote_hits}, {"remote_misses", s.remote_misses},
                  {"remote_errors", s.remote_errors}, {"remote_refused", s.remote_refused},
                  {"remote_publishes", s.remote_publishes}, {"remote_breaker_opens", s.remote_breaker_opens},
                  {"remote_lease_waits", s.remote_lease_waits}, {"remote_lease_wait_hits", s.remote_lease_wait_hits},
                  {"compiles", s.compiles}};
    for (const auto& count : counts) json.unsigned_number(count.key, count.value);
    json.boolean("remote_configured", s.remote_configured != 0);
    json.boolean("remote_breaker_open", s.remote_breaker_open != 0);
    json.number("nvrtc_state", s.nvrtc_state);
    json.string("degradation_reason", two_call(cuabi_cache_get_degradation_reason).c_str());
    json.begin_object("driver_jit");
    json.boolean("enabled", jit.enabled != 0);
    json.string("path", two_call(cuabi_cache_get_driver_jit_path).c_str());
    json.string("path_source", source_name(jit.path_source));
    json.unsigned_number("max_bytes", jit.max_bytes);
    json.string("max_bytes_source", source_name(jit.max_bytes_source));
    json.boolean("driver_started_first", jit.driver_started_first != 0);
    json.end_object();
}

int show_stats(Output& out) {
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    cuabi_status status = cuabi_cache_get_stats(&stats);
    if (status != CUABI_SUCCESS) return out.failed("stats", status);
    cuabi_driver_jit_cache_info jit{};
    jit.struct_size = sizeof jit;
    if ((status = cuabi_cache_get_driver_jit_info(&jit)) != CUABI_SUCCESS) return out.failed("stats", status);
    if (!out.is_json()) {
        print_stats_text(stats);
        print_jit_text(jit);
        return 0;
    }
    write_stats_json(out.json(), stats, jit);
    return out.done("");
}

// The subcommand named by the first operand, with its operands and options checked.
int run_verb(const Arguments& args) {
    const std::string& verb = args.operands[0];
    size_t operands = args.operands.size();
    const char* file = operands > 1 ? args.operands[1].c_str() : nullptr;
    static const char* const kVerbs[] = {"path", "stats", "verify", "prune", "clear", "export", "import"};
    if (std::find(std::begin(kVerbs), std::end(kVerbs), verb) == std::end(kVerbs))
        return cli::usage_error("cache", "unknown subcommand '" + verb + "'");
    if (args.max_bytes != nullptr && verb != "prune")
        return cli::usage_error("cache", "--max-bytes belongs to prune, not to " + verb);
    if (args.match != nullptr && verb != "export")
        return cli::usage_error("cache", "--match belongs to export, not to " + verb);
    bool takes_file = verb == "export" || verb == "import";
    if (operands != (takes_file ? 2u : 1u))
        return cli::usage_error("cache", takes_file ? verb + " takes one FILE" : verb + " takes no operand, and '" +
                                                                                     args.operands.back() + "' was given");
    Output out(args.json);
    uint64_t a = 0, b = 0;
    cuabi_status status = CUABI_SUCCESS;
    if (verb == "path") {
        std::string path = two_call(cuabi_cache_get_directory);
        if (path.empty()) return out.failed("path", cuabi_cache_get_directory(nullptr, 0, &a));
        out.text("directory", path);
        return out.done(path);
    }
    if (verb == "stats") return show_stats(out);
    if (verb == "verify") {
        if ((status = cuabi_cache_verify(&a, &b)) != CUABI_SUCCESS) return out.failed("verify", status);
        out.count("checked", a);
        out.count("removed", b);
        return out.done(counted("checked %llu entries, removed %llu corrupt", a, b));
    }
    if (verb == "prune") {
        uint64_t max_bytes = 0;
        if (args.max_bytes == nullptr) return cli::usage_error("cache", "prune needs --max-bytes N");
        if (!parse_bytes(args.max_bytes, &max_bytes)) {
            std::fprintf(stderr, "cuabi cache prune: --max-bytes '%s' is not a byte count. Fix: pass e.g. 536870912 or 512M\n",
                         args.max_bytes);
            return 2;
        }
        if ((status = cuabi_cache_prune(max_bytes, &a, &b)) != CUABI_SUCCESS) return out.failed("prune", status);
    } else if (verb == "clear") {
        if ((status = cuabi_cache_clear(&a, &b)) != CUABI_SUCCESS) return out.failed("clear", status);
    }
    if (verb == "prune" || verb == "clear") {
        out.count("removed_entries", a);
        out.count("removed_bytes", b);
        return out.done(counted("removed %llu entries (%llu bytes)", a, b));
    }
    if (verb == "export") {
        if ((status = cuabi_cache_export(file, args.match, &a, &b)) != CUABI_SUCCESS) return out.failed("export", status);
        out.text("file", file);
        out.count("entries", a);
        out.count("bytes", b);
        return out.done("exported " + std::to_string(a) + " entries to " + file + " (" + std::to_string(b) + " bytes)");
    }
    if (verb == "import") {
        status = cuabi_cache_import(file, &a, &b);
        if (!args.json) std::printf("imported %llu entries, refused %llu damaged\n", (unsigned long long)a, (unsigned long long)b);
        out.count("imported", a);
        out.count("refused", b);
        if (status != CUABI_SUCCESS) return out.failed("import", status);
        return args.json ? out.done("") : 0;
    }
    return 0;  // not reached: every subcommand in kVerbs returned above
}

int run_cache(int argc, char** argv) {
    Arguments args;
    const option options[] = {{"json", no_argument, nullptr, 'j'},
                              {"max-bytes", required_argument, nullptr, 'm'},
                              {"match", required_argument, nullptr, 'p'},
                              {}};
    cli::Parsed parsed = cli::parse_options("cache", argc, argv, "", options, [&](int code, const char* value) {
        if (code == 'j') args.json = true;
        if (code == 'm') args.max_bytes = value;
        if (code == 'p') args.match = value;
        return true;
    });
    if (!parsed.proceed) return parsed.exit_code;
    args.operands = parsed.positional;
    if (args.operands.empty()) return cli::usage_error("cache", "no subcommand given");
    return run_verb(args);
}

}  // namespace

CUABI_CLI_COMMAND(cache, "cache", kUsage, "show, check, trim, export and import the compiled-kernel cache", kHelp,
                  run_cache)
