// Scenarios that make cuabi emit its own ranges: compiles and cache hits (no GPU needed), a launch
// and a graph replay (a GPU needed: they print "no device" and return without one). User ranges
// around each step let the tests check that cuabi's ranges nest inside the caller's.
//
// `compile` and `compile-disk-hit` expect CUABI_CACHE_DIR to name a fresh directory, shared by
// the two runs; `launch` and `graph` check the kernel's results, so a range test cannot pass on a
// launch that did nothing.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "scenarios.hpp"

namespace scenario {
namespace {

const char* const kSource =
    "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

cuabi_compile_options saxpy_options(const char* target) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.program_name = "saxpy.cu";
    options.target = target;
    return options;
}

// Compiles ahead of time (no GPU) and prints the cache key, which the tests expect in the detail
// of the cache ranges.
void compile_offline(const char* what) {
    cuabi_compile_options options = saxpy_options("sm_90");
    cuabi_module* module = nullptr;
    expect(cuabi_module_compile_offline(kSource, &options, &module), CUABI_SUCCESS, what);
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    if (module != nullptr && cuabi_module_get_info(module, &info) == CUABI_SUCCESS)
        std::printf("cache key %s\n", info.cache_key);
    cuabi_module_destroy(module);
}

// Everything a launch needs, made on device 0; ok() is false (and "no device" printed) without one.
struct Saxpy {
    static constexpr int kN = 4096;
    cuabi_context* context = nullptr;
    cuabi_module* module = nullptr;
    cuabi_kernel* kernel = nullptr;
    cuabi_stream* stream = nullptr;
    cuabi_buffer* x = nullptr;
    cuabi_buffer* y = nullptr;
    std::vector<float> host_x = std::vector<float>(kN), host_y = std::vector<float>(kN);
    float a = 0;
    bool ready = false;

    Saxpy() {
        int32_t devices = 0;
        if (cuabi_device_get_count(&devices) != CUABI_SUCCESS || cuabi_context_create(nullptr, &context) != CUABI_SUCCESS) {
            std::printf("no device: %s\n", cuabi_last_error_message());
            return;
        }
        cuabi_compile_options options = saxpy_options(nullptr);
        expect(cuabi_range_push("setup", nullptr), CUABI_SUCCESS, "push setup");
        expect(cuabi_module_compile(context, kSource, &options, &module), CUABI_SUCCESS, "compile for the device");
        expect(cuabi_range_pop(), CUABI_SUCCESS, "pop setup");
        if (module == nullptr) return;
        expect(cuabi_module_get_kernel(module, "saxpy", &kernel), CUABI_SUCCESS, "get kernel");
        expect(cuabi_stream_create(context, nullptr, &stream), CUABI_SUCCESS, "create stream");
        std::mt19937 random(20240611);
        std::uniform_real_distribution<float> values(-1.0f, 1.0f);
        for (int i = 0; i < kN; ++i) host_x[i] = values(random), host_y[i] = values(random);
        a = values(random);
        expect(cuabi_buffer_create(context, kN * sizeof(float), nullptr, &x), CUABI_SUCCESS, "create x");
        expect(cuabi_buffer_create(context, kN * sizeof(float), nullptr, &y), CUABI_SUCCESS, "create y");
        expect(cuabi_buffer_write(x, 0, host_x.data(), kN * sizeof(float), nullptr), CUABI_SUCCESS, "write x");
        expect(cuabi_buffer_write(y, 0, host_y.data(), kN * sizeof(float), nullptr), CUABI_SUCCESS, "write y");
        ready = kernel != nullptr && stream != nullptr && x != nullptr && y != nullptr;
    }
    ~Saxpy() {
        cuabi_buffer_destroy(x);
        cuabi_buffer_destroy(y);
        cuabi_stream_destroy(stream);
        cuabi_kernel_destroy(kernel);
        cuabi_module_destroy(module);
        cuabi_context_destroy(context);
    }

    // One saxpy launch's arguments and config, on `on`.
    struct Call {
        uint64_t x_address = 0, y_address = 0;
        int32_t n = kN;
        cuabi_kernel_arg args[4];
        cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    };
    void prepare(cuabi_stream* on, Call* call) {
        cuabi_buffer_get_device_address(x, &call->x_address);
        cuabi_buffer_get_device_address(y, &call->y_address);
        call->args[0] = {&a, sizeof a};
        call->args[1] = {&call->x_address, 8};
        call->args[2] = {&call->y_address, 8};
        call->args[3] = {&call->n, sizeof call->n};
        call->config.grid[0] = kN / 256;
        call->config.block[0] = 256;
        call->config.stream = on;
    }

    cuabi_status launch(cuabi_stream* on) {
        Call call;
        prepare(on, &call);
        return cuabi_launch(kernel, &call.config, call.args, 4);
    }

    // `count` (at most 8) saxpy launches as one cuabi_launch_batch.
    cuabi_status launch_batch(cuabi_stream* on, size_t count) {
        Call call;
        prepare(on, &call);
        cuabi_launch_item items[8];
        for (size_t k = 0; k < count; ++k) items[k] = {kernel, &call.config, call.args, 4, nullptr, 0};
        size_t submitted = 0;
        return cuabi_launch_batch(items, count, &submitted);
    }

