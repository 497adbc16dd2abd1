// What compiling a small kernel costs on each path of the kernel cache (docs/performance.md): a
// cold compile with NVRTC in this process and in the compile worker, a memory-cache hit, the first
// hit on a new thread, and a disk-cache hit in a fresh process with nothing warm -- with NVRTC
// installed and without -- all for one 4 KiB source with one C++ name expression, through the
// public API.
//
//   bench_compile [--reps N] [--iters N] [--cold-reps N] [--children N] [--target sm_XY] [--json PATH]
//                 [--variants N] [--batch-only]
//   defaults:      20 reps,   1000 iters,  5 cold reps,   10 children,  sm_90 (offline; a GPU
//                  uses its own architecture), 32 variants; --batch-only runs only the compile-batch
//                  rows (compile_batches.hpp), with --cold-reps repetitions
//
// Methodology:
// - The bench points CUABI_CACHE_DIR at a fresh private directory (removed at exit), so every run
//   starts cold and the user's cache is neither read nor written.
// - Cold compile: each repetition uses its own cache salt, so it misses both layers and runs NVRTC,
//   once in this process (CUABI_COMPILE_IN_PROCESS) and once in the worker (CUABI_COMPILE_ISOLATED),
//   back to back: the paired ratio is what isolation costs. NVRTC 12.9+ gets --no-cache, so that
//   its own cache (kept in the driver's JIT cache) cannot serve a repetition. Median of --cold-reps.
// - First compile of a fresh process: the bench runs itself (--child) with a new salt, in-process
//   and isolated: NVRTC's loading, and for the worker its start, are in the number.
// - Memory hit: after one compile has filled the cache, each repetition times --iters compile +
//   destroy calls and reports the mean per call; the table gives the median over --reps. The bench
//   counts heap allocations (its own operator new) on that path and prints them per call. The
//   first hit of the process and the first hit on a new thread are their own rows. Each repetition
//   also times comparing the source with a copy (memcmp), the yardstick of the hit's paired ratio: the lent
//   hosts are at times twice as slow for a while, and the ratio reads through that.
// - Disk hit in a fresh process: the bench runs itself (--child MODE) --children times with the
//   same cache directory; nothing is warm: no NVRTC, no worker, no cache directory opened. The
//   child times its FIRST compile call and checks that the disk cache served it and that NVRTC was
//   never loaded (nor a worker started). Modes: offline (compile -> image read back; no GPU),
//   context (after cuabi_context_create, i.e. driver start-up excluded: compile -> loaded module ->
//   kernel by name expression; context creation starts cuabi's background search for NVRTC, the
//   toolkit headers and the cache directory, as in any program); each also with CUABI_NVRTC_PATH
//   pointing nowhere ("no NVRTC").
// - Read-only layer hit in a fresh process: the same child (offline, no NVRTC) with an empty cache
//   directory of its own and the filled one as CUABI_CACHE_READONLY_DIRS -- once as a directory
//   layer, once as a bundle the parent exported from it -- back to back with a disk-hit child, the
//   baseline of the paired ratio. The child checks that the read-only layer served it.
// - Precompiled headers (docs/compile.md): a CUB block reduction (#include <cub/block/block_reduce.cuh>)
//   in the worker, three variants per repetition (other block sizes), all with one salt of the
//   repetition's own, so each repetition starts without a PCH: a cold compile without PCH
//   (CUABI_COMPILE_NO_PCH), the compile that creates the PCH, and a compile of the third variant
//   that starts from it. The paired ratio "reuse / cold" is what the issue's target (<= 30 %)
//   measures. --pch-only runs these rows alone.
// Without a GPU the context rows are skipped, and the bench says so.
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "compile_batches.hpp"
#include "cuabi/cuabi.h"

