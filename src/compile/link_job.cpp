#include "compile/link_job.hpp"

#include "compile/nvrtc_program.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {
namespace {

// Owns an nvJitLinkHandle.
class Linker {
public:
    explicit Linker(const NvJitLinkApi& api) : api_(api) {}
    ~Linker() {
        if (handle_ != nullptr) api_.nvJitLinkDestroy(&handle_);
    }
    Linker(const Linker&) = delete;
    Linker& operator=(const Linker&) = delete;
    nvJitLinkHandle* address() { return &handle_; }
    nvJitLinkHandle get() const { return handle_; }

private:
    const NvJitLinkApi& api_;
    nvJitLinkHandle handle_ = nullptr;
};

std::string read_log(const NvJitLinkApi& api, nvJitLinkHandle handle, bool errors) {
    size_t size = 0;
    nvJitLinkResult result =
        errors ? api.nvJitLinkGetErrorLogSize(handle, &size) : api.nvJitLinkGetInfoLogSize(handle, &size);
    if (result != NVJITLINK_SUCCESS || size <= 1) return std::string();
    std::string log(size, '\0');
    result = errors ? api.nvJitLinkGetErrorLog(handle, &log[0]) : api.nvJitLinkGetInfoLog(handle, &log[0]);
    if (result != NVJITLINK_SUCCESS) return std::string();
    log.resize(size - 1);  // the size counts the terminating NUL
    return log;
}

// nvJitLink's info log, then its error log.
std::string both_logs(const NvJitLinkApi& api, nvJitLinkHandle handle) {
    std::string info = read_log(api, handle, false), errors = read_log(api, handle, true);
    if (info.empty() || errors.empty()) return info + errors;
    return info + (info.back() == '\n' ? "" : "\n") + errors;
}

const char* result_name(nvJitLinkResult result) {
    switch (result) {
        case NVJITLINK_SUCCESS: return "NVJITLINK_SUCCESS";
        case NVJITLINK_ERROR_UNRECOGNIZED_OPTION: return "NVJITLINK_ERROR_UNRECOGNIZED_OPTION";
        case NVJITLINK_ERROR_MISSING_ARCH: return "NVJITLINK_ERROR_MISSING_ARCH";
        case NVJITLINK_ERROR_INVALID_INPUT: return "NVJITLINK_ERROR_INVALID_INPUT";
        case NVJITLINK_ERROR_PTX_COMPILE: return "NVJITLINK_ERROR_PTX_COMPILE";
        case NVJITLINK_ERROR_NVVM_COMPILE: return "NVJITLINK_ERROR_NVVM_COMPILE";
        case NVJITLINK_ERROR_INTERNAL: return "NVJITLINK_ERROR_INTERNAL";
        default: return "an nvJitLinkResult";
    }
}

Status fail_link(const NvJitLinkApi& api, nvJitLinkResult result, const char* call, const std::string& subject,
                 const std::string& log) {
    std::string line = first_error_line(log);
    return fail(CUABI_ERROR_LINK,
                "define every symbol the inputs use (add the object or library that defines it), link inputs of "
                "the link's architecture, and set CUABI_LINK_LTO for LTO-IR inputs; cuabi_last_compile_log() has "
                "nvJitLink's whole log",
                "nvJitLink %d.%d refused %s: %s failed with %s (%d)%s%s", api.major, api.minor, subject.c_str(), call,
                result_name(result), static_cast<int>(result), line.empty() ? "" : ": ", line.c_str());
}

}  // namespace

Status run_nvjitlink(const NvJitLinkApi& api, const LinkJob& job, cache::CachedImage* out, std::string* out_log) {
    if (job.min_version > api.version())
        return fail(CUABI_ERROR_NVJITLINK_NOT_FOUND,
                    "install the nvJitLink of the CUDA release of the NVRTC that compiled the inputs (or newer) and "
                    "point CUABI_NVJITLINK_PATH at it",
                    "nvJitLink %d.%d at '%s' is older than the NVRTC %u.%u that produced an LTO-IR input; an older "
                    "nvJitLink cannot read newer LTO-IR",
                    api.major, api.minor, api.path.c_str(), job.min_version / 1000, job.min_version % 1000 / 10);
    std::vector<const char*> options;
    for (const std::string& option : job.options) options.push_back(option.c_str());
    Linker linker(api);
    nvJitLinkResult result =
        api.nvJitLinkCreate(linker.address(), static_cast<uint32_t>(options.size()), options.data());
    if (result != NVJITLINK_SUCCESS) {
        // A refused option leaves no handle, so no log: name the options instead.
        std::string given;
        for (const std::string& option : job.options) given += (given.empty() ? "" : " ") + option;
        return fail(CUABI_ERROR_LINK,
                    "correct or remove the option (cuabi_link_options.extra_options are passed to nvJitLink as "
                    "given)",
                    "nvJitLink %d.%d refused the options '%s': nvJitLinkCreate failed with %s (%d)", api.major,
                    api.minor, given.c_str(), result_name(result), static_cast<int>(result));
    }
    for (const LinkJobInput& input : job.inputs) {
        result = api.nvJitLinkAddData(linker.get(), static_cast<nvJitLinkInputType>(input.kind), input.bytes.data(),
                                      input.bytes.size(), input.name.c_str());
        if (result != NVJITLINK_SUCCESS) {
            *out_log = both_logs(api, linker.get());
            return fail_link(api, result, "nvJitLinkAddData", "input '" + input.name + "'", *out_log);
        }
    }
    result = api.nvJitLinkComplete(linker.get());
    *out_log = both_logs(api, linker.get());
    if (result != NVJITLINK_SUCCESS)
        return fail_link(api, result, "nvJitLinkComplete", format("the link for %s", job.target.c_str()), *out_log);

    size_t size = 0;
    result = job.ptx ? api.nvJitLinkGetLinkedPtxSize(linker.get(), &size)
                     : api.nvJitLinkGetLinkedCubinSize(linker.get(), &size);
    cache::CachedImage image;
    if (result == NVJITLINK_SUCCESS) {
        image.image.resize(size);
        result = job.ptx ? api.nvJitLinkGetLinkedPtx(linker.get(), reinterpret_cast<char*>(image.image.data()))
                         : api.nvJitLinkGetLinkedCubin(linker.get(), image.image.data());
    }
    if (result != NVJITLINK_SUCCESS || size == 0)
        return fail_link(api, result, job.ptx ? "nvJitLinkGetLinkedPtx" : "nvJitLinkGetLinkedCubin",
                         format("to give the linked %s for %s", job.ptx ? "PTX" : "CUBIN", job.target.c_str()),
                         *out_log);
    if (job.ptx && image.image.back() != 0) image.image.push_back(0);  // the driver needs it
    image.image_kind = job.ptx ? CUABI_IMAGE_PTX : CUABI_IMAGE_CUBIN;
    image.target = job.target;
    image.log = read_log(api, linker.get(), false);
    *out = std::move(image);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
