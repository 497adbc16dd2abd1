#include "api/compile_options.hpp"

#include "api/versioned_struct.hpp"

namespace cuabi {

Status read_compile_options_unchecked(const cuabi_compile_options* user, CompileOptions* out) {
    // Every memory hit reads its options: no zero-filled temporaries (GCC clears a struct this
    // size with `rep stos`, which cost a tenth of a hit), each field written once, and a caller's
    // complete struct read in place rather than copied first.
    cuabi_compile_options scratch;  // written whole when used
    const cuabi_compile_options* fields = nullptr;
    Status status = view_struct(user, &scratch, &fields);
    if (status != CUABI_SUCCESS) return status;
    const cuabi_compile_options& read = *fields;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave reserved 0 (cuabi_compile_options_init() does)",
                    "cuabi_compile_options.reserved is %u", read.reserved);
    CompileOptions& options = *out;
    options.flags = read.flags;
    options.target = read.target;
    options.cpp_standard = read.cpp_standard;
    options.program_name = read.program_name;
    options.fast_math = read.fast_math;
    options.ftz = read.ftz;
    options.prec_div = read.prec_div;
    options.prec_sqrt = read.prec_sqrt;
    options.fmad = read.fmad;
    options.max_registers = read.max_registers;
    options.line_info = read.line_info;
    options.device_debug = read.device_debug;
    options.defines = read.defines;
    options.define_count = read.define_count;
    options.include_dirs = read.include_dirs;
    options.include_dir_count = read.include_dir_count;
    options.header_names = read.header_names;
    options.header_sources = read.header_sources;
    options.header_count = read.header_count;
    options.name_expressions = read.name_expressions;
    options.name_expression_count = read.name_expression_count;
    options.extra_flags = read.extra_flags;
    options.extra_flag_count = read.extra_flag_count;
    options.salt = read.salt;
    options.salt_size = read.salt_size;
    options.timeout_ms = read.timeout_ms;
    return CUABI_SUCCESS;
}

Status read_compile_options(const cuabi_compile_options* user, CompileOptions* out) {
    Status status = read_compile_options_unchecked(user, out);
    return status == CUABI_SUCCESS ? check_compile_options(*out) : status;
}

}  // namespace cuabi
