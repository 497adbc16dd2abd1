// What compiling a small kernel costs on each path of the kernel cache (issue 3, docs/performance.md):
// a cold compile (NVRTC), a memory-cache hit (a hash and a lookup), and a disk-cache hit in a
// fresh process, all for one 4 KiB source with one C++ name expression, through the public API.
//
//   bench_compile [--reps N] [--iters N] [--cold-reps N] [--children N] [--target sm_XY] [--json PATH]
//   defaults:      20 reps,   1000 iters,  5 cold reps,   10 children,  sm_90 (offline; a GPU
//                  uses its own architecture)
//
// Methodology:
// - The bench points CUABI_CACHE_DIR at a fresh private directory (removed at exit), so every run
//   starts cold and the user's cache is neither read nor written.
// - Cold compile: each repetition uses its own cache salt, so it misses both layers and runs NVRTC,
//   stores the entry, and (in a context) loads the image. Median of --cold-reps.
// - Memory hit: after one compile has filled the cache, each repetition times --iters compile +
//   destroy calls and reports the mean per call; the table gives the median over --reps. The very
//   first hit of the process is reported on its own row: it also pays first-execution costs (code
//   pages faulted in, lazy symbol binding), which is what a single timed call such as the
//   "compile again" row of `cuabi demo` shows.
// - Disk hit in a fresh process: the bench runs itself (--child MODE) --children times with the
//   same cache directory. The child first makes its process warm in the way MODE names, then times
//   one cuabi_module_compile() of the cached source up to a loaded module and a kernel resolved by
//   name expression (offline: cuabi_module_compile_offline() only), checks the module came from the
//   disk cache, and prints nanoseconds. Modes:
//     offline     warm-up: an unrelated tiny offline compile (NVRTC loaded, cache directory checked)
//     context     warm-up: context + an unrelated tiny module compiled and its kernel fetched (driver
//                 start-up and first library load excluded; NVRTC loaded, cache directory checked)
//     context-bare warm-up: context + the tiny module loaded from an image file only, so the timed
//                 call also pays loading NVRTC and checking the cache directory
// Without a GPU the context rows are skipped, and the bench says so.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cuabi/cuabi.h"

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
        else {
            std::fprintf(stderr,
                         "usage: bench_compile [--reps N] [--iters N] [--cold-reps N] [--children N] "
                         "[--target sm_XY] [--json PATH]\n");
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

// ---- the child: one disk-hit sample in a fresh process -------------------------------------------

int run_child(const Options& options) {
    const std::string source = kernel_source();
    const std::string mode = options.child;
    const char* cache = std::getenv("CUABI_CACHE_DIR");
    if (cache == nullptr) {
        std::fprintf(stderr, "--child runs only under a bench_compile parent, which sets CUABI_CACHE_DIR\n");
        return 2;
    }
    const std::string tiny_image = std::string(cache) + "/../tiny.image";
    bool offline = mode == "offline";
    if (!offline && mode != "context" && mode != "context-bare") {
        std::fprintf(stderr, "unknown child mode '%s'\n", mode.c_str());
        return 2;
    }
    cuabi_context* context = nullptr;
    cuabi_module* warm = nullptr;
    cuabi_kernel* warm_kernel = nullptr;
    cuabi_compile_options tiny = compile_options(offline ? options.target.c_str() : nullptr);
    tiny.name_expression_count = 0;
    if (offline) {
        bench::check(cuabi_module_compile_offline(kTinySource, &tiny, &warm), "warm-up compile");
    } else {
        bench::check(cuabi_context_create(nullptr, &context), "cuabi_context_create");
        if (mode == "context") {
            bench::check(cuabi_module_compile(context, kTinySource, &tiny, &warm), "warm-up compile");
        } else {
            std::ifstream file(tiny_image, std::ios::binary);
            std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            bench::check(cuabi_module_load_image(context, bytes.data(), bytes.size(), &warm), "warm-up load");
        }
        bench::check(cuabi_module_get_kernel(warm, "tiny", &warm_kernel), "warm-up kernel");
    }

    cuabi_compile_options compile = compile_options(offline ? options.target.c_str() : nullptr);
    cuabi_module* module = nullptr;
    cuabi_kernel* kernel = nullptr;
    bench::Clock::time_point start = bench::Clock::now();
    if (offline) {
        bench::check(cuabi_module_compile_offline(source.c_str(), &compile, &module), "compile");
    } else {
        bench::check(cuabi_module_compile(context, source.c_str(), &compile, &module), "compile");
        bench::check(cuabi_module_get_kernel(module, kExpression, &kernel), "cuabi_module_get_kernel");
    }
    double ns = bench::nanoseconds(bench::Clock::now() - start);
    if (origin(module) != CUABI_MODULE_ORIGIN_DISK_CACHE) {
        std::fprintf(stderr, "child (%s): the module did not come from the disk cache (origin %u)\n", mode.c_str(),
                     origin(module));
        return 1;
    }
    std::printf("%.0f\n", ns);
    cuabi_kernel_destroy(kernel);
    cuabi_module_destroy(module);
    cuabi_kernel_destroy(warm_kernel);
    cuabi_module_destroy(warm);
    cuabi_context_destroy(context);
    return 0;
}

// Runs `children` fresh processes of this executable in `mode`; one sample each.
void disk_hits(const Options& options, const char* mode, std::vector<double>& samples) {
    char self[4096] = {};
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        std::fprintf(stderr, "cannot read /proc/self/exe\n");
        std::exit(1);
    }
    std::string command = std::string("'") + self + "' --child " + mode + " --target " + options.target;
    for (int i = 0; i < options.children; ++i) {
        FILE* child = popen(command.c_str(), "r");
        double ns = -1;
        if (child == nullptr || std::fscanf(child, "%lf", &ns) != 1 || pclose(child) != 0 || ns < 0) {
            std::fprintf(stderr, "child '%s' failed\n", command.c_str());
            std::exit(1);
        }
        samples.push_back(ns);
    }
}

