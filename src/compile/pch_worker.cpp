#include "compile/pch_worker.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "cache/pch_store.hpp"

namespace cuabi {
namespace {

// Why the address space could not be fixed, when reexecute_with_fixed_layout() had to give up.
std::string& layout_problem() {
    static std::string* problem = new std::string();
    return *problem;
}

bool asks_for_pch(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], kPchArgument) == 0 && std::strcmp(argv[i + 1], kPchOn) == 0) return true;
    return false;
}

bool layout_fixed() {
    int current = personality(0xffffffff);
    return current != -1 && (current & ADDR_NO_RANDOMIZE) != 0;
}

// NVRTC's remark after warnings, which goes when the PCH's were the only ones.
constexpr char kRemark[] = "Remark: The warnings can be suppressed";

std::string descriptor_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// The lines of `text`, without their newlines.
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// Links the verified PCH (by its descriptor: the inode checked, whatever its name is now) into
// the work directory as `name`.
bool link_into(const cache::Fd& pch, int work, const std::string& name) {
    return linkat(AT_FDCWD, descriptor_path(pch.get()).c_str(), work, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
}

// Removes the work directory on every way out.
struct WorkDirectory {
    int store;
    cache::Fd fd;
    std::string name;
    ~WorkDirectory() {
        if (fd.ok()) {
            fd = cache::Fd();
            cache::remove_tree_at(store, name.c_str());
        }
    }
};

}  // namespace

void reexecute_with_fixed_layout(int argc, char** argv) {
    if (!asks_for_pch(argc, argv) || layout_fixed()) return;
    int current = personality(0xffffffff);
    if (current == -1 || personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1 || !layout_fixed()) {
        layout_problem() = std::string("address-space randomization could not be turned off for the compile worker "
                                       "(personality: ") + std::strerror(errno) + ")";
        return;
    }
    // By the file's own path (the one the host checked), so that the process keeps its name.
    char self[4096] = {};
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) execv(self, argv);
    layout_problem() = std::string("the compile worker could not re-execute itself without address-space "
                                   "randomization (execv: ") + std::strerror(errno) + ")";
    personality(static_cast<unsigned long>(current));
}

std::string prepare_pch(const NvrtcApi& nvrtc) {
    if (!nvrtc.has_pch())
        return "NVRTC " + std::to_string(nvrtc.major) + "." + std::to_string(nvrtc.minor) + " at " + nvrtc.path +
               " has no precompiled-header support (NVRTC 12.8 or newer has)";
    if (!layout_problem().empty()) return layout_problem();
    if (!layout_fixed()) return "the compile worker was not asked for precompiled headers";
    nvrtcResult result = nvrtc.nvrtcSetPCHHeapSize(kPchHeapBytes);
    if (result != NVRTC_SUCCESS)
        return std::string("nvrtcSetPCHHeapSize failed with ") + nvrtc.nvrtcGetErrorString(result);
    // Creating a PCH of nothing makes NVRTC allocate its heap now, while this worker's layout is
    // still the same as every other's; the PCH itself goes to /dev/null.
    nvrtcProgram program = nullptr;
    if (nvrtc.nvrtcCreateProgram(&program, "", "cuabi_pch_heap.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
        return "NVRTC could not create the program that allocates its PCH heap";
    const char* flags[] = {"--create-pch=/dev/null", "--pch-messages=false"};
    nvrtc.nvrtcCompileProgram(program, 2, flags);
    result = nvrtc.nvrtcGetPCHCreateStatus(program);
    nvrtc.nvrtcDestroyProgram(&program);
    if (result != NVRTC_SUCCESS)
        return std::string("NVRTC did not allocate its PCH heap (") + nvrtc.nvrtcGetErrorString(result) + ")";
    return "";
}

std::string strip_pch_messages(const std::string& log, const std::string& pch_directory, bool* used, bool* refused) {
    const std::string marker = "\"" + pch_directory + "/";
    std::vector<std::string> kept;
    bool skip_blank = false, other_warning = false;
    for (const std::string& line : lines_of(log)) {
        if (line.find(marker) != std::string::npos) {
            if (line.find("using precompiled header file") != std::string::npos) *used = true;
            else if (line.find("creating precompiled header file") == std::string::npos) *refused = true;
            skip_blank = true;
            continue;
        }
        if (skip_blank && line.empty()) {
            skip_blank = false;
            continue;
        }
        skip_blank = false;
        if (line.find("arning") != std::string::npos && line.rfind(kRemark, 0) != 0) other_warning = true;
        kept.push_back(line);
    }
    std::string stripped;
    for (size_t i = 0; i < kept.size(); ++i) {
        const std::string& line = kept[i];
        if (!other_warning && line.rfind(kRemark, 0) == 0) {
            if (i + 1 < kept.size() && kept[i + 1].empty()) ++i;
            continue;
        }
        stripped += line + "\n";
    }
    if (stripped.find_first_not_of(" \t\r\n") == std::string::npos) return "";
    // NVRTC's log ends with its last line's newline only when it had one.
    if (!log.empty() && log.back() != '\n' && !stripped.empty()) stripped.pop_back();
    return stripped;
}

Status run_nvrtc_with_pch(const NvrtcApi& nvrtc, const NvrtcJob& job, const std::string& key_hex,
                          const std::string& cache_directory, cache::CachedImage* out, std::string* out_log,
                          PchReport* report) {
    cache::Fd store;
    cache::Problem problem = cache::open_pch_store(cache_directory, &store);
    WorkDirectory work{store.get(), cache::Fd(), ""};
    if (problem.ok()) problem = cache::make_pch_work_directory(store.get(), &work.fd, &work.name);
    if (!problem.ok()) {
        report->event = PchEvent::NotCreated;
        report->note = problem.message();
        return run_nvrtc(nvrtc, job, out, out_log);
    }
    cache::PchFind found = cache::find_pch(store.get(), key_hex);
    report->refused = found.refused;
    const std::string file_name = key_hex + ".pch";
    const bool use = found.file.ok() && link_into(found.file, work.fd.get(), file_name);
    const std::string directory = descriptor_path(work.fd.get());

    PchRun run;
    run.flags = {(use ? "--use-pch=" : "--create-pch=") + file_name, "--pch-dir=" + directory,
                 "--pch-messages=true", "--pch-verbose=true"};
    std::string log;
    Status status = run_nvrtc(nvrtc, job, out, &log, &run);
    bool used = false, refused = false;
    *out_log = strip_pch_messages(log, directory, &used, &refused);
    if (status == CUABI_SUCCESS) out->log = *out_log;
    if (status != CUABI_SUCCESS) return status;
    if (use) {
        report->event = used ? PchEvent::Reused : PchEvent::Rejected;
        if (!used) cache::remove_pch(store.get(), found.name);  // the next compile makes a fresh one
        return status;
    }
    if (run.create_status != NVRTC_SUCCESS) {
        report->event = PchEvent::NotCreated;
        report->note = run.create_status == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED
                           ? "its header prefix needs " + std::to_string(run.heap_required) +
                                 " bytes of PCH heap; the compile worker has " + std::to_string(kPchHeapBytes)
                           : std::string("NVRTC made none (") + nvrtc.nvrtcGetErrorString(run.create_status) + ")";
        return status;
    }
    std::string why;
    if (cache::publish_pch(work.fd.get(), file_name.c_str(), store.get(), key_hex, &why)) {
        report->event = PchEvent::Created;
    } else {
        report->event = PchEvent::NotCreated;
        report->note = why;
    }
    return status;
}

}  // namespace cuabi
