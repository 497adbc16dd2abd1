// `cuabi demo`: the library's main job end to end, through the public API only. Compiles a saxpy
// and a templated block reduction (found by its C++ name expression), compiles them again to show
// the cache, launches both on random data, captures eight saxpy steps into a graph and replays it,
// checks every result against the CPU, then prints how long each step took. Run it twice: the second run finds the compiled image in the disk cache.
// Without a GPU it still compiles and caches (for a default architecture), says what launching
// needs, and exits 0.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "cuabi/cuabi.h"

namespace {

const char* const kSource = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
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
)";
const char* const kReduce = "block_sum<float, 256>";
constexpr uint32_t kReduceBlock = 256;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Row {
    std::string step;
    double ms;
    std::string note;
};

void print_table(const std::vector<Row>& rows) {
    std::printf("\n  %-34s %12s   %s\n", "step", "time", "notes");
    for (const Row& row : rows) {
        char time[32];
        if (row.ms < 0.1)
            std::snprintf(time, sizeof time, "%.2f us", row.ms * 1000.0);
        else
            std::snprintf(time, sizeof time, "%.2f ms", row.ms);
        std::printf("  %-34s %12s   %s\n", row.step.c_str(), time, row.note.c_str());
    }
    std::printf("\n");
}

int failed(const char* what, cuabi_status status) {
    std::fprintf(stderr, "cuabi demo: %s failed: %s: %s\n", what, cuabi_status_name(status), cuabi_last_error_message());
    return 1;
}

const char* origin_text(uint32_t origin) {
    switch (origin) {
        case CUABI_MODULE_ORIGIN_COMPILED: return "NVRTC ran";
        case CUABI_MODULE_ORIGIN_MEMORY_CACHE: return "memory cache hit: no NVRTC, no disk";
        case CUABI_MODULE_ORIGIN_DISK_CACHE: return "disk cache hit (an earlier run compiled it): no NVRTC";
        default: return "loaded image";
    }
}

// Everything the demo creates, released on every path out.
struct Handles {
    cuabi_context* context = nullptr;
    std::vector<cuabi_module*> modules;
    std::vector<cuabi_kernel*> kernels;
    std::vector<cuabi_buffer*> buffers;
    std::vector<cuabi_graph*> graphs;
    cuabi_stream* stream = nullptr;
    ~Handles() {
        for (cuabi_graph* graph : graphs) cuabi_graph_destroy(graph);
        for (cuabi_kernel* kernel : kernels) cuabi_kernel_destroy(kernel);
        for (cuabi_module* module : modules) cuabi_module_destroy(module);
        for (cuabi_buffer* buffer : buffers) cuabi_buffer_destroy(buffer);
        cuabi_stream_destroy(stream);
        cuabi_context_destroy(context);
    }
};

// Compiles kSource (for the context's device, or offline for `target`) and adds a table row.
cuabi_status compile(Handles& handles, const char* target, const char* step, std::vector<Row>& rows) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    const char* expressions[] = {kReduce};
    options.name_expressions = expressions;
    options.name_expression_count = 1;
    options.target = target;
    cuabi_module* module = nullptr;
    Clock::time_point start = Clock::now();
    cuabi_status status = handles.context != nullptr ? cuabi_module_compile(handles.context, kSource, &options, &module)
                                                     : cuabi_module_compile_offline(kSource, &options, &module);
    double ms = ms_since(start);
    if (status != CUABI_SUCCESS) return status;
    handles.modules.push_back(module);
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    if ((status = cuabi_module_get_info(module, &info)) != CUABI_SUCCESS) return status;
    rows.push_back({step, ms, std::string(info.target) + ", " + origin_text(info.origin)});
    return CUABI_SUCCESS;
}

// What the first compile of this run says about the disk cache.
const char* cache_story(const std::vector<Row>& rows) {
    bool cold = !rows.empty() && rows.front().note.find(origin_text(CUABI_MODULE_ORIGIN_COMPILED)) != std::string::npos;
    return cold ? "Run `cuabi demo` again: its first compile then hits the disk cache."
                : "This run's first compile was served from the cache: NVRTC did not run.";
}

