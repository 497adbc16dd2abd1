// A separate process for the cache tests. Every command uses a KernelCache configured from the
// environment (CUABI_CACHE_DIR, ...) exactly as a compile would, and prints "key=value" lines.
//
//   cache_helper [--as-nobody] [--file-size-limit BYTES] COMMAND ...
//     store FIRST COUNT [IMAGE_BYTES]   store entries FIRST..FIRST+COUNT-1
//     lookup FIRST COUNT                look them up; count hits per layer and wrong contents
//     stress SEED ITERATIONS THREADS KEYS [IMAGE_BYTES]
//                                       threads look up random keys, storing each miss
//     churn SEED THREADS KEYS IMAGE_BYTES
//                                       like stress, until killed; a wrong image ends the process at
//                                       once with exit status 1 and "wrong=KEY" on stdout
//     api [configure]                   the public cache functions of cuabi.h (after
//                                       cuabi_cache_configure_driver_jit() with "configure")
//     jit                               configure the driver JIT cache, print the environment
//     compile NAME                      compile built-in source NAME offline for sm_90 through the public
//                                       API; print the status, where the module came from, its lowered
//                                       names, and whether NVRTC or a compile worker was ever used here
//     pch EXPRESSION [--define NAME] [--no-pch]
//                                       compile the PCH test source (a header prefix of toolkit headers)
//                                       for name expression EXPRESSION offline through the public API; print
//                                       the status, the image's checksum, the log, this process's PCH counters,
//                                       why the worker cannot use PCH (if it cannot) and the PCH store's files
//     env-race [configure]              threads read the environment while cuabi starts its driver, cache
//                                       and compiler (after cuabi_cache_configure_driver_jit() first with
//                                       "configure"); print how often anything in this process changed it
//
// --as-nobody drops root privileges (uid/gid 65534) first, so that file permissions apply: the
// only honest way for a root test to meet a read-only directory. --file-size-limit sets
// RLIMIT_FSIZE (with SIGXFSZ ignored, writes past it fail with EFBIG): a full disk.
#include <dlfcn.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cache/driver_jit_cache.hpp"
#include "cache/pch_store.hpp"
#include "compile/compile_worker.hpp"
#include "driver/nvjitlink_api.hpp"
#include "../link_support/link_sources.hpp"
#include "compile/pch_policy.hpp"
#include "cache/kernel_cache.hpp"
#include "compile/compile_worker.hpp"
#include "cuabi/cuabi.h"
#include "test_images.hpp"

using namespace cuabi::cache;

