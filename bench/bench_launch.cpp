// What a validated launch costs the calling thread compared with cuLaunchKernel:
// kernels of 0, 4 and 16 parameters, each launched through the raw driver, cuabi_launch (argument
// table) and cuabi_launch_packed, in one process, on one stream, with one geometry (1 x 32); and
// 16 launches of the 4-parameter kernel as one cuabi_launch_batch against 16 cuabi_launch and 16
// cuLaunchKernel calls.
//
//   bench_launch [--reps N] [--launches N] [--batch N] [--json PATH]
//   defaults:     40 reps,  10000 launches per rep and variant, batches of 250, bench_launch.json
//
// Methodology (docs/performance.md): the figure is host-side submission cost. Launches are timed
// in batches smaller than the driver's launch queue, and the stream is synchronized between batches
// outside the timed region, so no variant is ever throttled by a full queue (which would measure
// the GPU draining empty kernels, not the launch path). Within each repetition every variant runs
// once, back to back in an order rotated per repetition, so the variants of one repetition share
// the machine's state of that moment. The report gives each variant's median over repetitions and
// its paired ratio: the median over repetitions of (variant / cuLaunchKernel in the same
// repetition) with its interquartile range, which cancels the drift of a virtualized GPU's
// per-launch cost that a ratio of medians does not (bench_support.hpp).
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cuabi/cuabi.h"

