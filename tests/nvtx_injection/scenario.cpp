// The child process of the NVTX injection tests: runs one scenario through cuabi's public API
// while the recorder (if injected) writes down every NVTX call. Exits 0 when every cuabi call
// returned what the scenario expects, 1 otherwise (saying which), 2 for an unknown scenario.
//
//   cuabi_nvtx_scenario user | misuse | domain-limit | compile | compile-disk-hit | cache-prune |
//                       driver | launch | graph
#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "scenarios.hpp"

namespace scenario {

namespace {
std::atomic<int> failures{0};  // workers of the user scenario report too
}

void expect(cuabi_status got, cuabi_status want, const char* what) {
    if (got == want) return;
    ++failures;
    std::printf("FAIL %s: got %s, want %s: %s\n", what, cuabi_status_name(got), cuabi_status_name(want),
                got == CUABI_SUCCESS ? "" : cuabi_last_error_message());
}

int run(const std::string& name) {
    const std::map<std::string, void (*)()> scenarios = {
        {"user", user},       {"misuse", misuse}, {"domain-limit", domain_limit}, {"compile", compile},
        {"compile-disk-hit", compile_disk_hit},   {"cache-prune", cache_prune},   {"driver", driver},
        {"launch", launch},                       {"graph", graph},             {"launch-batch", launch_batch},
    };
    auto found = scenarios.find(name);
    if (found == scenarios.end()) {
        std::fprintf(stderr, "unknown scenario '%s'\n", name.c_str());
        return 2;
    }
    found->second();
    return failures == 0 ? 0 : 1;
}

}  // namespace scenario

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr,
                     "usage: %s user|misuse|domain-limit|compile|compile-disk-hit|cache-prune|driver|launch|graph\n",
                     argv[0]);
        return 2;
    }
    return scenario::run(argv[1]);
}
