// What the Redis remote tier (docs/cache.md, "Remote tier") saves a fleet, on the CPU alone:
//   - a cold start of N nodes (separate processes, separate cache directories, one localhost
//     redis-server, CUABI_CACHE_REMOTE_MODE=readwrite) on the same K kernels, all starting at
//     once: the NVRTC runs of all nodes together (the remote's leases make it K);
//   - a new node warming from Redis: each kernel's compile call in a fresh process with an empty
//     cache directory (fetch, verify, write to the local disk; module load excluded: compiles are
//     offline), against the same process warming with CUABI_CACHE_DISABLE=1 (no local write), and
//     against a fresh process hitting its own disk.
//
//   bench_remote [--nodes N] [--kernels K]        defaults: 16 nodes, 20 kernels
//
// Needs redis-server ($CUABI_REDIS_SERVER or on PATH) and cuabi-cache-remote beside libcuabi.
// Per-kernel times exclude each process's first kernel (it starts the remote helper); medians.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"

extern char** environ;

namespace {

std::string kernel_source(int index) {
    return "extern \"C\" __global__ void remote_bench" + std::to_string(index) + "(float* x) { x[threadIdx.x] += " +
           std::to_string(index) + ".25f; }\n";
}

// The node: waits for `go`, compiles kernels [0, count), prints "compiles=N" and each time in µs.
int node(const char* go, int count) {
    struct stat info;
    while (stat(go, &info) != 0) usleep(500);
    std::string times;
    for (int i = 0; i < count; ++i) {
        std::string source = kernel_source(i);
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_TOOLKIT_INCLUDES;
        cuabi_module* module = nullptr;
        const auto start = bench::Clock::now();
        bench::check(cuabi_module_compile_offline(source.c_str(), &options, &module), "cuabi_module_compile_offline");
        times += " " + std::to_string(bench::nanoseconds(bench::Clock::now() - start) / 1000.0);
        cuabi_module_destroy(module);
    }
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    cuabi_cache_get_stats(&stats);
    printf("compiles=%llu\ntimes=%s\n", (unsigned long long)stats.compiles, times.c_str());
    return 0;
}

pid_t spawn(std::vector<std::string> args, const std::vector<std::string>& extra_env, int* out_fd) {
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) env.push_back(*entry);
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> argv, envp;
    for (auto& arg : args) argv.push_back(&arg[0]);
    argv.push_back(nullptr);
    for (auto& item : env) envp.push_back(&item[0]);
    envp.push_back(nullptr);
    int fds[2] = {-1, -1};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (out_fd != nullptr && pipe(fds) == 0) {
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", 1, 0);
    }
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) {
        fprintf(stderr, "bench_remote: cannot start %s\n", argv[0]);
        exit(1);
    }
    posix_spawn_file_actions_destroy(&actions);
    if (out_fd != nullptr) {
        close(fds[1]);
        *out_fd = fds[0];
    }
    return pid;
}

std::string collect(pid_t pid, int fd) {
    std::string output;
    char chunk[4096];
    ssize_t got;
    while ((got = read(fd, chunk, sizeof chunk)) > 0) output.append(chunk, static_cast<size_t>(got));
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_remote: a node failed:\n%s\n", output.c_str());
        exit(1);
    }
    return output;
}

long long compiles_of(const std::string& output) { return atoll(output.substr(output.find("compiles=") + 9).c_str()); }

std::vector<double> times_of(const std::string& output) {
    std::vector<double> times;
    const char* at = output.c_str() + output.find("times=") + 6;
    char* end = nullptr;
    for (double value = strtod(at, &end); end != at; value = strtod(at, &end)) {
        times.push_back(value);
        at = end;
    }
    return times;
}

bool redis_answers(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
              send(fd, "PING\r\n", 6, MSG_NOSIGNAL) == 6;
    char reply[8] = {};
    ok = ok && recv(fd, reply, 5, 0) == 5 && strncmp(reply, "+PONG", 5) == 0;
    close(fd);
    return ok;
}

