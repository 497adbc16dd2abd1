// One NVRTC compilation: a job (source, canonical flags, headers, name expressions, target) in,
// image + lowered-name map + log out. The same code runs in this process and in the compile
// worker, which receives the job over a socket (worker_protocol.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cached_image.hpp"
#include "core/error.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

// Everything NVRTC is given, owned, in canonical order (compile_options.hpp builds it).
struct NvrtcJob {
    std::string source;
    std::string program_name;                 // "kernel.cu"
    std::vector<std::string> flags;           // canonical, exactly as NVRTC receives them
    std::vector<std::string> header_names;    // in-memory headers, ordered by name ...
    std::vector<std::string> header_sources;  // ... and their contents
    std::vector<std::string> name_expressions;  // sorted, each once
    std::string target;                       // "sm_90", "compute_90"
    bool ptx = false;                         // the target is compute_XY: read PTX, not a CUBIN
    bool ltoir = false;                       // -dlto: read LTO-IR, not a CUBIN (a link input)
    // For a missing #include: every directory searched, in order (the caller's include_dirs,
    // then the toolkit's), and what to say about the toolkit's ("" when its headers were given).
    std::vector<std::string> include_dirs;
    std::string toolkit_note;
};

// Precompiled-header flags for one run (compile/pch_worker.hpp), and what NVRTC then said about
// creating a PCH.
struct PchRun {
    std::vector<std::string> flags;  // after the job's own
    nvrtcResult create_status = NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED;
    size_t heap_required = 0;  // the PCH heap the header prefix needs, when create_status says
};

// Compiles `job`. On success *out holds a CUBIN for an sm_XY target, NUL-terminated PTX for
// compute_XY or LTO-IR (job.ltoir), the lowered name of every name expression (sorted by expression), the log and the
// NVRTC version. *out_log receives NVRTC's log whenever there is one, success or not. Fails with
// CUABI_ERROR_COMPILE (errors in the source; the message quotes the first error line, and for a
// missing #include names the header and every directory searched), CUABI_ERROR_INVALID_ARGUMENT
// (NVRTC refused an option) or CUABI_ERROR_NVRTC.
// With `pch`, its flags are added and its outcome filled in (`nvrtc` then has PCH support).
Status run_nvrtc(const NvrtcApi& nvrtc, const NvrtcJob& job, cache::CachedImage* out, std::string* out_log,
                 PchRun* pch = nullptr);

// The first line of an NVRTC log that reports an error (else its first non-empty line), without
// the newline; at most 400 characters.
std::string first_error_line(const std::string& log);

// The header named in an NVRTC "could not open source file \"x.h\"" error line, or "".
std::string missing_header(const std::string& error_line);

}  // namespace cuabi
