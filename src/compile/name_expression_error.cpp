#include "compile/name_expression_error.hpp"

#include <cstring>

namespace cuabi {
namespace {

bool identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `text` with comments, string and character literals blanked out, so that a "__global__" in a
// comment is not taken for a kernel.
std::string code_only(std::string_view text) {
    std::string code(text);
    for (size_t i = 0; i < code.size(); ++i) {
        size_t end = i;
        if (code.compare(i, 2, "//") == 0) {
            end = code.find('\n', i);
        } else if (code.compare(i, 2, "/*") == 0) {
            end = code.find("*/", i + 2);
            if (end != std::string::npos) end += 2;
        } else if (code[i] == '"' || code[i] == '\'') {
            for (end = i + 1; end < code.size() && code[end] != code[i] && code[end] != '\n'; ++end)
                if (code[end] == '\\') ++end;
            if (end < code.size()) ++end;
        } else {
            continue;
        }
        if (end == std::string::npos || end > code.size()) end = code.size();
        for (size_t j = i; j < end; ++j)
            if (code[j] != '\n') code[j] = ' ';
        i = end == i ? i : end - 1;
    }
    return code;
}

// The end of the parenthesized group that opens at `open`.
size_t skip_group(const std::string& code, size_t open) {
    int depth = 0;
    for (size_t i = open; i < code.size(); ++i) {
        if (code[i] == '(') ++depth;
        if (code[i] == ')' && --depth == 0) return i + 1;
    }
    return code.size();
}

// Whether the declaration around `at` (back to the previous ';', '{' or '}') says `template`.
bool in_template(const std::string& code, size_t at) {
    size_t start = code.find_last_of(";{}", at);
    std::string_view before(code.data() + (start == std::string::npos ? 0 : start + 1),
                            at - (start == std::string::npos ? 0 : start + 1));
    size_t found = before.find("template");
    return found != std::string_view::npos && (found == 0 || !identifier_char(before[found - 1])) &&
           (found + 8 >= before.size() || !identifier_char(before[found + 8]));
}

// The function name after the `__global__` at `at`: the identifier before the first '(' that does
// not open an attribute such as __launch_bounds__(...).
std::string kernel_name_after(const std::string& code, size_t at) {
    std::string last;
    size_t i = at + std::strlen("__global__");
    while (i < code.size() && code[i] != ';' && code[i] != '{') {
        if (identifier_char(code[i])) {
            size_t end = i;
            while (end < code.size() && identifier_char(code[end])) ++end;
            last = code.substr(i, end - i);
            i = end;
        } else if (code[i] == '(') {
            if (last.rfind("__", 0) != 0) return last;  // __launch_bounds__, __attribute__, __cluster_dims__
            i = skip_group(code, i);
            last.clear();
        } else {
            ++i;
        }
    }
    return "";
}

// The expression a name-map error is about: NVRTC quotes the line `#pragma nv_mangled_name <expr>`
// after the error.
std::string failing_expression(const std::string& log, size_t error_at) {
    const char marker[] = "#pragma nv_mangled_name ";
    size_t at = log.find(marker, error_at);
    if (at == std::string::npos) return "";
    at += sizeof marker - 1;
    size_t end = log.find('\n', at);
    std::string expression = log.substr(at, end == std::string::npos ? std::string::npos : end - at);
    while (!expression.empty() && (expression.back() == '\r' || expression.back() == ' ')) expression.pop_back();
    return expression;
}

// NVRTC's complaint on the error line: after "error: ", without the echo of the expression.
std::string complaint(const std::string& log, size_t error_at) {
    size_t end = log.find('\n', error_at);
    std::string line = log.substr(error_at, end == std::string::npos ? std::string::npos : end - error_at);
    size_t what = line.find("error: ");
    line = what == std::string::npos ? line : line.substr(what + 7);
    size_t echo = line.find(" Input name expression was");
    if (echo != std::string::npos) line.resize(echo);
    return line.substr(0, 300);
}

std::string without_spaces(std::string_view text) {
    std::string result;
    for (char c : text)
        if (c != ' ' && c != '\t') result += c;
    return result;
}

std::string kernel_list(const CompileOptions& options, std::string_view source) {
    std::vector<std::string> kernels = declared_kernels(source);
    for (size_t i = 0; i < options.header_count; ++i)
        for (std::string& kernel : declared_kernels(options.header_sources[i])) kernels.push_back(std::move(kernel));
    std::string list;
    for (size_t i = 0; i < kernels.size() && i < 20; ++i) list += (list.empty() ? "" : ", ") + kernels[i];
    if (kernels.size() > 20) list += format(" and %zu more", kernels.size() - 20);
    return list.empty() ? "no __global__ function in the source or its in-memory headers" : "the kernels " + list;
}

}  // namespace

std::vector<std::string> declared_kernels(std::string_view text) {
    std::string code = code_only(text);
    std::vector<std::string> kernels;
    for (size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 1)) {
        if ((at > 0 && identifier_char(code[at - 1])) || identifier_char(code[at + 10])) continue;
        std::string name = kernel_name_after(code, at);
        if (name.empty()) continue;
        if (in_template(code, at)) name += "<...>";
        bool seen = false;
        for (const std::string& kernel : kernels) seen = seen || kernel == name;
        if (!seen) kernels.push_back(name);
    }
    return kernels;
}

Status explain_name_expression_failure(Status status, const CompileOptions& options, std::string_view source,
                                       const std::string& log, int major, int minor) {
    if (status != CUABI_ERROR_COMPILE || options.name_expression_count == 0) return status;
    size_t error_at = log.find("__nv_name_map(");
    size_t first_error = log.find("error");
    // Only when the name map holds the first error: an error in the source comes first otherwise.
    if (error_at == std::string::npos || first_error < error_at) return status;
    std::string expression = failing_expression(log, error_at);
    std::string which = format("a name expression (\"%s\")", bounded(expression.c_str()).c_str());
    for (size_t i = 0; i < options.name_expression_count; ++i)
        if (without_spaces(options.name_expressions[i]) == without_spaces(expression)) {
            which = format("cuabi_compile_options.name_expressions[%zu] \"%s\"", i,
                           bounded(options.name_expressions[i]).c_str());
            break;
        }
    return fail_with_nvrtc_result(
        CUABI_ERROR_COMPILE, NVRTC_ERROR_COMPILATION,
        "write the name expression as the source spells the kernel, with its template arguments (e.g. "
        "\"name<float>\"), and name a __global__ function; the whole log is available from cuabi_last_compile_log()",
        "%s does not name a __global__ function of '%s' (NVRTC %d.%d: %s); the source declares %s", which.c_str(),
        program_name(options), major, minor, complaint(log, error_at).c_str(), kernel_list(options, source).c_str());
}

}  // namespace cuabi
