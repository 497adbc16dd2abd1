// `cuabi info [--json]`: what this machine offers cuabi -- the library, the CUDA driver (or why
// there is none, and how to fix it), NVRTC (its file, its pairing with the driver, the
// architectures it compiles for, whether this process has loaded it) and the toolkit include
// directories compiles get, nvJitLink (its file and version, or why there is none), the caches in
// effect, and every device with the limits launches are checked against. Always exits 0 when it
// could report, GPU or not: "no driver" is an answer, not an error.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "cuabi/cuabi.h"
#include "json.hpp"

namespace {

// Everything `info` reports, gathered once and then printed as text or JSON.
struct Facts {
    uint32_t version = 0;
    uint32_t abi = 0;
    cuabi_status driver_status = CUABI_SUCCESS;
    std::string driver_message;  // why the driver is unusable, when it is
    int32_t driver_version = 0;
    cuabi_status device_status = CUABI_SUCCESS;
    std::string device_message;  // why devices could not be listed, when they could not
    std::vector<cuabi_device_info> devices;
    cuabi_status nvrtc_status = CUABI_SUCCESS;
    std::string nvrtc_message;  // why NVRTC is unusable, when it is
    int32_t nvrtc_major = 0, nvrtc_minor = 0;
    std::vector<int32_t> nvrtc_archs;
    std::string nvrtc_path;          // the file cuabi loads (or would), "" when there is none
    std::string include_dirs;        // the toolkit's, one per line
    int32_t nvrtc_state = CUABI_NVRTC_STATE_NOT_LOADED;  // before this tool asked for the version
    cuabi_status nvjitlink_status = CUABI_SUCCESS;
    std::string nvjitlink_message;  // why nvJitLink is unusable, when it is
    std::string nvjitlink_path;
    int32_t nvjitlink_major = 0, nvjitlink_minor = 0;
    std::string cache_directory;
    std::string cache_degradation;  // empty while the disk cache works
    cuabi_cache_stats cache_stats = CUABI_CACHE_STATS_INIT;  // after the reason: the layers are open
    cuabi_status jit_status = CUABI_SUCCESS;
    cuabi_driver_jit_cache_info jit{};
    std::string jit_path;
    std::vector<std::string> environment_problems;  // one sentence each: settings cuabi refused
    std::string pch_mode;  // CUABI_PCH as compiles read it: "auto" or "off"
    uint64_t pch_files = 0, pch_bytes = 0;  // the PCH store, <cache directory>/pch/
};

std::string two_call(cuabi_status (*get)(char*, size_t, size_t*)) { return cli::read_text(get); }

void gather_compiler(Facts* facts) {
    cuabi_cache_stats stats = CUABI_CACHE_STATS_INIT;
    if (cuabi_cache_get_stats(&stats) == CUABI_SUCCESS) facts->nvrtc_state = stats.nvrtc_state;
    facts->nvrtc_path = two_call(cuabi_nvrtc_get_path);
    facts->include_dirs = two_call(cuabi_nvrtc_get_include_dirs);
    facts->nvrtc_status = cuabi_nvrtc_get_version(&facts->nvrtc_major, &facts->nvrtc_minor);
    if (facts->nvrtc_status != CUABI_SUCCESS) {
        facts->nvrtc_message = cuabi_last_error_message();
        return;
    }
    size_t count = 0;
    if (cuabi_nvrtc_get_supported_archs(nullptr, 0, &count) != CUABI_SUCCESS) return;
    facts->nvrtc_archs.resize(count);
    if (cuabi_nvrtc_get_supported_archs(facts->nvrtc_archs.data(), count, &count) != CUABI_SUCCESS) count = 0;
    facts->nvrtc_archs.resize(count);
}

// nvJitLink's file, then its version: a file that is found but cannot be loaded is shown with why.
void gather_linker(Facts* facts) {
    facts->nvjitlink_path = two_call(cuabi_nvjitlink_get_path);
    facts->nvjitlink_status = cuabi_nvjitlink_get_version(&facts->nvjitlink_major, &facts->nvjitlink_minor);
    if (facts->nvjitlink_status != CUABI_SUCCESS) facts->nvjitlink_message = cuabi_last_error_message();
}

// The PCH store's regular files (docs/cache.md, "Precompiled-header store"); links are not followed.
void gather_pch_store(Facts* facts) {
    const char* mode = std::getenv("CUABI_PCH");
    facts->pch_mode = mode != nullptr && (std::strcmp(mode, "off") == 0 || std::strcmp(mode, "0") == 0) ? "off" : "auto";
    if (facts->cache_directory.empty()) return;
    std::string store = facts->cache_directory + "/pch";
    DIR* listing = opendir(store.c_str());
    while (listing != nullptr) {
        struct dirent* entry = readdir(listing);
        if (entry == nullptr) break;
        size_t length = std::strlen(entry->d_name);
        struct stat info {};
        if (length > 4 && std::strcmp(entry->d_name + length - 4, ".pch") == 0 &&
            lstat((store + "/" + entry->d_name).c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
            facts->pch_files += 1;
            facts->pch_bytes += static_cast<uint64_t>(info.st_size);
        }
    }
    if (listing != nullptr) closedir(listing);
}

// NVRTC has had precompiled headers since 12.8.
bool nvrtc_has_pch(const Facts& facts) {
    return facts.nvrtc_status == CUABI_SUCCESS && facts.nvrtc_major * 100 + facts.nvrtc_minor >= 1208;
}

void gather_caches(Facts* facts) {
    facts->cache_directory = two_call(cuabi_cache_get_directory);
    facts->cache_degradation = two_call(cuabi_cache_get_degradation_reason);
    cuabi_cache_get_stats(&facts->cache_stats);
    facts->jit.struct_size = sizeof facts->jit;
    facts->jit_status = cuabi_cache_get_driver_jit_info(&facts->jit);
    facts->jit_path = two_call(cuabi_cache_get_driver_jit_path);
    gather_pch_store(facts);
}

// The environment's refused settings, one sentence a line.
void gather_environment(Facts* facts) {
    std::string problems = cli::read_text(cuabi_environment_get_problems);
    for (size_t start = 0; start < problems.size();) {
        size_t end = problems.find('\n', start);
        if (end == std::string::npos) end = problems.size();
        facts->environment_problems.push_back(problems.substr(start, end - start));
        start = end + 1;
    }
}

Facts gather() {
    Facts facts;
    facts.version = cuabi_version_number();
    facts.abi = cuabi_abi_version();
    gather_environment(&facts);
    gather_compiler(&facts);
    gather_linker(&facts);
    gather_caches(&facts);
    facts.driver_status = cuabi_driver_get_version(&facts.driver_version);
    if (facts.driver_status != CUABI_SUCCESS) {
        facts.driver_message = cuabi_last_error_message();
        return facts;
    }
    int32_t count = 0;
    facts.device_status = cuabi_device_get_count(&count);
    if (facts.device_status != CUABI_SUCCESS) {
        facts.device_message = cuabi_last_error_message();
        return facts;
    }
    for (int32_t ordinal = 0; ordinal < count; ++ordinal) {
        cuabi_device_info info{};
        info.struct_size = sizeof info;
        cuabi_status status = cuabi_device_get_info(ordinal, &info);
        if (status != CUABI_SUCCESS) {
            facts.device_status = status;
            facts.device_message = cuabi_last_error_message();
            break;
        }
        facts.devices.push_back(info);
    }
    return facts;
}

std::string version_text(uint32_t number) {
    char text[32];
    std::snprintf(text, sizeof text, "%u.%u.%u", number / 10000, number / 100 % 100, number % 100);
    return text;
}

std::string cuda_version_text(int32_t version) {
    char text[32];
    std::snprintf(text, sizeof text, "%d.%d", version / 1000, version % 1000 / 10);
    return text;
}

// nvidia-smi's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
std::string uuid_text(const uint8_t uuid[16]) {
    std::string text = "GPU-";
    char hex[3];
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        std::snprintf(hex, sizeof hex, "%02x", uuid[i]);
        text += hex;
    }
    return text;
}

std::string pci_text(const cuabi_device_info& info) {
    char text[32];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.0", info.pci_domain_id, info.pci_bus_id, info.pci_device_id);
    return text;
}

void print_device_text(const cuabi_device_info& d) {
    std::printf("\ndevice %d: %s\n", d.ordinal, d.name);
    std::printf("  uuid                 %s\n", uuid_text(d.uuid).c_str());
    std::printf("  pci                  %s\n", pci_text(d).c_str());
    std::printf("  compute capability   %d.%d (sm_%d%d)\n", d.compute_capability_major, d.compute_capability_minor,
                d.compute_capability_major, d.compute_capability_minor);
    std::printf("  multiprocessors      %d\n", d.multiprocessor_count);
    std::printf("  memory               %.1f GiB (%llu bytes), %d-bit bus\n",
                static_cast<double>(d.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0),
                static_cast<unsigned long long>(d.total_memory_bytes), d.memory_bus_width_bits);
    std::printf("  L2 cache             %d KiB\n", d.l2_cache_bytes / 1024);
    std::printf("  clock                %d MHz\n", d.clock_rate_khz / 1000);
    std::printf("  warp size            %d\n", d.warp_size);
    std::printf("  threads per block    %d\n", d.max_threads_per_block);
    std::printf("  block dimensions     (%d, %d, %d)\n", d.max_block_dim[0], d.max_block_dim[1], d.max_block_dim[2]);
    std::printf("  grid dimensions      (%d, %d, %d)\n", d.max_grid_dim[0], d.max_grid_dim[1], d.max_grid_dim[2]);
    std::printf("  shared memory        %d bytes per block, %d with opt-in, %d per multiprocessor\n",
                d.max_shared_memory_per_block, d.max_shared_memory_per_block_optin,
                d.max_shared_memory_per_multiprocessor);
    std::printf("  registers            %d per block, %d per multiprocessor\n", d.max_registers_per_block,
                d.max_registers_per_multiprocessor);
    std::printf("  per multiprocessor   %d threads, %d blocks\n", d.max_threads_per_multiprocessor,
                d.max_blocks_per_multiprocessor);
    std::printf("  cooperative launch   %s\n", d.cooperative_launch ? "yes" : "no");
    std::printf("  cluster launch       %s\n", d.cluster_launch ? "yes" : "no");
}

const char* setting_source(int32_t source) {
    switch (source) {
        case CUABI_SETTING_ENVIRONMENT: return "set in the environment";
        case CUABI_SETTING_CUABI: return "set by cuabi";
        default: return "driver default";
    }
}

std::string archs_text(const std::vector<int32_t>& archs) {
    std::string text;
    for (int32_t arch : archs) text += (text.empty() ? "sm_" : " sm_") + std::to_string(arch);
    return text;
}

// Which driver the NVRTC serves: cuabi picks the newest NVRTC whose major the driver supports.
std::string pairing_text(const Facts& facts) {
    if (facts.driver_status != CUABI_SUCCESS) return "no CUDA driver to pair with: the newest NVRTC installed";
    int driver_major = facts.driver_version / 1000;
    std::string driver = "the CUDA " + cuda_version_text(facts.driver_version) + " driver";
    if (facts.nvrtc_major > driver_major)
        return "newer than " + driver + ", which cannot load what it compiles. Fix: install NVRTC " +
               std::to_string(driver_major) + ", or update the NVIDIA driver";
    return "for " + driver + " (the newest NVRTC major it supports)";
}

const char* nvrtc_state_text(int32_t state) {
    switch (state) {
        case CUABI_NVRTC_STATE_LOADED: return "loaded";
        case CUABI_NVRTC_STATE_UNAVAILABLE: return "unavailable: cache hits are served, misses fail";
        default: return "not loaded (cache hits need none)";
    }
}

// The disk tier's state, for the tiers line: the lookup order is memory, disk, read-only layers.
const char* disk_tier(const cuabi_cache_stats& stats) {
    return !stats.disk_enabled ? "off" : stats.disk_writable ? "read-write" : "read-only";
}

// The remote tier's health, for the tiers line: it comes after the read-only layers.
const char* remote_tier(const cuabi_cache_stats& stats) {
    return !stats.remote_configured      ? "no remote"
           : stats.remote_breaker_open ? "remote (breaker open: skipped after failures)"
                                         : "remote (breaker closed)";
}

void print_compiler_and_caches_text(const Facts& facts) {
    if (facts.nvrtc_status != CUABI_SUCCESS) {
        std::printf("nvrtc                not usable (%s)\n  %s\n", cuabi_status_name(facts.nvrtc_status),
                    facts.nvrtc_message.c_str());
    } else {
        std::printf("nvrtc                %d.%d, %s\n", facts.nvrtc_major, facts.nvrtc_minor, pairing_text(facts).c_str());
        std::printf("  path               %s\n", facts.nvrtc_path.c_str());
        std::printf("  architectures      %s\n", archs_text(facts.nvrtc_archs).c_str());
    }
    std::printf("  state at start     %s\n", nvrtc_state_text(facts.nvrtc_state));
    if (facts.include_dirs.empty()) {
        std::printf("  include dirs       none found (set CUDA_HOME or CUABI_CUDA_INCLUDE_PATH)\n");
    } else {
        std::string lines = facts.include_dirs;
        for (size_t at = lines.find('\n'); at != std::string::npos; at = lines.find('\n', at + 1))
            lines.replace(at, 1, "\n                     ");
        std::printf("  include dirs       %s\n", lines.c_str());
    }
    if (facts.nvjitlink_status != CUABI_SUCCESS) {
        std::printf("nvjitlink            not usable (%s)\n  %s\n", cuabi_status_name(facts.nvjitlink_status),
                    facts.nvjitlink_message.c_str());
    } else {
        std::printf("nvjitlink            %d.%d\n", facts.nvjitlink_major, facts.nvjitlink_minor);
        std::printf("  path               %s\n", facts.nvjitlink_path.c_str());
    }
    std::printf("kernel cache         %s\n",
                facts.cache_directory.empty() ? "(no location)" : facts.cache_directory.c_str());
    if (!facts.cache_degradation.empty()) std::printf("  memory only: %s\n", facts.cache_degradation.c_str());
    std::printf("  tiers              memory, disk (%s), %llu read-only layers, %s, NVRTC\n", disk_tier(facts.cache_stats),
                static_cast<unsigned long long>(facts.cache_stats.readonly_layers), remote_tier(facts.cache_stats));
    std::printf("  precompiled hdrs   %s (CUABI_PCH), %s; store %llu PCH, %.1f MiB\n", facts.pch_mode.c_str(),
                nvrtc_has_pch(facts) ? "NVRTC has them" : "NVRTC has none (12.8+ has)",
                static_cast<unsigned long long>(facts.pch_files), static_cast<double>(facts.pch_bytes) / (1024.0 * 1024.0));
    if (facts.jit_status == CUABI_SUCCESS) {
        if (!facts.jit.enabled) {
            std::printf("driver JIT cache     disabled (CUDA_CACHE_DISABLE=1)\n");
        } else {
            std::printf("driver JIT cache     %s (%s)\n", facts.jit_path.c_str(),
                        setting_source(facts.jit.path_source));
            std::printf("  max size           %llu bytes (%s)\n",
                        static_cast<unsigned long long>(facts.jit.max_bytes),
                        setting_source(facts.jit.max_bytes_source));
        }
    }
}

void print_environment_text(const Facts& facts) {
    if (facts.environment_problems.empty()) {
        std::printf("environment          every CUABI_* setting usable\n");
        return;
    }
    std::printf("environment          %zu refused setting%s:\n", facts.environment_problems.size(),
                facts.environment_problems.size() == 1 ? "" : "s");
    for (const std::string& problem : facts.environment_problems) std::printf("  %s\n", problem.c_str());
}

void print_text(const Facts& facts) {
    std::printf("cuabi %s (ABI %u)\n", version_text(facts.version).c_str(), facts.abi);
    if (facts.driver_status != CUABI_SUCCESS) {
        std::printf("driver               not usable (%s)\n", cuabi_status_name(facts.driver_status));
        std::printf("  %s\n", facts.driver_message.c_str());
    } else {
        std::printf("driver               CUDA %s (%d)\n", cuda_version_text(facts.driver_version).c_str(),
                    facts.driver_version);
    }
    print_compiler_and_caches_text(facts);
    print_environment_text(facts);
    if (facts.driver_status != CUABI_SUCCESS) {
        std::printf("devices              none: without a driver cuabi can compile and cache kernels, not run them\n");
        return;
    }
    if (facts.device_status != CUABI_SUCCESS) {
        std::printf("devices              not usable (%s)\n  %s\n", cuabi_status_name(facts.device_status),
                    facts.device_message.c_str());
    } else {
        std::printf("devices              %zu\n", facts.devices.size());
    }
    for (const cuabi_device_info& device : facts.devices) print_device_text(device);
}

void write_device_json(cli::JsonWriter& json, const cuabi_device_info& d) {
    json.begin_object();
    json.number("ordinal", d.ordinal);
    json.string("name", d.name);
    json.string("uuid", uuid_text(d.uuid).c_str());
    json.string("pci_bus_id", pci_text(d).c_str());
    json.number("compute_capability_major", d.compute_capability_major);
    json.number("compute_capability_minor", d.compute_capability_minor);
    json.number("multiprocessor_count", d.multiprocessor_count);
    json.number("warp_size", d.warp_size);
    json.unsigned_number("total_memory_bytes", d.total_memory_bytes);
    json.number("memory_bus_width_bits", d.memory_bus_width_bits);
    json.number("l2_cache_bytes", d.l2_cache_bytes);
    json.number("clock_rate_khz", d.clock_rate_khz);
    json.number("max_threads_per_block", d.max_threads_per_block);
    json.begin_array("max_block_dim");
    for (int32_t dim : d.max_block_dim) json.number(nullptr, dim);
    json.end_array();
    json.begin_array("max_grid_dim");
    for (int32_t dim : d.max_grid_dim) json.number(nullptr, dim);
    json.end_array();
    json.number("max_shared_memory_per_block", d.max_shared_memory_per_block);
    json.number("max_shared_memory_per_block_optin", d.max_shared_memory_per_block_optin);
    json.number("max_shared_memory_per_multiprocessor", d.max_shared_memory_per_multiprocessor);
    json.number("max_registers_per_block", d.max_registers_per_block);
    json.number("max_registers_per_multiprocessor", d.max_registers_per_multiprocessor);
    json.number("max_threads_per_multiprocessor", d.max_threads_per_multiprocessor);
    json.number("max_blocks_per_multiprocessor", d.max_blocks_per_multiprocessor);
    json.boolean("cooperative_launch", d.cooperative_launch != 0);
    json.boolean("cluster_launch", d.cluster_launch != 0);
    json.end_object();
}

void print_json(const Facts& facts) {
    cli::JsonWriter json(stdout);
    json.begin_object();
    json.begin_object("library");
    json.string("version", version_text(facts.version).c_str());
    json.unsigned_number("version_number", facts.version);
    json.unsigned_number("abi_version", facts.abi);
    json.end_object();
    json.begin_object("nvrtc");
    json.boolean("found", facts.nvrtc_status == CUABI_SUCCESS);
    json.string("status", cuabi_status_name(facts.nvrtc_status));
    json.number("state_at_start", facts.nvrtc_state);
    json.begin_array("include_dirs");
    for (size_t start = 0; start < facts.include_dirs.size();) {
        size_t end = facts.include_dirs.find('\n', start);
        if (end == std::string::npos) end = facts.include_dirs.size();
        json.string(nullptr, facts.include_dirs.substr(start, end - start).c_str());
        start = end + 1;
    }
    json.end_array();
    if (facts.nvrtc_status == CUABI_SUCCESS) {
        json.string("path", facts.nvrtc_path.c_str());
        json.string("pairing", pairing_text(facts).c_str());
        json.number("major", facts.nvrtc_major);
        json.number("minor", facts.nvrtc_minor);
        json.begin_array("architectures");
        for (int32_t arch : facts.nvrtc_archs) json.number(nullptr, arch);
        json.end_array();
    } else {
        json.string("message", facts.nvrtc_message.c_str());
    }
    json.end_object();
    json.begin_object("nvjitlink");
    json.boolean("found", facts.nvjitlink_status == CUABI_SUCCESS);
    json.string("status", cuabi_status_name(facts.nvjitlink_status));
    if (facts.nvjitlink_status == CUABI_SUCCESS) {
        json.string("path", facts.nvjitlink_path.c_str());
        json.number("major", facts.nvjitlink_major);
        json.number("minor", facts.nvjitlink_minor);
    } else {
        json.string("message", facts.nvjitlink_message.c_str());
    }
    json.end_object();
    json.begin_object("cache");
    json.string("directory", facts.cache_directory.c_str());
    json.string("degradation_reason", facts.cache_degradation.c_str());
    json.begin_object("tiers");
    json.string("disk", disk_tier(facts.cache_stats));
    json.unsigned_number("readonly_layers", facts.cache_stats.readonly_layers);
    json.boolean("remote_configured", facts.cache_stats.remote_configured != 0);
    json.boolean("remote_breaker_open", facts.cache_stats.remote_breaker_open != 0);
    json.end_object();
    json.begin_object("precompiled_headers");
    json.string("mode", facts.pch_mode.c_str());
    json.boolean("nvrtc_supports", nvrtc_has_pch(facts));
    json.unsigned_number("store_files", facts.pch_files);
    json.unsigned_number("store_bytes", facts.pch_bytes);
    json.end_object();
    if (facts.jit_status == CUABI_SUCCESS) {
        json.begin_object("driver_jit");
        json.boolean("enabled", facts.jit.enabled != 0);
        json.string("path", facts.jit_path.c_str());
        json.string("path_source", setting_source(facts.jit.path_source));
        json.unsigned_number("max_bytes", facts.jit.max_bytes);
        json.string("max_bytes_source", setting_source(facts.jit.max_bytes_source));
        json.boolean("driver_started_first", facts.jit.driver_started_first != 0);
        json.end_object();
    }
    json.end_object();
    json.begin_object("environment");
    json.begin_array("problems");
    for (const std::string& problem : facts.environment_problems) json.string(nullptr, problem.c_str());
    json.end_array();
    json.end_object();
    json.begin_object("driver");
    json.boolean("found", facts.driver_status == CUABI_SUCCESS);
    json.string("status", cuabi_status_name(facts.driver_status));
    if (facts.driver_status == CUABI_SUCCESS) {
        json.number("version", facts.driver_version);
        json.string("cuda_version", cuda_version_text(facts.driver_version).c_str());
    } else {
        json.string("message", facts.driver_message.c_str());
    }
    json.end_object();
    json.begin_object("device_query");
    json.string("status", cuabi_status_name(facts.driver_status != CUABI_SUCCESS ? facts.driver_status
                                                                                 : facts.device_status));
    if (facts.driver_status == CUABI_SUCCESS && facts.device_status != CUABI_SUCCESS)
        json.string("message", facts.device_message.c_str());
    json.end_object();
    json.begin_array("devices");
    for (const cuabi_device_info& device : facts.devices) write_device_json(json, device);
    json.end_array();
    json.end_object();
    json.finish();
}

int run_info(int argc, char** argv) {
    bool as_json = false;
    int exit_code = cli::parse_json_only("info", argc, argv, &as_json);
    if (exit_code >= 0) return exit_code;
    Facts facts = gather();
    if (as_json)
        print_json(facts);
    else
        print_text(facts);
    return 0;
}

}  // namespace

CUABI_CLI_COMMAND(info, "info", "info [--json]", "show the library, the CUDA driver and every device's limits",
                  "options:\n"
                  "  --json       every fact as one JSON object\n"
                  "  -h, --help   this text\n\n"
                  "Exits 0 whenever it could report: no driver or no GPU is an answer, not an error.\n",
                  run_info)
