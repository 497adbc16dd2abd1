#include "compile/discovery.hpp"

#include <mutex>
#include <thread>

#include "cache/kernel_cache.hpp"
#include "compile/toolkit_headers.hpp"
#include "core/fork.hpp"
#include "driver/nvrtc_api_locate.hpp"

namespace cuabi {
namespace discovery {
namespace {

struct Search {
    std::mutex mutex;
    std::thread thread;
    bool started = false;

    // At exit or dlclose: the thread must not outlive the code it runs.
    ~Search() { finish(); }
    void finish() noexcept {
        std::lock_guard<std::mutex> lock(mutex);
        if (thread.joinable()) thread.join();
    }
};

Search& search() {
    static Search instance;
    return instance;
}

void run() noexcept {
    try {
        (void)nvrtc_location();
        (void)toolkit_headers();
        cache::KernelCache::instance().open_existing_disk();
    } catch (...) {
        // Allocation failure: the first compile searches again and reports what it finds.
    }
}

}  // namespace

void start() noexcept {
    Search& state = search();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.started) return;
    state.started = true;
    // A fork() child must never wait on a search this thread left half-done in its copy of
    // memory: from here on this process counts as having used cuabi, so its children are refused.
    fork_state::note_use();
    try {
        state.thread = std::thread(run);
    } catch (...) {
        // No thread (a process limit, no memory): the first compile searches itself.
    }
}

void finish() noexcept { search().finish(); }

}  // namespace discovery
}  // namespace cuabi
