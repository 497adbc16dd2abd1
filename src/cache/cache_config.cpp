// Config::from_environment(): the cache's environment variables (docs/cache.md lists them).
#include <errno.h>
#include <stdlib.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cache/cache_dir.hpp"
#include "cache/environment_values.hpp"
#include "cache/kernel_cache.hpp"
#include "core/environment.hpp"

namespace cuabi {
namespace cache {
namespace {

// "1073741824", "512M", "1G", "64KiB"... (binary multiples). False for anything else.
bool parse_byte_size(const char* text, uint64_t* out) {
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text || errno != 0 || text[0] == '-') return false;
    int shift = 0;
    switch (*end) {
        case '\0': break;
        case 'K': case 'k': shift = 10; ++end; break;
        case 'M': case 'm': shift = 20; ++end; break;
        case 'G': case 'g': shift = 30; ++end; break;
        case 'T': case 't': shift = 40; ++end; break;
        default: return false;
    }
    if (shift != 0 && (std::strcmp(end, "iB") == 0 || std::strcmp(end, "B") == 0)) end += std::strlen(end);
    if (*end != '\0' || (shift != 0 && value > (UINT64_MAX >> shift))) return false;
    *out = static_cast<uint64_t>(value) << shift;
    return true;
}

}  // namespace

void warn(std::string* warnings, const std::string& sentence) {
    *warnings += sentence + ". ";
    record_environment_problem(sentence);
}

void read_size(const char* name, uint64_t* value, std::string* warnings) {
    const char* text = secure_getenv(name);
    if (text == nullptr || *text == '\0') return;
    if (parse_byte_size(text, value)) return;
    warn(warnings, format("%s='%s' is not a byte count (e.g. 1073741824 or 1G); using %llu", name,
                          bounded(text, 40).c_str(), static_cast<unsigned long long>(*value)));
}

void read_milliseconds(const char* name, uint32_t* value, std::string* warnings) {
    const char* text = secure_getenv(name);
    if (text == nullptr || *text == '\0') return;
    char* end = nullptr;
    errno = 0;
    unsigned long long parsed = std::strtoull(text, &end, 10);
    if (end != text && *end == '\0' && errno == 0 && text[0] != '-' && parsed <= UINT32_MAX) {
        *value = static_cast<uint32_t>(parsed);
        return;
    }
    warn(warnings, format("%s='%s' is not a number of milliseconds; using %u", name, bounded(text, 40).c_str(), *value));
}

namespace {

// CUABI_CACHE_READONLY_DIRS: ':'-separated, empty parts skipped (as in PATH-like lists).
std::vector<std::string> read_layer_list(const char* name) {
    std::vector<std::string> layers;
    const char* text = secure_getenv(name);
    if (text == nullptr) return layers;
    std::string list = text;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(':', start);
        if (end == std::string::npos) end = list.size();
        if (end > start) layers.push_back(list.substr(start, end - start));
        start = end + 1;
    }
    return layers;
}

}  // namespace

Config Config::from_environment() {
    Config config;
    std::string why;
    config.directory = resolve_cache_directory(&why);
    const char* disable = secure_getenv("CUABI_CACHE_DISABLE");
    if (disable != nullptr && std::strcmp(disable, "1") == 0) {
        config.disk_disabled = true;
        config.disabled_reason = "disk cache disabled by CUABI_CACHE_DISABLE=1: compiled kernels are cached in memory "
                                 "only. Fix: unset CUABI_CACHE_DISABLE to cache them on disk";
    } else if (disable != nullptr && *disable != '\0' && std::strcmp(disable, "0") != 0) {
        warn(&config.warnings,
             format("CUABI_CACHE_DISABLE='%s' is neither 0 nor 1; the disk cache stays on", bounded(disable, 40).c_str()));
    }
    if (!config.disk_disabled && config.directory.empty()) {
        config.disk_disabled = true;
        config.disabled_reason = why;
    }
    read_size("CUABI_CACHE_MAX_BYTES", &config.disk_max_bytes, &config.warnings);
    read_size("CUABI_CACHE_MEMORY_MAX_BYTES", &config.memory_max_bytes, &config.warnings);
    read_milliseconds("CUABI_CACHE_LOCK_TIMEOUT_MS", &config.lock_timeout_ms, &config.warnings);
    config.readonly_layers = read_layer_list("CUABI_CACHE_READONLY_DIRS");
    const char* copy = secure_getenv("CUABI_CACHE_READONLY_COPY");
    if (copy != nullptr && std::strcmp(copy, "1") == 0) {
        config.readonly_copy = true;
    } else if (copy != nullptr && *copy != '\0' && std::strcmp(copy, "0") != 0) {
        warn(&config.warnings, format("CUABI_CACHE_READONLY_COPY='%s' is neither 0 nor 1; read-only hits are not copied",
                                      bounded(copy, 40).c_str()));
    }
    if (!config.warnings.empty()) config.warnings.pop_back();  // the trailing space
    return config;
}

}  // namespace cache
}  // namespace cuabi
