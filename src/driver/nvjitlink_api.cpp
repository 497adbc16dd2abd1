#include "driver/nvjitlink_api.hpp"

#include <dlfcn.h>

#include <atomic>
#include <iterator>
#include <mutex>
#include <vector>

#include "driver/nvrtc_api_files.hpp"
#include "driver/nvrtc_api_locate.hpp"

namespace cuabi {
namespace {

const char* const kInstallFix =
    "install nvJitLink from the CUDA Toolkit (package libnvjitlink-13-0 or libnvjitlink-12-x, or the pip wheel "
    "nvidia-nvjitlink) of the same major as NVRTC, and add its lib directory to LD_LIBRARY_PATH, or set "
    "CUABI_NVJITLINK_PATH to the full path of libnvJitLink.so";

// The first libnvJitLink.so.<major>: the loader's way, then toolkits, then pip wheels.
std::string find_major(int major) {
    std::string name = "libnvJitLink.so." + std::to_string(major);
    std::string path = find_library_file(name);
    if (!path.empty()) return path;
    for (const std::string& root : toolkit_roots())
        for (const char* lib : {"/lib64/", "/lib/"})
            if (regular_file(root + lib + name)) return root + lib + name;
    for (const std::string& nvidia : pip_nvidia_directories()) {
        std::string wheel = nvidia + (major >= 13 ? "/cu" + std::to_string(major) : std::string("/nvjitlink")) +
                            "/lib/" + name;
        if (regular_file(wheel)) return wheel;
    }
    return "";
}

std::atomic<bool> loaded{false};

struct LoadOutcome {
    NvJitLinkApi api;
    Status status = CUABI_SUCCESS;
    std::string message;
};

// The entry point `name`, or its versioned twin (__nvJitLinkCreate_12_0) that older releases
// export alone.
void* resolve(void* library, const char* name, int major) {
    if (void* symbol = dlsym(library, name)) return symbol;
    std::string versioned = format("__%s_%d_0", name, major);
    return dlsym(library, versioned.c_str());
}

LoadOutcome load() {
    LoadOutcome outcome;
    const NvJitLinkLocation& location = nvjitlink_location();
    auto refuse = [&outcome](const char* fix, const std::string& what) {
        outcome.status = fail(CUABI_ERROR_NVJITLINK_NOT_FOUND, fix, "%s", what.c_str());
        outcome.message = last_error_message();
        return outcome;
    };
    if (!location.found)
        return refuse(kInstallFix, format("nvJitLink was not found (looked for %s)", location.searched.c_str()));
    void* library = dlopen(location.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char* why = dlerror();
        return refuse(kInstallFix, format("'%s' could not be loaded: %s", location.path.c_str(),
                                          why != nullptr ? why : "unknown dlopen error"));
    }
    // nvJitLinkVersion first: its answer names the major of the versioned symbol names.
    auto version = reinterpret_cast<decltype(&::nvJitLinkVersion)>(dlsym(library, "nvJitLinkVersion"));
    unsigned major = 0, minor = 0;
    if (version == nullptr || version(&major, &minor) != NVJITLINK_SUCCESS)
        return refuse(kInstallFix, format("'%s' is not an nvJitLink of CUDA 12.0 or newer: it has no working "
                                          "nvJitLinkVersion", location.path.c_str()));
    outcome.api.major = static_cast<int>(major);
    outcome.api.minor = static_cast<int>(minor);
    outcome.api.path = location.path;
#define CUABI_NVJITLINK_RESOLVE(name)                                                                           \
    outcome.api.name = reinterpret_cast<decltype(&::name)>(resolve(library, #name, outcome.api.major));         \
    if (outcome.api.name == nullptr)                                                                            \
        return refuse(kInstallFix, format("'%s' (nvJitLink %u.%u) lacks the entry point %s", location.path.c_str(), \
                                          major, minor, #name));
    CUABI_NVJITLINK_ENTRY_POINTS(CUABI_NVJITLINK_RESOLVE)
#undef CUABI_NVJITLINK_RESOLVE
    return outcome;
}

}  // namespace

NvJitLinkLocation locate_nvjitlink(int preferred_major) {
    NvJitLinkLocation location;
    const NamedLibrary named = library_named_by("CUABI_NVJITLINK_PATH");
    if (named.set) {
        location.path = named.path;
        location.found = named.found;
        location.searched = named.searched;
    } else {
        std::vector<int> majors;
        if (preferred_major != 0) majors.push_back(preferred_major);
        for (int major : kNvJitLinkMajors)
            if (major != preferred_major) majors.push_back(major);
        for (int major : majors) {
            location.path = find_major(major);
            if (!location.path.empty()) break;
            location.searched += (location.searched.empty() ? "libnvJitLink.so." : " and libnvJitLink.so.") +
                                 std::to_string(major);
        }
        location.found = !location.path.empty();
        if (!location.found)
            location.searched += " in LD_LIBRARY_PATH, /etc/ld.so.cache, the system library directories, the CUDA "
                                 "Toolkit directories and pip's nvidia-* packages";
    }
    if (location.found) location.identity = nvrtc_file_identity(location.path, read_build_id(location.path));
    return location;
}

const NvJitLinkLocation& nvjitlink_location() {
    static std::once_flag once;
    static const NvJitLinkLocation* location = nullptr;  // never destroyed: read from any thread at exit
    std::call_once(once, [] {
        const NvrtcLocation& nvrtc = nvrtc_location();
        location = new NvJitLinkLocation(locate_nvjitlink(nvrtc.found ? nvrtc.major : 0));
    });
    return *location;
}

const NvJitLinkApi* nvjitlink(Status* out_status) {
    static std::once_flag once;
    static const LoadOutcome* outcome = nullptr;  // never destroyed: links may run at exit
    std::call_once(once, [] {
        outcome = new LoadOutcome(load());
        loaded.store(outcome->status == CUABI_SUCCESS);
    });
    if (out_status != nullptr) *out_status = outcome->status;
    if (outcome->status == CUABI_SUCCESS) return &outcome->api;
    fail_again(outcome->status, outcome->message);
    return nullptr;
}

bool nvjitlink_loaded() { return loaded.load(); }

}  // namespace cuabi
