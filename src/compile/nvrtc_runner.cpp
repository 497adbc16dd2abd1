#include "compile/nvrtc_runner.hpp"

#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "cache/cache_key.hpp"
#include "compile/compile_worker.hpp"
#include "compile/image_verifier.hpp"
#include "compile/pch_policy.hpp"
#include "compile/worker_protocol.hpp"
#include "core/environment.hpp"
#include "driver/nvrtc_api_locate.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace {

// What this process knows of its NVRTC. Facts, once known, are never freed (compiles may run
// from static destructors).
struct Known {
    Known() {
        const NvrtcLocation& location = nvrtc_location();
        identity.store(location.found ? location.identity : cache::kAnyNvrtc);
        state.store(location.found ? CUABI_NVRTC_STATE_NOT_LOADED : CUABI_NVRTC_STATE_UNAVAILABLE);
    }
    std::atomic<uint64_t> identity{cache::kAnyNvrtc};
    std::atomic<int32_t> state{CUABI_NVRTC_STATE_NOT_LOADED};
    std::atomic<const NvrtcFacts*> facts{nullptr};
    std::mutex mutex;  // publishing facts
};

Known& known() {
    static Known* instance = new Known();
    return *instance;
}

void publish(const NvrtcFacts& facts, bool owned_elsewhere) {
    Known& k = known();
    std::lock_guard<std::mutex> lock(k.mutex);
    if (k.facts.load() == nullptr) k.facts.store(owned_elsewhere ? &facts : new NvrtcFacts(facts));
    k.identity.store(facts.identity);
    k.state.store(CUABI_NVRTC_STATE_LOADED);
}

Status unavailable(Status status) {
    Known& k = known();
    k.identity.store(cache::kAnyNvrtc);
    k.state.store(CUABI_NVRTC_STATE_UNAVAILABLE);
    return status;
}

const NumberSetting& timeout_from_environment() {
    static const NumberSetting setting =
        read_number_setting("CUABI_COMPILE_TIMEOUT_MS", 1, UINT32_MAX, kDefaultCompileTimeoutMs,
                            "set CUABI_COMPILE_TIMEOUT_MS to a number of milliseconds, or unset it");
    return setting;
}

struct DefaultIsolation {
    Isolation isolation = Isolation::Worker;
    std::string why;
    EnvironmentProblem* problem = nullptr;
};

const DefaultIsolation& chosen_isolation() {
    static const DefaultIsolation chosen = [] {
        DefaultIsolation d;
        std::string problem;
        const char* text = secure_getenv("CUABI_COMPILE_ISOLATION");
        const char* worker = secure_getenv("CUABI_COMPILE_WORKER");
        if (text != nullptr && (std::strcmp(text, "in-process") == 0 || std::strcmp(text, "0") == 0)) {
            d.isolation = Isolation::InProcess;
            d.why = "CUABI_COMPILE_ISOLATION=" + std::string(text);
        } else if (std::string refusal; compile_worker_path(&refusal).empty()) {
            d.isolation = Isolation::InProcess;
            d.why = "no usable compile worker: " + refusal;
            // Asked for by name and refused: that must not pass for a choice.
            if (worker != nullptr && *worker != '\0')
                problem = "CUABI_COMPILE_WORKER is refused: " + refusal + "; compiles run in this process";
        }
        if (text != nullptr && *text != '\0' && std::strcmp(text, "in-process") != 0 && std::strcmp(text, "0") != 0 &&
            std::strcmp(text, "worker") != 0)
            problem = format("CUABI_COMPILE_ISOLATION='%s' is neither \"worker\" nor \"in-process\"; %s is used",
                             bounded(text, 40).c_str(), d.isolation == Isolation::Worker ? "the worker" : "this process");
        d.problem = new EnvironmentProblem(problem, "set CUABI_COMPILE_ISOLATION to \"worker\" or \"in-process\" and "
                                                    "CUABI_COMPILE_WORKER to a cuabi-compile-worker only its owner may "
                                                    "change, or unset them");
        return d;
    }();
    return chosen;
}

}  // namespace

Isolation default_isolation(std::string* why) {
    const DefaultIsolation& chosen = chosen_isolation();
    if (why != nullptr) *why = chosen.why;
    return chosen.isolation;
}

