#include "driver/driver_api.hpp"

#include "core/fork.hpp"
#include "driver/driver_log.hpp"
#include "driver/nvrtc_api_files.hpp"
#include "range/ranges.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <mutex>

namespace cuabi {
namespace {

struct LoadOutcome {
    DriverApi api;
    Status status = CUABI_SUCCESS;
    std::string message;
    int32_t cu_result = 0;
};

const char* const kDefaultLibrary = "libcuda.so.1";

// CUABI_LIBCUDA_PATH (ignored by set-uid programs), else the driver's usual name.
std::string library_path() {
    const char* override_path = secure_getenv("CUABI_LIBCUDA_PATH");
    return (override_path != nullptr && *override_path != '\0') ? override_path : kDefaultLibrary;
}

Status load_failure(LoadOutcome* outcome, Status status, int32_t cu_result, const char* fix, const std::string& what) {
    fail_with_cu_result(status, cu_result, fix, "%s", what.c_str());
    outcome->status = status;
    outcome->message = last_error_message();
    outcome->cu_result = cu_result;
    return status;
}

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

void load(LoadOutcome* outcome) {
    range::Scope scope(range::Phase::DriverLoad);
    DriverApi& api = outcome->api;
    api.path = library_path();
    bool overridden = api.path != kDefaultLibrary;

    void* library = dlopen(api.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char* reason = dlerror();
        load_failure(outcome, CUABI_ERROR_DRIVER_NOT_FOUND, 0,
                     overridden
                         ? "point CUABI_LIBCUDA_PATH at the NVIDIA driver's libcuda.so.1, or unset it"
                         : "install the NVIDIA driver (it provides libcuda.so.1) and run on a machine with an "
                           "NVIDIA GPU, or add the driver's directory to LD_LIBRARY_PATH",
                     format("the CUDA driver library '%s' could not be loaded: %s", api.path.c_str(),
                            reason != nullptr ? reason : "unknown dlopen error"));
        return;
    }
    // Deliberately never dlclose()d: the driver must outlive every handle, including those
    // released from static destructors.
    // The toolkit ships a stub libcuda for linking; every function of it returns
    // CUDA_ERROR_STUB_LIBRARY. Ask its version first so the message names the real problem.
    using DriverGetVersion = CUresult (*)(int*);
    auto get_version = reinterpret_cast<DriverGetVersion>(dlsym(library, "cuDriverGetVersion"));
    int stub_probe = 0;
    if (get_version != nullptr && get_version(&stub_probe) == CUDA_ERROR_STUB_LIBRARY) {
        load_failure(outcome, CUABI_ERROR_DRIVER_NOT_FOUND, CUDA_ERROR_STUB_LIBRARY,
                     "install the NVIDIA driver; the toolkit's stub libcuda is only for linking",
                     format("'%s' is the CUDA Toolkit's stub driver library, not a real driver", api.path.c_str()));
        return;
    }
    auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
    if (get_proc == nullptr) {
        load_failure(outcome, CUABI_ERROR_DRIVER_TOO_OLD, 0,
                     "install an NVIDIA driver for CUDA 12.0 or newer (R525+)",
                     format("'%s' has no cuGetProcAddress_v2; it is not a CUDA 12+ driver", api.path.c_str()));
        return;
    }

    std::string missing;
    auto resolve = [&](const char* name, void** slot, bool required) {
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        CUresult result = get_proc(name, slot, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found);
        if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS) {
            *slot = nullptr;
            if (required) missing += missing.empty() ? name : std::string(", ") + name;
        }
    };
#define CUABI_RESOLVE_REQUIRED(name) resolve(#name, reinterpret_cast<void**>(&api.name), true);
#define CUABI_RESOLVE_OPTIONAL(name) resolve(#name, reinterpret_cast<void**>(&api.name), false);
    CUABI_DRIVER_REQUIRED_ENTRY_POINTS(CUABI_RESOLVE_REQUIRED)
    CUABI_DRIVER_OPTIONAL_ENTRY_POINTS(CUABI_RESOLVE_OPTIONAL)
#undef CUABI_RESOLVE_REQUIRED
#undef CUABI_RESOLVE_OPTIONAL

    if (api.cuDriverGetVersion != nullptr) api.cuDriverGetVersion(&api.version);
    if (!missing.empty()) {
        load_failure(outcome, CUABI_ERROR_DRIVER_TOO_OLD, 0,
                     "install an NVIDIA driver for this CUDA version or newer",
                     format("the CUDA driver '%s' (version %d.%d) lacks entry points cuabi requires: %s "
                            "(cuabi was built for CUDA %d.%d)",
                            api.path.c_str(), api.version / 1000, (api.version % 1000) / 10, missing.c_str(),
                            CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10));
        return;
    }