std::string cache_directory() {
    char path[4096] = {};
    size_t size = 0;
    if (cuabi_cache_get_directory(path, sizeof path, &size) != CUABI_SUCCESS) return "(unavailable)";
    return path;
}

int run_without_gpu(const char* why, const char* target) {
    std::printf("No usable GPU: %s\n", why);
    std::printf("Compiling offline for %s instead (cache: %s)\n", target, cache_directory().c_str());
    Handles handles;
    std::vector<Row> rows;
    cuabi_status status = compile(handles, target, "compile (first this run)", rows);
    if (status != CUABI_SUCCESS) return failed("compiling the demo kernels", status);
    if ((status = compile(handles, target, "compile again", rows)) != CUABI_SUCCESS)
        return failed("compiling the demo kernels again", status);
    print_table(rows);
    std::printf("%s\n", cache_story(rows));
    std::printf("Launching needs a GPU: the kernels are compiled and cached, and a machine with an NVIDIA GPU and\n"
                "driver (R525 or newer) would run them now. Run `cuabi demo` there (or `cuabi info` to see what\n"
                "this machine lacks); on a cloud machine, pick an instance type with an NVIDIA GPU.\n");
    return 0;
}

// A device buffer of `bytes` (owned by `handles`) holding `data` when not NULL.
cuabi_status upload(Handles& handles, const void* data, size_t bytes, cuabi_buffer** out, uint64_t* out_address) {
    cuabi_status status = cuabi_buffer_create(handles.context, bytes, nullptr, out);
    if (status != CUABI_SUCCESS) return status;
    handles.buffers.push_back(*out);
    if ((status = cuabi_buffer_get_device_address(*out, out_address)) != CUABI_SUCCESS) return status;
    return data != nullptr ? cuabi_buffer_write(*out, 0, data, bytes, nullptr) : CUABI_SUCCESS;
}

// The largest difference between `got` and `want`, relative to max(1, |want|).
double worst_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        double error = std::fabs(got[i] - want[i]) / std::fmax(1.0, std::fabs(want[i]));
        if (error > worst) worst = error;
    }
    return worst;
}

// y = a*x + y on random data, checked element by element against the CPU.
int run_saxpy(Handles& handles, cuabi_kernel* saxpy, uint32_t n, std::vector<Row>& rows) {
    std::mt19937 random(2024);
    std::uniform_real_distribution<float> value(-100.0f, 100.0f);
    std::vector<float> x(n), y(n), result(n);
    for (uint32_t i = 0; i < n; ++i) x[i] = value(random), y[i] = value(random);
    const float a = value(random);
    cuabi_buffer *x_buffer = nullptr, *y_buffer = nullptr;
    uint64_t x_address = 0, y_address = 0;
    cuabi_status status = upload(handles, x.data(), n * sizeof(float), &x_buffer, &x_address);
    if (status == CUABI_SUCCESS) status = upload(handles, y.data(), n * sizeof(float), &y_buffer, &y_address);
    if (status != CUABI_SUCCESS) return failed("preparing saxpy's buffers", status);

    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.grid[0] = (n + 255) / 256;
    config.block[0] = 256;
    cuabi_kernel_arg args[] = {{&a, sizeof a}, {&x_address, 8}, {&y_address, 8}, {&n, sizeof n}};
    Clock::time_point start = Clock::now();
    status = cuabi_launch(saxpy, &config, args, 4);  // NULL stream: returns when the kernel is done
    double ms = ms_since(start);
    if (status != CUABI_SUCCESS) return failed("launching saxpy", status);
    if ((status = cuabi_buffer_read(y_buffer, 0, result.data(), n * sizeof(float), nullptr)) != CUABI_SUCCESS)
        return failed("reading saxpy's result", status);
    std::vector<double> want(n);
    for (uint32_t i = 0; i < n; ++i) want[i] = static_cast<double>(a) * x[i] + y[i];
    double worst = worst_error(result, want);
    char note[128];
    std::snprintf(note, sizeof note, "%u elements, max relative error vs CPU %.1e", n, worst);
    rows.push_back({"saxpy: launch + wait", ms, note});
    if (worst > 1e-5) {
        std::fprintf(stderr, "cuabi demo: saxpy's result differs from the CPU's (relative error %.3e)\n", worst);
        return 1;
    }
    return 0;
}

