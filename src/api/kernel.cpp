// Entry points of the "Kernel" group of cuabi.h: argument checks, then compile/module.hpp.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "compile/kernel_attributes.hpp"
#include "compile/module.hpp"
#include "launch/kernel_settings.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

namespace {

// A kernel or global of `module` by the name or name expression the caller gave, published in *out.
template <typename Found, typename Public, typename Lookup>
Status look_up(cuabi_module* module, const char* name_or_expression, Public** out, const char* out_name,
               const char* a_name, Lookup lookup) {
    Status status = require_pointer(name_or_expression, "name_or_expression");
    if (status == CUABI_SUCCESS) status = require_pointer(out, out_name);
    if (status != CUABI_SUCCESS) return status;
    if (name_or_expression[0] == '\0')
        return fail(CUABI_ERROR_INVALID_ARGUMENT, format("pass %s or a compiled name expression", a_name).c_str(),
                    "name_or_expression is an empty string");
    std::shared_ptr<Module> owner = acquire<Module>(module, "module");
    if (!owner) return refused_handle();
    std::shared_ptr<Found> found;
    status = lookup(owner, name_or_expression, &found);
    return publish_created(status, std::move(found), out);
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_module_get_kernel(cuabi_module* module, const char* name_or_expression,
                                               cuabi_kernel** out_kernel) try {
    return look_up<Kernel>(module, name_or_expression, out_kernel, "out_kernel", "a kernel name", Module::get_kernel);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_global(cuabi_module* module, const char* name_or_expression,
                                               cuabi_buffer** out_buffer) try {
    return look_up<Buffer>(module, name_or_expression, out_buffer, "out_buffer", "a variable's name",
                           Module::get_global);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_set_attribute(cuabi_kernel* kernel, int32_t attribute, int32_t value) try {
    return with_pinned<Kernel>(kernel, "kernel",
                               [&](Kernel& pinned) { return launch::set_kernel_attribute(pinned, attribute, value); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_attributes(cuabi_kernel* kernel, cuabi_kernel_attributes* out_attributes) try {
    Status status = require_output(out_attributes, "out_attributes");
    if (status != CUABI_SUCCESS) return status;
    KernelAttributes read;
    status = with_pinned<Kernel>(kernel, "kernel",
                                 [&](Kernel& pinned) { return read_kernel_attributes(pinned, &read); });
    if (status != CUABI_SUCCESS) return status;
    cuabi_kernel_attributes facts CUABI_KERNEL_ATTRIBUTES_INIT;
    facts.registers_per_thread = read.registers_per_thread;
    facts.max_threads_per_block = read.max_threads_per_block;
    facts.static_shared_memory_bytes = read.static_shared_memory_bytes;
    facts.constant_memory_bytes = read.constant_memory_bytes;
    facts.local_memory_bytes = read.local_memory_bytes;
    facts.max_dynamic_shared_memory_bytes = read.max_dynamic_shared_memory_bytes;
    facts.ptx_version = read.ptx_version;
    facts.binary_version = read.binary_version;
    return write_output(facts, out_attributes);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_native(cuabi_kernel* kernel, void** out_cu_function) try {
    return get_value<Kernel>(kernel, "kernel", out_cu_function, "out_cu_function",
                             [](Kernel& read) { return static_cast<void*>(read.function()); });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
