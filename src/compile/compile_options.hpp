// The caller's compile options (cuabi_compile_options, translated by src/api/), checked and normalized.
//
// Normalizing means: one canonical NVRTC flag list per meaning, so that equivalent requests share
// a cache key and the key describes exactly what NVRTC was given:
//   - the target is resolved first (the context default becomes "sm_90"), and goes in as
//     --gpu-architecture;
//   - "17" and "c++17" are the same standard;
//   - tri-states are resolved against NVRTC's defaults (which fast_math changes), so "default"
//     and the explicit value it stands for are the same request;
//   - defines are ordered by macro name and "NAME" is "NAME=1"; the order of two defines of the
//     same name is kept, because there the last one wins;
//   - in-memory headers are ordered by name (duplicate names are refused), name expressions are
//     sorted and de-duplicated;
//   - include directories and extra flags keep their order: it is their meaning; the toolkit's
//     include directories (toolkit_headers.hpp) come after the caller's.
// NVRTC receives the canonical list, not the caller's spelling, so key and compile cannot drift.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cache/cache_key.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile/target.hpp"
#include "compile/toolkit_headers.hpp"
#include "core/error.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

// The compile options as the library works with them: the fields of cuabi_compile_options (whose
// header comments say what each means), translated by src/api/, which also handles struct_size,
// so that a new revision of the public struct reaches no further than the translation. Strings
// and arrays are views into the caller's memory, valid for the length of the API call only.
struct CompileOptions {
    uint32_t flags = 0;  // CUABI_COMPILE_*
    const char* target = nullptr;
    const char* cpp_standard = nullptr;
    const char* program_name = nullptr;
    uint32_t fast_math = 0;
    int32_t ftz = CUABI_TRISTATE_DEFAULT;
    int32_t prec_div = CUABI_TRISTATE_DEFAULT;
    int32_t prec_sqrt = CUABI_TRISTATE_DEFAULT;
    int32_t fmad = CUABI_TRISTATE_DEFAULT;
    uint32_t max_registers = 0;
    uint32_t line_info = 0;
    uint32_t device_debug = 0;
    const char* const* defines = nullptr;
    size_t define_count = 0;
    const char* const* include_dirs = nullptr;
    size_t include_dir_count = 0;
    const char* const* header_names = nullptr;
    const char* const* header_sources = nullptr;
    size_t header_count = 0;
    const char* const* name_expressions = nullptr;
    size_t name_expression_count = 0;
    const char* const* extra_flags = nullptr;
    size_t extra_flag_count = 0;
    const void* salt = nullptr;
    size_t salt_size = 0;
    uint32_t timeout_ms = 0;
};

// Everything one compile needs, as views into the caller's memory: valid for the length of the
// API call only.
struct CompileRequest {
    std::string_view source;
    const CompileOptions* options = nullptr;  // validated (not copied: every hit passes it along)
    Target target;                            // resolved
    const ToolkitHeaders* toolkit = nullptr;  // NULL with CUABI_COMPILE_NO_TOOLKIT_INCLUDES
};

// Every check that needs neither NVRTC nor a device: known flag bits (and not both isolation
// flags), tri-state ranges, NULL array entries, define names, duplicate header names, extra flags
// that would change the target or the image kind or produce none.
Status check_compile_options(const CompileOptions& options);

// The program name NVRTC shows in its log ("kernel.cu" by default).
const char* program_name(const CompileOptions& options);

// The canonical NVRTC flags for `request`, in order.
std::vector<std::string> nvrtc_flags(const CompileRequest& request);

// Name expressions sorted and de-duplicated (views into the caller's strings).
std::vector<std::string_view> sorted_name_expressions(const CompileOptions& options);

// The kernel-cache key. Request part: source, program name, canonical flags (target and include
// directories, the toolkit's included), in-memory headers, name expressions, target, the toolkit
// headers' identity, salt. NVRTC part: `nvrtc_identity` (cache::kAnyNvrtc without NVRTC).
// Allocates nothing for up to 32 defines / headers / name expressions.
cache::Key compile_key(const CompileRequest& request, uint64_t nvrtc_identity);

// What NVRTC is given for `request`, owned (for this process or the compile worker).
NvrtcJob make_job(const CompileRequest& request);

}  // namespace cuabi