// Per-block sums of random data, launched with the packed argument form, checked against the CPU.
int run_block_sum(Handles& handles, cuabi_kernel* reduce, uint32_t n, std::vector<Row>& rows) {
    const uint32_t blocks = (n + kReduceBlock - 1) / kReduceBlock;
    std::mt19937 random(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> in(n), partial(blocks);
    for (float& v : in) v = value(random);
    cuabi_buffer *in_buffer = nullptr, *out_buffer = nullptr;
    uint64_t in_address = 0, out_address = 0;
    cuabi_status status = upload(handles, in.data(), n * sizeof(float), &in_buffer, &in_address);
    if (status == CUABI_SUCCESS) status = upload(handles, nullptr, blocks * sizeof(float), &out_buffer, &out_address);
    if (status != CUABI_SUCCESS) return failed("preparing block_sum's buffers", status);

    // The packed form, as an FFI caller without pointer tables builds it: each argument at the
    // offset the kernel's parameter layout gives.
    const void* values[] = {&in_address, &out_address, &n};
    unsigned char packed[64] = {};
    size_t packed_size = 0;
    for (size_t i = 0; i < 3; ++i) {
        size_t offset = 0, size = 0;
        if ((status = cuabi_kernel_get_param_info(reduce, i, &offset, &size)) != CUABI_SUCCESS)
            return failed("reading block_sum's parameter layout", status);
        std::memcpy(packed + offset, values[i], size);
        packed_size = offset + size;
    }
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.grid[0] = blocks;
    config.block[0] = kReduceBlock;
    Clock::time_point start = Clock::now();
    status = cuabi_launch_packed(reduce, &config, packed, packed_size);
    double ms = ms_since(start);
    if (status != CUABI_SUCCESS) return failed("launching block_sum", status);
    if ((status = cuabi_buffer_read(out_buffer, 0, partial.data(), blocks * sizeof(float), nullptr)) != CUABI_SUCCESS)
        return failed("reading block_sum's result", status);
    double worst = 0.0;
    for (uint32_t b = 0; b < blocks; ++b) {
        double want = 0.0, scale = 0.0;
        for (uint32_t i = b * kReduceBlock; i < n && i < (b + 1) * kReduceBlock; ++i) want += in[i], scale += std::fabs(in[i]);
        double error = std::fabs(partial[b] - want) / std::fmax(1.0, scale);
        if (error > worst) worst = error;
    }
    char note[128];
    std::snprintf(note, sizeof note, "%u blocks (packed arguments), max error vs CPU %.1e", blocks, worst);
    rows.push_back({std::string(kReduce) + ": launch + wait", ms, note});
    if (worst > 1e-5) {
        std::fprintf(stderr, "cuabi demo: block_sum's result differs from the CPU's (error %.3e)\n", worst);
        return 1;
    }
    return 0;
}

// Host cost of one validated launch: many launches of a kernel with nothing to do, on a stream.
int time_submission(Handles& handles, cuabi_kernel* saxpy, std::vector<Row>& rows) {
    cuabi_status status = cuabi_stream_create(handles.context, nullptr, &handles.stream);
    if (status != CUABI_SUCCESS) return failed("creating a stream", status);
    const float a = 1.0f;
    const uint64_t null_address = 0;
    const uint32_t zero = 0;
    cuabi_kernel_arg args[] = {{&a, 4}, {&null_address, 8}, {&null_address, 8}, {&zero, 4}};
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.block[0] = 32;
    config.stream = handles.stream;
    const int launches = 1000;
    Clock::time_point start = Clock::now();
    for (int i = 0; i < launches && status == CUABI_SUCCESS; ++i) status = cuabi_launch(saxpy, &config, args, 4);
    double ms = ms_since(start);
    if (status == CUABI_SUCCESS) status = cuabi_stream_synchronize(handles.stream);
    if (status != CUABI_SUCCESS) return failed("timing launches", status);
    rows.push_back({"validated launch (host submit)", ms / launches, "average of 1000 on a stream"});
    return 0;
}

// Eight saxpy steps captured once into a graph, replayed with one call, checked against the CPU.
int run_graph(Handles& handles, cuabi_kernel* saxpy, uint32_t n, std::vector<Row>& rows) {
    constexpr int kSteps = 8;
    std::mt19937 random(99);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> x(n), y(n), result(n);
    for (uint32_t i = 0; i < n; ++i) x[i] = value(random), y[i] = value(random);
    const float a = 0.5f;
    cuabi_buffer *x_buffer = nullptr, *y_buffer = nullptr;
    uint64_t x_address = 0, y_address = 0;
    cuabi_status status = upload(handles, x.data(), n * sizeof(float), &x_buffer, &x_address);
    if (status == CUABI_SUCCESS) status = upload(handles, y.data(), n * sizeof(float), &y_buffer, &y_address);
    if (status != CUABI_SUCCESS) return failed("preparing the graph's buffers", status);

    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.grid[0] = (n + 255) / 256;
    config.block[0] = 256;
    config.stream = handles.stream;
    cuabi_kernel_arg args[] = {{&a, sizeof a}, {&x_address, 8}, {&y_address, 8}, {&n, sizeof n}};
    cuabi_graph* graph = nullptr;
    Clock::time_point start = Clock::now();
    status = cuabi_graph_capture_begin(handles.stream, CUABI_CAPTURE_MODE_THREAD_LOCAL);
    for (int step = 0; step < kSteps && status == CUABI_SUCCESS; ++step) status = cuabi_launch(saxpy, &config, args, 4);
    if (status == CUABI_SUCCESS) status = cuabi_graph_capture_end(handles.stream, nullptr, &graph);
    double capture_ms = ms_since(start);
    if (status != CUABI_SUCCESS) return failed("capturing the graph", status);  // cuabi ended the capture
    handles.graphs.push_back(graph);
    size_t nodes = 0;
    if ((status = cuabi_graph_get_node_count(graph, &nodes)) != CUABI_SUCCESS) return failed("counting graph nodes", status);

    start = Clock::now();
    status = cuabi_graph_launch(graph, handles.stream);
    if (status == CUABI_SUCCESS) status = cuabi_stream_synchronize(handles.stream);
    double replay_ms = ms_since(start);
    if (status != CUABI_SUCCESS) return failed("replaying the graph", status);
    if ((status = cuabi_buffer_read(y_buffer, 0, result.data(), n * sizeof(float), nullptr)) != CUABI_SUCCESS)
        return failed("reading the graph's result", status);
    std::vector<double> want(y.begin(), y.end());
    for (int step = 0; step < kSteps; ++step)
        for (uint32_t i = 0; i < n; ++i) want[i] += static_cast<double>(a) * x[i];
    double worst = worst_error(result, want);
    char note[128];
    std::snprintf(note, sizeof note, "%zu kernel nodes, captured once", nodes);
    rows.push_back({"graph: capture + instantiate", capture_ms, note});
    std::snprintf(note, sizeof note, "one call for %d launches, max relative error vs CPU %.1e", kSteps, worst);
    rows.push_back({"graph: replay + wait", replay_ms, note});
    if (worst > 1e-5) {
        std::fprintf(stderr, "cuabi demo: the graph's result differs from the CPU's (relative error %.3e)\n", worst);
        return 1;
    }
    return 0;
}

void show_a_refused_launch(cuabi_kernel* saxpy) {
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.block[0] = 1024;
    config.block[1] = 2;
    const float a = 0.0f;
    const uint64_t address = 0;
    const uint32_t n = 0;
    cuabi_kernel_arg args[] = {{&a, 4}, {&address, 8}, {&address, 8}, {&n, 4}};
    cuabi_status status = cuabi_launch(saxpy, &config, args, 4);
    std::printf("A launch with block (1024,2,1) is refused before the driver sees it:\n  %s: %s\n\n",
                cuabi_status_name(status), cuabi_last_error_message());
}

int run_with_gpu(uint32_t n) {
    Handles handles;
    cuabi_status status = cuabi_context_create(nullptr, &handles.context);
    if (status != CUABI_SUCCESS) return failed("creating a context on device 0", status);
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    if ((status = cuabi_context_get_device_info(handles.context, &info)) != CUABI_SUCCESS)
        return failed("reading the device", status);
    std::printf("Device 0: %s (sm_%d%d, %d SMs); cache: %s\n", info.name, info.compute_capability_major,
                info.compute_capability_minor, info.multiprocessor_count, cache_directory().c_str());

    std::vector<Row> rows;
    if ((status = compile(handles, nullptr, "compile (first this run)", rows)) != CUABI_SUCCESS)
        return failed("compiling the demo kernels", status);
    if ((status = compile(handles, nullptr, "compile again", rows)) != CUABI_SUCCESS)
        return failed("compiling the demo kernels again", status);
    cuabi_kernel *saxpy = nullptr, *reduce = nullptr;
    status = cuabi_module_get_kernel(handles.modules.back(), "saxpy", &saxpy);
    if (status == CUABI_SUCCESS) handles.kernels.push_back(saxpy);
    if (status == CUABI_SUCCESS) status = cuabi_module_get_kernel(handles.modules.back(), kReduce, &reduce);
    if (status == CUABI_SUCCESS) handles.kernels.push_back(reduce);
    if (status != CUABI_SUCCESS) return failed("finding the demo kernels", status);

    int result = run_saxpy(handles, saxpy, n, rows);
    if (result == 0) result = run_block_sum(handles, reduce, n, rows);
    if (result == 0) result = time_submission(handles, saxpy, rows);
    if (result == 0) result = run_graph(handles, saxpy, n, rows);
    if (result != 0) return result;
    print_table(rows);
    show_a_refused_launch(saxpy);
    cuabi_counters counters = CUABI_COUNTERS_INIT;
    if (cuabi_context_get_counters(handles.context, &counters) == CUABI_SUCCESS)
        std::printf("Counters: %llu launches (%llu packed), %llu synchronizations, %llu NVRTC compiles.\n",
                    static_cast<unsigned long long>(counters.launches),
                    static_cast<unsigned long long>(counters.launches_packed),
                    static_cast<unsigned long long>(counters.synchronizations),
                    static_cast<unsigned long long>(counters.compiles));
    std::printf("Results match the CPU. %s\n", cache_story(rows));
    return 0;
}

const char* const kDemoUsage = "demo [--n ELEMENTS] [--target sm_XY]";
const char* const kDemoHelp =
    "options:\n"
    "  --n ELEMENTS       elements per launch, 1 to 268435456 (default 1048576)\n"
    "  --target sm_XY     the architecture compiled for without a GPU (default sm_90)\n"
    "  -h, --help         this text\n";
int run_demo(int argc, char** argv) {
    uint64_t n = 1u << 20;
    const char* target = "sm_90";
    const option options[] = {{"n", required_argument, nullptr, 'n'}, {"target", required_argument, nullptr, 't'}, {}};
    cli::Parsed parsed = cli::parse_options("demo", argc, argv, "", options,
                                            [&](int code, const char* value) {
                                                if (code == 't') target = value;
                                                return code == 't' || cli::parse_number("demo", "--n", value, 1,
                                                                                        1u << 28, &n);
                                            });
    if (!parsed.proceed) return parsed.exit_code;
    if (!parsed.positional.empty())
        return cli::usage_error("demo", "unexpected argument '" + parsed.positional[0] + "'");
    int32_t devices = 0;
    if (cuabi_device_get_count(&devices) != CUABI_SUCCESS) return run_without_gpu(cuabi_last_error_message(), target);
    return run_with_gpu(static_cast<uint32_t>(n));
}

}  // namespace

CUABI_CLI_COMMAND(demo, "demo", kDemoUsage,
                  "compile, cache, launch and graph a saxpy and a block reduction, checked against the CPU", kDemoHelp,
                  run_demo)