// Heap allocations of this thread, counted for the memory-hit row. libcuabi's allocations reach
// this operator new only where the library takes operator new from libstdc++.so; a toolchain that
// binds it otherwise (the H100's Release build, see tests/CMakeLists.txt) counts 0, and the note
// then says nothing about the library.
namespace {
thread_local std::atomic<uint64_t> allocations{0};
}
void* operator new(size_t size) {
    allocations.fetch_add(1, std::memory_order_seq_cst);
    if (void* block = std::malloc(size == 0 ? 1 : size)) return block;
    throw std::bad_alloc();
}
// GCC pairs every `new` in this file with the library's operator new and warns that free() does
// not match it (-Wmismatched-new-delete); this file replaces both, and they do match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, size_t) noexcept { std::free(block); }
#pragma GCC diagnostic pop

namespace {

const char* const kExpression = "block_sum<float, 256>";
const char* const kTinySource = "extern \"C\" __global__ void tiny(int* p) { if (p) *p = 1; }\n";

// A small but realistic translation unit, padded with a comment to exactly 4096 bytes.
std::string kernel_source() {
    std::string source = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void scale_clamp(float* data, float factor, float lo, float hi, unsigned int n) {
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = data[i] * factor;
        data[i] = v < lo ? lo : (v > hi ? hi : v);
    }
}

extern "C" __global__ void transpose32(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

template <typename T, int Block>
__global__ void block_sum(const T* in, T* partial, unsigned int n) {
    __shared__ T tile[Block];
    unsigned int i = blockIdx.x * Block + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int stride = Block / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = tile[0];
}

extern "C" __global__ void histogram256(const unsigned char* in, unsigned int* bins, unsigned int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void softmax_row(const float* in, float* out, int cols) {
    const float* row = in + blockIdx.x * cols;
    float* result = out + blockIdx.x * cols;
    float peak = -3.402823466e38f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) peak = fmaxf(peak, row[c]);
    for (int offset = 16; offset > 0; offset /= 2) peak = fmaxf(peak, __shfl_xor_sync(0xffffffffu, peak, offset));
    float total = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) total += __expf(row[c] - peak);
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) result[c] = __expf(row[c] - peak) / total;
}
)";
    source += "/*";
    while (source.size() < 4096 - 3) source += source.size() % 64 == 0 ? '\n' : '.';
    source += "*/\n";
    return source;
}

struct Options {
    int reps = 20;
    int iters = 1000;
    int cold_reps = 5;
    int children = 10;
    std::string target = "sm_90";
    const char* json = nullptr;
    const char* child = nullptr;  // --child MODE: this process is one fresh-process sample
    std::string salt;             // --salt TEXT: the child's salt for a cold compile (owned: options point into it)
    bool no_cache = false;        // --no-cache: pass NVRTC's --no-cache (12.9+) on cold compiles
    int variants = 32;            // --variants N: requests of the compile-batch rows
    bool batch_only = false;      // --batch-only: only the compile-batch rows
    bool pch_only = false;        // --pch-only: only the precompiled-header rows
};

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        auto number = [&](int* out) {
            if (i + 1 >= argc || (*out = std::atoi(argv[++i])) <= 0) {
                std::fprintf(stderr, "%s takes a positive number\n", argv[i - 1]);
                std::exit(2);
            }
        };
        bool has_value = i + 1 < argc;
        if (std::strcmp(argv[i], "--reps") == 0) number(&options.reps);
        else if (std::strcmp(argv[i], "--iters") == 0) number(&options.iters);
        else if (std::strcmp(argv[i], "--cold-reps") == 0) number(&options.cold_reps);
        else if (std::strcmp(argv[i], "--children") == 0) number(&options.children);
        else if (std::strcmp(argv[i], "--target") == 0 && has_value) options.target = argv[++i];
        else if (std::strcmp(argv[i], "--json") == 0 && has_value) options.json = argv[++i];
        else if (std::strcmp(argv[i], "--child") == 0 && has_value) options.child = argv[++i];
        else if (std::strcmp(argv[i], "--salt") == 0 && has_value) options.salt = argv[++i];
        else if (std::strcmp(argv[i], "--no-cache") == 0) options.no_cache = true;
        else if (std::strcmp(argv[i], "--variants") == 0) number(&options.variants);
        else if (std::strcmp(argv[i], "--batch-only") == 0) options.batch_only = true;
        else if (std::strcmp(argv[i], "--pch-only") == 0) options.pch_only = true;
        else {
            std::fprintf(stderr,
                         "usage: bench_compile [--reps N] [--iters N] [--cold-reps N] [--children N] "
                         "[--target sm_XY] [--json PATH] [--variants N] [--batch-only] [--pch-only]\n");
            std::exit(2);
        }
    }
    return options;
}

