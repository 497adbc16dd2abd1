#include "compile/compile_options.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "core/options.hpp"

namespace cuabi {
namespace {

constexpr uint32_t kMaxRegisters = 255;  // per thread, on every architecture NVRTC compiles for

constexpr uint32_t kKnownFlags = CUABI_COMPILE_NO_CACHE | CUABI_COMPILE_PTX | CUABI_COMPILE_NO_TOOLKIT_INCLUDES |
                                 CUABI_COMPILE_IN_PROCESS | CUABI_COMPILE_ISOLATED | CUABI_COMPILE_NO_PCH |
                                 CUABI_COMPILE_LTO_IR | CUABI_COMPILE_RELOCATABLE;

// Indices 0..count-1 in a chosen order, on the stack for small counts so that a cache hit
// allocates nothing.
class Order {
public:
    template <typename Less>
    Order(size_t count, Less less) : count_(count) {
        if (count > kSmall) {
            large_.resize(count);
            data_ = large_.data();
        }
        for (size_t i = 0; i < count; ++i) data_[i] = static_cast<uint32_t>(i);
        std::sort(data_, data_ + count, less);
    }
    Order(const Order&) = delete;  // data_ may point into small_; returned by guaranteed elision only
    Order& operator=(const Order&) = delete;
    size_t size() const { return count_; }
    uint32_t operator[](size_t i) const { return data_[i]; }

private:
    static constexpr size_t kSmall = 32;
    size_t count_;
    uint32_t small_[kSmall];
    std::vector<uint32_t> large_;
    uint32_t* data_ = small_;
};

// The macro name of a define: up to '=' or '(' (function-like macros).
std::string_view define_name(const char* define) {
    size_t length = std::strcspn(define, "=(");
    return std::string_view(define, length);
}

// Defines by macro name; equal names keep their given order (the last definition wins in NVRTC).
Order define_order(const CompileOptions& options) {
    const char* const* defines = options.defines;
    return Order(options.define_count, [defines](uint32_t a, uint32_t b) {
        std::string_view name_a = define_name(defines[a]), name_b = define_name(defines[b]);
        return name_a != name_b ? name_a < name_b : a < b;
    });
}

Order header_order(const CompileOptions& options) {
    const char* const* names = options.header_names;
    return Order(options.header_count, [names](uint32_t a, uint32_t b) { return std::strcmp(names[a], names[b]) < 0; });
}

Order expression_order(const CompileOptions& options) {
    const char* const* expressions = options.name_expressions;
    return Order(options.name_expression_count,
                 [expressions](uint32_t a, uint32_t b) { return std::strcmp(expressions[a], expressions[b]) < 0; });
}

bool resolved(int32_t tristate, bool default_value) {
    return tristate == CUABI_TRISTATE_DEFAULT ? default_value : tristate == CUABI_TRISTATE_ON;
}

// Writes the canonical flag list to `sink(parts)`: each flag is the concatenation of its parts.
template <typename Sink>
void emit_flags(const CompileRequest& request, Sink&& sink) {
    const CompileOptions& options = *request.options;
    using parts = std::initializer_list<std::string_view>;
    sink(parts{"--gpu-architecture=", request.target.name});
    // Link inputs (linker.hpp): relocatable device code, as LTO-IR with -dlto.
    if ((options.flags & (CUABI_COMPILE_LTO_IR | CUABI_COMPILE_RELOCATABLE)) != 0)
        sink(parts{"--relocatable-device-code=true"});
    if ((options.flags & CUABI_COMPILE_LTO_IR) != 0) sink(parts{"-dlto"});
    if (options.cpp_standard != nullptr) {
        std::string_view standard = options.cpp_standard;
        if (standard.size() == 2) sink(parts{"--std=c++", standard});
        else sink(parts{"--std=", standard});
    }
    bool fast = options.fast_math != 0;
    if (fast) sink(parts{"--use_fast_math"});
    auto boolean = [](bool value) { return value ? std::string_view("true") : std::string_view("false"); };
    sink(parts{"--ftz=", boolean(resolved(options.ftz, fast))});
    sink(parts{"--prec-div=", boolean(resolved(options.prec_div, !fast))});
    sink(parts{"--prec-sqrt=", boolean(resolved(options.prec_sqrt, !fast))});
    sink(parts{"--fmad=", boolean(resolved(options.fmad, true))});
    if (options.max_registers != 0) {
        char number[16];
        int length = std::snprintf(number, sizeof number, "%u", options.max_registers);
        sink(parts{"--maxrregcount=", std::string_view(number, static_cast<size_t>(length))});
    }
    if (options.line_info != 0) sink(parts{"--generate-line-info"});
    if (options.device_debug != 0) sink(parts{"--device-debug"});
    Order defines = define_order(options);
    for (size_t i = 0; i < defines.size(); ++i) {
        const char* define = options.defines[defines[i]];
        bool has_value = define[define_name(define).size()] != '\0';
        if (has_value) sink(parts{"-D", define});
        else sink(parts{"-D", define, "=1"});
    }
    for (size_t i = 0; i < options.include_dir_count; ++i) sink(parts{"--include-path=", options.include_dirs[i]});
    if (request.toolkit != nullptr)
        for (const std::string& directory : request.toolkit->directories) sink(parts{"--include-path=", directory});
    for (size_t i = 0; i < options.extra_flag_count; ++i) sink(parts{options.extra_flags[i]});
}

Status require_array(const void* pointer, size_t count, const char* field) {
    if (count == 0 || pointer != nullptr) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an array with that many entries, or a count of 0",
                "cuabi_compile_options.%s is NULL but its count is %zu", field, count);
}

Status require_strings(const char* const* strings, size_t count, const char* field, bool allow_empty) {
    Status status = require_array(strings, count, field);
    if (status != CUABI_SUCCESS) return status;
    for (size_t i = 0; i < count; ++i) {
        if (strings[i] == nullptr)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a NUL-terminated string in every entry",
                        "cuabi_compile_options.%s[%zu] is NULL", field, i);
        if (!allow_empty && strings[i][0] == '\0')
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "remove the empty entry",
                        "cuabi_compile_options.%s[%zu] is an empty string", field, i);
    }
    return CUABI_SUCCESS;
}

