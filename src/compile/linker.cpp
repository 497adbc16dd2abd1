#include "compile/linker.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "cache/file_io.hpp"
#include "compile/compile_log.hpp"
#include "compile/image.hpp"
#include "compile/link_job.hpp"
#include "compile/link_worker.hpp"
#include "compile/nvrtc_runner.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvjitlink_api.hpp"

namespace cuabi {
namespace {

constexpr uint32_t kKnownFlags = CUABI_LINK_LTO | CUABI_LINK_NO_CACHE | CUABI_LINK_PTX | CUABI_LINK_IN_PROCESS;
constexpr uint64_t kMaxInputBytes = uint64_t(1) << 30;  // 1 GiB, a file's limit and the caller's
constexpr uint32_t kLtoIrMagic = 0x7F4E43EDu;            // NVRTC -dlto, nvcc -dlto (little-endian)
constexpr size_t kMinLtoIrBytes = 16;                   // the magic and a version header

const char* kind_text(int32_t kind) {
    switch (kind) {
        case CUABI_LINK_INPUT_CUBIN: return "CUBIN";
        case CUABI_LINK_INPUT_PTX: return "PTX";
        case CUABI_LINK_INPUT_LTOIR: return "LTO-IR";
        case CUABI_LINK_INPUT_FATBIN: return "fatbin";
        case CUABI_LINK_INPUT_OBJECT: return "host object";
        case CUABI_LINK_INPUT_LIBRARY: return "static library";
    }
    return "unknown";
}

Status check_options(const LinkOptions& options) {
    if ((options.flags & ~kKnownFlags) != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "use only the CUABI_LINK_* constants",
                    "cuabi_link_options.flags is 0x%x; bits 0x%x are not defined by this version of cuabi",
                    options.flags, options.flags & ~kKnownFlags);
    if ((options.flags & CUABI_LINK_PTX) != 0 && (options.flags & CUABI_LINK_LTO) == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "add CUABI_LINK_LTO, or drop CUABI_LINK_PTX for a CUBIN",
                    "cuabi_link_options.flags has CUABI_LINK_PTX without CUABI_LINK_LTO: nvJitLink emits PTX only "
                    "from link-time optimization");
    if (options.optimization_level < -1 || options.optimization_level > 3)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "use 0 to 3, or -1 for nvJitLink's default",
                    "cuabi_link_options.optimization_level is %d", options.optimization_level);
    if (options.extra_option_count != 0 && options.extra_options == nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an array with that many entries, or a count of 0",
                    "cuabi_link_options.extra_options is NULL but its count is %zu", options.extra_option_count);
    for (size_t i = 0; i < options.extra_option_count; ++i)
        if (options.extra_options[i] == nullptr || options.extra_options[i][0] == '\0')
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an nvJitLink option such as \"-lineinfo\"",
                        "cuabi_link_options.extra_options[%zu] is %s", i,
                        options.extra_options[i] == nullptr ? "NULL" : "empty");
    return CUABI_SUCCESS;
}

Status choose_target(const LinkOptions& options, const DeviceInfo* device, Target* out) {
    Target target;
    if (options.target != nullptr && options.target[0] != '\0') {
        Status status = parse_target(options.target, "cuabi_link_options.target", &target);
        if (status != CUABI_SUCCESS) return status;
        if (target.ptx)
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "name the architecture as sm_XY and set CUABI_LINK_PTX (with CUABI_LINK_LTO) for PTX",
                        "cuabi_link_options.target is \"%s\"; nvJitLink links for an sm_XY architecture",
                        bounded(options.target).c_str());
        if (device != nullptr) {
            ImageFacts facts;
            facts.kind = CUABI_IMAGE_CUBIN;
            facts.arch = target.arch;
            status = check_image_runs_on(facts, device->compute_capability_major, device->compute_capability_minor,
                                         device->name);
            if (status != CUABI_SUCCESS) return status;
        }
    } else if (device != nullptr) {
        target.arch = device->compute_capability_major * 10 + device->compute_capability_minor;
    } else {
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "set cuabi_link_options.target (e.g. \"sm_90\"), or link with cuabi_module_link() for a "
                    "context's device",
                    "a link without a context needs an explicit target, and cuabi_link_options.target is %s",
                    options.target == nullptr ? "NULL" : "empty");
    }
    target.ptx = (options.flags & CUABI_LINK_PTX) != 0;
    target.set_name();
    *out = target;
    return CUABI_SUCCESS;
}

