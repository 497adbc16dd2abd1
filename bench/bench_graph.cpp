// What cuabi's graph calls cost the calling thread compared with the raw driver:
//   - replay of chains of 1, 10, 100 and 1000 empty kernels: cuGraphLaunch on the graph's own
//     executable (baseline) vs cuabi_graph_launch, and the same chain launched kernel by kernel
//     (cuLaunchKernel and cuabi_launch) to show what a graph saves;
//   - a kernel-node argument update: cuGraphExecKernelNodeSetParams (baseline) vs
//     cuabi_graph_update_kernel_args and cuabi_graph_update_kernel_args_packed.
//
//   bench_graph [--reps N] [--json PATH]          defaults: 40 reps, bench_graph.json
//
// Methodology (docs/performance.md, "Graphs"): host-side cost per operation. Replays and chains
// are timed in batches small enough that the driver's queue never fills (a full queue would time
// the GPU draining kernels, not the submission), with an untimed stream synchronization between
// batches. Every variant of a case runs once per repetition, back to back in an order rotated per
// repetition; the report gives each variant's median over repetitions and its paired ratio: the
// median over repetitions of (variant / baseline in the same repetition) with its interquartile
// range, which cancels the drift of per-call cost between repetitions (bench_support.hpp).
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cuabi/cuabi.h"

namespace {

const char* const kSource =
    "extern \"C\" __global__ void empty() {}\n"
    "extern \"C\" __global__ void update4(float* y, const float* x, float a, int n) {\n"
    "    if (n < 0) y[0] = a * x[0];\n"
    "}\n";

struct Options {
    int reps = 40;
    const char* json = "bench_graph.json";
};

using Variant = std::pair<std::string, std::function<bool()>>;

// Nanoseconds per operation: `ops` calls of `op` in timed batches of `batch`, synchronizing the
// stream between batches outside the timing.
double per_op_ns(const std::function<bool()>& op, int ops, int batch, CUstream stream) {
    double total = 0.0;
    for (int done = 0; done < ops;) {
        int n = std::min(batch, ops - done);
        bench::Clock::time_point start = bench::Clock::now();
        for (int i = 0; i < n; ++i)
            if (!op()) {
                std::fprintf(stderr, "operation failed: %s\n", cuabi_last_error_message());
                std::exit(1);
            }
        total += bench::nanoseconds(bench::Clock::now() - start);
        bench::check_cu(cuStreamSynchronize(stream), "cuStreamSynchronize");
        done += n;
    }
    return total / ops;
}

// Runs every variant once per repetition, rotating the order, after one untimed warm-up batch;
// sample i of every variant is then from repetition i, which the paired ratio relies on.
void measure(bench::Report& report, const std::string& case_name, std::vector<Variant>& variants, int ops, int batch,
             const Options& options, CUstream stream) {
    for (Variant& variant : variants) report.values(case_name, variant.first);  // baseline first
    for (Variant& variant : variants) per_op_ns(variant.second, batch, batch, stream);
    for (int rep = 0; rep < options.reps; ++rep)
        for (size_t v = 0; v < variants.size(); ++v) {
            Variant& variant = variants[(v + static_cast<size_t>(rep)) % variants.size()];
            report.values(case_name, variant.first).push_back(per_op_ns(variant.second, ops, batch, stream));
        }
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
            options.reps = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            options.json = argv[++i];
        } else {
            std::fprintf(stderr, "usage: bench_graph [--reps N] [--json PATH]\n");
            std::exit(2);
        }
    }
    return options;
}

// Replay of a chain of `nodes` empty kernels, and the same chain launched kernel by kernel.
void bench_replay(bench::Report& report, int nodes, cuabi_kernel* empty, cuabi_stream* stream, CUstream cu_stream,
                  const Options& options) {
    void* native = nullptr;
    bench::check(cuabi_kernel_get_native(empty, &native), "cuabi_kernel_get_native");
    CUfunction function = static_cast<CUfunction>(native);
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.block[0] = 32;
    config.stream = stream;

    bench::check(cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_THREAD_LOCAL), "cuabi_graph_capture_begin");
    for (int i = 0; i < nodes; ++i) bench::check(cuabi_launch(empty, &config, nullptr, 0), "cuabi_launch (capture)");
    cuabi_graph* graph = nullptr;
    cuabi_graph_options graph_options;
    cuabi_graph_options_init(sizeof graph_options, &graph_options);
    graph_options.flags = CUABI_GRAPH_UPLOAD;
    bench::check(cuabi_graph_capture_end(stream, &graph_options, &graph), "cuabi_graph_capture_end");
    void* exec_pointer = nullptr;
    bench::check(cuabi_graph_get_native(graph, nullptr, &exec_pointer), "cuabi_graph_get_native");
    CUgraphExec exec = static_cast<CUgraphExec>(exec_pointer);

    std::vector<Variant> variants = {
        {"cuGraphLaunch", [&] { return cuGraphLaunch(exec, cu_stream) == CUDA_SUCCESS; }},
        {"cuabi_graph_launch", [&] { return cuabi_graph_launch(graph, stream) == CUABI_SUCCESS; }},
        {"stream: cuLaunchKernel x N", [&] {
             for (int i = 0; i < nodes; ++i)
                 if (cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, cu_stream, nullptr, nullptr) != CUDA_SUCCESS)
                     return false;
             return true;
         }},
        {"stream: cuabi_launch x N", [&] {
             for (int i = 0; i < nodes; ++i)
                 if (cuabi_launch(empty, &config, nullptr, 0) != CUABI_SUCCESS) return false;
             return true;
         }},
    };
    // Enough chains per repetition to time, few enough per batch that the launch queue (about a
    // thousand kernels) never fills.
    const int ops = std::max(20, 4000 / nodes);
    const int batch = std::max(1, 200 / nodes);
    measure(report, "replay, " + std::to_string(nodes) + " nodes", variants, ops, batch, options, cu_stream);
    cuabi_graph_destroy(graph);
}

