// What cuabi's NVTX ranges cost when no profiler is attached: a validated
// cuabi_launch, and a user push/pop pair, with ranges on (the default) and off (CUABI_NVTX=0).
//
// CUABI_NVTX is read once per process, so each measurement runs in a child process of this
// binary; the two settings alternate for several rounds so that clock and thermal drift hit both
// alike, and the median of each is compared with the spread between rounds of the same setting.
// Children run with NVTX_INJECTION64_PATH removed from the environment: no profiler attached.
//
//   bench_ranges [--rounds N]        the comparison (default 5 rounds per setting)
//   bench_ranges --child             one measurement, as "name value" lines (used internally)
//
// Launches are timed in batches of 256 on a stream, with the synchronization between batches left
// out, so the figure is what the calling thread pays per launch, not how fast the GPU drains the
// queue. Without a GPU the launch part is skipped and the push/pop part still runs.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cuabi/cuabi.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double nanoseconds(Clock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n == 0 ? 0.0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// --- the child: one measurement -------------------------------------------------------------

double push_pop_ns() {
    constexpr int kPairs = 1000000;
    Clock::time_point start = Clock::now();
    for (int i = 0; i < kPairs; ++i) {
        cuabi_range_push("bench", nullptr);
        cuabi_range_pop();
    }
    return nanoseconds(Clock::now() - start) / kPairs;
}

struct Gpu {
    cuabi_context* context = nullptr;
    cuabi_module* module = nullptr;
    cuabi_kernel* kernel = nullptr;
    cuabi_stream* stream = nullptr;
    ~Gpu() {
        cuabi_stream_destroy(stream);
        cuabi_kernel_destroy(kernel);
        cuabi_module_destroy(module);
        cuabi_context_destroy(context);
    }
};

// ns per cuabi_launch of a 4-argument kernel, or a negative value (and a reason) without a GPU.
double launch_ns(std::string* why_not) {
    int32_t devices = 0;
    Gpu gpu;
    const char* source = "extern \"C\" __global__ void add(float* y, const float* x, float a, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i];\n}\n";
    if (cuabi_device_get_count(&devices) != CUABI_SUCCESS || cuabi_context_create(nullptr, &gpu.context) != CUABI_SUCCESS ||
        cuabi_module_compile(gpu.context, source, nullptr, &gpu.module) != CUABI_SUCCESS ||
        cuabi_module_get_kernel(gpu.module, "add", &gpu.kernel) != CUABI_SUCCESS ||
        cuabi_stream_create(gpu.context, nullptr, &gpu.stream) != CUABI_SUCCESS) {
        *why_not = cuabi_last_error_message();
        return -1;
    }
    uint64_t address = 0;  // n = 0: the kernel touches no memory, so no buffer is needed
    float a = 2.0f;
    int32_t n = 0;
    cuabi_kernel_arg args[] = {{&address, sizeof address}, {&address, sizeof address}, {&a, sizeof a}, {&n, sizeof n}};
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    config.stream = gpu.stream;
    constexpr int kBatch = 256, kBatches = 400;
    double total = 0;
    for (int batch = -10; batch < kBatches; ++batch) {  // the first 10 batches warm up
        Clock::time_point start = Clock::now();
        for (int i = 0; i < kBatch; ++i) {
            if (cuabi_launch(gpu.kernel, &config, args, 4) != CUABI_SUCCESS) {
                *why_not = cuabi_last_error_message();
                return -1;
            }
        }
        Clock::duration elapsed = Clock::now() - start;
        if (batch >= 0) total += nanoseconds(elapsed);
        cuabi_stream_synchronize(gpu.stream);
    }
    return total / (static_cast<double>(kBatch) * kBatches);
}

int child() {
    std::printf("ranges_enabled %u\nprofiler_attached %u\n", cuabi_range_get_enabled(), cuabi_range_get_profiler_attached());
    std::printf("push_pop_ns %.2f\n", push_pop_ns());
    std::string why_not;
    double launch = launch_ns(&why_not);
    if (launch < 0)
        std::printf("launch_skipped %s\n", why_not.c_str());
    else
        std::printf("launch_ns %.2f\n", launch);
    return 0;
}

