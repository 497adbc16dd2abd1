#include "compile/nvrtc_runner.hpp"

#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "cache/cache_key.hpp"
#include "compile/compile_worker.hpp"
#include "compile/worker_protocol.hpp"
#include "driver/nvrtc_api_locate.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace {

constexpr uint32_t kDefaultTimeoutMs = 120000;

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

uint32_t timeout_from_environment() {
    const char* text = secure_getenv("CUABI_COMPILE_TIMEOUT_MS");
    char* end = nullptr;
    unsigned long value = text != nullptr ? std::strtoul(text, &end, 10) : 0;
    return text != nullptr && end != text && *end == '\0' && value > 0 && value <= UINT32_MAX
               ? static_cast<uint32_t>(value)
               : kDefaultTimeoutMs;
}

}  // namespace

Isolation default_isolation(std::string* why) {
    struct Default {
        Isolation isolation = Isolation::Worker;
        std::string why;
    };
    static const Default chosen = [] {
        Default d;
        const char* text = secure_getenv("CUABI_COMPILE_ISOLATION");
        if (text != nullptr && (std::strcmp(text, "in-process") == 0 || std::strcmp(text, "0") == 0)) {
            d.isolation = Isolation::InProcess;
            d.why = "CUABI_COMPILE_ISOLATION=" + std::string(text);
        } else if (compile_worker_path(&d.why).empty()) {
            d.isolation = Isolation::InProcess;
            d.why = "no usable compile worker: " + d.why;
        }
        return d;
    }();
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
        *out = default_isolation(nullptr);
    }
    return CUABI_SUCCESS;
}

uint64_t key_nvrtc_identity() { return known().identity.load(std::memory_order_acquire); }

const NvrtcFacts* loaded_nvrtc_facts() { return known().facts.load(std::memory_order_acquire); }

Status nvrtc_facts(Isolation isolation, int64_t deadline_ms, const NvrtcFacts** out) {
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
        status = worker_nvrtc_facts(deadline_ms, &facts);
        if (status == CUABI_ERROR_NVRTC_NOT_FOUND) return unavailable(status);
        if (status != CUABI_SUCCESS) return status;
        publish(facts, /*owned_elsewhere=*/false);
    }
    *out = loaded_nvrtc_facts();
    return CUABI_SUCCESS;
}

Status run_job(Isolation isolation, const NvrtcJob& job, int64_t deadline_ms, cache::CachedImage* out,
               std::string* out_log) {
    // On the calling thread in either case: that is where a profiler should see the time go.
    range::Scope scope(range::Phase::Compile, job.program_name.c_str());
    if (isolation == Isolation::Worker) return compile_in_worker(job, deadline_ms, out, out_log);
    Status status = CUABI_SUCCESS;
    const NvrtcApi* api = nvrtc(&status);
    if (api == nullptr) return unavailable(status);
    return run_nvrtc(*api, job, out, out_log);
}

int64_t compile_deadline(uint32_t timeout_ms) {
    static const uint32_t fallback = timeout_from_environment();
    return worker::now_ms() + (timeout_ms != 0 ? timeout_ms : fallback);
}

int32_t nvrtc_state() {
    NvrtcLoad here = nvrtc_load_state();
    if (here == NvrtcLoad::Loaded) return CUABI_NVRTC_STATE_LOADED;
    if (here == NvrtcLoad::Failed) return CUABI_NVRTC_STATE_UNAVAILABLE;
    return known().state.load(std::memory_order_acquire);
}

}  // namespace cuabi