Status check_tristate(int32_t value, const char* field) {
    if (value >= CUABI_TRISTATE_DEFAULT && value <= CUABI_TRISTATE_ON) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT,
                "use CUABI_TRISTATE_DEFAULT (-1), CUABI_TRISTATE_OFF (0) or CUABI_TRISTATE_ON (1); "
                "cuabi_compile_options_init() sets -1",
                "cuabi_compile_options.%s is %d", field, value);
}

// The standards NVRTC's --std takes; "17" is short for "c++17".
constexpr const char* kStandards[] = {"c++03", "c++11", "c++14", "c++17", "c++20"};

Status check_cpp_standard(const char* standard) {
    if (standard == nullptr) return CUABI_SUCCESS;
    for (const char* known : kStandards)
        if (std::strcmp(standard, known) == 0 || std::strcmp(standard, known + 3) == 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT,
                "set cpp_standard to one of those, or leave it NULL for NVRTC's default (c++17)",
                "cuabi_compile_options.cpp_standard is \"%s\", which is not a C++ standard NVRTC accepts: use "
                "\"c++03\", \"c++11\", \"c++14\", \"c++17\" or \"c++20\" (or the digits alone, \"17\")",
                bounded(standard).c_str());
}

Status check_defines(const CompileOptions& options) {
    for (size_t i = 0; i < options.define_count; ++i) {
        std::string_view name = define_name(options.defines[i]);
        // ASCII by hand, not isalnum(): that follows the thread's locale, and the answer must be a
        // function of the options alone (the request memo skips this check for a repeated request).
        auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
        auto digit = [](char c) { return c >= '0' && c <= '9'; };
        bool valid = !name.empty() && letter(name[0]);
        for (char c : name) valid = valid && (letter(c) || digit(c));
        if (!valid)
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "write defines as \"NAME\" or \"NAME=VALUE\" with a C identifier as NAME (no leading -D)",
                        "cuabi_compile_options.defines[%zu] is \"%s\"; \"%s\" is not a macro name", i,
                        bounded(options.defines[i]).c_str(), bounded(std::string(name).c_str()).c_str());
    }
    return CUABI_SUCCESS;
}

Status check_headers(const CompileOptions& options) {
    Status status = require_strings(options.header_names, options.header_count, "header_names", false);
    if (status == CUABI_SUCCESS)
        status = require_strings(options.header_sources, options.header_count, "header_sources", true);
    if (status != CUABI_SUCCESS) return status;
    Order order = header_order(options);
    for (size_t i = 1; i < order.size(); ++i) {
        const char* previous = options.header_names[order[i - 1]];
        if (std::strcmp(previous, options.header_names[order[i]]) == 0)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "give each in-memory header a distinct name",
                        "cuabi_compile_options.header_names[%u] and [%u] are both \"%s\"", order[i - 1], order[i],
                        bounded(previous).c_str());
    }
    return CUABI_SUCCESS;
}