// Compile options for the benchmark source: its name expression, an optional target and salt.
cuabi_compile_options compile_options(const char* target, const void* salt = nullptr, size_t salt_size = 0) {
    static const char* expressions[] = {kExpression};
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    options.target = target;
    options.salt = salt;
    options.salt_size = salt_size;
    return options;
}

uint32_t origin(cuabi_module* module) {
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    bench::check(cuabi_module_get_info(module, &info), "cuabi_module_get_info");
    return info.origin;
}

const char* const kNoCacheFlag[] = {"--no-cache"};

// The cold-compile options: a salt, NVRTC's own cache off where it has one, an isolation flag.
cuabi_compile_options cold_options(const char* target, const std::string& salt, bool no_cache, uint32_t flags) {
    cuabi_compile_options options = compile_options(target, salt.data(), salt.size());
    options.flags |= flags;
    if (no_cache) {
        options.extra_flags = kNoCacheFlag;
        options.extra_flag_count = 1;
    }
    return options;
}

bool nvrtc_in_this_process() {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
        if (line.find("libnvrtc") != std::string::npos) return true;
    return false;
}

cuabi_cache_stats cache_stats() {
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    bench::check(cuabi_cache_get_stats(&stats), "cuabi_cache_get_stats");
    return stats;
}

// ---- the children: one fresh-process sample each ----------------------------------------------

// The first compile call of a process that hits the disk (or, with `expected` READONLY_CACHE, a
// read-only layer): nothing warm before it.
int child_disk_hit(const Options& options, bool in_context, uint32_t expected = CUABI_MODULE_ORIGIN_DISK_CACHE) {
    const std::string source = kernel_source();
    cuabi_context* context = nullptr;
    if (in_context) bench::check(cuabi_context_create(nullptr, &context), "cuabi_context_create");  // excluded
    cuabi_compile_options compile = compile_options(in_context ? nullptr : options.target.c_str());
    cuabi_module* module = nullptr;
    cuabi_kernel* kernel = nullptr;
    std::vector<char> image;
    bench::Clock::time_point start = bench::Clock::now();
    if (in_context) {
        bench::check(cuabi_module_compile(context, source.c_str(), &compile, &module), "compile");
        bench::check(cuabi_module_get_kernel(module, kExpression, &kernel), "cuabi_module_get_kernel");
    } else {
        bench::check(cuabi_module_compile_offline(source.c_str(), &compile, &module), "compile");
        size_t size = 0;
        bench::check(cuabi_module_get_image(module, nullptr, 0, &size), "cuabi_module_get_image");
        image.resize(size);
        bench::check(cuabi_module_get_image(module, image.data(), size, &size), "cuabi_module_get_image");
    }
    double ns = bench::nanoseconds(bench::Clock::now() - start);
    cuabi_cache_stats stats = cache_stats();
    if (origin(module) != expected || stats.compiles != 0 || nvrtc_in_this_process() ||
        stats.nvrtc_state == CUABI_NVRTC_STATE_LOADED) {
        std::fprintf(stderr, "child: not a pure cache hit (origin %u, %llu compiles, NVRTC state %d, mapped %d)\n",
                     origin(module), (unsigned long long)stats.compiles, stats.nvrtc_state, nvrtc_in_this_process());
        return 1;
    }
    std::printf("%.0f\n", ns);
    cuabi_kernel_destroy(kernel);
    cuabi_module_destroy(module);
    cuabi_context_destroy(context);
    return 0;
}

