#include "compile_plan.hpp"

#include <cstring>

namespace cli {
namespace {

// The macro name of a define: up to '=' or '(' (a function-like macro).
std::string macro_name(const std::string& define) { return define.substr(0, std::strcspn(define.c_str(), "=(")); }

std::vector<std::string> split_targets(const std::string& arch) {
    std::vector<std::string> targets;
    if (arch.empty()) return {""};
    size_t start = 0;
    while (start <= arch.size()) {
        size_t end = arch.find(',', start);
        if (end == std::string::npos) end = arch.size();
        targets.push_back(arch.substr(start, end - start));  // empty: the compile's own error names it
        start = end + 1;
    }
    return targets;
}

}  // namespace

std::vector<std::vector<std::string>> define_variants(const std::vector<std::string>& defines) {
    // Each macro's values, macros in the order first given.
    std::vector<std::pair<std::string, std::vector<std::string>>> macros;
    for (const std::string& define : defines) {
        std::string name = macro_name(define);
        auto found = macros.begin();
        while (found != macros.end() && found->first != name) ++found;
        if (found == macros.end()) macros.push_back({name, {define}});
        else found->second.push_back(define);
    }
    std::vector<std::vector<std::string>> variants(1);
    for (const auto& macro : macros) {
        std::vector<std::vector<std::string>> next;
        for (const std::vector<std::string>& variant : variants)
            for (const std::string& value : macro.second) {
                next.push_back(variant);
                next.back().push_back(value);
            }
        variants = std::move(next);
        if (variants.size() > kMaxJobs) break;
    }
    return variants;
}

std::string base_name(const std::string& path) {
    size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    return name.empty() ? path : name;
}

bool plan_jobs(const CompileArguments& args, std::vector<CompileJob>* out, std::string* problem) {
    std::vector<std::vector<std::string>> variants = define_variants(args.defines);
    std::vector<std::string> targets = split_targets(args.arch);
    size_t count = args.files.size() * variants.size() * targets.size();
    if (variants.size() > kMaxJobs || count > kMaxJobs) {
        *problem = std::to_string(args.files.size()) + " files, " +
                   (variants.size() > kMaxJobs ? "more than " + std::to_string(kMaxJobs) : std::to_string(variants.size())) +
                   " define variants and " + std::to_string(targets.size()) + " targets make more than " +
                   std::to_string(kMaxJobs) + " compiles";
        return false;
    }
    bool varied = variants.size() > 1;
    for (size_t file = 0; file < args.files.size(); ++file)
        for (const std::vector<std::string>& defines : variants)
            for (const std::string& target : targets) {
                CompileJob job;
                job.file = file;
                job.program_name = args.program_name.empty() ? base_name(args.files[file]) : args.program_name;
                job.defines = defines;
                if (varied)
                    for (const std::string& define : defines)
                        job.variant += (job.variant.empty() ? "" : " ") + define;
                job.target = target;
                out->push_back(std::move(job));
            }
    return true;
}

}  // namespace cli