// Flags that would make the image disagree with the target the key and the module record, or
// leave no image at all.
Status check_extra_flags(const CompileOptions& options) {
    static const char* const kRefused[] = {"-arch",          "--gpu-architecture", "-dlto",     "--dlink-time-opt",
                                           "-dlink-time-opt", "-gen-opt-lto",      "--gen-opt-lto", "-optix-ir",
                                           "--optix-ir",     "-fdevice-syntax-only", "--fdevice-syntax-only"};
    // Relocatable device code is an object to link: asked for through the flags, the module is
    // a link input (CUABI_COMPILE_RELOCATABLE, _LTO_IR), keyed and described as one.
    static const char* const kRelocatable[] = {"-rdc", "--relocatable-device-code", "-dc", "--device-c"};
    for (size_t i = 0; i < options.extra_flag_count; ++i) {
        const char* flag = options.extra_flags[i];
        for (const char* refused : kRelocatable) {
            size_t length = std::strlen(refused);
            if (std::strncmp(flag, refused, length) == 0 &&
                (flag[length] == '\0' || (flag[length] == '=' && std::strcmp(flag + length, "=false") != 0)))
                return fail(CUABI_ERROR_INVALID_ARGUMENT,
                            "drop it: set CUABI_COMPILE_RELOCATABLE (or CUABI_COMPILE_LTO_IR) instead and link the "
                            "module with cuabi_module_link(), or put the device functions a kernel calls in its "
                            "source or an in-memory header",
                            "cuabi_compile_options.extra_flags[%zu] is \"%s\", which asks for relocatable device code",
                            i, bounded(flag).c_str());
        }
        for (const char* refused : kRefused) {
            size_t length = std::strlen(refused);
            if (std::strncmp(flag, refused, length) == 0 && (flag[length] == '\0' || flag[length] == '='))
                return fail(CUABI_ERROR_INVALID_ARGUMENT,
                            "set the architecture with cuabi_compile_options.target (and CUABI_COMPILE_PTX for PTX, "
                            "CUABI_COMPILE_LTO_IR for LTO-IR); cuabi loads PTX, CUBIN and fatbin images and links "
                            "LTO-IR -- not OptiX IR -- and needs one, so syntax-only compiles cannot be cached",
                            "cuabi_compile_options.extra_flags[%zu] is \"%s\", which would change the target or the "
                            "kind of image, or produce none",
                            i, bounded(flag).c_str());
        }
    }
    return CUABI_SUCCESS;
}

}  // namespace

Status check_compile_options(const CompileOptions& options) {
    Status status = CUABI_SUCCESS;
    if ((options.flags & ~kKnownFlags) != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "combine only CUABI_COMPILE_NO_CACHE (0x1), CUABI_COMPILE_PTX (0x2), "
                    "CUABI_COMPILE_NO_TOOLKIT_INCLUDES (0x4), CUABI_COMPILE_IN_PROCESS (0x8), "
                    "CUABI_COMPILE_ISOLATED (0x10), CUABI_COMPILE_NO_PCH (0x20), CUABI_COMPILE_LTO_IR (0x40) and "
                    "CUABI_COMPILE_RELOCATABLE (0x80)",
                    "cuabi_compile_options.flags is 0x%x; bits 0x%x are not defined by this version of cuabi",
                    options.flags, options.flags & ~kKnownFlags);
    if ((options.flags & CUABI_COMPILE_IN_PROCESS) != 0 && (options.flags & CUABI_COMPILE_ISOLATED) != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "set at most one of the two",
                    "cuabi_compile_options.flags has both CUABI_COMPILE_IN_PROCESS and CUABI_COMPILE_ISOLATED");
    if ((options.flags & CUABI_COMPILE_LTO_IR) != 0 && (options.flags & CUABI_COMPILE_PTX) != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "set one of the two: LTO-IR is for an sm_XY target and becomes PTX or a CUBIN when linked "
                    "(CUABI_LINK_PTX)",
                    "cuabi_compile_options.flags has both CUABI_COMPILE_LTO_IR and CUABI_COMPILE_PTX");
    if (options.program_name != nullptr && options.program_name[0] == '\0')
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a file name such as \"saxpy.cu\", or NULL for \"kernel.cu\"",
                    "cuabi_compile_options.program_name is an empty string");
    const struct {
        int32_t value;
        const char* field;
    } tristates[] = {{options.ftz, "ftz"}, {options.prec_div, "prec_div"}, {options.prec_sqrt, "prec_sqrt"},
                     {options.fmad, "fmad"}};
    for (const auto& tristate : tristates)
        if ((status = check_tristate(tristate.value, tristate.field)) != CUABI_SUCCESS) return status;
    if ((status = check_cpp_standard(options.cpp_standard)) != CUABI_SUCCESS) return status;
    // ptxas ignores a larger limit with only a warning in the log: the caller would not learn it.
    if (options.max_registers > kMaxRegisters)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass 0 for NVRTC's choice, or a limit from 1 to 255",
                    "cuabi_compile_options.max_registers is %u, more than the 255 registers a thread can have",
                    options.max_registers);
    if ((status = require_strings(options.defines, options.define_count, "defines", false)) != CUABI_SUCCESS ||
        (status = check_defines(options)) != CUABI_SUCCESS ||
        (status = require_strings(options.include_dirs, options.include_dir_count, "include_dirs", false)) !=
            CUABI_SUCCESS ||
        (status = check_headers(options)) != CUABI_SUCCESS ||
        (status = require_strings(options.name_expressions, options.name_expression_count, "name_expressions",
                                  false)) != CUABI_SUCCESS ||
        (status = require_strings(options.extra_flags, options.extra_flag_count, "extra_flags", false)) !=
            CUABI_SUCCESS ||
        (status = check_extra_flags(options)) != CUABI_SUCCESS ||
        (status = require_array(options.salt, options.salt_size, "salt")) != CUABI_SUCCESS)
        return status;
    return CUABI_SUCCESS;
}


