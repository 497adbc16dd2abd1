#include "cache/driver_jit_cache.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cache/cache_dir.hpp"
#include "cache/kernel_cache.hpp"

namespace cuabi {
namespace cache {
namespace {

bool is_set(const char* value) { return value != nullptr && *value != '\0'; }

uint64_t parse_size(const char* text) {
    char* end = nullptr;
    unsigned long long value = std::strtoull(text, &end, 10);
    return (end != text && *end == '\0' && text[0] != '-') ? value : 0;
}

std::once_flag configure_once;
std::atomic<const DriverJitSettings*> configured{nullptr};  // written once under configure_once, never freed

// <cuabi dir>/driver-jit when the cuabi disk cache is on and its directory is trusted.
std::string cuabi_jit_directory() {
    const Config& config = KernelCache::instance().config();
    Fd directory, jit;
    if (config.disk_disabled || !open_cache_directory(config.directory, &directory).ok() ||
        !open_subdirectory(directory.get(), "driver-jit", true, config.directory, &jit).ok())
        return "";
    return config.directory + "/driver-jit";
}

DriverJitInputs read_environment() {
    DriverJitInputs inputs;
    inputs.disable = std::getenv("CUDA_CACHE_DISABLE");
    inputs.path = std::getenv("CUDA_CACHE_PATH");
    inputs.max_size = std::getenv("CUDA_CACHE_MAXSIZE");
    inputs.home = std::getenv("HOME");
    return inputs;
}

}  // namespace

DriverJitSettings plan_driver_jit_cache(const DriverJitInputs& in) {
    DriverJitSettings settings;
    settings.driver_started_first = in.driver_started_first;
    settings.enabled = !(in.disable != nullptr && std::strcmp(in.disable, "1") == 0);
    bool may_change = settings.enabled && !in.driver_started_first;

    if (is_set(in.path)) {
        settings.path_source = Source::Environment;
        settings.path = in.path;
    } else if (may_change && !in.cuabi_jit_directory.empty()) {
        settings.path_source = Source::Cuabi;
        settings.path = in.cuabi_jit_directory;
    } else {
        settings.path = std::string(in.home != nullptr ? in.home : "~") + "/.nv/ComputeCache";
    }

    if (is_set(in.max_size)) {
        settings.max_bytes_source = Source::Environment;
        settings.max_bytes = parse_size(in.max_size);
    } else if (may_change && (settings.path_source != Source::DriverDefault)) {
        // Raised wherever the path is cuabi's or the operator's; left alone when cuabi could not
        // vouch for the location (the driver's default directory stays at the driver's default).
        settings.max_bytes_source = Source::Cuabi;
        settings.max_bytes = kDriverJitMaxBytes;
    }
    return settings;
}

void configure_driver_jit_cache() {
    std::call_once(configure_once, [] {
        DriverJitInputs inputs = read_environment();
        inputs.driver_started_first = driver_started_in_process();
        bool may_change = !inputs.driver_started_first &&
                          !(inputs.disable != nullptr && std::strcmp(inputs.disable, "1") == 0);
        if (may_change && !is_set(inputs.path)) inputs.cuabi_jit_directory = cuabi_jit_directory();

        auto* settings = new DriverJitSettings(plan_driver_jit_cache(inputs));
        if (settings->path_source == Source::Cuabi) setenv("CUDA_CACHE_PATH", settings->path.c_str(), 1);
        if (settings->max_bytes_source == Source::Cuabi)
            setenv("CUDA_CACHE_MAXSIZE", std::to_string(settings->max_bytes).c_str(), 1);
        configured.store(settings, std::memory_order_release);
    });
}

DriverJitSettings driver_jit_settings() {
    if (const DriverJitSettings* settings = configured.load(std::memory_order_acquire)) return *settings;
    return plan_driver_jit_cache(read_environment());  // nothing cuabi may add: what the driver sees
}

}  // namespace cache
}  // namespace cuabi
