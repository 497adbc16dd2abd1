// What the cuabi-versus-driver benchmarks share: timing, medians, a results table printed as
// ratios to the raw driver, and the same results as JSON for tools.
//
// A result is one (case, variant) pair, e.g. ("launch, 4 args", "cuabi_launch"), with one value
// per repetition in nanoseconds per operation; the first variant added for a case is its baseline
// (the raw driver call). Every variant's median is reported as a ratio to the baseline's median.
//
// When a report is Pairing::by_repetition, sample i of every variant of a case was measured in
// the same repetition (all variants back to back), and the report also gives the PAIRED ratio:
// the median over repetitions of variant[i] / baseline[i], with its interquartile range. On a
// machine whose per-call cost drifts between repetitions (a virtualized GPU: 2.5 to 7 us per
// launch from moment to moment) the drift moves both numbers of a pair alike and cancels in
// their quotient, while a ratio of two medians can pick its numerator and denominator from
// different moments.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cuabi/cuabi.h"

namespace bench {

using Clock = std::chrono::steady_clock;

inline double nanoseconds(Clock::duration duration) {
    return std::chrono::duration<double, std::nano>(duration).count();
}

// The q-quantile (0 <= q <= 1) by linear interpolation between order statistics, so that q = 0.5
// is the usual median (the mean of the middle two for an even count); 0 for no values.
inline double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    double position = q * static_cast<double>(values.size() - 1);
    size_t below = static_cast<size_t>(position);
    if (below + 1 >= values.size()) return values.back();
    double fraction = position - static_cast<double>(below);
    return values[below] + fraction * (values[below + 1] - values[below]);
}

inline double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

// Exits with the message when a cuabi call fails: a benchmark has no use for a partial result.
inline void check(cuabi_status status, const char* what) {
    if (status == CUABI_SUCCESS) return;
    std::fprintf(stderr, "%s failed: %s: %s\n", what, cuabi_status_name(status), cuabi_last_error_message());
    std::exit(1);
}

inline void check_cu(CUresult result, const char* what) {
    if (result == CUDA_SUCCESS) return;
    const char* name = nullptr;
    cuGetErrorName(result, &name);
    std::fprintf(stderr, "%s failed: %s\n", what, name != nullptr ? name : "unknown CUresult");
    std::exit(1);
}

// What the driver comparisons share: a context on device 0, one cuabi stream, the same stream and
// context as raw driver handles (the context made current, so raw calls need nothing else), and a
// 256-byte scratch buffer whose address serves as every pointer argument.
struct Device {
    cuabi_context* context = nullptr;
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    cuabi_stream* stream = nullptr;
    CUstream cu_stream = nullptr;
    cuabi_buffer* scratch = nullptr;
    uint64_t scratch_address = 0;

    // Exits with cuabi's message when there is no usable GPU.
    static Device open() {
        Device d;
        check(cuabi_context_create(nullptr, &d.context), "cuabi_context_create");
        check(cuabi_context_get_device_info(d.context, &d.info), "cuabi_context_get_device_info");
        check(cuabi_stream_create(d.context, nullptr, &d.stream), "cuabi_stream_create");
        void* native = nullptr;
        check(cuabi_stream_get_native(d.stream, &native), "cuabi_stream_get_native");
        d.cu_stream = static_cast<CUstream>(native);
        check(cuabi_context_get_native(d.context, &native), "cuabi_context_get_native");
        check_cu(cuCtxSetCurrent(static_cast<CUcontext>(native)), "cuCtxSetCurrent");
        check(cuabi_buffer_create(d.context, 256, nullptr, &d.scratch), "cuabi_buffer_create");
        check(cuabi_buffer_get_device_address(d.scratch, &d.scratch_address), "cuabi_buffer_get_device_address");
        return d;
    }
    void close() {
        cuabi_buffer_destroy(scratch);
        cuabi_stream_destroy(stream);
        cuabi_context_destroy(context);
    }
    // "13.0" for the report.
    static std::string driver_version() {
        int32_t driver = 0;
        cuabi_driver_get_version(&driver);
        return std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
    }
};

struct Result {
    std::string case_name;
    std::string variant;
    std::vector<double> ns;  // one value per repetition
};

// Whether sample i of every variant of a case comes from the same repetition (see the top).
enum class Pairing { none, by_repetition };

// The per-repetition ratios variant[i] / baseline[i] summarized; valid is false when the two have
// different sample counts (not paired) or no samples.
struct PairedRatio {
    bool valid = false;
    double median = 0.0, q1 = 0.0, q3 = 0.0;
};

class Report {
public:
    explicit Report(std::string benchmark, Pairing pairing = Pairing::none)
        : benchmark_(std::move(benchmark)), pairing_(pairing) {}

    // The slot for (case, variant), created on first use; the first variant of a case is its baseline.
    std::vector<double>& values(const std::string& case_name, const std::string& variant) {
        for (Result& result : results_)
            if (result.case_name == case_name && result.variant == variant) return result.ns;
        results_.push_back({case_name, variant, {}});
        return results_.back().ns;
    }

    void note(const std::string& key, const std::string& value) { notes_.push_back({key, value}); }

