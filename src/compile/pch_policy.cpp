#include "compile/pch_policy.hpp"

#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "cache/cache_key.hpp"
#include "core/environment.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {
namespace {

// Bumped when what a PCH key stands for changes.
constexpr uint64_t kPchKeyVersion = 1;

struct ModeSetting {
    PchMode mode = PchMode::Auto;
    EnvironmentProblem* problem = nullptr;
};

const ModeSetting& mode_setting() {
    static const ModeSetting setting = [] {
        ModeSetting s;
        std::string problem;
        const char* text = secure_getenv("CUABI_PCH");
        if (text != nullptr && (std::strcmp(text, "off") == 0 || std::strcmp(text, "0") == 0))
            s.mode = PchMode::Off;
        else if (text != nullptr && *text != '\0' && std::strcmp(text, "auto") != 0)
            problem = format("CUABI_PCH='%s' is neither \"auto\" nor \"off\"; \"auto\" is used", bounded(text, 40).c_str());
        s.problem = new EnvironmentProblem(problem, "set CUABI_PCH to \"auto\" or \"off\", or unset it");
        return s;
    }();
    return setting;
}

size_t skip_line(std::string_view text, size_t at) {
    while (at < text.size() && text[at] != '\n') {
        if (text[at] == '\\' && at + 1 < text.size() && text[at + 1] == '\n') ++at;  // a continued line
        ++at;
    }
    return at;
}

size_t skip_block_comment(std::string_view text, size_t at) {
    size_t end = text.find("*/", at + 2);
    return end == std::string_view::npos ? text.size() : end + 2;
}

// Calls `directive` with each preprocessor directive of `text` (from '#' to its line's end) until
// the first other token; returns where that token begins.
template <typename Directive>
size_t scan_directives(std::string_view text, Directive directive) {
    size_t at = 0;
    while (at < text.size()) {
        char c = text[at];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            ++at;
        } else if (text.compare(at, 2, "//") == 0) {
            at = skip_line(text, at);
        } else if (text.compare(at, 2, "/*") == 0) {
            at = skip_block_comment(text, at);
        } else if (c == '#') {
            size_t end = skip_line(text, at);
            directive(text.substr(at, end - at));
            at = end;
        } else {
            break;
        }
    }
    return at;
}

// Whether an #include directive reaches only files the key knows: "<name>" or an in-memory header.
bool tracked_include(std::string_view directive, const NvrtcJob& job, bool* includes) {
    size_t at = directive.find_first_not_of(" \t", 1);
    if (at == std::string_view::npos || directive.compare(at, 7, "include") != 0) {
        // import, include_next, line continuations hiding a name: not something to judge.
        return directive.find("include") == std::string_view::npos && directive.find("import") == std::string_view::npos;
    }
    *includes = true;
    at = directive.find_first_not_of(" \t", at + 7);
    if (at == std::string_view::npos) return false;
    char open = directive[at];
    if (open != '<' && open != '"') return false;  // a macro names the file
    size_t close = directive.find(open == '<' ? '>' : '"', at + 1);
    if (close == std::string_view::npos) return false;
    std::string_view name = directive.substr(at + 1, close - at - 1);
    for (const std::string& header : job.header_names)
        if (header == name) return true;
    return open == '<';
}

// Every #include of the prefix and of the in-memory headers is tracked, and the prefix has one.
bool only_tracked_includes(std::string_view prefix, const NvrtcJob& job) {
    bool ok = true, includes = false;
    scan_directives(prefix, [&](std::string_view d) { ok = ok && tracked_include(d, job, &includes); });
    for (const std::string& header : job.header_sources) {
        std::string_view text = header;
        size_t at = 0;
        while (ok && (at = text.find('#', at)) != std::string_view::npos) {
            size_t end = skip_line(text, at);
            bool ignored = false;
            ok = tracked_include(text.substr(at, end - at), job, &ignored);
            at = end;
        }
    }
    return ok && includes;
}

bool adds_include_path(const CompileOptions& options) {
    if (options.include_dir_count > 0) return true;
    for (size_t i = 0; i < options.extra_flag_count; ++i) {
        const char* flag = options.extra_flags[i];
        if (std::strncmp(flag, "-I", 2) == 0 || std::strncmp(flag, "--include-path", 14) == 0 ||
            std::strncmp(flag, "-include", 8) == 0 || std::strncmp(flag, "--pre-include", 13) == 0 ||
            std::strstr(flag, "pch") != nullptr)
            return true;
    }
    return false;
}

std::atomic<uint64_t> created{0}, reused{0}, rejected{0}, not_created{0};
std::mutex note_mutex;
std::string* last_note = new std::string();  // never freed: compiles may run at exit

}  // namespace

PchMode pch_mode() { return mode_setting().mode; }

Status check_pch_environment() { return mode_setting().problem->report_once(); }

std::string_view header_prefix(std::string_view source) {
    return source.substr(0, scan_directives(source, [](std::string_view) {}));
}

std::string pch_key(const CompileRequest& request, const NvrtcJob& job, uint64_t nvrtc_identity) {
    const CompileOptions& options = *request.options;
    if (pch_mode() == PchMode::Off || (options.flags & (CUABI_COMPILE_NO_PCH | CUABI_COMPILE_NO_CACHE)) != 0 ||
        adds_include_path(options))
        return "";
    std::string_view prefix = header_prefix(job.source);
    if (!only_tracked_includes(prefix, job)) return "";
    cache::KeyBuilder key;
    key.add_u64("pch", kPchKeyVersion);
    key.add_u64("cuabi", CUABI_VERSION_NUMBER);
    key.add_u64("nvrtc", nvrtc_identity);
    key.add_u64("toolkit", request.toolkit != nullptr ? request.toolkit->identity : 0);
    key.add("prefix", prefix.data(), prefix.size());
    for (const std::string& flag : job.flags) key.add("flag", flag);
    for (size_t i = 0; i < job.header_names.size(); ++i) {
        key.add("header.name", job.header_names[i]);
        key.add("header.source", job.header_sources[i]);
    }
    key.add("salt", options.salt, options.salt_size);
    return key.finish().hex();
}

void count_pch(const PchReport& report) {
    rejected.fetch_add(report.refused, std::memory_order_relaxed);
    switch (report.event) {
        case PchEvent::Reused: reused.fetch_add(1, std::memory_order_relaxed); break;
        case PchEvent::Created: created.fetch_add(1, std::memory_order_relaxed); break;
        case PchEvent::Rejected: rejected.fetch_add(1, std::memory_order_relaxed); break;
        case PchEvent::NotCreated: {
            not_created.fetch_add(1, std::memory_order_relaxed);
            std::lock_guard<std::mutex> lock(note_mutex);
            *last_note = report.note;
            break;
        }
        case PchEvent::None: break;
    }
}

PchStats pch_stats() {
    PchStats stats;
    stats.created = created.load(std::memory_order_relaxed);
    stats.reused = reused.load(std::memory_order_relaxed);
    stats.rejected = rejected.load(std::memory_order_relaxed);
    stats.not_created = not_created.load(std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(note_mutex);
    stats.last_note = *last_note;
    return stats;
}

}  // namespace cuabi