    // Checks y against `times` applications of y = a*x + y to the original values.
    void check(int times) {
        std::vector<float> got(kN, std::nanf(""));  // poisoned: a skipped read-back cannot pass
        expect(cuabi_buffer_read(y, 0, got.data(), kN * sizeof(float), nullptr), CUABI_SUCCESS, "read y");
        int wrong = 0;
        for (int i = 0; i < kN; ++i) {
            float want = host_y[i];
            for (int t = 0; t < times; ++t) want = a * host_x[i] + want;
            if (!(std::fabs(got[i] - want) <= 1e-5f * (1.0f + std::fabs(want)))) ++wrong;
        }
        if (wrong != 0) {
            std::printf("FAIL %d of %d results wrong after %d saxpy steps\n", wrong, kN, times);
            expect(CUABI_ERROR_INTERNAL, CUABI_SUCCESS, "results");
        }
    }
};

}  // namespace

// First compile in a fresh cache: lookups miss, NVRTC runs, the image is stored. The second
// identical compile in the same process is a memory hit.
void compile() {
    expect(cuabi_range_push("build", nullptr), CUABI_SUCCESS, "push build");
    compile_offline("first compile");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop build");
    expect(cuabi_range_push("build again", nullptr), CUABI_SUCCESS, "push build again");
    compile_offline("second compile");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop build again");
}

// The same compile in a new process: the memory cache is empty, the disk cache has it.
void compile_disk_hit() {
    expect(cuabi_range_push("build", nullptr), CUABI_SUCCESS, "push build");
    compile_offline("compile in a fresh process");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop build");
}

// A compile fills the disk cache; pruning it to 0 bytes evicts the entry.
void cache_prune() {
    compile_offline("compile before pruning");
    uint64_t removed = 0;
    expect(cuabi_cache_prune(0, &removed, nullptr), CUABI_SUCCESS, "prune to 0 bytes");
    std::printf("pruned %llu entries\n", static_cast<unsigned long long>(removed));
}

// Loads the driver: succeeds on a GPU machine, fails with a message elsewhere; either way the
// loading happened (once) and is what a profile should show.
void driver() {
    int32_t version = 0;
    cuabi_status status = cuabi_driver_get_version(&version);
    std::printf("driver: %s %d\n", cuabi_status_name(status), version);
}

// One launch inside a user range, synchronous on the per-thread stream.
void launch() {
    Saxpy saxpy;
    if (!saxpy.ready) return;
    expect(cuabi_range_push("step", nullptr), CUABI_SUCCESS, "push step");
    expect(saxpy.launch(nullptr), CUABI_SUCCESS, "launch");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop step");
    saxpy.check(1);
}

// Three launches as one batch inside a user range, each synchronous on the per-thread stream.
void launch_batch() {
    Saxpy saxpy;
    if (!saxpy.ready) return;
    expect(cuabi_range_push("step", nullptr), CUABI_SUCCESS, "push step");
    expect(saxpy.launch_batch(nullptr, 3), CUABI_SUCCESS, "launch batch");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop step");
    saxpy.check(3);
}

// Capture two launches, upload, update the first node's arguments (to the same values), then
// replay three times inside a user range: y has seen 6 saxpy steps.
void graph() {
    Saxpy saxpy;
    if (!saxpy.ready) return;
    cuabi_graph* graph = nullptr;
    expect(cuabi_range_push("capture", nullptr), CUABI_SUCCESS, "push capture");
    expect(cuabi_graph_capture_begin(saxpy.stream, CUABI_CAPTURE_MODE_THREAD_LOCAL), CUABI_SUCCESS, "begin capture");
    expect(saxpy.launch(saxpy.stream), CUABI_SUCCESS, "captured launch 1");
    expect(saxpy.launch(saxpy.stream), CUABI_SUCCESS, "captured launch 2");
    expect(cuabi_graph_capture_end(saxpy.stream, nullptr, &graph), CUABI_SUCCESS, "end capture");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop capture");
    if (graph == nullptr) return;
    expect(cuabi_graph_upload(graph, saxpy.stream), CUABI_SUCCESS, "upload");
    uint64_t x_address = 0, y_address = 0;
    cuabi_buffer_get_device_address(saxpy.x, &x_address);
    cuabi_buffer_get_device_address(saxpy.y, &y_address);
    int32_t n = Saxpy::kN;
    cuabi_kernel_arg args[] = {{&saxpy.a, sizeof saxpy.a}, {&x_address, 8}, {&y_address, 8}, {&n, sizeof n}};
    expect(cuabi_graph_update_kernel_args(graph, 0, args, 4), CUABI_SUCCESS, "update node 0");
    expect(cuabi_range_push("replay", nullptr), CUABI_SUCCESS, "push replay");
    for (int i = 0; i < 3; ++i) expect(cuabi_graph_launch(graph, saxpy.stream), CUABI_SUCCESS, "replay");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop replay");
    expect(cuabi_stream_synchronize(saxpy.stream), CUABI_SUCCESS, "synchronize");
    saxpy.check(6);
    cuabi_graph_destroy(graph);
}

}  // namespace scenario
