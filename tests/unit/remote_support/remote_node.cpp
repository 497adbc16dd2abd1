// One "node" of the remote cache tests and bench: a separate process with its own cache directory
// (the environment says which, and which Redis) that compiles kernels through the public API and
// prints what happened as "key=value" lines.
//
//   remote_node [--go FILE] [--pause-ms N] FIRST COUNT
//
// Compiles kernels FIRST..FIRST+COUNT-1 (small, distinct sources, offline for sm_90) in order,
// pausing N ms between them; with --go, first waits (up to 30 s) for FILE to exist, so that many
// nodes start at once. Prints failures, NVRTC runs (compiles), the slowest compile, the mean time
// per kernel, each kernel's module origin, the public cache statistics of the remote tier
// (api_remote_*) and the tier's own stats (remote_*).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cache/remote_tier.hpp"
#include "cuabi/cuabi.h"

namespace {

std::string kernel_source(int index) {
    return "extern \"C\" __global__ void scale" + std::to_string(index) +
           "(float* x) { x[threadIdx.x] = x[threadIdx.x] * " + std::to_string(index + 1) + ".0f + 0.5f; }\n";
}

bool wait_for_file(const char* path) {
    for (int i = 0; i < 30000; ++i) {
        struct stat info;
        if (stat(path, &info) == 0) return true;
        usleep(1000);
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    const char* go = nullptr;
    int pause_ms = 0, arg = 1;
    for (; arg + 1 < argc && argv[arg][0] == '-'; arg += 2) {
        if (std::strcmp(argv[arg], "--go") == 0) go = argv[arg + 1];
        else if (std::strcmp(argv[arg], "--pause-ms") == 0) pause_ms = std::atoi(argv[arg + 1]);
        else return 2;
    }
    if (arg + 2 != argc) return 2;
    int first = std::atoi(argv[arg]), count = std::atoi(argv[arg + 1]);
    if (go != nullptr && !wait_for_file(go)) return 3;

    int failures = 0;
    double slowest_ms = 0, total_ms = 0;
    std::string origins, first_failure;
    for (int i = first; i < first + count; ++i) {
        std::string source = kernel_source(i);
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_TOOLKIT_INCLUDES;
        cuabi_module* module = nullptr;
        auto start = std::chrono::steady_clock::now();
        cuabi_status status = cuabi_module_compile_offline(source.c_str(), &options, &module);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        total_ms += ms;
        if (ms > slowest_ms) slowest_ms = ms;
        if (status != CUABI_SUCCESS) {
            ++failures;
            if (first_failure.empty()) first_failure = cuabi_last_error_message();
            origins += "x";
        } else {
            cuabi_module_info info = CUABI_MODULE_INFO_INIT;
            cuabi_module_get_info(module, &info);
            origins += std::to_string(info.origin);
        }
        cuabi_module_destroy(module);
        if (pause_ms > 0) usleep(static_cast<useconds_t>(pause_ms) * 1000);
    }
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    cuabi_cache_get_stats(&stats);
    std::printf("failures=%d\nfirst_failure=%s\ncompiles=%llu\nslowest_ms=%.3f\nmean_ms=%.4f\norigins=%s\n", failures,
                first_failure.c_str(), (unsigned long long)stats.compiles, slowest_ms, count ? total_ms / count : 0.0,
                origins.c_str());
    std::printf("disk_hits=%llu\ndisk_corrupt_recovered=%llu\n", (unsigned long long)stats.disk_hits,
                (unsigned long long)stats.disk_corrupt_recovered);
    // The public statistics, which must agree with the tier's own (below).
    std::printf("api_remote_configured=%u\napi_remote_breaker_open=%u\napi_remote_hits=%llu\napi_remote_misses=%llu\n"
                "api_remote_errors=%llu\napi_remote_refused=%llu\napi_remote_publishes=%llu\napi_remote_lease_waits=%llu\n"
                "api_remote_lease_wait_hits=%llu\napi_remote_breaker_opens=%llu\n",
                stats.remote_configured, stats.remote_breaker_open, (unsigned long long)stats.remote_hits,
                (unsigned long long)stats.remote_misses, (unsigned long long)stats.remote_errors,
                (unsigned long long)stats.remote_refused, (unsigned long long)stats.remote_publishes,
                (unsigned long long)stats.remote_lease_waits, (unsigned long long)stats.remote_lease_wait_hits,
                (unsigned long long)stats.remote_breaker_opens);
    if (cuabi::cache::RemoteTier* remote = cuabi::cache::RemoteTier::instance()) {
        cuabi::cache::RemoteStats r = remote->stats();
        std::printf("remote_hits=%llu\nremote_misses=%llu\nremote_errors=%llu\nremote_refused=%llu\nremote_publishes=%llu\n"
                    "remote_lease_waits=%llu\nremote_lease_wait_hits=%llu\nremote_breaker=%u\nremote_breaker_opens=%llu\n"
                    "remote_reason=%s\n",
                    (unsigned long long)r.hits, (unsigned long long)r.misses, (unsigned long long)r.errors,
                    (unsigned long long)r.refused, (unsigned long long)r.publishes, (unsigned long long)r.lease_waits,
                    (unsigned long long)r.lease_wait_hits, static_cast<unsigned>(r.breaker),
                    (unsigned long long)r.breaker_opens, r.reason.c_str());
    }
    return 0;
}
