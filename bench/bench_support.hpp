// What the cuabi-versus-driver benchmarks share: timing, medians, a results table printed as
// ratios to the raw driver, and the same results as JSON for tools.
//
// A result is one (case, variant) pair, e.g. ("launch, 4 args", "cuabi_launch"), with one value
// per repetition in nanoseconds per operation; the first variant added for a case is its baseline
// (the raw driver call), and every variant's median is reported as a ratio to the baseline's.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuabi/cuabi.h"

namespace bench {

using Clock = std::chrono::steady_clock;

inline double nanoseconds(Clock::duration duration) {
    return std::chrono::duration<double, std::nano>(duration).count();
}

inline double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

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

struct Result {
    std::string case_name;
    std::string variant;
    std::vector<double> ns;  // one value per repetition
};

class Report {
public:
    explicit Report(std::string benchmark) : benchmark_(std::move(benchmark)) {}

    // The slot for (case, variant), created on first use; the first variant of a case is its baseline.
    std::vector<double>& values(const std::string& case_name, const std::string& variant) {
        for (Result& result : results_)
            if (result.case_name == case_name && result.variant == variant) return result.ns;
        results_.push_back({case_name, variant, {}});
        return results_.back().ns;
    }

    void note(const std::string& key, const std::string& value) { notes_.push_back({key, value}); }

    void print() const {
        for (const auto& entry : notes_) std::printf("%s: %s\n", entry.first.c_str(), entry.second.c_str());
        std::printf("\n%-22s %-28s %12s %12s %12s %8s\n", "case", "variant", "median ns", "min ns", "max ns", "ratio");
        for (const Result& result : results_) {
            std::vector<double> sorted = result.ns;
            std::sort(sorted.begin(), sorted.end());
            std::printf("%-22s %-28s %12.1f %12.1f %12.1f %8.3f\n", result.case_name.c_str(), result.variant.c_str(),
                        median(result.ns), sorted.empty() ? 0.0 : sorted.front(), sorted.empty() ? 0.0 : sorted.back(),
                        ratio(result));
        }
    }

    // {"benchmark": ..., "notes": {...}, "results": [{"case", "variant", "median_ns", "min_ns", "max_ns",
    //  "ratio_to_baseline", "samples_ns": [...]}, ...]}. Returns false when the file cannot be written.
    bool write_json(const char* path) const {
        FILE* file = std::fopen(path, "w");
        if (file == nullptr) return false;
        std::fprintf(file, "{\n  \"benchmark\": \"%s\",\n  \"notes\": {", benchmark_.c_str());
        for (size_t i = 0; i < notes_.size(); ++i)
            std::fprintf(file, "%s\n    \"%s\": \"%s\"", i ? "," : "", notes_[i].first.c_str(), notes_[i].second.c_str());
        std::fprintf(file, "\n  },\n  \"results\": [");
        for (size_t i = 0; i < results_.size(); ++i) {
            const Result& result = results_[i];
            std::vector<double> sorted = result.ns;
            std::sort(sorted.begin(), sorted.end());
            std::fprintf(file,
                         "%s\n    {\"case\": \"%s\", \"variant\": \"%s\", \"median_ns\": %.2f, \"min_ns\": %.2f, "
                         "\"max_ns\": %.2f, \"ratio_to_baseline\": %.4f, \"samples_ns\": [",
                         i ? "," : "", result.case_name.c_str(), result.variant.c_str(), median(result.ns),
                         sorted.empty() ? 0.0 : sorted.front(), sorted.empty() ? 0.0 : sorted.back(), ratio(result));
            for (size_t j = 0; j < result.ns.size(); ++j) std::fprintf(file, "%s%.2f", j ? ", " : "", result.ns[j]);
            std::fprintf(file, "]}");
        }
        std::fprintf(file, "\n  ]\n}\n");
        return std::fclose(file) == 0;
    }

private:
    double ratio(const Result& result) const {
        for (const Result& baseline : results_)
            if (baseline.case_name == result.case_name) {
                double base = median(baseline.ns);
                return base > 0 ? median(result.ns) / base : 0.0;
            }
        return 0.0;
    }

    std::string benchmark_;
    std::vector<std::pair<std::string, std::string>> notes_;
    std::vector<Result> results_;
};

}  // namespace bench
