#include "driver/nvrtc_api_locate.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>

#include "core/error.hpp"
#include "driver/driver_api.hpp"
#include "driver/nvrtc_api_files.hpp"

#define XXH_INLINE_ALL
#include "xxhash.h"

namespace cuabi {
namespace {

struct Candidate {
    int major = 0;
    std::string path;
    std::string source;
};

// 13 for ".../libnvrtc.so.13" or "libnvrtc.so.13.0.48"; 0 when the name says no major.
int major_of(const std::string& path) {
    size_t slash = path.rfind('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const char prefix[] = "libnvrtc.so.";
    if (name.compare(0, sizeof prefix - 1, prefix) != 0) return 0;
    return std::atoi(name.c_str() + sizeof prefix - 1);
}

// Toolkit and pip directories, each listed at most once per search and only when needed.
struct Places {
    const std::vector<std::string>& roots() {
        if (!have_roots) roots_ = toolkit_roots();
        have_roots = true;
        return roots_;
    }
    const std::vector<std::string>& pip() {
        if (!have_pip) pip_ = pip_nvidia_directories();
        have_pip = true;
        return pip_;
    }

private:
    bool have_roots = false, have_pip = false;
    std::vector<std::string> roots_, pip_;
};

// The first libnvrtc.so.<major> found: the loader's way, then toolkits, then pip wheels.
Candidate find_major(int major, Places& places) {
    Candidate candidate;
    candidate.major = major;
    std::string name = "libnvrtc.so." + std::to_string(major);
    candidate.path = find_library_file(name);
    if (!candidate.path.empty()) {
        candidate.source = "the loader's search path";
        return candidate;
    }
    for (const std::string& root : places.roots()) {
        for (const char* lib : {"/lib64/", "/lib/"}) {
            if (!regular_file(root + lib + name)) continue;
            candidate.path = root + lib + name;
            candidate.source = "the CUDA Toolkit at " + root;
            return candidate;
        }
    }
    for (const std::string& nvidia : places.pip()) {
        std::string path = nvidia + (major >= 13 ? "/cu" + std::to_string(major) : std::string("/cuda_nvrtc")) +
                           "/lib/" + name;
        if (!regular_file(path)) continue;
        candidate.path = path;
        candidate.source = "the pip package in " + nvidia;
        return candidate;
    }
    return candidate;
}

// "libnvrtc.so.12 at /usr/local/cuda-12.8/lib64/libnvrtc.so.12", for NvrtcLocation::others.
std::string install_text(const Candidate& candidate) {
    return "libnvrtc.so." + std::to_string(candidate.major) + " at " + candidate.path;
}

// The first of `order` that is among `installed`; 0 when none is.
int first_installed(const std::vector<int>& order, const std::vector<int>& installed) {
    for (int major : order)
        if (std::find(installed.begin(), installed.end(), major) != installed.end()) return major;
    return 0;
}

std::string searched_text(const std::vector<int>& majors, Places& places) {
    std::string roots;
    for (const std::string& root : places.roots()) roots += (roots.empty() ? "" : ", ") + root + "/lib64";
    std::string pip;
    for (const std::string& nvidia : places.pip()) pip += (pip.empty() ? "" : ", ") + nvidia;
    std::string names;
    for (int major : majors) names += (names.empty() ? "libnvrtc.so." : " and libnvrtc.so.") + std::to_string(major);
    return names + " in LD_LIBRARY_PATH, /etc/ld.so.cache and the system library directories" +
           (roots.empty() ? std::string(", no CUDA Toolkit directory") : ", " + roots) +
           (pip.empty() ? std::string(", no pip nvidia-* packages") : ", " + pip);
}

}  // namespace

std::vector<int> nvrtc_search_order(const std::vector<int>& majors, int driver_version) {
    std::vector<int> supported, newer;
    for (int major : majors) {
        if (driver_version == 0 || major <= driver_version / 1000) supported.push_back(major);
        else newer.insert(newer.begin(), major);
    }
    supported.insert(supported.end(), newer.begin(), newer.end());
    return supported;
}

NvrtcLocation locate_nvrtc(const std::vector<int>& majors, int loaded_driver) {
    NvrtcLocation location;
    const NamedLibrary named = library_named_by("CUABI_NVRTC_PATH");
    if (named.set) {
        location.path = named.path;
        location.found = named.found;
        location.source = "CUABI_NVRTC_PATH";
        location.searched = named.searched;
        location.major = major_of(location.path);
    } else {
        Places places;
        std::vector<Candidate> found;
        if (loaded_driver != 0) {
            // The driver is known and costs nothing to ask: the first major found in its order
            // of preference is the one paired_nvrtc_major() would choose of all those found, so
            // the rest are not looked for (each costs stat() calls).
            location.driver_version = loaded_driver;
            for (int major : nvrtc_search_order(majors, loaded_driver)) {
                if (!found.empty()) {
                    location.unsearched.push_back(major);
                    continue;
                }
                Candidate candidate = find_major(major, places);
                if (!candidate.path.empty()) found.push_back(std::move(candidate));
            }
        } else {
            // Every major is looked for: whether several are installed decides whether the driver
            // must be asked (loading libcuda costs milliseconds).
            for (int major : majors) {
                Candidate candidate = find_major(major, places);
                if (!candidate.path.empty()) found.push_back(std::move(candidate));
            }
            if (found.size() > 1) location.driver_version = installed_driver_version();
        }
        std::vector<int> installed;
        for (const Candidate& candidate : found) installed.push_back(candidate.major);
        const int chosen = first_installed(nvrtc_search_order(majors, location.driver_version), installed);
        for (const Candidate& candidate : found) {
            if (candidate.major != chosen) {
                location.others.push_back(install_text(candidate));
                continue;
            }
            location.found = true;
            location.path = candidate.path;
            location.major = candidate.major;
            location.source = candidate.source;
        }
        // Only messages about a missing NVRTC need it, and it lists the toolkit and pip
        // directories, which a search that found NVRTC in the loader's path never had to.
        if (!location.found) location.searched = searched_text(majors, places);
    }
    if (location.found) {
        location.build_id = read_build_id(location.path);
        location.identity = nvrtc_file_identity(location.path, location.build_id);
    }
    return location;
}

int paired_nvrtc_major(const std::vector<int>& majors, int driver_version) {
    return first_installed(nvrtc_search_order({std::begin(kNvrtcMajors), std::end(kNvrtcMajors)}, driver_version),
                           majors);
}

uint64_t nvrtc_file_identity(const std::string& path, const std::string& build_id) {
    std::string text;
    if (!build_id.empty()) {
        text = "gnu-build-id:" + build_id;
    } else {
        // No build-id: the file as the file system knows it. A rebuilt or reinstalled library
        // changes size or modification time; the path keeps two installations apart.
        struct stat info;
        char resolved[4096];
        const char* real = realpath(path.c_str(), resolved);
        text = "file:" + std::string(real != nullptr ? real : path.c_str());
        if (stat(path.c_str(), &info) == 0)
            text += format(":%lld:%lld.%09ld", static_cast<long long>(info.st_size),
                           static_cast<long long>(info.st_mtim.tv_sec), info.st_mtim.tv_nsec);
    }
    return XXH3_64bits(text.data(), text.size()) | 1;  // never kAnyNvrtc (0)
}

const NvrtcLocation& nvrtc_location() {
    static std::once_flag once;
    static const NvrtcLocation* location = nullptr;  // never destroyed: read from any thread at exit
    std::call_once(once, [] {
        location = new NvrtcLocation(
            locate_nvrtc({std::begin(kNvrtcMajors), std::end(kNvrtcMajors)}, loaded_driver_version()));
    });
    return *location;
}

}  // namespace cuabi