// Every change of the environment made in this process, by cuabi or anyone: these definitions
// take the place of the C library's for all code linked into the helper.
namespace {
std::atomic<int> environment_changes{0};
template <typename Function>
Function next(const char* name) {
    return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" int setenv(const char* name, const char* value, int overwrite) {
    ++environment_changes;
    return next<int (*)(const char*, const char*, int)>("setenv")(name, value, overwrite);
}
extern "C" int unsetenv(const char* name) {
    ++environment_changes;
    return next<int (*)(const char*)>("unsetenv")(name);
}
extern "C" int putenv(char* text) {
    ++environment_changes;
    return next<int (*)(char*)>("putenv")(text);
}
extern "C" int clearenv() {
    ++environment_changes;
    return next<int (*)()>("clearenv")();
}

namespace {

const char* const kSources[][2] = {
    {"templates",
     "template <typename T, int N> __global__ void fill(T* p) { p[threadIdx.x] = T(N); }\n"
     "extern \"C\" __global__ void plain(int* p) { p[0] = 1; }\n"},
    {"other", "extern \"C\" __global__ void other(int* p) { p[0] = 2; }\n"},
};
const char* const kExpressions[] = {"fill<float, 4>", "fill<int, 7>"};

bool nvrtc_mapped() {
    FILE* maps = std::fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    while (maps != nullptr && std::fgets(line, sizeof line, maps) != nullptr) found |= std::strstr(line, "libnvrtc") != nullptr;
    if (maps != nullptr) std::fclose(maps);
    return found;
}

void print_stats(KernelCache& cache) {
    Stats s = cache.stats();
    std::printf("disk_enabled=%d\ndisk_writable=%d\n", s.disk_enabled, s.disk_writable);
    std::printf("memory_hits=%llu\nmemory_misses=%llu\ndisk_hits=%llu\ndisk_misses=%llu\n",
                (unsigned long long)s.memory_hits, (unsigned long long)s.memory_misses,
                (unsigned long long)s.disk_hits, (unsigned long long)s.disk_misses);
    std::printf("disk_entries=%llu\ndisk_bytes=%llu\ndisk_stores=%llu\ndisk_store_failures=%llu\n",
                (unsigned long long)s.disk_entries, (unsigned long long)s.disk_bytes,
                (unsigned long long)s.disk_stores, (unsigned long long)s.disk_store_failures);
    std::printf("disk_corrupt_recovered=%llu\ndisk_evictions=%llu\n", (unsigned long long)s.disk_corrupt_recovered,
                (unsigned long long)s.disk_evictions);
    std::printf("reason=%s\n", cache.degradation_reason().c_str());
}

int store(KernelCache& cache, uint64_t first, uint64_t count, size_t image_bytes) {
    for (uint64_t i = first; i < first + count; ++i)
        cache.store(cache_test::make_key(i), cache_test::make_image(i, image_bytes), nullptr);
    print_stats(cache);
    return 0;
}

int lookup(KernelCache& cache, uint64_t first, uint64_t count) {
    uint64_t memory = 0, disk = 0, missing = 0, wrong = 0;
    for (uint64_t i = first; i < first + count; ++i) {
        Layer layer;
        auto image = cache.lookup(cache_test::make_key(i), nullptr, &layer);
        if (image == nullptr) ++missing;
        else if (!cache_test::same_image(*image, *cache_test::make_image(i))) ++wrong;
        memory += layer == Layer::Memory;
        disk += layer == Layer::Disk;
    }
    std::printf("found_memory=%llu\nfound_disk=%llu\nmissing=%llu\nwrong=%llu\n", (unsigned long long)memory,
                (unsigned long long)disk, (unsigned long long)missing, (unsigned long long)wrong);
    print_stats(cache);
    return 0;
}

int stress(KernelCache& cache, unsigned seed, int iterations, int threads, int keys, size_t image_bytes) {
    std::atomic<uint64_t> wrong{0}, hits{0}, stores{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            std::mt19937 random(seed * 131 + static_cast<unsigned>(t));
            for (int i = 0; i < iterations; ++i) {
                uint64_t index = random() % static_cast<unsigned>(keys);
                Layer layer;
                auto image = cache.lookup(cache_test::make_key(index), nullptr, &layer);
                if (image == nullptr) {
                    cache.store(cache_test::make_key(index), cache_test::make_image(index, image_bytes), nullptr);
                    ++stores;
                } else {
                    ++hits;
                    if (!cache_test::same_image(*image, *cache_test::make_image(index, image_bytes))) ++wrong;
                }
            }
        });
    }
    for (std::thread& worker : workers) worker.join();
    std::printf("wrong=%llu\nhits=%llu\nstored=%llu\n", (unsigned long long)wrong.load(),
                (unsigned long long)hits.load(), (unsigned long long)stores.load());
    print_stats(cache);
    return 0;
}

// Runs until killed (the kill -9 stress test): every answer is checked the moment it arrives,
// since a killed process cannot report at the end.
int churn(KernelCache& cache, unsigned seed, int threads, int keys, size_t image_bytes) {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            std::mt19937 random(seed * 131 + static_cast<unsigned>(t));
            for (;;) {
                uint64_t index = random() % static_cast<unsigned>(keys);
                Layer layer;
                auto image = cache.lookup(cache_test::make_key(index), nullptr, &layer);
                if (image == nullptr) {
                    cache.store(cache_test::make_key(index), cache_test::make_image(index, image_bytes), nullptr);
                } else if (!cache_test::same_image(*image, *cache_test::make_image(index, image_bytes))) {
                    char line[64];
                    int length = std::snprintf(line, sizeof line, "wrong=%llu\n", (unsigned long long)index);
                    if (write(1, line, static_cast<size_t>(length)) < 0) _exit(1);
                    _exit(1);
                }
            }
        });
    }
    for (std::thread& worker : workers) worker.join();
    return 0;
}

std::string read_two_call(cuabi_status (*get)(char*, size_t, size_t*)) {
    size_t size = 0;
    if (get(nullptr, 0, &size) != CUABI_SUCCESS) return "<error>";
    std::string text(size, '\0');
    if (get(&text[0], size, &size) != CUABI_SUCCESS) return "<error>";
    text.resize(size - 1);
    return text;
}

