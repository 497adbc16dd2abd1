// Entry points of the "Compile batches" group of cuabi.h: every request's arguments are checked
// before anything starts, then compile/compile_batch.hpp runs them.
#include <memory>
#include <vector>

#include "api/arguments.hpp"
#include "api/compile_options.hpp"
#include "api/guard.hpp"
#include "compile/compile_batch.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

namespace {

Status check_requests(const cuabi_compile_request* requests, size_t count) {
    if (requests == nullptr && count > 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an array of count cuabi_compile_request, or count 0",
                    "cuabi_compile_batch_start: requests is NULL and count is %zu", count);
    if (count > CUABI_COMPILE_BATCH_MAX_REQUESTS)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "split the requests into batches of at most CUABI_COMPILE_BATCH_MAX_REQUESTS",
                    "cuabi_compile_batch_start: count is %zu; at most %u requests (CUABI_COMPILE_BATCH_MAX_REQUESTS) "
                    "fit one batch",
                    count, CUABI_COMPILE_BATCH_MAX_REQUESTS);
    return CUABI_SUCCESS;
}

// Request `index`'s arguments, checked, into *out (the batch copies what it keeps).
Status take_request(const cuabi_compile_request& request, BatchRequestView* out) {
    Status status = require_pointer(request.source, "source");
    if (status == CUABI_SUCCESS) status = read_compile_options(request.options, &out->options);
    if (status != CUABI_SUCCESS) return status;
    if (request.context != nullptr) {
        out->context = acquire<Context>(request.context, "context");
        if (!out->context) return refused_handle();
    }
    out->source = request.source;
    return CUABI_SUCCESS;
}

Status name_refused_request(Status status, size_t index, size_t count) {
    const std::string message =
        format("cuabi_compile_batch_start request %zu of %zu: %s", index, count, last_error_message());
    return fail_again(status, message, last_cu_result());
}

Status check_index(const CompileBatch& batch, size_t index) {
    if (index < batch.size()) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an index below cuabi_compile_batch_get_count()",
                "index %zu is past the batch's %zu request%s", index, batch.size(), batch.size() == 1 ? "" : "s");
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_compile_batch_start(const cuabi_compile_request* requests, size_t count, uint32_t jobs,
                                                 cuabi_compile_batch** out_batch) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_batch, "out_batch");
    if (status == CUABI_SUCCESS) status = check_requests(requests, count);
    if (status != CUABI_SUCCESS) return status;
    std::vector<BatchRequestView> taken(count);
    for (size_t i = 0; i < count; ++i)
        if ((status = take_request(requests[i], &taken[i])) != CUABI_SUCCESS)
            return name_refused_request(status, i, count);
    std::shared_ptr<CompileBatch> batch;
    status = CompileBatch::start(taken, jobs, &batch);
    return publish_created(status, std::move(batch), out_batch);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_compile_batch_get_count(cuabi_compile_batch* batch, size_t* out_count) try {
    return get_value<CompileBatch>(batch, "batch", out_count, "out_count", [](CompileBatch& read) { return read.size(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_compile_batch_get_state(cuabi_compile_batch* batch, size_t index, int32_t* out_state,
                                                     cuabi_status* out_status) try {
    Status status = require_pointer(out_state, "out_state");
    if (status == CUABI_SUCCESS) status = require_pointer(out_status, "out_status");
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<CompileBatch>(batch, "batch", [&](CompileBatch& read) {
        Status checked = check_index(read, index);
        if (checked == CUABI_SUCCESS) read.progress(index, out_state, out_status);
        return checked;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_compile_batch_get_module(cuabi_compile_batch* batch, size_t index,
                                                      cuabi_module** out_module) try {
    Status status = require_pointer(out_module, "out_module");
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<CompileBatch> owner = acquire<CompileBatch>(batch, "batch");
    if (!owner) return refused_handle();
    if ((status = check_index(*owner, index)) != CUABI_SUCCESS) return status;
    std::shared_ptr<Module> module;
    status = owner->result(index, &module);
    return publish_created(status, std::move(module), out_module);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_compile_batch_cancel(cuabi_compile_batch* batch) try {
    return with_pinned<CompileBatch>(batch, "batch", [](CompileBatch& read) {
        read.cancel();
        return CUABI_SUCCESS;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API void cuabi_compile_batch_destroy(cuabi_compile_batch* batch) try {
    // Cancelled first, so that a thread waiting in cuabi_compile_batch_get_module returns soon and
    // the batch's threads end before it is released.
    if (std::shared_ptr<CompileBatch> owner = acquire<CompileBatch>(batch, nullptr)) owner->cancel();
    destroy_any_handle(batch, HandleType::CompileBatch);
} catch (...) {
    guard::swallowed();
}

}  // extern "C"