// Reads the caller's file: a regular file of at most kMaxInputBytes.
Status read_file(const char* path, size_t index, std::vector<uint8_t>* out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat info;
    const char* problem = nullptr;
    if (fd < 0) problem = std::strerror(errno);
    else if (fstat(fd, &info) != 0) problem = std::strerror(errno);
    else if (!S_ISREG(info.st_mode)) problem = "it is no regular file";
    else if (static_cast<uint64_t>(info.st_size) > kMaxInputBytes) problem = "it is larger than 1 GiB";
    else if (info.st_size == 0) problem = "it is empty";
    if (problem == nullptr) {
        out->resize(static_cast<size_t>(info.st_size));
        if (!cache::pread_all(fd, out->data(), out->size())) problem = "reading it failed";
    }
    if (fd >= 0) close(fd);
    if (problem == nullptr) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_NOT_FOUND, "pass the path of a readable device library or object file, or its bytes",
                "link input %zu names the file '%s', which cannot be linked: %s", index, bounded(path).c_str(), problem);
}

// What the bytes of an input of `kind` must look like before nvJitLink sees them.
Status check_bytes(int32_t kind, const uint8_t* bytes, size_t size, size_t index) {
    auto refuse = [&](const char* expected) {
        return fail(CUABI_ERROR_INVALID_IMAGE, "pass the file's bytes with the kind that matches them",
                    "link input %zu is %zu bytes that are not a %s (%s)", index, size, kind_text(kind), expected);
    };
    switch (kind) {
        case CUABI_LINK_INPUT_CUBIN:
        case CUABI_LINK_INPUT_FATBIN:
        case CUABI_LINK_INPUT_PTX: {
            ImageFacts facts;
            Status status = inspect_image(bytes, size, &facts);  // every header and table within `size`
            if (status != CUABI_SUCCESS) return status;
            const uint32_t expected = kind == CUABI_LINK_INPUT_CUBIN    ? CUABI_IMAGE_CUBIN
                                      : kind == CUABI_LINK_INPUT_FATBIN ? CUABI_IMAGE_FATBIN
                                                                        : CUABI_IMAGE_PTX;
            if (facts.kind != expected)
                return fail(CUABI_ERROR_INVALID_ARGUMENT, "set cuabi_link_input.kind to the kind of the bytes",
                            "link input %zu has kind %s but its bytes are a sound %s", index, kind_text(kind),
                            describe_image(cache::CachedImage{{}, facts.kind, facts.target, {}, {}, 0, false}).c_str());
            return CUABI_SUCCESS;
        }
        case CUABI_LINK_INPUT_LTOIR: {
            uint32_t magic = 0;
            if (size >= 4) std::memcpy(&magic, bytes, 4);
            if (size < kMinLtoIrBytes || magic != kLtoIrMagic) return refuse("LTO-IR starts ed 43 4e 7f");
            return CUABI_SUCCESS;
        }
        case CUABI_LINK_INPUT_OBJECT:
            if (size < 64 || std::memcmp(bytes, "\x7f" "ELF", 4) != 0) return refuse("an ELF object file");
            return CUABI_SUCCESS;
        case CUABI_LINK_INPUT_LIBRARY:
            if (size < 8 || std::memcmp(bytes, "!<arch>\n", 8) != 0) return refuse("an ar archive starts \"!<arch>\"");
            return CUABI_SUCCESS;
    }
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "use one of the CUABI_LINK_INPUT_* constants",
                "link input %zu has kind %d, which is none of CUABI_LINK_INPUT_CUBIN (1) to _LIBRARY (6)", index, kind);
}

int32_t kind_of_module(const cache::CachedImage& image) {
    switch (image.image_kind) {
        case CUABI_IMAGE_LTOIR: return CUABI_LINK_INPUT_LTOIR;
        case CUABI_IMAGE_CUBIN: return CUABI_LINK_INPUT_CUBIN;
        case CUABI_IMAGE_PTX: return CUABI_LINK_INPUT_PTX;
        case CUABI_IMAGE_FATBIN: return CUABI_LINK_INPUT_FATBIN;
    }
    return 0;
}

