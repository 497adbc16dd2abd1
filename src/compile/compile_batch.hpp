// A batch of compile requests, compiled in parallel. Its memory hits are served when it starts, in
// the starting thread (no thread, no worker); the rest go to a few threads of the batch's own,
// each of which takes the next request and compiles it through compile() -- so every request is
// single-flighted with every other compile of the process and runs NVRTC on the worker pool,
// which bounds how many run at once ($CUABI_COMPILE_WORKERS).
//
// Each request ends with its own module or its own status, message, nvrtcResult and compile log,
// kept until the batch is destroyed. Its state (queued, compiling, done) can be read from any
// thread at any time. A cancel ends every request not done yet with CUABI_ERROR_CANCELLED
// (compile_cancel.hpp); destroying the batch cancels it and waits for its threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compile/compile_cancel.hpp"
#include "compile/module.hpp"
#include "compile/owned_compile_options.hpp"
#include "core/handle_table.hpp"
#include "device/context.hpp"

namespace cuabi {

// One request as the caller gave it: views, valid during the start call only.
struct BatchRequestView {
    const char* source = nullptr;
    CompileOptions options;             // checked (check_compile_options)
    std::shared_ptr<Context> context;   // NULL: offline, for options.target
};

// A request that missed the memory cache, owning copies of everything it needs.
struct BatchRequest {
    std::string source;
    std::unique_ptr<OwnedCompileOptions> options;
    std::shared_ptr<Context> context;
};

class CompileBatch final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::CompileBatch;

    // Serves the memory hits from the caller's views (nothing copied), copies the rest and starts
    // min(`jobs` (0: no limit), the worker limit, the requests left) threads for them. Fails only
    // when no thread can be started (then nothing runs) or as compile_workers_limit() for a
    // $CUABI_COMPILE_WORKERS it refuses, when any request missed.
    static Status start(const std::vector<BatchRequestView>& requests, uint32_t jobs,
                        std::shared_ptr<CompileBatch>* out);
    ~CompileBatch() override;  // cancels, then waits for the threads

    size_t size() const;
    // Request `index`'s CUABI_REQUEST_* state and, once done, its status (CUABI_SUCCESS before).
    void progress(size_t index, int32_t* out_state, Status* out_status) const;
    // Waits until request `index` is done; then its module, or its failure recorded on this
    // thread as its own (message, nvrtcResult), and its compile log as this thread's last.
    Status result(size_t index, std::shared_ptr<Module>* out);
    void cancel();

    struct Shared;
    explicit CompileBatch(std::shared_ptr<Shared> shared);

private:
    std::shared_ptr<Shared> shared_;
    std::vector<std::thread> threads_;
};

}  // namespace cuabi
