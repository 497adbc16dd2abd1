// `cuabi cache path|stats|verify|prune --max-bytes N|clear|export FILE [--match P]|import FILE`:
// look after the kernel cache (docs/cache.md). Every subcommand acts on the directory this environment selects
// (CUABI_CACHE_DIR, XDG_CACHE_HOME, HOME), shared by every process that uses it.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "command.hpp"
#include "cuabi/cuabi.h"

namespace {

int failed(const char* what) {
    std::fprintf(stderr, "cuabi cache %s: %s\n", what, cuabi_last_error_message());
    return 1;
}

std::string two_call(cuabi_status (*get)(char*, size_t, size_t*)) {
    size_t size = 0;
    if (get(nullptr, 0, &size) != CUABI_SUCCESS || size == 0) return "";
    std::string text(size, '\0');
    if (get(&text[0], size, &size) != CUABI_SUCCESS) return "";
    text.resize(size - 1);
    return text;
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

int show_stats() {
    cuabi_cache_stats s{};
    s.struct_size = sizeof s;
    if (cuabi_cache_get_stats(&s) != CUABI_SUCCESS) return failed("stats");
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
    cuabi_driver_jit_cache_info jit{};
    jit.struct_size = sizeof jit;
    if (cuabi_cache_get_driver_jit_info(&jit) != CUABI_SUCCESS) return failed("stats");
    std::printf("driver JIT cache %s: %s (%s), max %llu bytes (%s)%s\n", jit.enabled ? "on" : "off (CUDA_CACHE_DISABLE=1)",
                two_call(cuabi_cache_get_driver_jit_path).c_str(), source_name(jit.path_source), u(jit.max_bytes),
                source_name(jit.max_bytes_source),
                jit.driver_started_first ? "; the driver started before cuabi, which changed nothing" : "");
    return 0;
}

int run_cache(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: cuabi cache path|stats|verify|prune --max-bytes N|clear|export FILE [--match PATTERN]|import FILE\n");
        return 2;
    }
    std::string verb = argv[1];
    if (verb == "path" && argc == 2) {
        std::string path = two_call(cuabi_cache_get_directory);
        if (path.empty()) return failed("path");
        std::printf("%s\n", path.c_str());
        return 0;
    }
    if (verb == "stats" && argc == 2) return show_stats();
    if (verb == "verify" && argc == 2) {
        uint64_t checked = 0, removed = 0;
        if (cuabi_cache_verify(&checked, &removed) != CUABI_SUCCESS) return failed("verify");
        std::printf("checked %llu entries, removed %llu corrupt\n", (unsigned long long)checked, (unsigned long long)removed);
        return 0;
    }
    if (verb == "prune" && argc == 4 && std::strcmp(argv[2], "--max-bytes") == 0) {
        uint64_t max_bytes = 0, entries = 0, bytes = 0;
        if (!parse_bytes(argv[3], &max_bytes)) {
            std::fprintf(stderr, "cuabi cache prune: '%s' is not a byte count. Fix: pass e.g. 536870912 or 512M\n", argv[3]);
            return 2;
        }
        if (cuabi_cache_prune(max_bytes, &entries, &bytes) != CUABI_SUCCESS) return failed("prune");
        std::printf("removed %llu entries (%llu bytes)\n", (unsigned long long)entries, (unsigned long long)bytes);
        return 0;
    }
    if (verb == "clear" && argc == 2) {
        uint64_t entries = 0, bytes = 0;
        if (cuabi_cache_clear(&entries, &bytes) != CUABI_SUCCESS) return failed("clear");
        std::printf("removed %llu entries (%llu bytes)\n", (unsigned long long)entries, (unsigned long long)bytes);
        return 0;
    }
    if (verb == "export" && (argc == 3 || (argc == 5 && std::strcmp(argv[3], "--match") == 0))) {
        uint64_t entries = 0, bytes = 0;
        if (cuabi_cache_export(argv[2], argc == 5 ? argv[4] : nullptr, &entries, &bytes) != CUABI_SUCCESS)
            return failed("export");
        std::printf("exported %llu entries to %s (%llu bytes)\n", (unsigned long long)entries, argv[2],
                    (unsigned long long)bytes);
        return 0;
    }
    if (verb == "import" && argc == 3) {
        uint64_t imported = 0, refused = 0;
        cuabi_status status = cuabi_cache_import(argv[2], &imported, &refused);
        std::printf("imported %llu entries, refused %llu damaged\n", (unsigned long long)imported,
                    (unsigned long long)refused);
        return status == CUABI_SUCCESS ? 0 : failed("import");
    }
    std::fprintf(stderr, "usage: cuabi cache path|stats|verify|prune --max-bytes N|clear|export FILE [--match PATTERN]|import FILE\n");
    return 2;
}

}  // namespace

CUABI_CLI_COMMAND(cache, "cache", "cache path|stats|verify|prune --max-bytes N|clear|export FILE [--match PATTERN]|import FILE",
                  "show, check, trim, export and import the compiled-kernel cache", run_cache)
