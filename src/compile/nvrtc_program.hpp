// One NVRTC compilation: source + canonical flags in, image + lowered-name map + log out.
#pragma once

#include <string>

#include "cache/kernel_cache.hpp"
#include "compile/compile_options.hpp"

namespace cuabi {

// Compiles `request` (whose source is NUL-terminated). On success *out holds a CUBIN for an sm_XY
// target or NUL-terminated PTX for compute_XY, the lowered name of every name expression (sorted
// by expression) and the log. *out_log receives NVRTC's log whenever there is one, success or not.
// Fails with CUABI_ERROR_COMPILE (errors in the source; the message quotes the first error line),
// CUABI_ERROR_INVALID_ARGUMENT (NVRTC refused an option) or CUABI_ERROR_NVRTC.
Status run_nvrtc(const NvrtcApi& nvrtc, const CompileRequest& request, cache::CachedImage* out, std::string* out_log);

// The first line of an NVRTC log that reports an error (else its first non-empty line), without
// the newline; at most 400 characters.
std::string first_error_line(const std::string& log);

}  // namespace cuabi
