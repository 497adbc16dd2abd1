// Entry points of the "Linking" group of cuabi.h: argument checks, then compile/linker.hpp.
#include <string>
#include <vector>

#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "api/versioned_struct.hpp"
#include "compile/image.hpp"
#include "compile/module.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "image/entries.hpp"

using namespace cuabi;

namespace {

Status read_link_options(const cuabi_link_options* user, LinkOptions* out) {
    cuabi_link_options read;
    Status status = read_struct(user, &read);
    if (status != CUABI_SUCCESS) return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave reserved 0 (cuabi_link_options_init() does)",
                    "cuabi_link_options.reserved is %u", read.reserved);
    out->flags = read.flags;
    out->target = read.target;
    out->optimization_level = read.optimization_level;
    out->max_registers = read.max_registers;
    out->extra_options = read.extra_options;
    out->extra_option_count = read.extra_option_count;
    out->timeout_ms = read.timeout_ms;
    return CUABI_SUCCESS;
}

// The caller's inputs, each with exactly one source; module handles pinned into their images.
Status read_link_inputs(const cuabi_link_input* inputs, size_t count, std::vector<LinkInput>* out) {
    if (count > CUABI_LINK_MAX_INPUTS)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "link at most CUABI_LINK_MAX_INPUTS (4096) inputs at once",
                    "input_count is %zu", count);
    if (count != 0 && inputs == nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an array of input_count inputs",
                    "inputs is NULL but input_count is %zu", count);
    out->reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const cuabi_link_input& given = inputs[i];
        if (given.reserved != 0)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave reserved 0 (zero the whole struct first)",
                        "inputs[%zu].reserved is %u", i, given.reserved);
        const int sources = (given.module != nullptr) + (given.data != nullptr) + (given.path != nullptr);
        if (sources != 1)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "set exactly one of module, data (with size) and path",
                        "inputs[%zu] sets %d of module, data and path", i, sources);
        LinkInput input;
        input.kind = given.kind;
        input.data = given.data;
        input.size = given.size;
        input.path = given.path;
        input.name = given.name;
        if (given.module != nullptr) {
            std::string parameter = format("inputs[%zu].module", i);
            std::shared_ptr<Module> module = acquire<Module>(given.module, parameter.c_str());
            if (!module) return refused_handle();
            input.image = module->shared_image();
        }
        out->push_back(std::move(input));
    }
    return CUABI_SUCCESS;
}

Status read_link_arguments(const cuabi_link_input* inputs, size_t count, const cuabi_link_options* options,
                           cuabi_module** out_module, std::vector<LinkInput>* read_inputs, LinkOptions* read_options) {
    Status status = require_pointer(out_module, "out_module");
    if (status == CUABI_SUCCESS) status = read_link_options(options, read_options);
    if (status == CUABI_SUCCESS) status = read_link_inputs(inputs, count, read_inputs);
    return status;
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_link_options_init(uint32_t struct_size, cuabi_link_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_link(cuabi_context* context, const cuabi_link_input* inputs, size_t input_count,
                                         const cuabi_link_options* options, cuabi_module** out_module) try {
    std::vector<LinkInput> read_inputs;
    LinkOptions read_options;
    Status status = read_link_arguments(inputs, input_count, options, out_module, &read_inputs, &read_options);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> owner = acquire<Context>(context, "context");
    if (!owner) return refused_handle();
    std::shared_ptr<Module> module;
    status = Module::link(std::move(owner), read_inputs, read_options, &module);
    return publish_created(status, std::move(module), out_module);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_link_offline(const cuabi_link_input* inputs, size_t input_count,
                                                 const cuabi_link_options* options, cuabi_module** out_module) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    std::vector<LinkInput> read_inputs;
    LinkOptions read_options;
    Status status = read_link_arguments(inputs, input_count, options, out_module, &read_inputs, &read_options);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Module> module;
    status = Module::link_offline(read_inputs, read_options, &module);
    return publish_created(status, std::move(module), out_module);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_kernel_names(cuabi_module* module, char* out_text, size_t capacity,
                                                     size_t* out_size) try {
    return with_pinned<Module>(module, "module", [&](Module& read) {
        const cache::CachedImage& image = read.image();
        if (image.image_kind != CUABI_IMAGE_CUBIN)
            return fail(CUABI_ERROR_UNSUPPORTED,
                        "link or compile to a CUBIN (an sm_XY target without CUABI_COMPILE_PTX / CUABI_LINK_PTX), or "
                        "load the module and look kernels up by name with cuabi_module_get_kernel()",
                        "the module's image is %s; kernel names are read from a CUBIN's symbol table",
                        describe_image(image).c_str());
        std::string names;
        for (const std::string& name : image::cubin_kernel_names(image.image.data(), image.image.size()))
            names += name + "\n";
        return copy_text_out(names, out_text, capacity, out_size);
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
