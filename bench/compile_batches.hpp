// The compile-batch rows of bench_compile (docs/performance.md):
// - "compile batch": per repetition, one cold compile of the benchmark source in the worker, then
//   --variants variants of it (-DBENCH_VARIANT=k, each missing every cache layer by its salt) as
//   one batch, timed from cuabi_compile_batch_start until the last module is taken; the paired
//   ratio is the batch's wall time over the single compile's. The workers are warm for both
//   (the cold-compile rows started them). On N cores the floor is about variants / N.
// - "batch cancel": a compile that takes NVRTC many seconds is started as a batch of one; once it
//   has run for 200 ms, cuabi_compile_batch_cancel, timed until a thread waiting in
//   cuabi_compile_batch_get_module has returned CUABI_ERROR_CANCELLED.
// - "memory hits": --variants requests already in the memory cache, as --variants single
//   compile+destroy calls against one batch of them (start, every get_module, destroy), each the
//   mean of enough rounds for about --iters calls.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "cuabi/cuabi.h"

namespace bench_batches {

// Seconds of NVRTC time for a kernel of a few lines: 2^11 force-inlined calls.
inline const char* const kHeavySource =
    "template <int D> struct Tree {\n"
    "    __device__ __forceinline__ static float run(float x, const float* p) {\n"
    "        return Tree<D - 1>::run(x * 1.0001f + p[D], p) * Tree<D - 1>::run(x - p[D + 1], p);\n"
    "    }\n"
    "};\n"
    "template <> struct Tree<0> {\n"
    "    __device__ __forceinline__ static float run(float x, const float* p) { return x + p[0]; }\n"
    "};\n"
    "extern \"C\" __global__ void heavy(float* p) { p[threadIdx.x] = Tree<11>::run(p[threadIdx.x], p); }\n";

// `count` variants of one request: each its own define and its own copy of the options.
struct Variants {
    Variants(const cuabi_compile_options& base, const std::string& source, size_t count, const std::string& salt)
        : salt_text(salt), defines(count), define_pointers(count), options(count, base), requests(count) {
        for (size_t k = 0; k < count; ++k) {
            defines[k] = "BENCH_VARIANT=" + std::to_string(k);
            define_pointers[k] = defines[k].c_str();
            options[k].defines = &define_pointers[k];
            options[k].define_count = 1;
            options[k].salt = salt_text.data();
            options[k].salt_size = salt_text.size();
            requests[k].context = nullptr;
            requests[k].source = source.c_str();
            requests[k].options = &options[k];
        }
    }
    std::string salt_text;
    std::vector<std::string> defines;
    std::vector<const char*> define_pointers;
    std::vector<cuabi_compile_options> options;
    std::vector<cuabi_compile_request> requests;
};

// Starts the batch, takes every module (each must succeed) and destroys it all.
inline void run_batch(const std::vector<cuabi_compile_request>& requests) {
    cuabi_compile_batch* batch = nullptr;
    bench::check(cuabi_compile_batch_start(requests.data(), requests.size(), 0, &batch), "cuabi_compile_batch_start");
    for (size_t k = 0; k < requests.size(); ++k) {
        cuabi_module* module = nullptr;
        bench::check(cuabi_compile_batch_get_module(batch, k, &module), "cuabi_compile_batch_get_module");
        cuabi_module_destroy(module);
    }
    cuabi_compile_batch_destroy(batch);
}

inline double cancel_latency_ns(const cuabi_compile_options& base, const std::string& salt) {
    cuabi_compile_options options = base;
    options.salt = salt.data();
    options.salt_size = salt.size();
    options.name_expressions = nullptr;
    options.name_expression_count = 0;
    // NVRTC's own cache (12.9+) does not see the salt: a comment of its own makes NVRTC run.
    const std::string source = std::string(kHeavySource) + "// " + salt + "\n";
    cuabi_compile_request request{nullptr, source.c_str(), &options};
    cuabi_compile_batch* batch = nullptr;
    bench::check(cuabi_compile_batch_start(&request, 1, 0, &batch), "cuabi_compile_batch_start");
    int32_t state = CUABI_REQUEST_QUEUED;
    cuabi_status status = CUABI_SUCCESS;
    while (state == CUABI_REQUEST_QUEUED) {
        bench::check(cuabi_compile_batch_get_state(batch, 0, &state, &status), "cuabi_compile_batch_get_state");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::atomic<int64_t> returned{0};
    cuabi_status got = CUABI_SUCCESS;
    std::thread waiter([&] {
        cuabi_module* module = nullptr;
        got = cuabi_compile_batch_get_module(batch, 0, &module);
        returned = bench::Clock::now().time_since_epoch().count();
        cuabi_module_destroy(module);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const bench::Clock::time_point cancelled = bench::Clock::now();
    bench::check(cuabi_compile_batch_cancel(batch), "cuabi_compile_batch_cancel");
    waiter.join();
    if (got != CUABI_ERROR_CANCELLED) {
        std::fprintf(stderr, "the heavy compile ended with %s instead of being cancelled\n", cuabi_status_name(got));
        std::exit(1);
    }
    cuabi_compile_batch_destroy(batch);
    return bench::nanoseconds(bench::Clock::duration(returned.load() - cancelled.time_since_epoch().count()));
}

// `base`: the benchmark source's options for the offline target, NVRTC's own cache off.
inline void measure(const std::string& source, const cuabi_compile_options& base, int variants, int reps, int iters,
                    bench::Report& report) {
    const std::string tag = std::to_string(getpid()) + ":";
    report.note("batch_variants", std::to_string(variants));
    for (int rep = 0; rep < reps; ++rep) {
        Variants one(base, source, 1, tag + "single:" + std::to_string(rep));
        bench::Clock::time_point start = bench::Clock::now();
        run_batch(one.requests);
        report.values("compile batch", "one cold compile (worker)").push_back(bench::nanoseconds(bench::Clock::now() - start));
        Variants many(base, source, static_cast<size_t>(variants), tag + "batch:" + std::to_string(rep));
        start = bench::Clock::now();
        run_batch(many.requests);
        report.values("compile batch", std::to_string(variants) + " variants, one batch")
            .push_back(bench::nanoseconds(bench::Clock::now() - start));
    }
    for (int rep = 0; rep < reps; ++rep)
        report.values("batch cancel", "cancel -> get_module returns")
            .push_back(cancel_latency_ns(base, tag + "cancel:" + std::to_string(rep)));

    Variants hits(base, source, static_cast<size_t>(variants), tag + "hits");
    run_batch(hits.requests);  // now every variant is in the memory cache
    const int rounds = std::max(1, iters / variants);
    for (int rep = 0; rep < reps; ++rep) {
        bench::Clock::time_point start = bench::Clock::now();
        for (int round = 0; round < rounds; ++round)
            for (const cuabi_compile_request& request : hits.requests) {
                cuabi_module* module = nullptr;
                bench::check(cuabi_module_compile_offline(request.source, request.options, &module), "memory hit");
                cuabi_module_destroy(module);
            }
        report.values("memory hits", std::to_string(variants) + " single hits").push_back(
            bench::nanoseconds(bench::Clock::now() - start) / rounds);
        start = bench::Clock::now();
        for (int round = 0; round < rounds; ++round) run_batch(hits.requests);
        report.values("memory hits", "one batch of " + std::to_string(variants))
            .push_back(bench::nanoseconds(bench::Clock::now() - start) / rounds);
    }
}

}  // namespace bench_batches