    // With pairing, the last column is the paired ratio with its interquartile range, e.g.
    // "1.031 [1.012, 1.049]"; the ratio of medians stays beside it for comparison.
    void print() const {
        for (const auto& entry : notes_) std::printf("%s: %s\n", entry.first.c_str(), entry.second.c_str());
        bool paired = pairing_ == Pairing::by_repetition;
        std::printf("\n%-22s %-30s %12s %12s %12s %10s%s\n", "case", "variant", "median ns", "min ns", "max ns",
                    "ratio of", paired ? "  paired ratio [IQR]" : "");
        std::printf("%-22s %-30s %12s %12s %12s %10s%s\n", "", "", "", "", "", "medians",
                    paired ? "  median of per-rep ratios" : "");
        for (const Result& result : results_) {
            std::printf("%-22s %-30s %12.1f %12.1f %12.1f %10.3f", result.case_name.c_str(), result.variant.c_str(),
                        median(result.ns), quantile(result.ns, 0.0), quantile(result.ns, 1.0), ratio_of_medians(result));
            if (paired) {
                PairedRatio r = paired_ratio(result);
                if (r.valid) std::printf("  %.3f [%.3f, %.3f]", r.median, r.q1, r.q3);
                else std::printf("  n/a (unpaired samples)");
            }
            std::printf("\n");
        }
    }

    // {"benchmark": ..., "pairing": "none" | "by_repetition", "notes": {...}, "results": [{"case",
    //  "variant", "median_ns", "min_ns", "max_ns", "ratio_to_baseline" (ratio of medians),
    //  ["paired_ratio_median", "paired_ratio_q1", "paired_ratio_q3",] "samples_ns": [...]}, ...]};
    //  the paired fields appear with pairing, null where the samples are not paired. Returns false
    //  when the file cannot be written.
    bool write_json(const char* path) const {
        FILE* file = std::fopen(path, "w");
        if (file == nullptr) return false;
        bool paired = pairing_ == Pairing::by_repetition;
        std::fprintf(file, "{\n  \"benchmark\": \"%s\",\n  \"pairing\": \"%s\",\n  \"notes\": {",
                     benchmark_.c_str(), paired ? "by_repetition" : "none");
        for (size_t i = 0; i < notes_.size(); ++i)
            std::fprintf(file, "%s\n    \"%s\": \"%s\"", i ? "," : "", notes_[i].first.c_str(), notes_[i].second.c_str());
        std::fprintf(file, "\n  },\n  \"results\": [");
        for (size_t i = 0; i < results_.size(); ++i) {
            const Result& result = results_[i];
            std::fprintf(file,
                         "%s\n    {\"case\": \"%s\", \"variant\": \"%s\", \"median_ns\": %.2f, \"min_ns\": %.2f, "
                         "\"max_ns\": %.2f, \"ratio_to_baseline\": %.4f, ",
                         i ? "," : "", result.case_name.c_str(), result.variant.c_str(), median(result.ns),
                         quantile(result.ns, 0.0), quantile(result.ns, 1.0), ratio_of_medians(result));
            if (paired) {
                PairedRatio r = paired_ratio(result);
                if (r.valid)
                    std::fprintf(file,
                                 "\"paired_ratio_median\": %.4f, \"paired_ratio_q1\": %.4f, "
                                 "\"paired_ratio_q3\": %.4f, ",
                                 r.median, r.q1, r.q3);
                else
                    std::fprintf(file, "\"paired_ratio_median\": null, \"paired_ratio_q1\": null, "
                                       "\"paired_ratio_q3\": null, ");
            }
            std::fprintf(file, "\"samples_ns\": [");
            for (size_t j = 0; j < result.ns.size(); ++j) std::fprintf(file, "%s%.2f", j ? ", " : "", result.ns[j]);
            std::fprintf(file, "]}");
        }
        std::fprintf(file, "\n  ]\n}\n");
        return std::fclose(file) == 0;
    }

private:
    const Result* baseline_of(const Result& result) const {
        for (const Result& baseline : results_)
            if (baseline.case_name == result.case_name) return &baseline;
        return nullptr;
    }

    double ratio_of_medians(const Result& result) const {
        const Result* baseline = baseline_of(result);
        double base = baseline != nullptr ? median(baseline->ns) : 0.0;
        return base > 0 ? median(result.ns) / base : 0.0;
    }

    PairedRatio paired_ratio(const Result& result) const {
        PairedRatio out;
        const Result* baseline = baseline_of(result);
        if (baseline == nullptr || baseline->ns.size() != result.ns.size() || result.ns.empty()) return out;
        std::vector<double> ratios;
        ratios.reserve(result.ns.size());
        for (size_t i = 0; i < result.ns.size(); ++i)
            if (baseline->ns[i] > 0) ratios.push_back(result.ns[i] / baseline->ns[i]);
        if (ratios.size() != result.ns.size()) return out;  // a zero-time baseline repetition: no ratio
        out.valid = true;
        out.median = median(ratios);
        out.q1 = quantile(ratios, 0.25);
        out.q3 = quantile(ratios, 0.75);
        return out;
    }

    std::string benchmark_;
    Pairing pairing_;
    std::vector<std::pair<std::string, std::string>> notes_;
    std::vector<Result> results_;
};

}  // namespace bench