const char* program_name(const CompileOptions& options) {
    return options.program_name != nullptr ? options.program_name : "kernel.cu";
}

std::vector<std::string> nvrtc_flags(const CompileRequest& request) {
    std::vector<std::string> flags;
    emit_flags(request, [&flags](std::initializer_list<std::string_view> parts) {
        std::string flag;
        for (std::string_view part : parts) flag.append(part.data(), part.size());
        flags.push_back(std::move(flag));
    });
    return flags;
}

std::vector<std::string_view> sorted_name_expressions(const CompileOptions& options) {
    Order order = expression_order(options);
    std::vector<std::string_view> expressions;
    expressions.reserve(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        std::string_view expression = options.name_expressions[order[i]];
        if (expressions.empty() || expressions.back() != expression) expressions.push_back(expression);
    }
    return expressions;
}

cache::Key compile_key(const CompileRequest& request, uint64_t nvrtc_identity) {
    const CompileOptions& options = *request.options;
    cache::KeyBuilder key;
    key.add("source", request.source.data(), request.source.size());
    key.add("program_name", program_name(options), std::strlen(program_name(options)));
    // Each flag hashed as the joined text NVRTC sees, without joining it.
    emit_flags(request, [&key](std::initializer_list<std::string_view> parts) { key.add_joined("flag", parts); });
    Order headers = header_order(options);
    key.add_u64("headers", headers.size());
    for (size_t i = 0; i < headers.size(); ++i) {
        const char* name = options.header_names[headers[i]];
        const char* source = options.header_sources[headers[i]];
        key.add("header.name", name, std::strlen(name));
        key.add("header.source", source, std::strlen(source));
    }
    Order expressions = expression_order(options);
    const char* previous = nullptr;
    for (size_t i = 0; i < expressions.size(); ++i) {
        const char* expression = options.name_expressions[expressions[i]];
        if (previous != nullptr && std::strcmp(previous, expression) == 0) continue;
        key.add("name_expression", expression, std::strlen(expression));
        previous = expression;
    }
    key.add("target", request.target.name, std::strlen(request.target.name));
    key.add_u64("toolkit", request.toolkit != nullptr ? request.toolkit->identity : 0);
    key.add("salt", options.salt, options.salt_size);
    cache::Key finished = key.finish();
    finished.nvrtc = nvrtc_identity;
    return finished;
}

NvrtcJob make_job(const CompileRequest& request) {
    const CompileOptions& options = *request.options;
    NvrtcJob job;
    job.source.assign(request.source.data(), request.source.size());
    job.program_name = program_name(options);
    job.flags = nvrtc_flags(request);
    Order headers = header_order(options);
    for (size_t i = 0; i < headers.size(); ++i) {
        job.header_names.push_back(options.header_names[headers[i]]);
        job.header_sources.push_back(options.header_sources[headers[i]]);
    }
    for (std::string_view expression : sorted_name_expressions(options)) job.name_expressions.emplace_back(expression);
    job.target = request.target.name;
    job.ptx = request.target.ptx;
    job.ltoir = (options.flags & CUABI_COMPILE_LTO_IR) != 0;
    for (size_t i = 0; i < options.include_dir_count; ++i) job.include_dirs.push_back(options.include_dirs[i]);
    if (request.toolkit == nullptr) {
        job.toolkit_note = "the CUDA Toolkit's include directories were left out (CUABI_COMPILE_NO_TOOLKIT_INCLUDES)";
    } else if (request.toolkit->directories.empty()) {
        job.toolkit_note = "no CUDA Toolkit headers were found (looked in " + request.toolkit->searched + ")";
    } else {
        for (const std::string& directory : request.toolkit->directories) job.include_dirs.push_back(directory);
        job.toolkit_note = "the last " + std::to_string(request.toolkit->directories.size()) +
                           " are the CUDA Toolkit's, from " + request.toolkit->source;
    }
    return job;
}

}  // namespace cuabi
