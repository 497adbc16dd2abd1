#include "compile/compiler.hpp"

#include <chrono>

#include "compile/compile_log.hpp"
#include "compile/nvrtc_program.hpp"

namespace cuabi {

Status resolve_target(const NvrtcApi& nvrtc, const cuabi_compile_options& options, const cuabi_device_info* device,
                      Target* out) {
    Target target;
    Status status;
    if (options.target != nullptr && options.target[0] != '\0') {
        status = parse_target(options.target, "cuabi_compile_options.target", &target);
        if (status == CUABI_SUCCESS) status = check_nvrtc_supports(nvrtc, target);
    } else if (device != nullptr) {
        status = default_target(nvrtc, device->compute_capability_major, device->compute_capability_minor, &target);
    } else {
        status = fail(CUABI_ERROR_INVALID_ARGUMENT,
                      "set cuabi_compile_options.target (e.g. \"sm_90\"), or compile with cuabi_module_compile() "
                      "for a context's device",
                      "a compile without a context needs an explicit target, and cuabi_compile_options.target is %s",
                      options.target == nullptr ? "NULL" : "empty");
    }
    if (status != CUABI_SUCCESS) return status;
    if ((options.flags & CUABI_COMPILE_PTX) != 0 && !target.ptx) {
        target.ptx = true;
        target.set_name();
    }
    *out = target;
    return CUABI_SUCCESS;
}

Status compile(const NvrtcApi& nvrtc, const CompileRequest& request, Counters* counters, CompileOutcome* out) {
    set_last_compile_log(nullptr);
    bool use_cache = (request.options.flags & CUABI_COMPILE_NO_CACHE) == 0;
    cache::Key key = compile_key(request, nvrtc);
    cache::KernelCache& kernel_cache = cache::KernelCache::instance();
    if (use_cache) {
        cache::Layer layer = cache::Layer::None;
        std::shared_ptr<const cache::CachedImage> hit = kernel_cache.lookup(key, counters, &layer);
        if (hit) {
            set_last_compile_log(std::shared_ptr<const std::string>(hit, &hit->log));
            out->image = std::move(hit);
            out->key = key;
            out->layer = layer;
            return CUABI_SUCCESS;
        }
    }

    auto image = std::make_shared<cache::CachedImage>();
    std::string log;
    auto start = std::chrono::steady_clock::now();
    Status status = run_nvrtc(nvrtc, request, image.get(), &log);
    auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    if (counters != nullptr) {
        Counters::bump(counters->compiles);
        Counters::bump(counters->compile_time_ns, static_cast<uint64_t>(elapsed.count()));
    }
    if (status != CUABI_SUCCESS) {
        if (!log.empty()) set_last_compile_log(std::make_shared<const std::string>(std::move(log)));
        return status;
    }
    std::shared_ptr<const cache::CachedImage> stored = std::move(image);
    if (use_cache) kernel_cache.store(key, stored, counters);
    set_last_compile_log(std::shared_ptr<const std::string>(stored, &stored->log));
    out->image = std::move(stored);
    out->key = key;
    out->layer = cache::Layer::None;
    return CUABI_SUCCESS;
}

}  // namespace cuabi