int api(bool configure) {
    if (configure) std::printf("configure_status=%d\n", cuabi_cache_configure_driver_jit());
    cuabi_cache_stats stats{};
    stats.struct_size = sizeof stats;
    cuabi_status status = cuabi_cache_get_stats(&stats);
    std::printf("stats_status=%d\ndisk_enabled=%u\ndisk_entries=%llu\n", status, stats.disk_enabled,
                (unsigned long long)stats.disk_entries);
    std::printf("directory=%s\nreason=%s\n", read_two_call(cuabi_cache_get_directory).c_str(),
                read_two_call(cuabi_cache_get_degradation_reason).c_str());
    uint64_t checked = 0, removed = 0;
    status = cuabi_cache_verify(&checked, &removed);
    std::printf("verify_status=%d\nverify_checked=%llu\nverify_removed=%llu\n", status, (unsigned long long)checked,
                (unsigned long long)removed);
    std::printf("message=%s\n", status != CUABI_SUCCESS ? cuabi_last_error_message() : "");
    cuabi_driver_jit_cache_info info{};
    info.struct_size = sizeof info;
    status = cuabi_cache_get_driver_jit_info(&info);
    std::printf("jit_status=%d\njit_enabled=%u\njit_path_source=%d\njit_max_bytes=%llu\njit_path=%s\n", status,
                info.enabled, info.path_source, (unsigned long long)info.max_bytes,
                read_two_call(cuabi_cache_get_driver_jit_path).c_str());
    return 0;
}

int jit() {
    configure_driver_jit_cache();
    const DriverJitSettings settings = driver_jit_settings();
    auto env = [](const char* name) {
        const char* value = std::getenv(name);
        return value != nullptr ? value : "<unset>";
    };
    std::printf("CUDA_CACHE_PATH=%s\nCUDA_CACHE_MAXSIZE=%s\nCUDA_CACHE_DISABLE=%s\n", env("CUDA_CACHE_PATH"),
                env("CUDA_CACHE_MAXSIZE"), env("CUDA_CACHE_DISABLE"));
    std::printf("path=%s\npath_source=%d\nmax_bytes=%llu\nmax_bytes_source=%d\nenabled=%d\n", settings.path.c_str(),
                static_cast<int>(settings.path_source), (unsigned long long)settings.max_bytes,
                static_cast<int>(settings.max_bytes_source), settings.enabled);
    return 0;
}

int compile(const char* name) {
    const char* source = nullptr;
    for (const auto& entry : kSources)
        if (std::strcmp(entry[0], name) == 0) source = entry[1];
    if (source == nullptr) return 2;
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.name_expressions = kExpressions;
    options.name_expression_count = std::strcmp(name, "templates") == 0 ? 2 : 0;
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(source, &options, &module);
    std::printf("status=%d\nmessage=%s\n", status, status != CUABI_SUCCESS ? cuabi_last_error_message() : "");
    if (status == CUABI_SUCCESS) {
        cuabi_module_info info = CUABI_MODULE_INFO_INIT;
        cuabi_module_get_info(module, &info);
        std::printf("origin=%d\ntarget=%s\n", info.origin, info.target);
        for (size_t i = 0; i < options.name_expression_count; ++i) {
            char lowered[256] = {};
            size_t size = 0;
            cuabi_module_get_lowered_name(module, kExpressions[i], lowered, sizeof lowered, &size);
            std::printf("lowered%zu=%s\n", i, lowered);
        }
    }
    cuabi_module_destroy(module);
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    cuabi_cache_get_stats(&stats);
    std::printf("nvrtc_state=%d\ncompiles=%llu\nnvrtc_mapped=%d\nworkers=%d\n", stats.nvrtc_state,
                (unsigned long long)stats.compiles, nvrtc_mapped() ? 1 : 0, cuabi::compile_workers_running());
    return 0;
}

