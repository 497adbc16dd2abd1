#include "compile/library.hpp"

#include <mutex>
#include <unordered_map>

#include "compile/image.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace {

struct KeyHash {
    size_t operator()(const cache::Key& key) const { return static_cast<size_t>(key.low ^ (key.high * 31)); }
};

// Key -> live library. Entries are weak: the modules own the libraries.
struct Registry {
    std::mutex mutex;
    std::unordered_map<cache::Key, std::weak_ptr<Library>, KeyHash> libraries;
};

Registry& registry() {
    static Registry* instance = new Registry();  // never destroyed: libraries may die in static destructors
    return *instance;
}

std::shared_ptr<Library> find_live(Registry& reg, const cache::Key& key) {
    auto found = reg.libraries.find(key);
    return found == reg.libraries.end() ? nullptr : found->second.lock();
}

}  // namespace

Library::~Library() {
    api_.cuLibraryUnload(library_);
    Registry& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto found = reg.libraries.find(key_);
    if (found != reg.libraries.end() && found->second.expired()) reg.libraries.erase(found);
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

Status acquire_library(const DriverApi& api, const cache::Key& key, const cache::CachedImage& image,
                       std::shared_ptr<Library>* out) {
    Registry& reg = registry();
    {
        std::lock_guard<std::mutex> lock(reg.mutex);
        if (std::shared_ptr<Library> live = find_live(reg, key)) {
            *out = std::move(live);
            return CUABI_SUCCESS;
        }
    }

    std::string what = describe_image(image);
    range::Scope scope(range::Phase::ModuleLoad, what.c_str());
    char error_log[4096] = {};
    CUjit_option jit_options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* jit_values[] = {error_log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof error_log))};
    CUlibrary loaded = nullptr;
    CUresult result =
        api.cuLibraryLoadData(&loaded, image.image.data(), jit_options, jit_values, 2, nullptr, nullptr, 0);
    if (result != CUDA_SUCCESS) {
        std::string context = format("the %zu-byte %s", image.image.size(), what.c_str());
        if (error_log[0] != '\0') context += format(" (JIT log: %s)", error_log);
        return fail_image(result, "cuLibraryLoadData", context);
    }
    auto library = std::make_shared<Library>(api, key, loaded);

    // Another thread may have loaded the same key meanwhile: keep one, so that modules share. (The
    // lock is released before `library` is destroyed, whose destructor takes it again.)
    std::lock_guard<std::mutex> lock(reg.mutex);
    if (std::shared_ptr<Library> live = find_live(reg, key)) {
        *out = std::move(live);
        return CUABI_SUCCESS;  // ours unloads when `library` goes out of scope
    }
    reg.libraries[key] = library;
    *out = std::move(library);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
