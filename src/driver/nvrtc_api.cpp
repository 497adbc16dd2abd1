#include "driver/nvrtc_api.hpp"

#include "driver/nvrtc_api_locate.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cuabi {
namespace {

struct LoadOutcome {
    NvrtcApi api;
    Status status = CUABI_SUCCESS;
    std::string message;
};

// Finds the GNU build-id note of the loaded object that contains `address`.
struct BuildIdSearch {
    uintptr_t address;
    std::string hex;
};

int find_build_id(struct dl_phdr_info* info, size_t, void* data) {
    BuildIdSearch* search = static_cast<BuildIdSearch*>(data);
    bool contains = false;
    for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + segment.p_vaddr;
        contains = segment.p_type == PT_LOAD && search->address >= start && search->address < start + segment.p_memsz;
    }
    if (!contains) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_NOTE) continue;
        const unsigned char* note = reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
        const unsigned char* end = note + segment.p_memsz;
        auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr)* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
            const unsigned char* name = note + sizeof(ElfW(Nhdr));
            const unsigned char* desc = name + align4(header->n_namesz);
            if (desc + header->n_descsz > end) break;
            if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                char digits[3];
                for (uint32_t b = 0; b < header->n_descsz; ++b) {
                    std::snprintf(digits, sizeof digits, "%02x", desc[b]);
                    search->hex += digits;
                }
                return 1;
            }
            note = desc + align4(header->n_descsz);
        }
    }
    return 1;  // the right object, without a build-id
}

void fail_load(LoadOutcome* outcome, const char* fix, const std::string& what) {
    fail(CUABI_ERROR_NVRTC_NOT_FOUND, fix, "%s", what.c_str());
    outcome->status = CUABI_ERROR_NVRTC_NOT_FOUND;
    outcome->message = last_error_message();
}

const char* const kInstallFix =
    "install NVRTC from the CUDA Toolkit (package cuda-nvrtc-13-0 or cuda-nvrtc-12-x, or the pip wheel "
    "nvidia-cuda-nvrtc) and add its lib directory to LD_LIBRARY_PATH, or set CUABI_NVRTC_PATH to the full path of "
    "libnvrtc.so";

// Opens the NVRTC that nvrtc_location() chose and sets outcome->api.path to it.
void* open_library(LoadOutcome* outcome) {
    const NvrtcLocation& location = nvrtc_location();
    bool named = location.source == "CUABI_NVRTC_PATH";
    if (!location.found && !named) {
        fail_load(outcome, kInstallFix,
                  format("NVRTC (the CUDA runtime compiler) could not be found; looked for %s",
                         location.searched.c_str()));
        return nullptr;
    }
    outcome->api.path = location.path;
    void* library = dlopen(location.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) return library;
    const char* reason = dlerror();
    fail_load(outcome,
              named ? "point CUABI_NVRTC_PATH at libnvrtc.so from CUDA 12 or 13, or unset it to search the usual places"
                    : kInstallFix,
              format("NVRTC could not be loaded from %s'%s' (found through %s): %s", named ? "CUABI_NVRTC_PATH=" : "",
                     location.path.c_str(), location.source.c_str(), reason != nullptr ? reason : "unknown dlopen error"));
    return nullptr;
}

void load(LoadOutcome* outcome) {
    NvrtcApi& api = outcome->api;
    void* library = open_library(outcome);
    if (library == nullptr) return;
    // Deliberately never dlclose()d: programs and cached entry points must outlive every caller.

    std::string missing;
#define CUABI_NVRTC_RESOLVE(name)                                           \
    api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name)); \
    if (api.name == nullptr) missing += missing.empty() ? #name : ", " #name;
    CUABI_NVRTC_ENTRY_POINTS(CUABI_NVRTC_RESOLVE)
#undef CUABI_NVRTC_RESOLVE
#define CUABI_NVRTC_RESOLVE_OPTIONAL(name) api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));
    CUABI_NVRTC_OPTIONAL_ENTRY_POINTS(CUABI_NVRTC_RESOLVE_OPTIONAL)
#undef CUABI_NVRTC_RESOLVE_OPTIONAL

    // The file behind the name (libnvrtc.so.13 -> /usr/local/cuda-13.0/lib64/libnvrtc.so.13).
    Dl_info where{};
    void* probe = reinterpret_cast<void*>(api.nvrtcVersion);
    if (probe != nullptr && dladdr(probe, &where) != 0 && where.dli_fname != nullptr) api.path = where.dli_fname;
    if (!missing.empty()) {
        fail_load(outcome, "install NVRTC from CUDA 12.0 or newer",
                  format("the library '%s' lacks NVRTC entry points cuabi needs: %s", api.path.c_str(),
                         missing.c_str()));
        return;
    }

    nvrtcResult result = api.nvrtcVersion(&api.major, &api.minor);
    int count = 0;
    if (result == NVRTC_SUCCESS) result = api.nvrtcGetNumSupportedArchs(&count);
    if (result == NVRTC_SUCCESS && count > 0) {
        api.supported_archs.resize(static_cast<size_t>(count));
        result = api.nvrtcGetSupportedArchs(api.supported_archs.data());
    }
    if (result != NVRTC_SUCCESS || api.supported_archs.empty()) {
        fail_load(outcome, "reinstall NVRTC; the library looks damaged",
                  format("'%s' loaded but could not report its version and architectures (%s)", api.path.c_str(),
                         api.nvrtcGetErrorString(result)));
        return;
    }
    std::sort(api.supported_archs.begin(), api.supported_archs.end());

    BuildIdSearch search{reinterpret_cast<uintptr_t>(probe), {}};
    dl_iterate_phdr(find_build_id, &search);
    api.build_id = std::move(search.hex);
    api.identity = nvrtc_file_identity(api.path, api.build_id);
}

LoadOutcome& outcome() {
    static LoadOutcome* loaded = new LoadOutcome();  // never destroyed, see the dlclose note
    return *loaded;
}

std::once_flag load_once;
std::atomic<bool> load_tried{false};

}  // namespace

bool NvrtcFacts::supports(int arch) const {
    return std::binary_search(supported_archs.begin(), supported_archs.end(), arch);
}

NvrtcLoad nvrtc_load_state() {
    if (!load_tried.load(std::memory_order_acquire)) return NvrtcLoad::NotTried;
    return outcome().status == CUABI_SUCCESS ? NvrtcLoad::Loaded : NvrtcLoad::Failed;
}

const NvrtcApi* nvrtc(Status* out_status) {
    std::call_once(load_once, [] {
        load(&outcome());
        load_tried.store(true, std::memory_order_release);
    });
    const LoadOutcome& result = outcome();
    if (out_status != nullptr) *out_status = result.status;
    if (result.status != CUABI_SUCCESS) {
        fail_again(result.status, result.message);
        return nullptr;
    }
    return &result.api;
}

Status fail_nvrtc(const NvrtcApi& api, nvrtcResult result, const char* call, const char* fix,
                  const char* context_format, ...) {
    va_list args;
    va_start(args, context_format);
    char context[512];
    std::vsnprintf(context, sizeof context, context_format, args);
    va_end(args);
    Status status = result == NVRTC_ERROR_OUT_OF_MEMORY ? CUABI_ERROR_OUT_OF_HOST_MEMORY : CUABI_ERROR_NVRTC;
    return fail_with_nvrtc_result(status, static_cast<int32_t>(result), fix, "%s failed with %s%s%s", call,
                                  api.nvrtcGetErrorString(result), context[0] != '\0' ? " " : "", context);
}

}  // namespace cuabi
