// cuabi-compile-worker: NVRTC in its own process, so that an NVRTC crash or hang costs the
// program that uses cuabi a status, not its life (compile/compile_worker.hpp starts and talks to
// it). Not meant to be run by hand:
//
//   cuabi-compile-worker --nvrtc <libnvrtc path> --parent <pid>         socket on descriptor 3
//   cuabi-compile-worker --nvjitlink <libnvJitLink path> --parent <pid>
//
// It loads that NVRTC, says so (a Hello frame), then compiles one job per frame until its socket
// closes. Started with --nvjitlink it links instead: one LinkRequest, one Outcome, then it ends
// (compile/link_worker.hpp). It ends itself when its parent is gone or a job runs past its budget, also in the middle
// of NVRTC (core/parent_watchdog.hpp), and keeps no descriptor of the parent's but its socket
// (its standard streams are /dev/null: it must not keep the parent's stderr pipe open).
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "compile/link_job.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile/pch_worker.hpp"
#include "compile/worker_protocol.hpp"
#include "core/child_process.hpp"
#include "core/helper_side.hpp"
#include "core/parent_watchdog.hpp"
#include "driver/nvrtc_api.hpp"

namespace {

constexpr int kSocket = cuabi::kChildSocket;

cuabi::worker::Outcome compile(const cuabi::NvrtcApi& nvrtc, bool pch_ready, const std::vector<uint8_t>& frame) {
    cuabi::worker::Outcome outcome;
    cuabi::worker::Job compile;
    const cuabi::NvrtcJob& job = compile.job;
    try {
        if (!cuabi::worker::decode(frame, &compile)) {
            outcome.status = cuabi::fail(CUABI_ERROR_INTERNAL, "report this as a cuabi bug",
                                         "the compile worker received a malformed job of %zu bytes", frame.size());
        } else {
            cuabi::parent_watchdog::begin_job(compile.budget_ms);
            outcome.status = compile.pch_key.empty() || !pch_ready
                                 ? cuabi::run_nvrtc(nvrtc, job, &outcome.image, &outcome.log)
                                 : cuabi::run_nvrtc_with_pch(nvrtc, job, compile.pch_key, compile.pch_cache_directory,
                                                             &outcome.image, &outcome.log, &outcome.pch);
        }
    } catch (const std::bad_alloc&) {
        outcome.status = cuabi::fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory, or compile a smaller program",
                                     "the compile worker ran out of memory compiling '%s'", job.program_name.c_str());
    }
    cuabi::parent_watchdog::end_job();
    if (outcome.status != CUABI_SUCCESS) {
        outcome.message = cuabi::last_error_message();
        outcome.nvrtc_result = cuabi::last_nvrtc_result();
        outcome.image = cuabi::cache::CachedImage();
        outcome.pch = cuabi::PchReport();
    }
    return outcome;
}

// The one link of a worker started with --nvjitlink: nvJitLink is loaded only once the request
// is read, so that its budget covers loading it too.
int link_once() {
    std::vector<uint8_t> frame;
    if (cuabi::frames::receive_frame(kSocket, &frame, cuabi::frames::kNoDeadline, cuabi::frames::kMaxFrameBytes) !=
        cuabi::frames::Io::Ok)
        return 0;
    cuabi::worker::Outcome outcome;
    cuabi::worker::LinkRequest link;
    try {
        if (!cuabi::worker::decode(frame, &link)) {
            outcome.status = cuabi::fail(CUABI_ERROR_INTERNAL, "report this as a cuabi bug",
                                         "the link worker received a malformed job of %zu bytes", frame.size());
        } else {
            cuabi::parent_watchdog::begin_job(link.budget_ms);
            const cuabi::NvJitLinkApi* api = cuabi::nvjitlink(&outcome.status);
            if (api != nullptr) outcome.status = cuabi::run_nvjitlink(*api, link.job, &outcome.image, &outcome.log);
        }
    } catch (const std::bad_alloc&) {
        outcome.status = cuabi::fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory, or link fewer inputs",
                                     "the link worker ran out of memory linking for %s", link.job.target.c_str());
    }
    cuabi::parent_watchdog::end_job();
    if (outcome.status != CUABI_SUCCESS) {
        outcome.message = cuabi::last_error_message();
        outcome.image = cuabi::cache::CachedImage();
    }
    cuabi::frames::send_frame(kSocket, cuabi::worker::encode(outcome), cuabi::frames::kNoDeadline);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    cuabi::reexecute_with_fixed_layout(argc, argv);
    const char* nvrtc_path = nullptr;
    const char* nvjitlink_path = nullptr;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--nvrtc") == 0) nvrtc_path = argv[i + 1];
        if (std::strcmp(argv[i], "--nvjitlink") == 0) nvjitlink_path = argv[i + 1];
    }
    if ((nvrtc_path == nullptr) == (nvjitlink_path == nullptr)) return 2;
    pid_t parent = 0;
    if (int refused = cuabi::begin_helper(argc, argv, &parent)) return refused;
    if (!cuabi::parent_watchdog::start(kSocket, parent)) return 4;
    if (nvjitlink_path != nullptr) {
        // The nvJitLink the parent chose is the one loaded.
        if (*nvjitlink_path != '\0') setenv("CUABI_NVJITLINK_PATH", nvjitlink_path, 1);
        return link_once();
    }
    // The watchdog thread reads no environment: the NVRTC the parent chose is the one loaded.
    if (*nvrtc_path != '\0') setenv("CUABI_NVRTC_PATH", nvrtc_path, 1);

    cuabi::worker::Hello hello;
    cuabi::Status status = CUABI_SUCCESS;
    const cuabi::NvrtcApi* nvrtc = cuabi::nvrtc(&status);
    hello.status = status;
    if (nvrtc != nullptr) {
        hello.facts = *nvrtc;
        hello.pch_problem = cuabi::prepare_pch(*nvrtc);
    } else {
        hello.message = cuabi::last_error_message();
    }
    if (cuabi::frames::send_frame(kSocket, cuabi::worker::encode(hello), cuabi::frames::kNoDeadline) !=
            cuabi::frames::Io::Ok ||
        nvrtc == nullptr)
        return 0;
    for (;;) {
        std::vector<uint8_t> frame;
        if (cuabi::frames::receive_frame(kSocket, &frame, cuabi::frames::kNoDeadline, cuabi::frames::kMaxFrameBytes) !=
            cuabi::frames::Io::Ok)
            return 0;
        cuabi::worker::Outcome outcome = compile(*nvrtc, hello.pch_problem.empty(), frame);
        if (cuabi::frames::send_frame(kSocket, cuabi::worker::encode(outcome), cuabi::frames::kNoDeadline) !=
            cuabi::frames::Io::Ok)
            return 0;
    }
}