// ---- the parent ---------------------------------------------------------------------------------

// Mean nanoseconds per call of `body` over `iters` calls.
template <typename Body>
double per_call(int iters, Body body) {
    bench::Clock::time_point start = bench::Clock::now();
    for (int i = 0; i < iters; ++i) body();
    return bench::nanoseconds(bench::Clock::now() - start) / iters;
}

int run_parent(const Options& options) {
    const std::string source = kernel_source();
    bench::Report report("bench_compile");
    report.note("source_bytes", std::to_string(source.size()));
    report.note("name_expression", kExpression);

    int32_t devices = 0;
    cuabi_context* context = nullptr;
    std::string target = options.target;
    if (cuabi_device_get_count(&devices) == CUABI_SUCCESS && devices > 0) {
        bench::check(cuabi_context_create(nullptr, &context), "cuabi_context_create");
        cuabi_device_info device = CUABI_DEVICE_INFO_INIT;
        bench::check(cuabi_device_get_info(0, &device), "cuabi_device_get_info");
        report.note("device", device.name);
    } else {
        std::printf("skipped: context rows (cold compile with load, memory hit in a context, disk hit in a fresh "
                    "process with load): no CUDA device: %s\n",
                    cuabi_last_error_message());
        report.note("device", "none (context rows skipped)");
    }

    // Cold compiles, each with its own salt. The context's first module also fixes the target.
    for (int rep = 0; rep < options.cold_reps; ++rep) {
        uint64_t salt = (static_cast<uint64_t>(getpid()) << 32) | static_cast<uint64_t>(rep);
        cuabi_module* module = nullptr;
        if (context != nullptr) {
            cuabi_compile_options compile = compile_options(nullptr, &salt, sizeof salt);
            bench::Clock::time_point start = bench::Clock::now();
            bench::check(cuabi_module_compile(context, source.c_str(), &compile, &module), "cold compile");
            report.values("cold compile", "context (NVRTC + load)").push_back(bench::nanoseconds(bench::Clock::now() - start));
            cuabi_module_info info = CUABI_MODULE_INFO_INIT;
            bench::check(cuabi_module_get_info(module, &info), "cuabi_module_get_info");
            target = info.target;
            cuabi_module_destroy(module);
        }
        salt = ~salt;
        cuabi_compile_options compile = compile_options(target.c_str(), &salt, sizeof salt);
        bench::Clock::time_point start = bench::Clock::now();
        bench::check(cuabi_module_compile_offline(source.c_str(), &compile, &module), "cold offline compile");
        report.values("cold compile", "offline (NVRTC only)").push_back(bench::nanoseconds(bench::Clock::now() - start));
        cuabi_module_destroy(module);
    }
    report.note("target", target);

    // Fill both cache layers with the unsalted source, then time hits. The first hit is its own row.
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
    cuabi_kernel* held = nullptr;  // keeps the library loaded, as a running application would
    if (context != nullptr) {
        bench::check(cuabi_module_compile(context, source.c_str(), &in_context, &keep), "filling the cache");
        bench::check(cuabi_module_get_kernel(keep, kExpression, &held), "cuabi_module_get_kernel");
        auto context_hit = [&] {
            cuabi_module* module = nullptr;
            bench::check(cuabi_module_compile(context, source.c_str(), &in_context, &module), "memory hit");
            cuabi_module_destroy(module);
        };
        report.values("memory hit, 1st call", "context compile+destroy").push_back(per_call(1, context_hit));
        cuabi_module_destroy(keep);
    }
    for (int rep = 0; rep < options.reps; ++rep) {
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

    // Fresh processes: the tiny warm-up module is cached too (and saved as an image for context-bare).
    cuabi_compile_options tiny = compile_options(target.c_str());
    tiny.name_expression_count = 0;
    bench::check(cuabi_module_compile_offline(kTinySource, &tiny, &keep), "tiny compile");
    std::vector<char> image;
    size_t size = 0;
    bench::check(cuabi_module_get_image(keep, nullptr, 0, &size), "cuabi_module_get_image");
    image.resize(size);
    bench::check(cuabi_module_get_image(keep, image.data(), size, &size), "cuabi_module_get_image");
    cuabi_module_destroy(keep);
    std::ofstream(std::string(std::getenv("CUABI_CACHE_DIR")) + "/../tiny.image", std::ios::binary)
        .write(image.data(), static_cast<std::streamsize>(image.size()));
    disk_hits(options, "offline", report.values("disk hit, fresh proc", "offline compile"));
    if (context != nullptr) {
        disk_hits(options, "context", report.values("disk hit, fresh proc", "context compile+load+kernel"));
        disk_hits(options, "context-bare", report.values("disk hit, fresh proc", "same, NVRTC+dir not warm"));
    }
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
    setenv("CUABI_CACHE_DIR", cache.c_str(), 1);
    int result = run_parent(options);
    std::filesystem::remove_all(root_text);
    return result;
}
