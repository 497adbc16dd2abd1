#include "compile/nvrtc_program.hpp"

#include <algorithm>

namespace cuabi {
namespace {

// Owns an nvrtcProgram.
class Program {
public:
    explicit Program(const NvrtcApi& nvrtc) : nvrtc_(nvrtc) {}
    ~Program() {
        if (program_ != nullptr) nvrtc_.nvrtcDestroyProgram(&program_);
    }
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;
    nvrtcProgram* address() { return &program_; }
    nvrtcProgram get() const { return program_; }

private:
    const NvrtcApi& nvrtc_;
    nvrtcProgram program_ = nullptr;
};

std::string read_log(const NvrtcApi& nvrtc, nvrtcProgram program) {
    size_t size = 0;
    if (nvrtc.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return std::string();
    std::string log(size, '\0');
    if (nvrtc.nvrtcGetProgramLog(program, &log[0]) != NVRTC_SUCCESS) return std::string();
    log.resize(size - 1);  // the size counts the terminating NUL
    return log;
}

Status read_image(const NvrtcApi& nvrtc, nvrtcProgram program, const NvrtcJob& job, cache::CachedImage* out) {
    size_t size = 0;
    const char* kind = job.ltoir ? "LTO-IR" : job.ptx ? "PTX" : "CUBIN";
    nvrtcResult result = job.ltoir ? nvrtc.nvrtcGetLTOIRSize(program, &size)
                         : job.ptx ? nvrtc.nvrtcGetPTXSize(program, &size)
                                   : nvrtc.nvrtcGetCUBINSize(program, &size);
    // PTX: the size counts the terminating NUL, so PTX with no code at all is 1 byte.
    if (result == NVRTC_SUCCESS && size <= (job.ptx ? 1u : 0u))
        return fail_with_nvrtc_result(
            CUABI_ERROR_INVALID_ARGUMENT, NVRTC_SUCCESS,
            "remove the extra flag that stops NVRTC before code generation (such as -fdevice-syntax-only)",
            "NVRTC %d.%d compiled '%s' for %s without producing a %s", nvrtc.major, nvrtc.minor,
            job.program_name.c_str(), job.target.c_str(), kind);
    if (result == NVRTC_SUCCESS) {
        out->image.resize(size);  // PTX: the size includes the terminating NUL, which the driver needs
        char* bytes = reinterpret_cast<char*>(out->image.data());
        result = job.ltoir ? nvrtc.nvrtcGetLTOIR(program, bytes)
                 : job.ptx ? nvrtc.nvrtcGetPTX(program, bytes)
                           : nvrtc.nvrtcGetCUBIN(program, bytes);
    }
    if (result != NVRTC_SUCCESS)
        return fail_nvrtc(nvrtc, result, job.ltoir ? "nvrtcGetLTOIR" : job.ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN",
                          "remove extra flags that ask for another kind of output; otherwise report this as a cuabi bug",
                          "reading the %s for target %s", kind, job.target.c_str());
    out->image_kind = job.ltoir ? CUABI_IMAGE_LTOIR : job.ptx ? CUABI_IMAGE_PTX : CUABI_IMAGE_CUBIN;
    out->target = job.target;
    out->nvrtc_version = nvrtc.version();
    return CUABI_SUCCESS;
}

Status read_lowered_names(const NvrtcApi& nvrtc, nvrtcProgram program, const std::vector<std::string>& expressions,
                          cache::CachedImage* out) {
    for (const std::string& expression : expressions) {
        const char* lowered = nullptr;
        nvrtcResult result = nvrtc.nvrtcGetLoweredName(program, expression.c_str(), &lowered);
        if (result != NVRTC_SUCCESS || lowered == nullptr)
            return fail_nvrtc(nvrtc, result, "nvrtcGetLoweredName",
                              "check that the name expression names a __global__ function template instance or "
                              "overload in the source",
                              "for name expression \"%s\"", expression.c_str());
        out->lowered_names.emplace_back(expression, lowered);
    }
    std::sort(out->lowered_names.begin(), out->lowered_names.end());
    return CUABI_SUCCESS;
}

}  // namespace

std::string first_error_line(const std::string& log) {
    std::string first_non_empty;
    size_t start = 0;
    while (start < log.size()) {
        size_t end = log.find('\n', start);
        if (end == std::string::npos) end = log.size();
        std::string line = log.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find("error") != std::string::npos) return line.substr(0, 400);
        if (first_non_empty.empty() && line.find_first_not_of(" \t") != std::string::npos) first_non_empty = line;
        start = end + 1;
    }
    return first_non_empty.substr(0, 400);
}

std::string missing_header(const std::string& error_line) {
    const char marker[] = "open source file \"";  // "could not" or "cannot", by NVRTC version and case
    size_t at = error_line.find(marker);
    if (at == std::string::npos) return "";
    at += sizeof marker - 1;
    size_t end = error_line.find('"', at);
    return end == std::string::npos ? "" : error_line.substr(at, end - at);
}

namespace {

// A source error: the first error line; for a missing #include, where it was looked for.
Status fail_compile(const NvrtcApi& nvrtc, const NvrtcJob& job, const std::string& log) {
    std::string line = first_error_line(log);
    std::string header = missing_header(line);
    if (header.empty())
        return fail_with_nvrtc_result(CUABI_ERROR_COMPILE, NVRTC_ERROR_COMPILATION,
                                      "correct the source; the whole log is available from cuabi_last_compile_log()",
                                      "NVRTC %d.%d could not compile '%s' for %s: %s", nvrtc.major, nvrtc.minor,
                                      job.program_name.c_str(), job.target.c_str(), line.c_str());
    std::string searched;
    for (const std::string& directory : job.include_dirs) searched += (searched.empty() ? "" : ", ") + directory;
    std::string in_memory;
    for (const std::string& name : job.header_names) in_memory += (in_memory.empty() ? "" : ", ") + name;
    return fail_with_nvrtc_result(
        CUABI_ERROR_COMPILE, NVRTC_ERROR_COMPILATION,
        "add the directory that holds the header to cuabi_compile_options.include_dirs, or pass the header in "
        "header_names/header_sources; for a CUDA Toolkit header, point CUDA_HOME (or CUABI_CUDA_INCLUDE_PATH) at the "
        "toolkit",
        "NVRTC %d.%d could not compile '%s' for %s: #include \"%s\" was not found in the in-memory headers (%s) nor "
        "in the include directories searched (%s)%s%s",
        nvrtc.major, nvrtc.minor, job.program_name.c_str(), job.target.c_str(), header.c_str(),
        in_memory.empty() ? "none" : in_memory.c_str(), searched.empty() ? "none" : searched.c_str(),
        job.toolkit_note.empty() ? "" : "; ", job.toolkit_note.c_str());
}

}  // namespace

Status run_nvrtc(const NvrtcApi& nvrtc, const NvrtcJob& job, cache::CachedImage* out, std::string* out_log,
                 PchRun* pch) {
    std::vector<const char*> names, sources;
    for (const std::string& name : job.header_names) names.push_back(name.c_str());
    for (const std::string& source : job.header_sources) sources.push_back(source.c_str());
    Program program(nvrtc);
    nvrtcResult result = nvrtc.nvrtcCreateProgram(program.address(), job.source.c_str(), job.program_name.c_str(),
                                                  static_cast<int>(names.size()), sources.data(), names.data());
    if (result != NVRTC_SUCCESS)
        return fail_nvrtc(nvrtc, result, "nvrtcCreateProgram", "check the source and headers", "for program '%s'",
                          job.program_name.c_str());

    for (const std::string& expression : job.name_expressions) {
        result = nvrtc.nvrtcAddNameExpression(program.get(), expression.c_str());
        if (result != NVRTC_SUCCESS)
            return fail_nvrtc(nvrtc, result, "nvrtcAddNameExpression", "check the name expression", "for \"%s\"",
                              expression.c_str());
    }

    std::vector<const char*> flags;
    flags.reserve(job.flags.size());
    for (const std::string& flag : job.flags) flags.push_back(flag.c_str());
    if (pch != nullptr)
        for (const std::string& flag : pch->flags) flags.push_back(flag.c_str());
    result = nvrtc.nvrtcCompileProgram(program.get(), static_cast<int>(flags.size()), flags.data());
    std::string log = read_log(nvrtc, program.get());
    if (pch != nullptr) {
        pch->create_status = nvrtc.nvrtcGetPCHCreateStatus(program.get());
        if (pch->create_status == NVRTC_SUCCESS || pch->create_status == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED)
            nvrtc.nvrtcGetPCHHeapSizeRequired(program.get(), &pch->heap_required);
    }
    *out_log = log;

    if (result == NVRTC_ERROR_COMPILATION) return fail_compile(nvrtc, job, log);
    if (result == NVRTC_ERROR_INVALID_OPTION)
        return fail_with_nvrtc_result(
            CUABI_ERROR_INVALID_ARGUMENT, result,
            "correct or remove the option (cuabi_compile_options.extra_flags are passed to NVRTC as given)",
            "NVRTC %d.%d refused an option compiling '%s': %s", nvrtc.major, nvrtc.minor, job.program_name.c_str(),
            first_error_line(log).c_str());
    if (result != NVRTC_SUCCESS)
        return fail_nvrtc(nvrtc, result, "nvrtcCompileProgram", "see the log from cuabi_last_compile_log()",
                          "compiling '%s' for %s", job.program_name.c_str(), job.target.c_str());

    cache::CachedImage image;
    Status status = read_image(nvrtc, program.get(), job, &image);
    if (status == CUABI_SUCCESS) status = read_lowered_names(nvrtc, program.get(), job.name_expressions, &image);
    if (status != CUABI_SUCCESS) return status;
    image.log = std::move(log);
    *out = std::move(image);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