// The first compile of a process, a miss: NVRTC loaded here, or a worker started that loads it.
int child_first_compile(const Options& options, uint32_t flags) {
    const std::string source = kernel_source();
    cuabi_compile_options compile = cold_options(options.target.c_str(), options.salt, options.no_cache, flags);
    cuabi_module* module = nullptr;
    bench::Clock::time_point start = bench::Clock::now();
    bench::check(cuabi_module_compile_offline(source.c_str(), &compile, &module), "first compile");
    double ns = bench::nanoseconds(bench::Clock::now() - start);
    if (origin(module) != CUABI_MODULE_ORIGIN_COMPILED) {
        std::fprintf(stderr, "child: the first compile was not a compile (origin %u)\n", origin(module));
        return 1;
    }
    std::printf("%.0f\n", ns);
    cuabi_module_destroy(module);
    return 0;
}

int run_child(const Options& options) {
    if (std::getenv("CUABI_CACHE_DIR") == nullptr) {
        std::fprintf(stderr, "--child runs only under a bench_compile parent, which sets CUABI_CACHE_DIR\n");
        return 2;
    }
    std::string mode = options.child;
    if (mode == "offline") return child_disk_hit(options, false);
    if (mode == "context") return child_disk_hit(options, true);
    if (mode == "offline-readonly") return child_disk_hit(options, false, CUABI_MODULE_ORIGIN_READONLY_CACHE);
    if (mode == "first-in-process") return child_first_compile(options, CUABI_COMPILE_IN_PROCESS);
    if (mode == "first-worker") return child_first_compile(options, CUABI_COMPILE_ISOLATED);
    std::fprintf(stderr, "unknown child mode '%s'\n", mode.c_str());
    return 2;
}

std::string self_path() {
    char self[4096] = {};
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        std::fprintf(stderr, "cannot read /proc/self/exe\n");
        std::exit(1);
    }
    return self;
}

// Runs this executable once as `--child mode` with `environment` prefixed ("NAME=value " or "").
double child_sample(const Options& options, const std::string& mode, const std::string& environment,
                    const std::string& extra = "") {
    std::string command = environment + "'" + self_path() + "' --child " + mode + " --target " + options.target + extra;
    FILE* child = popen(command.c_str(), "r");
    double ns = -1;
    bool read = child != nullptr && std::fscanf(child, "%lf", &ns) == 1;
    int status = child != nullptr ? pclose(child) : -1;
    if (!read || status != 0 || ns < 0) {
        std::string how = status == -1            ? "could not be run"
                          : WIFSIGNALED(status)   ? "was killed by signal " + std::to_string(WTERMSIG(status))
                          : WEXITSTATUS(status) != 0 ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                                     : "printed no time";
        std::fprintf(stderr, "child '%s' %s (printed %s)\n", command.c_str(), how.c_str(),
                     read ? std::to_string(ns).c_str() : "nothing");
        std::exit(1);
    }
    return ns;
}

// ---- the parent ---------------------------------------------------------------------------------

// Mean nanoseconds per call of `body` over `iters` calls.
template <typename Body>
double per_call(int iters, Body body) {
    bench::Clock::time_point start = bench::Clock::now();
    for (int i = 0; i < iters; ++i) body();
    return bench::nanoseconds(bench::Clock::now() - start) / iters;
}

std::string salt_for(const char* what, int rep) {
    return std::string(what) + ":" + std::to_string(getpid()) + ":" + std::to_string(rep);
}

// The context to measure in (NULL without a GPU), and the target the offline rows use.
cuabi_context* open_context(bench::Report& report, std::string* target) {
    int32_t devices = 0;
    if (cuabi_device_get_count(&devices) != CUABI_SUCCESS || devices == 0) {
        std::printf("skipped: context rows (cold compile with load, memory hit in a context, disk hit in a fresh "
                    "process with load): no CUDA device: %s\n",
                    cuabi_last_error_message());
        report.note("device", "none (context rows skipped)");
        return nullptr;
    }
    cuabi_context* context = nullptr;
    bench::check(cuabi_context_create(nullptr, &context), "cuabi_context_create");
    cuabi_device_info device = CUABI_DEVICE_INFO_INIT;
    bench::check(cuabi_device_get_info(0, &device), "cuabi_device_get_info");
    report.note("device", device.name);
    *target = "sm_" + std::to_string(device.compute_capability_major * 10 + device.compute_capability_minor);
    return context;
}