Status choose_isolation(uint32_t flags, Isolation* out) {
    if ((flags & CUABI_COMPILE_IN_PROCESS) != 0) {
        *out = Isolation::InProcess;
    } else if ((flags & CUABI_COMPILE_ISOLATED) != 0) {
        std::string why;
        if (compile_worker_path(&why).empty())
            return fail(CUABI_ERROR_NVRTC,
                        "reinstall cuabi (the worker belongs in <libdir>/cuabi/ beside libcuabi.so), point "
                        "CUABI_COMPILE_WORKER at it, or drop CUABI_COMPILE_ISOLATED",
                        "CUABI_COMPILE_ISOLATED asks for the compile worker, and there is none: %s", why.c_str());
        *out = Isolation::Worker;
    } else {
        if (Status refused = chosen_isolation().problem->report_once()) return refused;
        *out = default_isolation(nullptr);
    }
    return CUABI_SUCCESS;
}

uint64_t key_nvrtc_identity() { return known().identity.load(std::memory_order_acquire); }

const NvrtcFacts* loaded_nvrtc_facts() { return known().facts.load(std::memory_order_acquire); }

Status nvrtc_facts(Isolation isolation, const Deadline& deadline, const NvrtcFacts** out) {
    if ((*out = loaded_nvrtc_facts()) != nullptr) return CUABI_SUCCESS;
    Status status = CUABI_SUCCESS;
    // Without an NVRTC file there is nothing to start a worker for; the in-process loader says
    // where it looked.
    if (isolation == Isolation::InProcess || !nvrtc_location().found) {
        const NvrtcApi* api = nvrtc(&status);
        if (api == nullptr) return unavailable(status);
        publish(*api, /*owned_elsewhere=*/true);
    } else {
        NvrtcFacts facts;
        status = worker_nvrtc_facts(deadline, &facts);
        if (status == CUABI_ERROR_NVRTC_NOT_FOUND) return unavailable(status);
        if (status != CUABI_SUCCESS) return status;
        publish(facts, /*owned_elsewhere=*/false);
    }
    *out = loaded_nvrtc_facts();
    return CUABI_SUCCESS;
}

Status run_job(Isolation isolation, const NvrtcJob& job, const Deadline& deadline, cache::CachedImage* out,
               std::string* out_log, const std::string& pch_key, const std::string& pch_cache_directory) {
    // On the calling thread in either case: that is where a profiler should see the time go.
    range::Scope scope(range::Phase::Compile, job.program_name.c_str());
    if (isolation == Isolation::Worker) {
        PchReport report;
        Status status = compile_in_worker(job, deadline, out, out_log, pch_key, pch_cache_directory, &report);
        count_pch(report);
        return status;
    }
    Status status = CUABI_SUCCESS;
    const NvrtcApi* api = nvrtc(&status);
    if (api == nullptr) return unavailable(status);
    return run_nvrtc(*api, job, out, out_log);
}

Status compile_deadline(Isolation isolation, uint32_t timeout_ms, Deadline* out) {
    *out = Deadline();
    if (isolation == Isolation::InProcess) return CUABI_SUCCESS;
    const NumberSetting& fallback = timeout_from_environment();
    if (timeout_ms == 0)
        if (Status refused = fallback.problem->report_once()) return refused;
    out->ms = timeout_ms != 0 ? timeout_ms : static_cast<uint32_t>(fallback.value);
    out->source = timeout_ms != 0               ? "cuabi_compile_options.timeout_ms"
                  : fallback.from_environment ? "CUABI_COMPILE_TIMEOUT_MS"
                                              : "the default";
    out->at_ms = frames::now_ms() + out->ms;
    return CUABI_SUCCESS;
}

void read_compile_environment() {
    timeout_from_environment();
    chosen_isolation();
    read_worker_environment();
    read_verification_environment();
}

int32_t nvrtc_state() {
    NvrtcLoad here = nvrtc_load_state();
    if (here == NvrtcLoad::Loaded) return CUABI_NVRTC_STATE_LOADED;
    if (here == NvrtcLoad::Failed) return CUABI_NVRTC_STATE_UNAVAILABLE;
    return known().state.load(std::memory_order_acquire);
}

}  // namespace cuabi
