// A compile that failed in NVRTC's name-expression map (the log's "__nv_name_map(N): error"
// lines): the fault is in one of cuabi_compile_options.name_expressions, not in the source, so the
// message names that entry -- its index and text -- and the kernels the source does declare.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compile/compile_options.hpp"
#include "core/error.hpp"

namespace cuabi {

// The __global__ functions `text` declares, in order, each once: "negate", and "scale<...>" for a
// template. Read from the text as written (comments and string literals skipped); kernels made by
// macros or declared in headers on disk are not seen.
std::vector<std::string> declared_kernels(std::string_view text);

// For a compile of `source` with `options` that NVRTC `major.minor` failed with `log`: when the
// log's first error is in the name-expression map, fails with CUABI_ERROR_COMPILE and a message
// naming the expression and the declared kernels (of the source and the in-memory headers);
// otherwise returns `status` unchanged.
Status explain_name_expression_failure(Status status, const CompileOptions& options, std::string_view source,
                                       const std::string& log, int major, int minor);

}  // namespace cuabi