void cold_compiles(const Options& options, const std::string& target, bool no_cache, cuabi_context* context,
                   bench::Report& report) {
    const std::string source = kernel_source();
    for (int rep = 0; rep < options.cold_reps; ++rep) {
        for (uint32_t flags : {CUABI_COMPILE_IN_PROCESS, CUABI_COMPILE_ISOLATED}) {
            std::string salt = salt_for(flags == CUABI_COMPILE_IN_PROCESS ? "in" : "worker", rep);
            cuabi_compile_options compile = cold_options(target.c_str(), salt, no_cache, flags);
            cuabi_module* module = nullptr;
            bench::Clock::time_point start = bench::Clock::now();
            bench::check(cuabi_module_compile_offline(source.c_str(), &compile, &module), "cold compile");
            report.values("cold compile", flags == CUABI_COMPILE_IN_PROCESS ? "offline, NVRTC in-process"
                                                                            : "offline, NVRTC in the worker")
                .push_back(bench::nanoseconds(bench::Clock::now() - start));
            cuabi_module_destroy(module);
        }
        if (context == nullptr) continue;
        std::string salt = salt_for("context", rep);
        cuabi_compile_options compile = cold_options(nullptr, salt, no_cache, 0);
        cuabi_module* module = nullptr;
        bench::Clock::time_point start = bench::Clock::now();
        bench::check(cuabi_module_compile(context, source.c_str(), &compile, &module), "cold compile");
        report.values("cold compile, context", "worker (default), NVRTC + load")
            .push_back(bench::nanoseconds(bench::Clock::now() - start));
        cuabi_module_destroy(module);
    }
    for (int child = 0; child < options.children; ++child) {
        std::string cache_off = no_cache ? " --no-cache" : "";
        report.values("first compile, fresh", "NVRTC loaded in-process")
            .push_back(child_sample(options, "first-in-process", "", " --salt " + salt_for("first-in", child) + cache_off));
        report.values("first compile, fresh", "worker started, loads NVRTC")
            .push_back(child_sample(options, "first-worker", "", " --salt " + salt_for("first-worker", child) + cache_off));
    }
}

// The precompiled-header rows' kernel: a heavy header prefix, a light body.
const char* const kCubSource = R"(#include <cub/block/block_reduce.cuh>