// Compiles the link tests' two sources to LTO-IR for sm_90 and links them with the device library
// at `library` (a fatbin), offline: where each part came from, and whether nvJitLink was loaded here.
int link(const char* library) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = CUABI_COMPILE_LTO_IR;
    cuabi_module* objects[2] = {nullptr, nullptr};
    const char* sources[2] = {link_test::kKernelSource, link_test::kTwiceSource};
    for (int i = 0; i < 2; ++i) {
        cuabi_status status = cuabi_module_compile_offline(sources[i], &options, &objects[i]);
        if (status != CUABI_SUCCESS) {
            std::printf("status=%d\nmessage=%s\n", status, cuabi_last_error_message());
            return 0;
        }
    }
    cuabi_link_input inputs[3] = {};
    inputs[0].module = objects[0];
    inputs[1].module = objects[1];
    inputs[2].kind = CUABI_LINK_INPUT_FATBIN;
    inputs[2].path = library;
    cuabi_link_options link_options;
    cuabi_link_options_init(sizeof link_options, &link_options);
    link_options.target = "sm_90";
    link_options.flags = CUABI_LINK_LTO;
    cuabi_module* linked = nullptr;
    cuabi_status status = cuabi_module_link_offline(inputs, 3, &link_options, &linked);
    std::printf("status=%d\nmessage=%s\n", status, status != CUABI_SUCCESS ? cuabi_last_error_message() : "");
    if (status == CUABI_SUCCESS) {
        cuabi_module_info info = CUABI_MODULE_INFO_INIT;
        cuabi_module_get_info(linked, &info);
        char names[256] = {};
        size_t size = 0;
        cuabi_module_get_kernel_names(linked, names, sizeof names, &size);
        for (char* at = names; *at != '\0'; ++at)
            if (*at == '\n') *at = ',';  // one line per value in the helper's output
        std::printf("origin=%d\ntarget=%s\nkernels=%s\n", info.origin, info.target, names);
    }
    for (cuabi_module* module : objects) cuabi_module_destroy(module);
    cuabi_module_destroy(linked);
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    cuabi_cache_get_stats(&stats);
    std::printf("nvrtc_state=%d\ncompiles=%llu\nnvjitlink_loaded=%d\n", stats.nvrtc_state,
                (unsigned long long)stats.compiles, cuabi::nvjitlink_loaded() ? 1 : 0);
    return 0;
}

// A header prefix of toolkit headers, then templates for the variants a test asks for.
constexpr char kPchSource[] =
    "#include <cuda/std/type_traits>\n"
    "#include <cuda/std/limits>\n"
    "template <typename T, int N> __global__ void fill(T* out) {\n"
    "    out[threadIdx.x] = cuda::std::numeric_limits<T>::max() / N + cuda::std::is_signed<T>::value;\n"
    "}\n";

int pch(int argc, char** argv) {
    const char* expression = argv[0];
    std::vector<const char*> defines;
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--define") == 0 && i + 1 < argc) defines.push_back(argv[++i]);
        else if (std::strcmp(argv[i], "--no-pch") == 0) options.flags |= CUABI_COMPILE_NO_PCH;
        else return 2;
    }
    // A fixed seed makes NVRTC's output the same in every process, so that images can be compared.
    static const char* const kFlags[] = {"-frandom-seed=1"};
    options.target = "sm_90";
    options.name_expressions = &expression;
    options.name_expression_count = 1;
    options.defines = defines.data();
    options.define_count = defines.size();
    options.extra_flags = kFlags;
    options.extra_flag_count = 1;
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(kPchSource, &options, &module);
    std::printf("status=%d\nmessage=%s\n", status, status != CUABI_SUCCESS ? cuabi_last_error_message() : "");
    if (status == CUABI_SUCCESS) {
        size_t size = 0;
        cuabi_module_get_image(module, nullptr, 0, &size);
        std::vector<uint8_t> image(size);
        cuabi_module_get_image(module, image.data(), size, &size);
        std::printf("image=%s\n", cuabi::cache::pch_checksum_hex(image.data(), image.size()).c_str());
        char log[4096] = {};
        cuabi_module_get_log(module, log, sizeof log, &size);
        std::printf("log_size=%zu\nlog=%s\n", size, log);
    }
    cuabi_module_destroy(module);
    cuabi::PchStats stats = cuabi::pch_stats();
    std::string problem = "<no worker>";
    cuabi::worker_pch_problem(&problem);
    std::printf("pch_created=%llu\npch_reused=%llu\npch_rejected=%llu\npch_not_created=%llu\npch_note=%s\n"
                "pch_problem=%s\n",
                (unsigned long long)stats.created, (unsigned long long)stats.reused,
                (unsigned long long)stats.rejected, (unsigned long long)stats.not_created, stats.last_note.c_str(),
                problem.c_str());
    cuabi::cache::Fd store;
    const char* directory = std::getenv("CUABI_CACHE_DIR");
    if (directory != nullptr && cuabi::cache::open_existing_pch_store(directory, &store).ok() && store.ok())
        std::printf("store_files=%llu\n", (unsigned long long)cuabi::cache::pch_store_usage(store.get()).files);
    else
        std::printf("store_files=0\n");
    return 0;
}

