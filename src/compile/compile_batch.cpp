#include "compile/compile_batch.hpp"

#include <algorithm>
#include <system_error>

#include "compile/compile_log.hpp"
#include "compile/compile_worker.hpp"

namespace cuabi {

// What a request ended with.
struct Ending {
    Status status = CUABI_SUCCESS;
    std::string message;
    int32_t nvrtc_result = 0;
    std::shared_ptr<const std::string> log;
    std::shared_ptr<Module> module;
};

struct CompileBatch::Shared {
    std::vector<BatchRequest> requests;
    std::unique_ptr<std::atomic<int32_t>[]> states;    // CUABI_REQUEST_*
    std::unique_ptr<std::atomic<int32_t>[]> statuses;  // written before the state becomes DONE
    std::vector<Ending> endings;                       // written once, under mutex, before DONE
    std::vector<size_t> pending;                       // the requests that missed the memory cache
    std::atomic<size_t> next{0};                       // the next of `pending` to take
    CompileCancel cancel;
    mutable std::mutex mutex;
    std::condition_variable done;

    explicit Shared(size_t count)
        : requests(count),
          states(new std::atomic<int32_t>[count]),
          statuses(new std::atomic<int32_t>[count]),
          endings(count) {
        for (size_t i = 0; i < requests.size(); ++i) {
            states[i].store(CUABI_REQUEST_QUEUED, std::memory_order_relaxed);
            statuses[i].store(CUABI_SUCCESS, std::memory_order_relaxed);
        }
    }

    // Compiles request `index` (`source`, `options`, `context`) on this thread; with
    // memory_only, false when it missed.
    bool run(size_t index, const char* source, const CompileOptions& options, const std::shared_ptr<Context>& context,
             bool memory_only) {
        set_last_compile_log(nullptr);  // this thread's log from an earlier request is not this one's
        CompileControl control;
        control.cancel = &cancel;
        control.memory_only = memory_only;
        std::shared_ptr<Module> module;
        Status status = context ? Module::compile(context, source, options, &module, control)
                                : Module::compile_offline(source, options, &module, control);
        if (status == CUABI_SUCCESS && module == nullptr) return false;
        std::lock_guard<std::mutex> lock(mutex);
        if (states[index].load(std::memory_order_relaxed) == CUABI_REQUEST_DONE) return true;  // cancelled meanwhile
        Ending ending;
        ending.status = status;
        ending.log = last_compile_log_shared();
        if (status == CUABI_SUCCESS) {
            ending.module = std::move(module);
        } else {
            ending.message = last_error_message();
            ending.nvrtc_result = last_nvrtc_result();
        }
        finish(index, std::move(ending));
        return true;
    }

    // With `mutex` held.
    void finish(size_t index, Ending ending) {
        statuses[index].store(ending.status, std::memory_order_relaxed);
        endings[index] = std::move(ending);
        states[index].store(CUABI_REQUEST_DONE, std::memory_order_release);
        done.notify_all();
    }

    // Every request not done ends now, cancelled: a waiter need not wait for the killed worker to
    // be reaped, nor for a thread to notice. The threads finish in the background.
    void cancel_all() {
        cancel.cancel();
        std::lock_guard<std::mutex> lock(mutex);
        for (size_t i = 0; i < requests.size(); ++i) {
            const int32_t state = states[i].load(std::memory_order_relaxed);
            if (state == CUABI_REQUEST_DONE) continue;
            Ending ending;
            ending.status = CUABI_ERROR_CANCELLED;
            ending.message = cancelled_message(program_name(requests[i].options->get()),
                                               state == CUABI_REQUEST_QUEUED ? "it was queued"
                                                                             : "it was being compiled (its compile "
                                                                               "worker, if one ran it, was killed)");
            finish(i, std::move(ending));
        }
    }

    // A thread of the batch: the pending requests, one after another, until none is left.
    void work() {
        for (size_t taken; (taken = next.fetch_add(1, std::memory_order_relaxed)) < pending.size();) {
            int32_t queued = CUABI_REQUEST_QUEUED;  // a cancelled request is done already: skipped
            const size_t index = pending[taken];
            const BatchRequest& request = requests[index];
            if (states[index].compare_exchange_strong(queued, CUABI_REQUEST_COMPILING, std::memory_order_acq_rel))
                run(index, request.source.c_str(), request.options->get(), request.context, /*memory_only=*/false);
        }
    }
};

CompileBatch::CompileBatch(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

CompileBatch::~CompileBatch() {
    shared_->cancel_all();
    for (std::thread& thread : threads_) thread.join();
}

Status CompileBatch::start(const std::vector<BatchRequestView>& requests, uint32_t jobs,
                           std::shared_ptr<CompileBatch>* out) {
    auto shared = std::make_shared<Shared>(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
        const BatchRequestView& view = requests[i];
        if (shared->run(i, view.source, view.options, view.context, /*memory_only=*/true)) continue;
        BatchRequest& kept = shared->requests[i];
        kept.source = view.source;
        kept.options = std::make_unique<OwnedCompileOptions>(view.options);
        kept.context = view.context;
        shared->pending.push_back(i);
    }
    auto batch = std::make_shared<CompileBatch>(shared);
    if (!shared->pending.empty()) {
        uint32_t limit = 0;
        Status status = compile_workers_limit(&limit);
        if (status != CUABI_SUCCESS) return status;
        size_t threads = std::min<size_t>(shared->pending.size(), limit);
        if (jobs != 0) threads = std::min<size_t>(threads, jobs);
        try {
            while (batch->threads_.size() < threads) batch->threads_.emplace_back([shared] { shared->work(); });
        } catch (const std::system_error& error) {
            // Fewer threads only compile more slowly; none cannot compile at all.
            if (batch->threads_.empty())
                return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY,
                            "lower the process's thread count or raise its limit (ulimit -u), then start the batch again",
                            "no thread could be started for a batch of %zu requests that missed the memory cache (%s)",
                            shared->pending.size(), error.what());
        }
    }
    *out = std::move(batch);
    return CUABI_SUCCESS;
}

size_t CompileBatch::size() const { return shared_->requests.size(); }

void CompileBatch::progress(size_t index, int32_t* out_state, Status* out_status) const {
    *out_state = shared_->states[index].load(std::memory_order_acquire);
    *out_status = *out_state == CUABI_REQUEST_DONE ? shared_->statuses[index].load(std::memory_order_relaxed)
                                                    : CUABI_SUCCESS;
}

Status CompileBatch::result(size_t index, std::shared_ptr<Module>* out) {
    std::unique_lock<std::mutex> lock(shared_->mutex);
    shared_->done.wait(lock, [&] { return shared_->states[index].load(std::memory_order_acquire) == CUABI_REQUEST_DONE; });
    const Ending& ending = shared_->endings[index];
    set_last_compile_log(ending.log);
    if (ending.status != CUABI_SUCCESS) return fail_as_recorded(ending.status, ending.nvrtc_result, ending.message);
    *out = ending.module;
    return CUABI_SUCCESS;
}

void CompileBatch::cancel() { shared_->cancel_all(); }

}  // namespace cuabi
