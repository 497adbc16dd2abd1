#include "compile/link_worker.hpp"

#include <algorithm>

#include "compile/compile_log.hpp"
#include "compile/worker_protocol.hpp"
#include "core/child_process.hpp"
#include "driver/nvjitlink_api.hpp"

namespace cuabi {
namespace {

// How long a worker whose socket closed gets to be reaped on its own, so that its crash is
// reported as its own signal rather than as the kill that follows (as compile_worker.cpp).
constexpr int kCrashGraceMs = 2000;
constexpr uint64_t kBudgetGraceMs = 1000;

Status fail_worker(const std::string& what, const char* fix) {
    return fail(CUABI_ERROR_INTERNAL, fix, "the link worker %s; this process is unharmed", what.c_str());
}

}  // namespace

Status link_in_worker(const LinkJob& job, const Deadline& deadline, cache::CachedImage* out, std::string* out_log) {
    worker::LinkRequest request{job, 0};
    if (deadline.at_ms != frames::kNoDeadline)
        request.budget_ms =
            static_cast<uint64_t>(std::max<int64_t>(deadline.at_ms - frames::now_ms(), 1)) + kBudgetGraceMs;
    const std::vector<uint8_t> frame = worker::encode(request);
    std::string why;
    std::string path = compile_worker_path(&why);
    ChildProcess child;
    if (path.empty() || !spawn_child(path, {"--nvjitlink", nvjitlink_location().path}, &child, &why))
        return fail(CUABI_ERROR_INTERNAL,
                    "reinstall cuabi (the worker belongs in <libdir>/cuabi/ beside libcuabi.so), point "
                    "CUABI_COMPILE_WORKER at it, or link in this process with CUABI_LINK_IN_PROCESS",
                    "the link worker could not be started: %s", why.c_str());
    frames::Io io = frames::send_frame(child.fd, frame, deadline.at_ms);
    std::vector<uint8_t> answer;
    if (io == frames::Io::Ok) io = frames::receive_frame(child.fd, &answer, deadline.at_ms, frames::kMaxFrameBytes);
    worker::Outcome outcome;
    uint32_t sent_status = 0;
    if (io == frames::Io::Ok && worker::decode(answer, &outcome, &sent_status)) {
        end_child(&child, false, kCrashGraceMs);
        *out_log = std::move(outcome.log);
        if (outcome.status != CUABI_SUCCESS) return fail_as_recorded(outcome.status, 0, outcome.message);
        *out = std::move(outcome.image);
        return CUABI_SUCCESS;
    }
    if (io == frames::Io::TimedOut) {
        end_child(&child, true, 0);
        return fail(CUABI_ERROR_TIMEOUT,
                    "raise cuabi_link_options.timeout_ms (or CUABI_COMPILE_TIMEOUT_MS) for a link this long",
                    "nvJitLink was still linking for %s when %s passed (the link worker was stopped)",
                    job.target.c_str(), deadline.describe().c_str());
    }
    if (io == frames::Io::Closed)
        return fail_worker(format("%s while nvJitLink linked for %s", describe(end_child(&child, false, kCrashGraceMs)).c_str(),
                                  job.target.c_str()),
                           "nvJitLink itself failed on these inputs: update nvJitLink, or debug it in this process "
                           "with CUABI_LINK_IN_PROCESS");
    std::string death = describe(end_child(&child, true, 0));
    return fail_worker(format("answered outside the protocol (%s, status %u) and was stopped: it %s",
                              io == frames::Io::Ok ? "an answer that does not decode" : "an unreadable answer",
                              sent_status, death.c_str()),
                       "reinstall cuabi: the worker must be the one built with this library");
}

}  // namespace cuabi