// --- the parent: alternate the settings, compare --------------------------------------------

// Runs this binary with --child under `nvtx_setting` (nullptr: CUABI_NVTX unset) and parses its
// "name value" lines.
std::map<std::string, std::string> run_child(const char* self, const char* nvtx_setting) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string entry = *e;
        if (entry.rfind("CUABI_NVTX=", 0) == 0 || entry.rfind("NVTX_INJECTION64_PATH=", 0) == 0) continue;
        env.push_back(entry);
    }
    if (nvtx_setting != nullptr) env.push_back(std::string("CUABI_NVTX=") + nvtx_setting);
    std::vector<char*> envp;
    for (std::string& entry : env) envp.push_back(&entry[0]);
    envp.push_back(nullptr);
    int pipe_fds[2];
    std::map<std::string, std::string> values;
    if (pipe(pipe_fds) != 0) return values;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    char child_flag[] = "--child";
    char* argv[] = {const_cast<char*>(self), child_flag, nullptr};
    pid_t pid = 0;
    int spawned = posix_spawn(&pid, self, &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    std::string output;
    char buffer[4096];
    ssize_t got = 0;
    while ((got = read(pipe_fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<size_t>(got));
    close(pipe_fds[0]);
    if (spawned != 0) return values;
    int status = 0;
    waitpid(pid, &status, 0);
    size_t at = 0;
    while (at < output.size()) {
        size_t end = output.find('\n', at);
        if (end == std::string::npos) end = output.size();
        std::string line = output.substr(at, end - at);
        size_t space = line.find(' ');
        if (space != std::string::npos) values[line.substr(0, space)] = line.substr(space + 1);
        at = end + 1;
    }
    return values;
}

void report(const char* what, const std::vector<double>& on, const std::vector<double>& off) {
    if (on.empty() || off.empty()) return;
    auto spread = [](const std::vector<double>& v) {
        return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
    };
    double on_median = median(on), off_median = median(off);
    std::printf("%-22s %12.1f %12.1f %8.3f %10.1f %10.1f\n", what, on_median, off_median, on_median / off_median,
                spread(on), spread(off));
}

int parent(const char* self, int rounds) {
    std::vector<double> launch_on, launch_off, push_on, push_off;
    std::string skipped;
    for (int round = 0; round < rounds; ++round) {
        for (const char* setting : {static_cast<const char*>(nullptr), "0"}) {
            std::map<std::string, std::string> values = run_child(self, setting);
            if (values.count("push_pop_ns") == 0) {
                std::fprintf(stderr, "bench_ranges: a child run failed\n");
                return 1;
            }
            bool on = setting == nullptr;
            if (values["profiler_attached"] != "0") {
                std::fprintf(stderr, "bench_ranges: a profiler is attached; this measures the unprofiled cost\n");
                return 1;
            }
            (on ? push_on : push_off).push_back(std::atof(values["push_pop_ns"].c_str()));
            if (values.count("launch_ns"))
                (on ? launch_on : launch_off).push_back(std::atof(values["launch_ns"].c_str()));
            else
                skipped = values["launch_skipped"];
        }
    }
    std::printf("NVTX ranges, no profiler attached: on (default) vs off (CUABI_NVTX=0), %d rounds each\n", rounds);
    std::printf("%-22s %12s %12s %8s %10s %10s\n", "ns per call (median)", "ranges on", "ranges off", "on/off",
                "spread on", "spread off");
    report("cuabi_launch (4 args)", launch_on, launch_off);
    report("user push + pop", push_on, push_off);
    if (launch_on.empty()) std::printf("cuabi_launch: skipped (%s)\n", skipped.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--child") == 0) return child();
    int rounds = 5;
    if (argc == 3 && std::strcmp(argv[1], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[2]));
    else if (argc != 1) {
        std::fprintf(stderr, "usage: %s [--rounds N]\n", argv[0]);
        return 2;
    }
    return parent("/proc/self/exe", rounds);
}