namespace {

struct Options {
    int reps = 40;
    int launches = 10000;
    int batch = 250;
    const char* json = "bench_launch.json";
};

// Kernels that take their parameters and do nothing with them at run time (n is never negative),
// so the GPU side is as short as possible and the parameters cannot be optimized away.
std::string kernels_source() {
    std::string source =
        "extern \"C\" __global__ void args0() {}\n"
        "extern \"C\" __global__ void args4(float* y, const float* x, float a, int n) {\n"
        "    if (n < 0) y[0] = a * x[0];\n"
        "}\n"
        "extern \"C\" __global__ void args16(";
    for (int i = 0; i < 8; ++i) source += "float* p" + std::to_string(i) + ", ";
    for (int i = 0; i < 8; ++i) source += "int n" + std::to_string(i) + (i < 7 ? ", " : "");
    source += ") {\n    if (n0 < 0) p0[0] = (float)(n1 + n2 + n3 + n4 + n5 + n6 + n7) + p1[0] + p2[0] + p3[0] + p4[0] "
              "+ p5[0] + p6[0] + p7[0];\n}\n";
    return source;
}

// One kernel with its arguments in every form the variants need.
struct Case {
    std::string name;
    cuabi_kernel* kernel = nullptr;
    CUfunction function = nullptr;
    std::vector<uint64_t> values;           // each argument's bytes (8-byte slots)
    std::vector<cuabi_kernel_arg> table;    // for cuabi_launch
    std::vector<void*> params;              // for cuLaunchKernel
    std::vector<unsigned char> packed;      // for cuabi_launch_packed
};

Case make_case(const char* name, cuabi_module* module, const std::vector<size_t>& sizes, uint64_t device_address) {
    Case c;
    c.name = std::string("launch, ") + std::to_string(sizes.size()) + " args";
    bench::check(cuabi_module_get_kernel(module, name, &c.kernel), "cuabi_module_get_kernel");
    void* native = nullptr;
    bench::check(cuabi_kernel_get_native(c.kernel, &native), "cuabi_kernel_get_native");
    c.function = static_cast<CUfunction>(native);
    c.values.resize(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) c.values[i] = sizes[i] == 8 ? device_address : 1;  // pointers or ints
    for (size_t i = 0; i < sizes.size(); ++i) {
        c.table.push_back({&c.values[i], sizes[i]});
        c.params.push_back(&c.values[i]);
        size_t offset = 0, size = 0;
        bench::check(cuabi_kernel_get_param_info(c.kernel, i, &offset, &size), "cuabi_kernel_get_param_info");
        if (c.packed.size() < offset + size) c.packed.resize(offset + size);
        std::memcpy(c.packed.data() + offset, &c.values[i], size);
    }
    return c;
}

// Nanoseconds per launch: `launches` calls of `launch` in timed batches, synchronizing the stream
// between batches outside the timing.
template <typename Launch>
double per_launch_ns(Launch launch, const Options& options, CUstream stream) {
    double total = 0.0;
    for (int done = 0; done < options.launches;) {
        int n = std::min(options.batch, options.launches - done);
        bench::Clock::time_point start = bench::Clock::now();
        for (int i = 0; i < n; ++i)
            if (!launch()) {
                std::fprintf(stderr, "launch failed: %s\n", cuabi_last_error_message());
                std::exit(1);
            }
        total += bench::nanoseconds(bench::Clock::now() - start);
        bench::check_cu(cuStreamSynchronize(stream), "cuStreamSynchronize");
        done += n;
    }
    return total / options.launches;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        auto number = [&](int* out) {
            if (i + 1 >= argc || (*out = std::atoi(argv[++i])) <= 0) {
                std::fprintf(stderr, "%s takes a positive number\n", argv[i - 1]);
                std::exit(2);
            }
        };
        if (std::strcmp(argv[i], "--reps") == 0) number(&options.reps);
        else if (std::strcmp(argv[i], "--launches") == 0) number(&options.launches);
        else if (std::strcmp(argv[i], "--batch") == 0) number(&options.batch);
        else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) options.json = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_launch [--reps N] [--launches N] [--batch N] [--json PATH]\n");
            std::exit(2);
        }
    }
    return options;
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

    const std::string source = kernels_source();
    cuabi_module* module = nullptr;
    bench::check(cuabi_module_compile(context, source.c_str(), nullptr, &module), "cuabi_module_compile");
    std::vector<Case> cases;
    cases.push_back(make_case("args0", module, {}, address));
    cases.push_back(make_case("args4", module, {8, 8, 4, 4}, address));
    cases.push_back(make_case("args16", module, {8, 8, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4}, address));

    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.block[0] = 32;
    config.stream = stream;

    bench::Report report("launch", bench::Pairing::by_repetition);
    report.note("device", info.name);
    report.note("driver", bench::Device::driver_version());
    report.note("method", std::to_string(options.reps) + " reps x " + std::to_string(options.launches) +
                              " launches per variant, timed in batches of " + std::to_string(options.batch) +
                              " with untimed stream syncs between; grid 1 x block 32; median per launch; paired ratio = "
                              "median over reps of variant / cuLaunchKernel of the same rep");

    // The variants, called directly (no type erasure) so that each timed loop holds one call.
    const char* const variants[] = {"cuLaunchKernel", "cuabi_launch", "cuabi_launch_packed"};
    auto run = [&](Case& c, int variant, const Options& how) {
        switch (variant) {
            case 0:
                return per_launch_ns(
                    [&] {
                        return cuLaunchKernel(c.function, 1, 1, 1, 32, 1, 1, 0, cu_stream,
                                              c.params.empty() ? nullptr : c.params.data(), nullptr) == CUDA_SUCCESS;
                    },
                    how, cu_stream);
            case 1:
                return per_launch_ns(
                    [&] {
                        return cuabi_launch(c.kernel, &config, c.table.empty() ? nullptr : c.table.data(),
                                            c.table.size()) == CUABI_SUCCESS;
                    },
                    how, cu_stream);
            default:
                return per_launch_ns(
                    [&] {
                        return cuabi_launch_packed(c.kernel, &config, c.packed.empty() ? nullptr : c.packed.data(),
                                                   c.packed.size()) == CUABI_SUCCESS;
                    },
                    how, cu_stream);
        }
    };
    Options warm = options;
    warm.launches = options.batch;
    for (Case& c : cases) {
        for (int v = 0; v < 3; ++v) report.values(c.name, variants[v]);  // cuLaunchKernel first: the baseline
        for (int v = 0; v < 3; ++v) run(c, v, warm);                     // first-use costs out of the way
        for (int rep = 0; rep < options.reps; ++rep)
            for (int i = 0; i < 3; ++i) {
                int v = (i + rep) % 3;
                report.values(c.name, variants[v]).push_back(run(c, v, options));
            }
    }

    // A launch with an attribute (priority) goes cuLaunchKernelEx in both: what cuabi's general path
    // adds to the driver's extended launch.
    {
        Case& c = cases[1];  // 4 arguments
        const std::string name = "launch with priority, 4 args";
        cuabi_launch_config prioritized = config;
        prioritized.flags = CUABI_LAUNCH_PRIORITY;
        prioritized.priority = -1;
        int least = 0, greatest = 0;
        bench::check_cu(cuCtxGetStreamPriorityRange(&least, &greatest), "cuCtxGetStreamPriorityRange");
        CUlaunchAttribute priority{};
        priority.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        priority.value.priority = -1 < greatest ? greatest : -1;
        CUlaunchConfig ex{};
        ex.gridDimX = ex.gridDimY = ex.gridDimZ = 1;
        ex.blockDimX = 32;
        ex.blockDimY = ex.blockDimZ = 1;
        ex.hStream = cu_stream;
        ex.attrs = &priority;
        ex.numAttrs = 1;
        auto run_ex = [&](int variant, const Options& how) {
            if (variant == 0)
                return per_launch_ns(
                    [&] { return cuLaunchKernelEx(&ex, c.function, c.params.data(), nullptr) == CUDA_SUCCESS; }, how,
                    cu_stream);
            return per_launch_ns(
                [&] { return cuabi_launch(c.kernel, &prioritized, c.table.data(), c.table.size()) == CUABI_SUCCESS; },
                how, cu_stream);
        };
        const char* const ex_variants[] = {"cuLaunchKernelEx", "cuabi_launch"};
        for (int v = 0; v < 2; ++v) report.values(name, ex_variants[v]);
        for (int v = 0; v < 2; ++v) run_ex(v, warm);
        for (int rep = 0; rep < options.reps; ++rep)
            for (int i = 0; i < 2; ++i) {
                int v = (i + rep) % 2;
                report.values(name, ex_variants[v]).push_back(run_ex(v, options));
            }
    }

    // 16 launches per call: one cuabi_launch_batch against 16 calls of cuabi_launch and of
    // cuLaunchKernel, per launch. The same samples fill two cases, so that each has its own
    // baseline for the paired ratio: the raw driver, and the single cuabi_launch.
    {
        constexpr int kItems = 16;
        Case& c = cases[1];  // 4 arguments
        std::vector<cuabi_launch_item> items(kItems, cuabi_launch_item{c.kernel, &config, c.table.data(), c.table.size(),
                                                                        nullptr, 0});
        Options grouped = options;  // the same launches per rep and per timed batch as the rows above
        grouped.launches = std::max(1, options.launches / kItems);
        grouped.batch = std::max(1, options.batch / kItems);
        auto run_batch = [&](int variant, const Options& how) {
            switch (variant) {
                case 0:
                    return per_launch_ns(
                               [&] {
                                   bool ok = true;
                                   for (int i = 0; i < kItems; ++i)
                                       ok &= cuLaunchKernel(c.function, 1, 1, 1, 32, 1, 1, 0, cu_stream, c.params.data(),
                                                            nullptr) == CUDA_SUCCESS;
                                   return ok;
                               },
                               how, cu_stream) /
                           kItems;
                case 1:
                    return per_launch_ns(
                               [&] {
                                   bool ok = true;
                                   for (int i = 0; i < kItems; ++i)
                                       ok &= cuabi_launch(c.kernel, &config, c.table.data(), c.table.size()) ==
                                             CUABI_SUCCESS;
                                   return ok;
                               },
                               how, cu_stream) /
                           kItems;
                default:
                    return per_launch_ns(
                               [&] {
                                   size_t submitted = 0;
                                   return cuabi_launch_batch(items.data(), items.size(), &submitted) == CUABI_SUCCESS;
                               },
                               how, cu_stream) /
                           kItems;
            }
        };
        const std::string versus_raw = "batch of 16, 4 args";
        const std::string versus_single = "batch vs cuabi_launch";
        const char* const batch_variants[] = {"16 x cuLaunchKernel", "16 x cuabi_launch", "cuabi_launch_batch"};
        for (int v = 0; v < 3; ++v) report.values(versus_raw, batch_variants[v]);
        report.values(versus_single, batch_variants[1]);
        report.values(versus_single, batch_variants[2]);
        Options warm_grouped = grouped;
        warm_grouped.launches = grouped.batch;
        for (int v = 0; v < 3; ++v) run_batch(v, warm_grouped);
        for (int rep = 0; rep < options.reps; ++rep)
            for (int i = 0; i < 3; ++i) {
                int v = (i + rep) % 3;
                const double ns = run_batch(v, grouped);
                report.values(versus_raw, batch_variants[v]).push_back(ns);
                if (v > 0) report.values(versus_single, batch_variants[v]).push_back(ns);
            }
    }

    report.print();
    if (!report.write_json(options.json)) std::fprintf(stderr, "could not write %s\n", options.json);
    else std::printf("\nresults: %s\n", options.json);

    for (Case& c : cases) cuabi_kernel_destroy(c.kernel);
    cuabi_module_destroy(module);
    device.close();
    return 0;
}
