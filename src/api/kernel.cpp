// Entry points of the "Kernel" group of cuabi.h: argument checks, then compile/module.hpp.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "compile/kernel_attributes.hpp"
#include "compile/module.hpp"
#include "core/options.hpp"
#include "launch/kernel_settings.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_module_get_kernel(cuabi_module* module, const char* name_or_expression,
                                               cuabi_kernel** out_kernel) try {
    Status status = require_pointer(name_or_expression, "name_or_expression");
    if (status == CUABI_SUCCESS) status = require_pointer(out_kernel, "out_kernel");
    if (status != CUABI_SUCCESS) return status;
    if (name_or_expression[0] == '\0')
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a kernel name or a compiled name expression",
                    "name_or_expression is an empty string");
    std::shared_ptr<Module> owner = acquire<Module>(module, "module");
    if (!owner) return refused_handle();
    std::shared_ptr<Kernel> kernel;
    status = Module::get_kernel(owner, name_or_expression, &kernel);
    if (status != CUABI_SUCCESS) return status;
    return publish(std::move(kernel), out_kernel);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_global(cuabi_module* module, const char* name_or_expression,
                                               cuabi_buffer** out_buffer) try {
    Status status = require_pointer(name_or_expression, "name_or_expression");
    if (status == CUABI_SUCCESS) status = require_pointer(out_buffer, "out_buffer");
    if (status != CUABI_SUCCESS) return status;
    if (name_or_expression[0] == '\0')
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a variable's name or a compiled name expression",
                    "name_or_expression is an empty string");
    std::shared_ptr<Module> owner = acquire<Module>(module, "module");
    if (!owner) return refused_handle();
    std::shared_ptr<Buffer> global;
    status = Module::get_global(owner, name_or_expression, &global);
    if (status != CUABI_SUCCESS) return status;
    return publish(std::move(global), out_buffer);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_set_attribute(cuabi_kernel* kernel, int32_t attribute, int32_t value) try {
    Pinned<Kernel> pinned(kernel, "kernel");
    if (!pinned.ok()) return refused_handle();
    return launch::set_kernel_attribute(*pinned, attribute, value);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_attributes_init(uint32_t struct_size, cuabi_kernel_attributes* out_attributes) try {
    return init_struct(cuabi_kernel_attributes CUABI_KERNEL_ATTRIBUTES_INIT, struct_size, out_attributes, "cuabi_kernel_attributes", "cuabi_kernel_attributes_init");
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API void cuabi_kernel_destroy(cuabi_kernel* kernel) try {
    destroy_handle<Kernel>(kernel);
} catch (...) {
    guard::swallowed();
}

CUABI_API cuabi_status cuabi_kernel_get_attributes(cuabi_kernel* kernel, cuabi_kernel_attributes* attributes) try {
    Status status = require_pointer(attributes, "attributes");
    if (status == CUABI_SUCCESS)
        status = require_output_struct(attributes->struct_size, "cuabi_kernel_attributes",
                                       "cuabi_kernel_attributes_init");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Kernel> pinned(kernel, "kernel");
    if (!pinned.ok()) return refused_handle();
    KernelAttributes read;
    status = read_kernel_attributes(*pinned, &read);
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
    return write_output(facts, attributes, "cuabi_kernel_attributes", "cuabi_kernel_attributes_init");
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_native(cuabi_kernel* kernel, void** out_cu_function) try {
    Status status = require_pointer(out_cu_function, "out_cu_function");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Kernel> pinned(kernel, "kernel");
    if (!pinned.ok()) return refused_handle();
    *out_cu_function = pinned->function();
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
