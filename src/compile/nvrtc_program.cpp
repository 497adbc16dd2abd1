#include "compile/nvrtc_program.hpp"

#include <algorithm>

#include "range/ranges.hpp"

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

Status read_image(const NvrtcApi& nvrtc, nvrtcProgram program, const Target& target, cache::CachedImage* out) {
    size_t size = 0;
    nvrtcResult result = target.ptx ? nvrtc.nvrtcGetPTXSize(program, &size) : nvrtc.nvrtcGetCUBINSize(program, &size);
    if (result == NVRTC_SUCCESS && size == 0) result = NVRTC_ERROR_INTERNAL_ERROR;
    if (result == NVRTC_SUCCESS) {
        out->image.resize(size);  // PTX: the size includes the terminating NUL, which the driver needs
        char* bytes = reinterpret_cast<char*>(out->image.data());
        result = target.ptx ? nvrtc.nvrtcGetPTX(program, bytes) : nvrtc.nvrtcGetCUBIN(program, bytes);
    }
    if (result != NVRTC_SUCCESS)
        return fail_nvrtc(nvrtc, result, target.ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", "report this as a cuabi bug",
                          "reading the %s for target %s", target.ptx ? "PTX" : "CUBIN", target.name);
    out->image_kind = target.ptx ? CUABI_IMAGE_PTX : CUABI_IMAGE_CUBIN;
    out->target = target.name;
    return CUABI_SUCCESS;
}

Status read_lowered_names(const NvrtcApi& nvrtc, nvrtcProgram program,
                          const std::vector<std::string_view>& expressions, cache::CachedImage* out) {
    for (std::string_view expression : expressions) {
        const char* lowered = nullptr;
        std::string text(expression);
        nvrtcResult result = nvrtc.nvrtcGetLoweredName(program, text.c_str(), &lowered);
        if (result != NVRTC_SUCCESS || lowered == nullptr)
            return fail_nvrtc(nvrtc, result, "nvrtcGetLoweredName",
                              "check that the name expression names a __global__ function template instance or "
                              "overload in the source",
                              "for name expression \"%s\"", text.c_str());
        out->lowered_names.emplace_back(std::move(text), lowered);
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

Status run_nvrtc(const NvrtcApi& nvrtc, const CompileRequest& request, cache::CachedImage* out, std::string* out_log) {
    const cuabi_compile_options& options = request.options;
    range::Scope scope(range::Phase::Compile, program_name(options));
    Program program(nvrtc);
    nvrtcResult result = nvrtc.nvrtcCreateProgram(
        program.address(), request.source.data(), program_name(options), static_cast<int>(options.header_count),
        options.header_sources, options.header_names);
    if (result != NVRTC_SUCCESS)
        return fail_nvrtc(nvrtc, result, "nvrtcCreateProgram", "check the source and headers",
                          "for program '%s'", program_name(options));

    std::vector<std::string_view> expressions = sorted_name_expressions(options);
    for (std::string_view expression : expressions) {
        std::string text(expression);
        result = nvrtc.nvrtcAddNameExpression(program.get(), text.c_str());
        if (result != NVRTC_SUCCESS)
            return fail_nvrtc(nvrtc, result, "nvrtcAddNameExpression", "check the name expression",
                              "for \"%s\"", text.c_str());
    }

    std::vector<std::string> flags = nvrtc_flags(request);
    std::vector<const char*> flag_pointers;
    flag_pointers.reserve(flags.size());
    for (const std::string& flag : flags) flag_pointers.push_back(flag.c_str());
    result = nvrtc.nvrtcCompileProgram(program.get(), static_cast<int>(flag_pointers.size()), flag_pointers.data());
    std::string log = read_log(nvrtc, program.get());
    *out_log = log;

    if (result == NVRTC_ERROR_COMPILATION)
        return fail_with_nvrtc_result(
            CUABI_ERROR_COMPILE, result,
            "correct the source; the whole log is available from cuabi_last_compile_log()",
            "NVRTC %d.%d could not compile '%s' for %s: %s", nvrtc.major, nvrtc.minor, program_name(options),
            request.target.name, first_error_line(log).c_str());
    if (result == NVRTC_ERROR_INVALID_OPTION)
        return fail_with_nvrtc_result(
            CUABI_ERROR_INVALID_ARGUMENT, result,
            "correct or remove the option (cuabi_compile_options.extra_flags are passed to NVRTC as given)",
            "NVRTC %d.%d refused an option compiling '%s': %s", nvrtc.major, nvrtc.minor, program_name(options),
            first_error_line(log).c_str());
    if (result != NVRTC_SUCCESS)
        return fail_nvrtc(nvrtc, result, "nvrtcCompileProgram", "see the log from cuabi_last_compile_log()",
                          "compiling '%s' for %s", program_name(options), request.target.name);

    cache::CachedImage image;
    Status status = read_image(nvrtc, program.get(), request.target, &image);
    if (status == CUABI_SUCCESS) status = read_lowered_names(nvrtc, program.get(), expressions, &image);
    if (status != CUABI_SUCCESS) return status;
    image.log = std::move(log);
    *out = std::move(image);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