// An argument update of a one-node graph (4 parameters), alternating between two argument sets so
// that every update really changes the node.
void bench_update(bench::Report& report, cuabi_kernel* update4, cuabi_stream* stream, CUstream cu_stream,
                  uint64_t address, const Options& options) {
    uint64_t y = address, x = address + 64;
    float a[2] = {1.0f, 2.0f};
    int n = 1;
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.block[0] = 32;
    config.stream = stream;
    cuabi_kernel_arg args[2][4] = {{{&y, 8}, {&x, 8}, {&a[0], 4}, {&n, 4}}, {{&y, 8}, {&x, 8}, {&a[1], 4}, {&n, 4}}};
    bench::check(cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_THREAD_LOCAL), "cuabi_graph_capture_begin");
    bench::check(cuabi_launch(update4, &config, args[0], 4), "cuabi_launch (capture)");
    cuabi_graph* graph = nullptr;
    bench::check(cuabi_graph_capture_end(stream, nullptr, &graph), "cuabi_graph_capture_end");

    void* graph_pointer = nullptr;
    void* exec_pointer = nullptr;
    bench::check(cuabi_graph_get_native(graph, &graph_pointer, &exec_pointer), "cuabi_graph_get_native");
    CUgraphExec exec = static_cast<CUgraphExec>(exec_pointer);
    CUgraphNode node = nullptr;
    size_t count = 1;
    bench::check_cu(cuGraphGetNodes(static_cast<CUgraph>(graph_pointer), &node, &count), "cuGraphGetNodes");
    CUDA_KERNEL_NODE_PARAMS raw[2];
    void* raw_args[2][4] = {{&y, &x, &a[0], &n}, {&y, &x, &a[1], &n}};
    for (int i = 0; i < 2; ++i) {
        bench::check_cu(cuGraphKernelNodeGetParams(node, &raw[i]), "cuGraphKernelNodeGetParams");
        raw[i].kernelParams = raw_args[i];
        raw[i].extra = nullptr;
    }
    std::vector<unsigned char> packed[2];
    cuabi_graph_node_info info = CUABI_GRAPH_NODE_INFO_INIT;
    bench::check(cuabi_graph_get_node_info(graph, 0, &info), "cuabi_graph_get_node_info");
    for (int set = 0; set < 2; ++set) {
        packed[set].resize(info.param_bytes);
        for (size_t i = 0; i < 4; ++i) {
            size_t offset = 0, size = 0;
            bench::check(cuabi_graph_get_node_param_info(graph, 0, i, &offset, &size), "cuabi_graph_get_node_param_info");
            std::memcpy(packed[set].data() + offset, args[set][i].value, size);
        }
    }

    unsigned flip = 0;
    std::vector<Variant> variants = {
        {"cuGraphExecKernelNodeSetParams",
         [&] { return cuGraphExecKernelNodeSetParams(exec, node, &raw[++flip & 1]) == CUDA_SUCCESS; }},
        {"cuabi_graph_update_kernel_args",
         [&] { return cuabi_graph_update_kernel_args(graph, 0, args[++flip & 1], 4) == CUABI_SUCCESS; }},
        {"cuabi_graph_update_..._packed", [&] {
             const std::vector<unsigned char>& buffer = packed[++flip & 1];
             return cuabi_graph_update_kernel_args_packed(graph, 0, buffer.data(), buffer.size()) == CUABI_SUCCESS;
         }},
    };
    measure(report, "update, 4 args", variants, 10000, 10000, options, cu_stream);
    cuabi_graph_destroy(graph);
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    bench::Device device = bench::Device::open();
    cuabi_context* context = device.context;
    const cuabi_device_info& info = device.info;
    cuabi_stream* stream = device.stream;
    CUstream cu_stream = device.cu_stream;
    const uint64_t address = device.scratch_address;
    cuabi_module* module = nullptr;
    bench::check(cuabi_module_compile(context, kSource, nullptr, &module), "cuabi_module_compile");
    cuabi_kernel* empty = nullptr;
    cuabi_kernel* update4 = nullptr;
    bench::check(cuabi_module_get_kernel(module, "empty", &empty), "cuabi_module_get_kernel");
    bench::check(cuabi_module_get_kernel(module, "update4", &update4), "cuabi_module_get_kernel");

    bench::Report report("graph", bench::Pairing::by_repetition);
    report.note("device", info.name);
    report.note("driver", bench::Device::driver_version());
    report.note("method", std::to_string(options.reps) +
                              " reps per variant; replays and chains timed in batches of at most 200 kernels with "
                              "untimed stream syncs between; medians per operation (one replay, one chain, one "
                              "update); paired ratio = median over reps of variant / raw driver call of the same rep");
    for (int nodes : {1, 10, 100, 1000}) bench_replay(report, nodes, empty, stream, cu_stream, options);
    bench_update(report, update4, stream, cu_stream, address, options);

    report.print();
    if (!report.write_json(options.json)) std::fprintf(stderr, "could not write %s\n", options.json);
    else std::printf("\nresults: %s\n", options.json);

    cuabi_kernel_destroy(empty);
    cuabi_kernel_destroy(update4);
    cuabi_module_destroy(module);
    device.close();
    return 0;
}