    driver_log::attach(api);  // so that a failing cuInit is explained too
    CUresult init = api.cuInit(0);
    if (init == CUDA_ERROR_NO_DEVICE) {
        load_failure(outcome, CUABI_ERROR_NO_DEVICE, init,
                     "run on a machine with an NVIDIA GPU, or check CUDA_VISIBLE_DEVICES",
                     format("the CUDA driver '%s' (version %d.%d) loaded but found no CUDA device", api.path.c_str(),
                            api.version / 1000, (api.version % 1000) / 10));
        return;
    }
    if (init == CUDA_ERROR_STUB_LIBRARY) {
        load_failure(outcome, CUABI_ERROR_DRIVER_NOT_FOUND, init,
                     "install the NVIDIA driver; the toolkit's stub libcuda is only for linking",
                     format("'%s' is the CUDA Toolkit's stub driver library, not a real driver", api.path.c_str()));
        return;
    }
    if (init != CUDA_SUCCESS) {
        load_failure(outcome, CUABI_ERROR_CUDA, init,
                     "check that the NVIDIA kernel module is loaded (nvidia-smi) and matches the driver library",
                     format("cuInit failed with %s using '%s'", cu_result_text(init).c_str(), api.path.c_str()));
        return;
    }
}

LoadOutcome& outcome() {
    static LoadOutcome* loaded = new LoadOutcome();  // never destroyed, see dlclose note
    return *loaded;
}

std::once_flag load_once;
std::atomic<bool> loaded{false};

}  // namespace

bool driver_started_in_process() {
    if (loaded.load(std::memory_order_acquire)) return outcome().status == CUABI_SUCCESS;
    // Not loaded by cuabi: initialized by someone else only if the library is in the process
    // (RTLD_NOLOAD opens nothing new) and answers anything but CUDA_ERROR_NOT_INITIALIZED.
    void* library = dlopen(library_path().c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (library == nullptr) return false;
    using DeviceGetCount = CUresult (*)(int*);
    auto count = reinterpret_cast<DeviceGetCount>(dlsym(library, "cuDeviceGetCount"));
    int devices = 0;
    bool started = count != nullptr && count(&devices) != CUDA_ERROR_NOT_INITIALIZED;
    dlclose(library);  // drops only the reference RTLD_NOLOAD took
    return started;
}

int installed_driver_version() {
    if (loaded.load(std::memory_order_acquire)) return outcome().api.version;
    static const int version = [] {
        // Where no driver is installed, a failing dlopen (the loader's whole search) costs more
        // than looking for the file the same way without loading anything.
        std::string path = library_path();
        if (path == kDefaultLibrary && find_library_file(path).empty()) return 0;
        void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) return 0;
        // Kept open, like the driver itself: driver() opens the same library later.
        using DriverGetVersion = CUresult (*)(int*);
        auto get_version = reinterpret_cast<DriverGetVersion>(dlsym(library, "cuDriverGetVersion"));
        int found = 0;
        return get_version != nullptr && get_version(&found) == CUDA_SUCCESS ? found : 0;
    }();
    return version;
}

int loaded_driver_version() {
    if (!loaded.load(std::memory_order_acquire)) return 0;
    const LoadOutcome& result = outcome();
    return result.status == CUABI_SUCCESS ? result.api.version : 0;
}

const DriverApi* driver(Status* out_status) {
    // A fork() child of a process that had used cuabi may not touch the driver (core/fork.hpp);
    // one that had not starts CUDA afresh.
    Status entered = fork_state::enter("GPU work");
    if (entered != CUABI_SUCCESS) {
        if (out_status != nullptr) *out_status = entered;
        return nullptr;
    }
    std::call_once(load_once, [] {
        load(&outcome());
        loaded.store(true, std::memory_order_release);
    });
    const LoadOutcome& result = outcome();
    if (out_status != nullptr) *out_status = result.status;
    if (result.status != CUABI_SUCCESS) {
        fail_again(result.status, result.message, result.cu_result);
        return nullptr;
    }
    return &result.api;
}

std::string cu_result_text(CUresult result) {
    const LoadOutcome& loaded = outcome();
    const char* name = nullptr;
    const char* text = nullptr;
    if (loaded.api.cuGetErrorName != nullptr) loaded.api.cuGetErrorName(result, &name);
    if (loaded.api.cuGetErrorString != nullptr) loaded.api.cuGetErrorString(result, &text);
    if (name == nullptr) return format("CUresult %d", static_cast<int>(result));
    return text != nullptr ? format("%s (%s)", name, text) : std::string(name);
}

Status fail_cu(CUresult result, const char* call, const char* fix, const char* context_format, ...) {
    va_list args;
    va_start(args, context_format);
    char context[512];
    std::vsnprintf(context, sizeof context, context_format, args);
    va_end(args);
    Status status = result == CUDA_ERROR_OUT_OF_MEMORY ? CUABI_ERROR_DEVICE_OUT_OF_MEMORY : CUABI_ERROR_CUDA;
    return fail_with_cu_result(status, static_cast<int32_t>(result), fix, "%s failed with %s%s%s", call,
                               cu_result_text(result).c_str(), context[0] != '\0' ? " " : "", context);
}

}  // namespace cuabi