// One node's warm-up from `url` into `directory`; per-kernel µs (without its first kernel).
std::vector<double> warm(const std::string& self, const std::string& url, const std::string& directory, int kernels,
                         const std::string& go, bool disk) {
    int fd = -1;
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + directory, "CUABI_CACHE_REMOTE=" + url};
    if (!disk) env.push_back("CUABI_CACHE_DISABLE=1");
    pid_t pid = spawn({self, "--node", go, std::to_string(kernels)}, env, &fd);
    std::string output = collect(pid, fd);
    if (compiles_of(output) != 0) fprintf(stderr, "bench_remote: a warming node ran NVRTC\n");
    std::vector<double> times = times_of(output);
    times.erase(times.begin());
    return times;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && strcmp(argv[1], "--node") == 0) return node(argv[2], atoi(argv[3]));
    int nodes = 16, kernels = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--nodes") == 0) nodes = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--kernels") == 0) kernels = atoi(argv[i + 1]);
    }
    char self[4096] = {};
    if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
    const char* server = getenv("CUABI_REDIS_SERVER");
    std::string redis = server != nullptr ? server : "/usr/bin/redis-server";
    char pattern[] = "/tmp/cuabi-bench-remote-XXXXXX";
    std::string directory = mkdtemp(pattern);
    const int port = 20000 + getpid() % 20000;
    pid_t redis_pid = spawn({redis, "--port", std::to_string(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--logfile", "/dev/null"},
                            {}, nullptr);
    for (int i = 0; i < 500 && !redis_answers(port); ++i) usleep(10000);
    const std::string url = "redis://127.0.0.1:" + std::to_string(port), go = directory + "/go";

    std::vector<std::pair<pid_t, int>> fleet;
    for (int n = 0; n < nodes; ++n) {
        int fd = -1;
        pid_t pid = spawn({self, "--node", go, std::to_string(kernels)},
                          {"CUABI_CACHE_DIR=" + directory + "/node" + std::to_string(n), "CUABI_CACHE_REMOTE=" + url,
                           "CUABI_CACHE_REMOTE_MODE=readwrite"},
                          &fd);
        fleet.emplace_back(pid, fd);
    }
    const auto start = bench::Clock::now();
    FILE* go_file = fopen(go.c_str(), "w");
    if (go_file != nullptr) fclose(go_file);
    long long nvrtc_runs = 0;
    for (auto& member : fleet) nvrtc_runs += compiles_of(collect(member.first, member.second));
    const double cold_s = bench::nanoseconds(bench::Clock::now() - start) / 1e9;

    std::vector<double> remote_disk = warm(self, url, directory + "/new-node", kernels, go, true);
    std::vector<double> remote_memory = warm(self, url, directory + "/new-node-memory", kernels, go, false);
    std::vector<double> own_disk = warm(self, url, directory + "/new-node", kernels, go, true);

    printf("cold start: %d nodes x %d kernels: NVRTC runs in all = %lld (%.2f s until the last node finished)\n", nodes,
           kernels, nvrtc_runs, cold_s);
    printf("new node warming from Redis (fetch + verify + local write), per kernel: median %.0f us, p90 %.0f us\n",
           bench::median(remote_disk), bench::quantile(remote_disk, 0.9));
    printf("  the same without the local write (CUABI_CACHE_DISABLE=1):          median %.0f us, p90 %.0f us\n",
           bench::median(remote_memory), bench::quantile(remote_memory, 0.9));
    printf("  a fresh process hitting its own disk:                              median %.0f us, p90 %.0f us\n",
           bench::median(own_disk), bench::quantile(own_disk, 0.9));
    kill(redis_pid, SIGKILL);
    waitpid(redis_pid, nullptr, 0);
    std::string remove = "rm -rf '" + directory + "'";
    return system(remove.c_str()) == 0 && nvrtc_runs == kernels ? 0 : 1;
}
