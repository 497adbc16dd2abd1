// The user-range scenarios: push/pop and start/end through the public API, and their misuse.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "scenarios.hpp"

namespace scenario {

// Nested push/pop on the main thread and on 4 workers; start/end ranges that workers start and
// the main thread ends, and two that overlap without nesting.
void user() {
    std::printf("profiler attached: %u\n", cuabi_range_get_profiler_attached());
    expect(cuabi_range_push("frame", nullptr), CUABI_SUCCESS, "push frame");
    expect(cuabi_range_push("inner", "app"), CUABI_SUCCESS, "push inner");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop inner");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop frame");

    std::vector<cuabi_range*> jobs(4, nullptr);
    std::vector<std::thread> workers;
    for (size_t i = 0; i < jobs.size(); ++i) {
        workers.emplace_back([i, &jobs] {
            expect(cuabi_range_push("worker", nullptr), CUABI_SUCCESS, "push worker");
            std::string job = "job " + std::to_string(i);
            expect(cuabi_range_start(job.c_str(), "app", &jobs[i]), CUABI_SUCCESS, "start job");
            expect(cuabi_range_push("step", "app"), CUABI_SUCCESS, "push step");
            expect(cuabi_range_pop(), CUABI_SUCCESS, "pop step");
            expect(cuabi_range_pop(), CUABI_SUCCESS, "pop worker");
        });
    }
    for (std::thread& worker : workers) worker.join();
    for (cuabi_range* job : jobs) expect(cuabi_range_end(job), CUABI_SUCCESS, "end job on the main thread");

    cuabi_range* a = nullptr;
    cuabi_range* b = nullptr;
    expect(cuabi_range_start("overlap a", nullptr, &a), CUABI_SUCCESS, "start overlap a");
    expect(cuabi_range_start("overlap b", nullptr, &b), CUABI_SUCCESS, "start overlap b");
    expect(cuabi_range_end(a), CUABI_SUCCESS, "end overlap a");
    expect(cuabi_range_end(b), CUABI_SUCCESS, "end overlap b");
}

// Every misuse fails with its status and reaches no profiler; one valid range in between shows
// the recorder was listening.
void misuse() {
    expect(cuabi_range_pop(), CUABI_ERROR_RANGE, "pop with nothing pushed");
    expect(cuabi_range_push(nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "push NULL name");
    expect(cuabi_range_push("", nullptr), CUABI_ERROR_INVALID_ARGUMENT, "push empty name");
    expect(cuabi_range_push("bad \xC3\x28", nullptr), CUABI_ERROR_INVALID_ARGUMENT, "push invalid UTF-8");
    expect(cuabi_range_push("name", ""), CUABI_ERROR_INVALID_ARGUMENT, "push empty domain");
    cuabi_range* range = nullptr;
    expect(cuabi_range_start("\xFF", nullptr, &range), CUABI_ERROR_INVALID_ARGUMENT, "start invalid UTF-8");
    expect(cuabi_range_start("valid", nullptr, &range), CUABI_SUCCESS, "start valid");
    expect(cuabi_range_end(range), CUABI_SUCCESS, "end valid");
    expect(cuabi_range_end(range), CUABI_ERROR_INVALID_HANDLE, "end twice");
    expect(cuabi_range_end(nullptr), CUABI_ERROR_INVALID_HANDLE, "end NULL");
    expect(cuabi_range_pop(), CUABI_ERROR_RANGE, "pop after the failed pushes");
}

// 256 named domains are allowed; the 257th is refused, and reused names never count twice.
void domain_limit() {
    for (int i = 0; i < 256; ++i) {
        std::string domain = "domain " + std::to_string(i);
        expect(cuabi_range_push("r", domain.c_str()), CUABI_SUCCESS, "push in a new domain");
        expect(cuabi_range_pop(), CUABI_SUCCESS, "pop");
    }
    expect(cuabi_range_push("r", "domain 0"), CUABI_SUCCESS, "push in a known domain");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop");
    expect(cuabi_range_push("r", nullptr), CUABI_SUCCESS, "push in cuabi's domain");
    expect(cuabi_range_pop(), CUABI_SUCCESS, "pop");
    expect(cuabi_range_push("r", "one too many"), CUABI_ERROR_RANGE, "push in the 257th domain");
    std::printf("%s\n", cuabi_last_error_message());
}

}  // namespace scenario
