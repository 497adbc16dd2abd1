#include "compile/compiler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "compile/compile_log.hpp"
#include "compile/image.hpp"
#include "compile/name_expression_error.hpp"
#include "compile/nvrtc_runner.hpp"
#include "compile/pch_policy.hpp"
#include "compile/request_memo.hpp"
#include "compile/remote_lookup.hpp"
#include "compile/single_flight.hpp"
#include "core/frame_io.hpp"
#include "device/context.hpp"

namespace cuabi {
namespace {

std::atomic<uint64_t> compiles_run{0}, compiles_joined{0};

SingleFlight& flights() {
    static SingleFlight* instance = new SingleFlight();  // never destroyed: compiles may run at exit
    return *instance;
}

Status fail_no_target(const CompileOptions& options) {
    return fail(CUABI_ERROR_INVALID_ARGUMENT,
                "set cuabi_compile_options.target (e.g. \"sm_90\"), or compile with cuabi_module_compile() for a "
                "context's device",
                "a compile without a context needs an explicit target, and cuabi_compile_options.target is %s",
                options.target == nullptr ? "NULL" : "empty");
}

bool explicit_target(const CompileOptions& options) {
    return options.target != nullptr && options.target[0] != '\0';
}

// The target a hit is keyed by, known without loading NVRTC: the explicit one, else the device's
// own architecture (NVRTC's facts decide only once they are known anyway).
Status first_target(const CompileOptions& options, const DeviceInfo* device, const NvrtcFacts* facts, Target* out) {
    if (facts != nullptr) return resolve_target(*facts, options, device, out);
    Target target;
    if (explicit_target(options)) {
        Status status = parse_target(options.target, "cuabi_compile_options.target", &target);
        if (status != CUABI_SUCCESS) return status;
    } else if (device != nullptr) {
        target.arch = device->compute_capability_major * 10 + device->compute_capability_minor;
        target.set_name();
    } else {
        return fail_no_target(options);
    }
    if ((options.flags & CUABI_COMPILE_PTX) != 0 && !target.ptx) {
        target.ptx = true;
        target.set_name();
    }
    *out = target;
    return CUABI_SUCCESS;
}

Status check_runs_on(const Target& target, const DeviceInfo& device) {
    ImageFacts facts;
    facts.kind = target.ptx ? CUABI_IMAGE_PTX : CUABI_IMAGE_CUBIN;
    facts.arch = target.arch;
    return check_image_runs_on(facts, device.compute_capability_major, device.compute_capability_minor, device.name);
}

Status serve(std::shared_ptr<const cache::CachedImage> image, const cache::Key& key, cache::Layer layer,
             const Target& target, CompileOutcome* out) {
    set_last_compile_log(std::shared_ptr<const std::string>(image, &image->log));  // aliasing: no copy
    out->image = std::move(image);
    out->key = key;
    out->layer = layer;
    out->target = target;
    return CUABI_SUCCESS;
}

// NVRTC cannot be loaded: an entry any NVRTC wrote for this request is as good, newest first.
Status serve_without_nvrtc(const CompileRequest& request, cache::Key key, bool use_cache, Counters* counters,
                           CompileOutcome* out) {
    std::string message = last_error_message();
    if (use_cache && key.nvrtc != cache::kAnyNvrtc) {
        key.nvrtc = cache::kAnyNvrtc;
        cache::Layer layer = cache::Layer::None;
        if (auto hit = cache::KernelCache::instance().lookup(key, counters, &layer))
            return serve(std::move(hit), key, layer, request.target, out);
    }
    size_t fix = message.rfind(" Fix: ");
    std::string what = message.substr(0, fix), remedy = fix == std::string::npos ? "" : message.substr(fix + 6);
    return fail(CUABI_ERROR_NVRTC_NOT_FOUND,
                (remedy + "; or fill the kernel cache where NVRTC is installed (cuabi compile, or the same compile) "
                          "and use that cache directory here")
                    .c_str(),
                "the kernel cache has no entry for '%s' for %s (key %s) from any NVRTC%s, and compiling it needs "
                "NVRTC: %s",
                program_name(*request.options), request.target.name, key.hex().c_str(),
                use_cache ? "" : " (CUABI_COMPILE_NO_CACHE)", what.c_str());
}

Status compile_locally(const CompileInput& input, CompileRequest request, cache::Key key, bool use_cache,
                       Isolation isolation, const Deadline& deadline, Counters* counters, CompileOutcome* out);

// Everything after a memory miss: the tiers below memory (disk, read-only layers), the remote
// tier, then compile_locally(), whose result the remote tier may publish.
Status compile_miss(const CompileInput& input, CompileRequest request, cache::Key key, bool use_cache,
                    Isolation isolation, const Deadline& deadline, Counters* counters, CompileOutcome* out) {
    RemoteTurn remote;
    if (use_cache) {
        cache::Layer layer = cache::Layer::None;
        if (auto hit = cache::KernelCache::instance().find_below_memory(key, counters, &layer))
            return serve(std::move(hit), key, layer, request.target, out);
        // Served like a disk hit: find_remote() has just written it to the local disk.
        if (auto hit = find_remote(key, deadline.at_ms, counters, &remote))
            return serve(std::move(hit), key, cache::Layer::Disk, request.target, out);
    }
    Status status = compile_locally(input, request, key, use_cache, isolation, deadline, counters, out);
    if (use_cache) {
        bool compiled = status == CUABI_SUCCESS && out->layer == cache::Layer::None;
        after_local_compile(key, compiled ? out->key : key, compiled ? out->image.get() : nullptr, remote);
    }
    return status;
}

// NVRTC's facts and the final target, NVRTC itself.
Status compile_locally(const CompileInput& input, CompileRequest request, cache::Key key, bool use_cache,
                       Isolation isolation, const Deadline& deadline, Counters* counters, CompileOutcome* out) {
    cache::KernelCache& kernel_cache = cache::KernelCache::instance();
    const CompileOptions& options = *input.options;
    const NvrtcFacts* facts = nullptr;
    Status status = nvrtc_facts(isolation, deadline, &facts);
    if (status == CUABI_ERROR_NVRTC_NOT_FOUND) return serve_without_nvrtc(request, key, use_cache, counters, out);
    if (status != CUABI_SUCCESS) return status;

    Target target;
    status = resolve_target(*facts, options, input.device, &target);
    if (status != CUABI_SUCCESS) return status;
    if (std::strcmp(target.name, request.target.name) != 0 || key.nvrtc != facts->identity) {
        // A PTX fallback for an NVRTC older than the device, or an NVRTC file replaced since
        // the process looked at it: the key the compile is stored under.
        request.target = target;
        key = compile_key(request, facts->identity);
        cache::Layer layer = cache::Layer::None;
        if (use_cache)
            if (auto hit = kernel_cache.lookup(key, counters, &layer)) return serve(std::move(hit), key, layer, target, out);
    }
    request.target = target;

    NvrtcJob job = make_job(request);
    std::string pch;
    if (isolation == Isolation::Worker && !kernel_cache.config().disk_disabled && !kernel_cache.directory().empty())
        pch = pch_key(request, job, facts->identity);
    auto image = std::make_shared<cache::CachedImage>();
    std::string log;
    auto start = std::chrono::steady_clock::now();
    status = run_job(isolation, job, deadline, image.get(), &log, pch, kernel_cache.directory());
    auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    compiles_run.fetch_add(1, std::memory_order_relaxed);
    if (counters != nullptr) {
        Counters::bump(counters->compiles);
        Counters::bump(counters->compile_time_ns, static_cast<uint64_t>(elapsed.count()));
    }
    if (status != CUABI_SUCCESS) {
        status = explain_name_expression_failure(status, options, request.source, log, facts->major, facts->minor);
        if (!log.empty()) set_last_compile_log(std::make_shared<const std::string>(std::move(log)));
        return status;
    }
    std::shared_ptr<const cache::CachedImage> stored = std::move(image);
    if (use_cache) kernel_cache.store(key, stored, counters);
    return serve(std::move(stored), key, cache::Layer::None, target, out);
}

FlightResult result_of(Status status, const CompileOutcome& outcome) {
    FlightResult result;
    result.status = status;
    result.log = last_compile_log_shared();
    if (status != CUABI_SUCCESS) {
        result.message = last_error_message();
        result.nvrtc_result = last_nvrtc_result();
        return result;
    }
    result.image = outcome.image;
    result.key = outcome.key;
    result.layer = outcome.layer;
    result.target = outcome.target;
    return result;
}

// Waits for the leader's result until `deadline` passes or `cancel` (may be NULL) is cancelled;
// NULL then.
const FlightResult* wait_for_leader(SingleFlight::Ticket& ticket, const Deadline& deadline) {
    if (deadline.cancel == nullptr) return ticket.wait(deadline.at_ms);
    constexpr int64_t kCancelPollMs = 5;  // a follower is woken by the leader only
    for (;;) {
        int64_t slice = frames::now_ms() + kCancelPollMs;
        if (deadline.at_ms != frames::kNoDeadline) slice = std::min(slice, deadline.at_ms);
        if (const FlightResult* result = ticket.wait(slice)) return result;
        if (deadline.cancel->cancelled()) return nullptr;
        if (deadline.at_ms != frames::kNoDeadline && frames::now_ms() >= deadline.at_ms) return nullptr;
    }
}

Status follow(const FlightResult* joined, const CompileInput& input, const Deadline& deadline, CompileOutcome* out) {
    if (joined == nullptr && deadline.cancel != nullptr && deadline.cancel->cancelled())
        return fail_cancelled(program_name(*input.options), "it waited for another thread's compile of the same request");
    if (joined == nullptr)
        return fail(CUABI_ERROR_TIMEOUT,
                    "raise cuabi_compile_options.timeout_ms (or CUABI_COMPILE_TIMEOUT_MS) for a compile this long, or "
                    "look for an #include that waits (a FIFO, a hung network file system)",
                    "another thread's compile of the same request ('%s') had not finished when %s passed; this call "
                    "waited for it instead of compiling again",
                    program_name(*input.options), deadline.describe().c_str());
    const FlightResult& result = *joined;
    compiles_joined.fetch_add(1, std::memory_order_relaxed);
    set_last_compile_log(result.log);
    if (result.status != CUABI_SUCCESS) return fail_as_recorded(result.status, result.nvrtc_result, result.message);
    out->image = result.image;
    out->key = result.key;
    out->layer = result.layer == cache::Layer::None ? cache::Layer::Memory : result.layer;
    out->target = result.target;
    return CUABI_SUCCESS;
}

}  // namespace

Status resolve_target(const NvrtcFacts& nvrtc, const CompileOptions& options, const DeviceInfo* device,
                      Target* out) {
    Target target;
    Status status;
    if (explicit_target(options)) {
        status = parse_target(options.target, "cuabi_compile_options.target", &target);
        if (status == CUABI_SUCCESS) status = check_nvrtc_supports(nvrtc, target);
    } else if (device != nullptr) {
        status = default_target(nvrtc, device->compute_capability_major, device->compute_capability_minor, &target);
    } else {
        status = fail_no_target(options);
    }
    if (status != CUABI_SUCCESS) return status;
    if ((options.flags & CUABI_COMPILE_PTX) != 0 && !target.ptx) {
        target.ptx = true;
        target.set_name();
    }
    *out = target;
    return CUABI_SUCCESS;
}

Status compile(const CompileInput& input, Counters* counters, CompileOutcome* out) {
    const CompileOptions& options = *input.options;
    CompileRequest request;
    request.options = &options;
    const NvrtcFacts* facts = loaded_nvrtc_facts();
    const request_memo::Circumstances circumstances{input.device, key_nvrtc_identity(), facts};
    cache::Key key;
    const bool remembered =
        request_memo::find(input.source, options, circumstances, &request.source, &request.target, &key);
    if ((options.flags & CUABI_COMPILE_NO_TOOLKIT_INCLUDES) == 0) request.toolkit = &toolkit_headers();
    Status status = CUABI_SUCCESS;
    if (!remembered) {
        // A remembered request's options passed this check when it was made, and the check is a
        // function of their content alone. Options that fail it leave the compile log as it was,
        // like the API's other argument checks.
        status = check_compile_options(options);
        if (status != CUABI_SUCCESS) return status;
        // From here every call replaces the compile log. A memory hit, the common case, writes it
        // once (serve); every other path clears it before anything that can fail.
        set_last_compile_log(nullptr);
        request.source = input.source;
        status = first_target(options, input.device, facts, &request.target);
        if (status == CUABI_SUCCESS && input.device != nullptr && explicit_target(options))
            status = check_runs_on(request.target, *input.device);
        if (status != CUABI_SUCCESS) return status;
        key = compile_key(request, circumstances.nvrtc_identity);
        request_memo::remember(request.source, options, circumstances, request.target, key);
    }
    const bool use_cache = (options.flags & CUABI_COMPILE_NO_CACHE) == 0;
    if (use_cache)
        if (auto hit = cache::KernelCache::instance().find_in_memory(key, counters))
            return serve(std::move(hit), key, cache::Layer::Memory, request.target, out);
    if (input.control.memory_only) {
        out->image = nullptr;
        return CUABI_SUCCESS;
    }
    if (remembered) set_last_compile_log(nullptr);
    Isolation isolation = Isolation::Worker;
    status = choose_isolation(options.flags, &isolation);
    Deadline deadline;
    if (status == CUABI_SUCCESS) status = compile_deadline(isolation, options.timeout_ms, &deadline);
    if (status == CUABI_SUCCESS) status = check_pch_environment();
    if (status != CUABI_SUCCESS) return status;
    deadline.cancel = input.control.cancel;
    for (;;) {
        // NVRTC in this process cannot be stopped once it runs: the last moment to cancel it.
        if (input.control.cancel != nullptr && input.control.cancel->cancelled())
            return fail_cancelled(program_name(options), "it waited to be compiled");
        if (!use_cache) return compile_miss(input, request, key, false, isolation, deadline, counters, out);
        SingleFlight::Ticket ticket = flights().join(key, static_cast<int>(isolation));
        if (ticket.leader()) {
            status = compile_miss(input, request, key, true, isolation, deadline, counters, out);
            ticket.complete(result_of(status, *out));
            return status;
        }
        status = follow(wait_for_leader(ticket, deadline), input, deadline, out);
        // The leader's cancel is not this request's: compile it again, as leader or follower.
        if (status != CUABI_ERROR_CANCELLED || (input.control.cancel != nullptr && input.control.cancel->cancelled())) return status;
    }
}

CompileStats compile_stats() {
    CompileStats stats;
    stats.compiles = compiles_run.load(std::memory_order_relaxed);
    stats.compiles_joined = compiles_joined.load(std::memory_order_relaxed);
    stats.nvrtc_state = nvrtc_state();
    return stats;
}

}  // namespace cuabi