// The job's inputs from the caller's: checked, owned, named.
Status gather_inputs(const std::vector<LinkInput>& inputs, const LinkOptions& options, LinkJob* job, bool* trusted) {
    if (inputs.empty())
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass at least one input",
                    "cuabi_module_link() was given no inputs (input_count is 0)");
    *trusted = true;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const LinkInput& input = inputs[i];
        LinkJobInput taken;
        if (input.image != nullptr) {
            if (input.kind != 0)
                return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave kind 0 for a module input: its image says it",
                            "link input %zu is a module and has kind %d", i, input.kind);
            taken.kind = static_cast<uint32_t>(kind_of_module(*input.image));
            taken.bytes = input.image->image;
            if (taken.kind == CUABI_LINK_INPUT_PTX && !taken.bytes.empty() && taken.bytes.back() == 0)
                taken.bytes.pop_back();  // nvJitLink reads PTX as given: its NUL is no part of it
            if (taken.kind == CUABI_LINK_INPUT_LTOIR) job->min_version = std::max(job->min_version, input.image->nvrtc_version);
            *trusted = *trusted && !input.image->untrusted;
            taken.name = format("module%zu.%s", i, taken.kind == CUABI_LINK_INPUT_LTOIR ? "ltoir"
                                                   : taken.kind == CUABI_LINK_INPUT_PTX ? "ptx" : "cubin");
        } else {
            *trusted = false;
            if (input.data != nullptr && input.size == 0)
                return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the input's bytes and their count",
                            "link input %zu has data but a size of 0", i);
            if (input.size > kMaxInputBytes)
                return fail(CUABI_ERROR_INVALID_ARGUMENT, "link inputs of at most 1 GiB",
                            "link input %zu is %zu bytes", i, input.size);
            Status status = CUABI_SUCCESS;
            if (input.data != nullptr) {
                const uint8_t* at = static_cast<const uint8_t*>(input.data);
                taken.bytes.assign(at, at + input.size);
            } else if ((status = read_file(input.path, i, &taken.bytes)) != CUABI_SUCCESS) {
                return status;
            }
            if ((status = check_bytes(input.kind, taken.bytes.data(), taken.bytes.size(), i)) != CUABI_SUCCESS)
                return status;
            taken.kind = static_cast<uint32_t>(input.kind);
            if (input.path != nullptr) {
                const char* slash = std::strrchr(input.path, '/');
                taken.name = slash != nullptr ? slash + 1 : input.path;
            } else {
                taken.name = format("input%zu.%s", i, kind_text(input.kind));
            }
        }
        if (input.name != nullptr && input.name[0] != '\0') taken.name = input.name;
        if (taken.kind == CUABI_LINK_INPUT_LTOIR && (options.flags & CUABI_LINK_LTO) == 0)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "set CUABI_LINK_LTO in cuabi_link_options.flags",
                        "link input %zu ('%s') is LTO-IR, which nvJitLink links only with link-time optimization", i,
                        taken.name.c_str());
        job->inputs.push_back(std::move(taken));
    }
    return CUABI_SUCCESS;
}

std::vector<std::string> nvjitlink_options(const LinkOptions& options, const Target& target) {
    Target arch = target;
    arch.ptx = false;
    arch.set_name();
    std::vector<std::string> flags = {std::string("-arch=") + arch.name};
    if ((options.flags & CUABI_LINK_LTO) != 0) flags.push_back("-lto");
    if ((options.flags & CUABI_LINK_PTX) != 0) flags.push_back("-ptx");
    if (options.optimization_level >= 0) flags.push_back(format("-O%d", options.optimization_level));
    if (options.max_registers != 0) flags.push_back(format("-maxrregcount=%u", options.max_registers));
    for (size_t i = 0; i < options.extra_option_count; ++i) flags.push_back(options.extra_options[i]);
    return flags;
}

