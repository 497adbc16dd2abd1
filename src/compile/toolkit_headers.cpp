#include "compile/toolkit_headers.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "cache/cache_key.hpp"
#include "driver/nvrtc_api_files.hpp"
#include "driver/nvrtc_api_locate.hpp"

namespace cuabi {
namespace {

// Headers whose size and modification time change with every toolkit (cuda_fp16.h) or CCCL
// (libcu++'s version header; CUB and Thrust are released with it) version.
const char* const kMarkers[] = {"cuda_fp16.h", "cuda/std/version"};

bool is_file(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool is_directory(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string parent_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

// <root>/include/cccl (when present) and <root>/include, when <root>/include has device headers.
std::vector<std::string> toolkit_directories(const std::string& root) {
    std::vector<std::string> directories;
    std::string include = root + "/include";
    if (!is_file(include + "/cuda_fp16.h")) return directories;
    if (is_directory(include + "/cccl")) directories.push_back(include + "/cccl");
    directories.push_back(include);
    return directories;
}

// The pip wheels' layouts: CUDA 13 puts everything under nvidia/cu13, CUDA 12 spreads it.
std::vector<std::string> wheel_directories(const std::string& nvidia) {
    std::vector<std::string> directories = toolkit_directories(nvidia + "/cu13");
    if (!directories.empty()) return directories;
    if (!is_file(nvidia + "/cuda_runtime/include/cuda_fp16.h")) return directories;
    if (is_directory(nvidia + "/cuda_cccl/include")) directories.push_back(nvidia + "/cuda_cccl/include");
    directories.push_back(nvidia + "/cuda_runtime/include");
    return directories;
}

ToolkitHeaders from_list(const char* list) {
    ToolkitHeaders found;
    std::string text = list;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find(':', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) found.directories.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    found.source = "CUABI_CUDA_INCLUDE_PATH";
    return found;
}

}  // namespace

uint64_t toolkit_identity(const std::vector<std::string>& directories) {
    cache::KeyBuilder key;
    for (const std::string& directory : directories) {
        key.add("toolkit.directory", directory);
        for (const char* marker : kMarkers) {
            struct stat info;
            if (stat((directory + "/" + marker).c_str(), &info) != 0) continue;
            key.add("toolkit.marker", marker, std::char_traits<char>::length(marker));
            key.add_u64("toolkit.marker.size", static_cast<uint64_t>(info.st_size));
            key.add_u64("toolkit.marker.mtime",
                        static_cast<uint64_t>(info.st_mtim.tv_sec) * 1000000000u + static_cast<uint64_t>(info.st_mtim.tv_nsec));
        }
    }
    return key.finish().low;
}

ToolkitHeaders find_toolkit_headers(const std::string& nvrtc_path) {
    ToolkitHeaders found;
    const char* list = secure_getenv("CUABI_CUDA_INCLUDE_PATH");
    if (list != nullptr && *list != '\0') {
        found = from_list(list);
        found.identity = toolkit_identity(found.directories);
        return found;
    }
    // Most specific first; the usual locations are listed only when these have none.
    std::vector<std::pair<std::string, std::string>> roots;  // (root, how it was found)
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
        const char* value = secure_getenv(variable);
        if (value != nullptr && *value != '\0') roots.emplace_back(value, std::string("$") + variable);
    }
    if (!nvrtc_path.empty()) roots.emplace_back(parent_of(parent_of(nvrtc_path)), "the toolkit of " + nvrtc_path);
    auto try_roots = [&found](const std::vector<std::pair<std::string, std::string>>& candidates, size_t from) {
        for (size_t i = from; i < candidates.size() && found.directories.empty(); ++i) {
            found.directories = toolkit_directories(candidates[i].first);
            found.source = candidates[i].second;
        }
    };
    try_roots(roots, 0);
    if (found.directories.empty()) {
        size_t from = roots.size();
        for (const std::string& root : toolkit_roots()) roots.emplace_back(root, root);
        roots.emplace_back("/usr", "/usr");
        try_roots(roots, from);
    }
    if (found.directories.empty()) {
        for (const std::string& nvidia : pip_nvidia_directories()) {
            found.directories = wheel_directories(nvidia);
            found.source = "the pip packages in " + nvidia;
            if (!found.directories.empty()) break;
        }
    }
    if (found.directories.empty()) {
        found.source.clear();
        for (const auto& root : roots) found.searched += (found.searched.empty() ? "" : ", ") + root.first + "/include";
        found.searched += ", pip's nvidia-* packages";
    }
    found.identity = toolkit_identity(found.directories);
    return found;
}

const ToolkitHeaders& toolkit_headers() {
    // Every compile asks, so the answer is one acquire load once known (std::call_once alone costs
    // thread-local bookkeeping on every call in libstdc++).
    static std::atomic<const ToolkitHeaders*> known{nullptr};
    if (const ToolkitHeaders* headers = known.load(std::memory_order_acquire)) return *headers;
    static std::once_flag once;
    std::call_once(once, [] {
        const NvrtcLocation& nvrtc = nvrtc_location();
        // Never destroyed: compiles may run from static destructors.
        known.store(new ToolkitHeaders(find_toolkit_headers(nvrtc.found ? nvrtc.path : std::string())),
                    std::memory_order_release);
    });
    return *known.load(std::memory_order_acquire);
}

}  // namespace cuabi