// Readers of the environment on other threads, as Go, Rust and JVM runtimes have, while cuabi
// loads its driver, opens its cache and compiles.
int env_race(bool configure) {
    if (configure) std::printf("configure_status=%d\n", cuabi_cache_configure_driver_jit());
    int before = environment_changes.load();
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> reads{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t)
        readers.emplace_back([&] {
            while (!stop.load()) {
                for (const char* name : {"HOME", "PATH", "CUDA_CACHE_PATH", "CUDA_CACHE_MAXSIZE"})
                    if (std::getenv(name) != nullptr) ++reads;
            }
        });
    int32_t version = 0, count = 0;
    cuabi_driver_get_version(&version);
    cuabi_device_get_count(&count);
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    cuabi_cache_get_stats(&stats);
    cuabi_driver_jit_cache_info jit = CUABI_DRIVER_JIT_CACHE_INFO_INIT;
    cuabi_cache_get_driver_jit_info(&jit);
    size_t size = 0;
    cuabi_nvrtc_get_include_dirs(nullptr, 0, &size);
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(kSources[1][1], &options, &module);
    cuabi_module_destroy(module);
    stop.store(true);
    for (std::thread& reader : readers) reader.join();
    const char* path = std::getenv("CUDA_CACHE_PATH");
    std::printf("compile_status=%d\nchanges_while_running=%d\nchanges_before=%d\nCUDA_CACHE_PATH=%s\nreads=%llu\n",
                status, environment_changes.load() - before, before, path != nullptr ? path : "<unset>",
                (unsigned long long)reads.load());
    return 0;
}

bool drop_root() {
    if (geteuid() != 0) return true;
    return setgroups(0, nullptr) == 0 && setgid(65534) == 0 && setuid(65534) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    int at = 1;
    while (at < argc && argv[at][0] == '-') {
        if (std::strcmp(argv[at], "--as-nobody") == 0) {
            if (!drop_root()) return 3;
            ++at;
        } else if (std::strcmp(argv[at], "--file-size-limit") == 0 && at + 1 < argc) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit limit = {std::strtoull(argv[at + 1], nullptr, 10), std::strtoull(argv[at + 1], nullptr, 10)};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 3;
            at += 2;
        } else {
            return 2;
        }
    }
    if (at >= argc) return 2;
    std::string command = argv[at];
    auto arg = [&](int i, uint64_t fallback) { return at + i < argc ? std::strtoull(argv[at + i], nullptr, 10) : fallback; };
    if (command == "api") return api(at + 1 < argc && std::strcmp(argv[at + 1], "configure") == 0);
    if (command == "jit") return jit();
    if (command == "compile" && at + 1 < argc) return compile(argv[at + 1]);
    if (command == "pch" && at + 1 < argc) return pch(argc - at - 1, argv + at + 1);
    if (command == "link" && at + 1 < argc) return link(argv[at + 1]);
    if (command == "env-race") return env_race(at + 1 < argc && std::strcmp(argv[at + 1], "configure") == 0);
    KernelCache cache(Config::from_environment());
    if (command == "store") return store(cache, arg(1, 0), arg(2, 1), arg(3, 0));
    if (command == "lookup") return lookup(cache, arg(1, 0), arg(2, 1));
    if (command == "churn")
        return churn(cache, static_cast<unsigned>(arg(1, 1)), static_cast<int>(arg(2, 2)), static_cast<int>(arg(3, 40)),
                     arg(4, 2500));
    if (command == "stress")
        return stress(cache, static_cast<unsigned>(arg(1, 1)), static_cast<int>(arg(2, 100)),
                      static_cast<int>(arg(3, 4)), static_cast<int>(arg(4, 16)), arg(5, 0));
    return 2;
}