template <typename T, int BLOCK>
__global__ void block_sum(const T* in, T* out) {
    using Reduce = cub::BlockReduce<T, BLOCK>;
    __shared__ typename Reduce::TempStorage storage;
    T sum = Reduce(storage).Sum(in[blockIdx.x * BLOCK + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
)";

double cub_compile(const std::string& target, const std::string& salt, bool no_cache, const char* expression,
                   uint32_t flags) {
    cuabi_compile_options compile = cold_options(target.c_str(), salt, no_cache, CUABI_COMPILE_ISOLATED | flags);
    compile.name_expressions = &expression;
    compile.name_expression_count = 1;
    cuabi_module* module = nullptr;
    bench::Clock::time_point start = bench::Clock::now();
    bench::check(cuabi_module_compile_offline(kCubSource, &compile, &module), "CUB compile");
    double ns = bench::nanoseconds(bench::Clock::now() - start);
    bench::check(origin(module) == CUABI_MODULE_ORIGIN_COMPILED ? CUABI_SUCCESS : CUABI_ERROR_INTERNAL,
                 "a CUB variant was served by the cache");
    cuabi_module_destroy(module);
    return ns;
}

void precompiled_headers(const Options& options, const std::string& target, bool no_cache, bench::Report& report) {
    report.note("pch kernel", "block_sum<float, 128 | 256 | 512> over cub::BlockReduce (#include <cub/block/block_reduce.cuh>)");
    for (int rep = 0; rep < options.cold_reps; ++rep) {
        std::string salt = salt_for("pch", rep);
        report.values("CUB block reduce, worker", "cold, no PCH")
            .push_back(cub_compile(target, salt, no_cache, "block_sum<float, 128>", CUABI_COMPILE_NO_PCH));
        report.values("CUB block reduce, worker", "creates the PCH")
            .push_back(cub_compile(target, salt, no_cache, "block_sum<float, 256>", 0));
        report.values("CUB block reduce, worker", "other variant, reuses the PCH")
            .push_back(cub_compile(target, salt, no_cache, "block_sum<float, 512>", 0));
    }
}

void memory_hits(const Options& options, const std::string& target, cuabi_context* context, bench::Report& report) {
    const std::string source = kernel_source();
    cuabi_compile_options offline = compile_options(target.c_str());
    cuabi_compile_options in_context = compile_options(nullptr);
    cuabi_module* keep = nullptr;
    bench::check(cuabi_module_compile_offline(source.c_str(), &offline, &keep), "filling the cache");
    cuabi_module_destroy(keep);
    auto offline_hit = [&] {
        cuabi_module* module = nullptr;
        bench::check(cuabi_module_compile_offline(source.c_str(), &offline, &module), "offline memory hit");
        cuabi_module_destroy(module);
    };
    report.values("memory hit, 1st call", "offline compile+destroy").push_back(per_call(1, offline_hit));
    std::vector<double>& new_thread = report.values("memory hit, new thread", "offline, thread's 1st call");
    for (int rep = 0; rep < options.reps; ++rep)
        std::thread([&] { new_thread.push_back(per_call(1, offline_hit)); }).join();
    uint64_t before = allocations.load(std::memory_order_seq_cst);
    offline_hit();
    report.note("memory hit allocations per call (offline compile+destroy)", std::to_string(allocations.load(std::memory_order_seq_cst) - before));

    cuabi_kernel* held = nullptr;  // keeps the library loaded, as a running application would
    if (context != nullptr) {
        bench::check(cuabi_module_compile(context, source.c_str(), &in_context, &keep), "filling the cache");
        bench::check(cuabi_module_get_kernel(keep, kExpression, &held), "cuabi_module_get_kernel");
        cuabi_module_destroy(keep);
    }
    // The yardstick the hit's ratio is read against: comparing the source with a copy of it, the
    // least a cache that recognizes a request by its content must do (libc's memcmp, vectorized as
    // the library's comparison is). Timed in the same repetitions, so a host that is slower for a
    // while slows both and the paired ratio stays readable.
    const std::string copy = source;
    volatile int sink = 0;
    for (int rep = 0; rep < options.reps; ++rep) {
        report.values("memory hit", "memcmp of the source").push_back(per_call(options.iters, [&] {
            const char* bytes = copy.data();
            asm volatile("" : "+r"(bytes) : : "memory");  // the compiler may not compare once for all calls
            sink = sink + std::memcmp(source.data(), bytes, source.size());
        }));
        report.values("memory hit", "offline compile+destroy").push_back(per_call(options.iters, offline_hit));
        if (context == nullptr) continue;
        report.values("memory hit", "context compile+destroy").push_back(per_call(options.iters, [&] {
            cuabi_module* module = nullptr;
            bench::check(cuabi_module_compile(context, source.c_str(), &in_context, &module), "memory hit");
            cuabi_module_destroy(module);
        }));
        report.values("memory hit", "context +get_kernel").push_back(per_call(options.iters, [&] {
            cuabi_module* module = nullptr;
            cuabi_kernel* kernel = nullptr;
            bench::check(cuabi_module_compile(context, source.c_str(), &in_context, &module), "memory hit");
            bench::check(cuabi_module_get_kernel(module, kExpression, &kernel), "cuabi_module_get_kernel");
            cuabi_kernel_destroy(kernel);
            cuabi_module_destroy(module);
        }));
    }
    cuabi_kernel_destroy(held);
}

void disk_hits(const Options& options, cuabi_context* context, bench::Report& report) {
    const std::string no_nvrtc = "CUABI_NVRTC_PATH=/nonexistent/libnvrtc.so ";
    for (int child = 0; child < options.children; ++child) {
        report.values("disk hit, fresh proc", "offline -> image").push_back(child_sample(options, "offline", ""));
        report.values("disk hit, fresh proc", "offline -> image, no NVRTC")
            .push_back(child_sample(options, "offline", no_nvrtc));
        if (context == nullptr) continue;
        report.values("disk hit, fresh proc", "context -> loaded kernel").push_back(child_sample(options, "context", ""));
        report.values("disk hit, fresh proc", "context -> kernel, no NVRTC")
            .push_back(child_sample(options, "context", no_nvrtc));
    }
}

// A read-only layer (the filled cache directory, or a bundle of it) against the disk it came from.
void readonly_hits(const Options& options, bench::Report& report) {
    const std::string cache = std::getenv("CUABI_CACHE_DIR");
    const std::string bundle = cache + ".bundle", node = cache + ".node";
    bench::check(cuabi_cache_export(bundle.c_str(), nullptr, nullptr, nullptr), "cuabi_cache_export");
    const std::string no_nvrtc = "CUABI_NVRTC_PATH=/nonexistent/libnvrtc.so ";
    const std::string on_node = no_nvrtc + "CUABI_CACHE_DIR='" + node + "' CUABI_CACHE_READONLY_DIRS='";
    for (int child = 0; child < options.children; ++child) {
        report.values("read-only, fresh proc", "disk -> image, no NVRTC").push_back(child_sample(options, "offline", no_nvrtc));
        report.values("read-only, fresh proc", "directory layer -> image")
            .push_back(child_sample(options, "offline-readonly", on_node + cache + "' "));
        report.values("read-only, fresh proc", "bundle layer -> image")
            .push_back(child_sample(options, "offline-readonly", on_node + bundle + "' "));
    }
}

int run_parent(const Options& options) {
    bench::Report report("bench_compile", bench::Pairing::by_repetition);
    report.note("source_bytes", std::to_string(kernel_source().size()));
    report.note("name_expression", kExpression);
    std::string target = options.target;
    cuabi_context* context = open_context(report, &target);
    report.note("target", target);
    int32_t major = 0, minor = 0;
    bench::check(cuabi_nvrtc_get_version(&major, &minor), "cuabi_nvrtc_get_version");
    bool no_cache = major * 100 + minor >= 1209;  // NVRTC's own cache exists from 12.9 on
    report.note("nvrtc", std::to_string(major) + "." + std::to_string(minor) + (no_cache ? " (--no-cache)" : ""));

    Options resolved = options;  // the children compile for the device's target too
    resolved.target = target;
    if (!options.batch_only) precompiled_headers(resolved, target, no_cache, report);
    if (options.pch_only) {
        cuabi_context_destroy(context);
        report.print();
        return options.json != nullptr && !report.write_json(options.json) ? 1 : 0;
    }
    if (!options.batch_only) {
        cold_compiles(resolved, target, no_cache, context, report);
        memory_hits(resolved, target, context, report);
        disk_hits(resolved, context, report);  // the entries memory_hits() stored
        readonly_hits(resolved, report);
    }
    report.note("cores_available", std::to_string(std::thread::hardware_concurrency()));
    bench_batches::measure(kernel_source(), cold_options(target.c_str(), "", no_cache, 0), options.variants,
                           options.cold_reps, options.iters, report);
    cuabi_context_destroy(context);

    report.print();
    if (options.json != nullptr && !report.write_json(options.json)) {
        std::fprintf(stderr, "cannot write %s\n", options.json);
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    if (options.child != nullptr) return run_child(options);

    // A private cache directory, inherited by the children: cold at start, removed at exit.
    std::filesystem::path root = std::filesystem::temp_directory_path() / "bench_compile.XXXXXX";
    std::string root_text = root.string();
    if (mkdtemp(&root_text[0]) == nullptr) {
        std::perror("mkdtemp");
        return 1;
    }
    std::string cache = root_text + "/cache";
    setenv("CUABI_CACHE_DIR", cache.c_str(), 1);  // before any thread and any cuabi call
    int result = run_parent(options);
    std::filesystem::remove_all(root_text);
    return result;
}
