#include "compile/loaded_module.hpp"

#include <mutex>
#include <new>
#include <unordered_map>

#include "compile/image.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace {

// A module is shared only within the CUDA context it was loaded into.
struct Where {
    CUcontext context;
    cache::Key key;
    bool operator==(const Where& other) const { return context == other.context && key == other.key; }
};

struct WhereHash {
    size_t operator()(const Where& where) const {
        return static_cast<size_t>(where.key.low ^ (where.key.high * 31) ^
                                   (reinterpret_cast<uintptr_t>(where.context) * 0x9E3779B97F4A7C15ull));
    }
};

// (context, key) -> live module. Entries are weak: the cuabi modules own the loaded ones.
struct Registry {
    std::mutex mutex;
    std::unordered_map<Where, std::weak_ptr<LoadedModule>, WhereHash> modules;
};

Registry& registry() {
    static Registry* instance = new Registry();  // never destroyed: modules may die in static destructors
    return *instance;
}

std::shared_ptr<LoadedModule> find_live(Registry& reg, const Where& where) {
    auto found = reg.modules.find(where);
    return found == reg.modules.end() ? nullptr : found->second.lock();
}

}  // namespace

LoadedModule::~LoadedModule() {
    const DriverApi& api = context_->api();
    context_->call_pushed([&] { return api.cuModuleUnload(module_); });
    Registry& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto found = reg.modules.find(Where{context_->cu_context(), key_});
    if (found != reg.modules.end() && found->second.expired()) reg.modules.erase(found);
}

Status fail_image(CUresult result, const char* call, const std::string& context) {
    switch (result) {
        case CUDA_ERROR_INVALID_IMAGE:
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
            return fail_with_cu_result(
                CUABI_ERROR_INVALID_IMAGE, result,
                "compile for this device (leave cuabi_compile_options.target NULL), or update the NVIDIA driver "
                "when the PTX is newer than it",
                "%s refused %s: %s", call, context.c_str(), cu_result_text(result).c_str());
        case CUDA_ERROR_JIT_COMPILATION_DISABLED:
        case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
            return fail_with_cu_result(
                CUABI_ERROR_INVALID_IMAGE, result,
                "load a CUBIN for the device (the default target), or enable the driver's PTX JIT (unset "
                "CUDA_DISABLE_PTX_JIT)",
                "%s cannot JIT-compile %s: %s", call, context.c_str(), cu_result_text(result).c_str());
        default:
            return fail_cu(result, call, "check that the device is still available (nvidia-smi)", "for %s",
                           context.c_str());
    }
}

Status acquire_loaded_module(const std::shared_ptr<Context>& context, const cache::Key& key,
                             const cache::CachedImage& image, std::shared_ptr<LoadedModule>* out) {
    Registry& reg = registry();
    const Where where{context->cu_context(), key};
    {
        std::lock_guard<std::mutex> lock(reg.mutex);
        if (std::shared_ptr<LoadedModule> live = find_live(reg, where)) {
            *out = std::move(live);
            return CUABI_SUCCESS;
        }
    }

    std::string what = describe_image(image);
    range::Scope scope(range::Phase::ModuleLoad, what.c_str());
    char error_log[4096] = {};
    CUjit_option jit_options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* jit_values[] = {error_log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof error_log))};
    CUmodule loaded = nullptr;
    const DriverApi& api = context->api();
    CUresult result = context->call_pushed(
        [&] { return api.cuModuleLoadDataEx(&loaded, image.image.data(), 2, jit_options, jit_values); });
    if (result != CUDA_SUCCESS) {
        std::string text = format("the %zu-byte %s", image.image.size(), what.c_str());
        if (error_log[0] != '\0') text += format(" (JIT log: %s)", error_log);
        return fail_image(result, "cuModuleLoadDataEx", text);
    }
    LoadedModule* made = new (std::nothrow) LoadedModule(context, key, loaded);
    if (made == nullptr) {
        context->call_pushed([&] { return api.cuModuleUnload(loaded); });
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate the loaded %s",
                    what.c_str());
    }
    std::shared_ptr<LoadedModule> module(made);  // should this throw, it deletes `made`, which unloads

    // Another thread may have loaded the same key meanwhile: keep one, so that cuabi modules share.
    // (The lock is released before `module` is destroyed, whose destructor takes it again.)
    std::lock_guard<std::mutex> lock(reg.mutex);
    if (std::shared_ptr<LoadedModule> live = find_live(reg, where)) {
        *out = std::move(live);
        return CUABI_SUCCESS;  // ours unloads when `module` goes out of scope
    }
    reg.modules[where] = module;
    *out = std::move(module);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