cache::Key link_key(const LinkJob& job) {
    cache::KeyBuilder key;
    key.add("link", job.target);
    for (const std::string& option : job.options) key.add("link.option", option);
    key.add_u64("link.inputs", job.inputs.size());
    for (const LinkJobInput& input : job.inputs) {
        key.add_u64("link.kind", input.kind);
        key.add("link.name", input.name);
        key.add("link.bytes", input.bytes.data(), input.bytes.size());
    }
    cache::Key finished = key.finish();
    finished.nvrtc = nvjitlink_location().found ? nvjitlink_location().identity : cache::kAnyNvrtc;
    return finished;
}

Status serve(std::shared_ptr<const cache::CachedImage> image, const cache::Key& key, cache::Layer layer,
             LinkOutcome* out) {
    set_last_compile_log(std::shared_ptr<const std::string>(image, &image->log));
    out->image = std::move(image);
    out->key = key;
    out->layer = layer;
    return CUABI_SUCCESS;
}

Status run_link(const LinkJob& job, const LinkOptions& options, cache::CachedImage* image, std::string* log) {
    Isolation isolation = (options.flags & CUABI_LINK_IN_PROCESS) != 0 ? Isolation::InProcess
                                                                        : default_isolation(nullptr);
    if (isolation == Isolation::InProcess) {
        Status status = CUABI_SUCCESS;
        const NvJitLinkApi* api = nvjitlink(&status);
        return api == nullptr ? status : run_nvjitlink(*api, job, image, log);
    }
    Deadline deadline;
    Status status = compile_deadline(isolation, options.timeout_ms, &deadline);
    if (status != CUABI_SUCCESS) return status;
    if (options.timeout_ms != 0) deadline.source = "cuabi_link_options.timeout_ms";
    return link_in_worker(job, deadline, image, log);
}

}  // namespace

Status link(const std::vector<LinkInput>& inputs, const LinkOptions& options, const DeviceInfo* device,
            Counters* counters, LinkOutcome* out) {
    Status status = check_options(options);
    if (status != CUABI_SUCCESS) return status;
    LinkJob job;
    Target target;
    if ((status = choose_target(options, device, &target)) != CUABI_SUCCESS ||
        (status = gather_inputs(inputs, options, &job, &out->trusted)) != CUABI_SUCCESS)
        return status;
    set_last_compile_log(nullptr);
    job.target = target.name;
    job.ptx = target.ptx;
    job.options = nvjitlink_options(options, target);
    out->target = target;
    const cache::Key key = link_key(job);
    const bool use_cache = (options.flags & CUABI_LINK_NO_CACHE) == 0;
    cache::KernelCache& kernel_cache = cache::KernelCache::instance();
    cache::Layer layer = cache::Layer::None;
    if (use_cache)
        if (auto hit = kernel_cache.lookup(key, counters, &layer)) return serve(std::move(hit), key, layer, out);
    if (!nvjitlink_location().found)
        return fail(CUABI_ERROR_NVJITLINK_NOT_FOUND,
                    "install nvJitLink (the CUDA Toolkit's libnvjitlink, or the pip wheel nvidia-nvjitlink) or set "
                    "CUABI_NVJITLINK_PATH; or fill the kernel cache where nvJitLink is installed and use that cache "
                    "directory here",
                    "the kernel cache has no entry for this link of %zu input%s for %s (key %s)%s, and linking needs "
                    "nvJitLink, which was not found (looked for %s)",
                    job.inputs.size(), job.inputs.size() == 1 ? "" : "s", job.target.c_str(), key.hex().c_str(),
                    use_cache ? "" : " (CUABI_LINK_NO_CACHE)", nvjitlink_location().searched.c_str());
    auto image = std::make_shared<cache::CachedImage>();
    std::string log;
    status = run_link(job, options, image.get(), &log);
    if (status != CUABI_SUCCESS) {
        if (!log.empty()) set_last_compile_log(std::make_shared<const std::string>(std::move(log)));
        return status;
    }
    image->untrusted = !out->trusted;
    std::shared_ptr<const cache::CachedImage> stored = std::move(image);
    if (use_cache) kernel_cache.store(key, stored, counters);
    return serve(std::move(stored), key, cache::Layer::None, out);
}

}  // namespace cuabi
