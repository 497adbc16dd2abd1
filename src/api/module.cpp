// Entry points of the "Module" group of cuabi.h: argument checks, then compile/module.hpp.
#include <cstdio>

#include "api/arguments.hpp"
#include "api/compile_options.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "api/versioned_struct.hpp"
#include "compile/compile_log.hpp"
#include "compile/compile_options.hpp"
#include "compile/module.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

namespace {

// A context handle that did not pin, for a compile: the options are checked by compile() (on a
// request memo miss), after the context; invalid options are still what such a call reports, as
// when they were checked before the context.
[[gnu::cold]] Status refused_context(const CompileOptions& options) {
    Status status = check_compile_options(options);
    return status != CUABI_SUCCESS ? status : refused_handle();
}

// What cuabi_module_get_info reports.
cuabi_module_info public_module_info(const Module& module) {
    const cache::CachedImage& image = module.image();
    cuabi_module_info facts CUABI_MODULE_INFO_INIT;
    facts.image_kind = image.image_kind;
    facts.origin = module.origin();
    facts.loaded = module.loaded() ? 1u : 0u;
    facts.ptx_fallback = module.ptx_fallback() ? 1u : 0u;
    facts.name_expression_count = static_cast<uint32_t>(image.lowered_names.size());
    facts.image_size = image.image.size();
    std::snprintf(facts.target, sizeof facts.target, "%s", image.target.c_str());
    if (const cache::Key* key = module.cache_key())
        std::snprintf(facts.cache_key, sizeof facts.cache_key, "%s", key->hex().c_str());
    return facts;
}

// The arguments both compile entry points share; the options are checked by compile().
Status read_compile_arguments(const char* source, const cuabi_compile_options* options, cuabi_module** out_module,
                              CompileOptions* out) {
    Status status = require_pointer(source, "source");
    if (status == CUABI_SUCCESS) status = require_pointer(out_module, "out_module");
    return status == CUABI_SUCCESS ? read_compile_options_unchecked(options, out) : status;
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_module_compile(cuabi_context* context, const char* source,
                                            const cuabi_compile_options* options, cuabi_module** out_module) try {
    CompileOptions read;
    Status status = read_compile_arguments(source, options, out_module, &read);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> owner = acquire<Context>(context, "context");
    if (!owner) return refused_context(read);
    std::shared_ptr<Module> module;
    status = Module::compile(std::move(owner), source, read, &module);
    return publish_created(status, std::move(module), out_module);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_compile_offline(const char* source, const cuabi_compile_options* options,
                                                    cuabi_module** out_module) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    CompileOptions read;
    Status status = read_compile_arguments(source, options, out_module, &read);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Module> module;
    status = Module::compile_offline(source, read, &module);
    return publish_created(status, std::move(module), out_module);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_load_image(cuabi_context* context, const void* image, size_t size,
                                               cuabi_module** out_module) try {
    Status status = require_pointer(image, "image");
    if (status == CUABI_SUCCESS) status = require_pointer(out_module, "out_module");
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> owner = acquire<Context>(context, "context");
    if (!owner) return refused_handle();
    std::shared_ptr<Module> module;
    status = Module::load_image(std::move(owner), image, size, &module);
    return publish_created(status, std::move(module), out_module);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_info(cuabi_module* module, cuabi_module_info* out_info) try {
    if (Status status = require_output(out_info, "out_info")) return status;
    return with_pinned<Module>(module, "module",
                               [&](Module& read) { return write_output(public_module_info(read), out_info); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_image(cuabi_module* module, void* out_image, size_t capacity,
                                              size_t* out_size) try {
    return with_pinned<Module>(module, "module", [&](Module& read) {
        const std::vector<uint8_t>& image = read.image().image;
        return copy_bytes_out(image.data(), image.size(), out_image, capacity, out_size);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_log(cuabi_module* module, char* out_text, size_t capacity,
                                            size_t* out_size) try {
    return with_pinned<Module>(module, "module", [&](Module& read) {
        return copy_text_out(read.image().log, out_text, capacity, out_size);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_get_lowered_name(cuabi_module* module, const char* expression, char* out_text,
                                                     size_t capacity, size_t* out_size) try {
    Status status = require_pointer(expression, "expression");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Module> pinned(module, "module");
    if (!pinned.ok()) return refused_handle();
    const std::string* lowered = pinned->lowered_name(expression);
    if (lowered == nullptr)
        return fail(CUABI_ERROR_KERNEL_NOT_FOUND,
                    "add the expression to cuabi_compile_options.name_expressions when compiling (the text must match "
                    "exactly)",
                    "name expression \"%s\" was not compiled into this module, which has %zu name expression%s",
                    bounded(expression).c_str(), pinned->image().lowered_names.size(),
                    pinned->image().lowered_names.size() == 1 ? "" : "s");
    return copy_text_out(*lowered, out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_last_compile_log(char* out_text, size_t capacity, size_t* out_size) try {
    return copy_text_out(last_compile_log(), out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
