#include "compile/module.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "compile/compiler.hpp"
#include "compile/image.hpp"
#include "compile/image_verifier.hpp"
#include "compile/kernel_registry.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace {

uint32_t origin_of(cache::Layer layer) {
    switch (layer) {
        case cache::Layer::Memory: return CUABI_MODULE_ORIGIN_MEMORY_CACHE;
        case cache::Layer::Disk: return CUABI_MODULE_ORIGIN_DISK_CACHE;
        case cache::Layer::ReadOnly: return CUABI_MODULE_ORIGIN_READONLY_CACHE;
        case cache::Layer::None: break;
    }
    return CUABI_MODULE_ORIGIN_COMPILED;
}

// Made once per thread and device: it is on the path of every verified load, which a memo answers
// in well under a microsecond otherwise.
const VerifiedOn& verified_on(const Context& context) {
    thread_local VerifiedOn on{-1, {}};
    if (on.ordinal != context.ordinal()) {
        const DeviceInfo& device = context.info();
        on.identity = format("%s sm_%d%d driver %d", device.name, device.compute_capability_major,
                             device.compute_capability_minor, context.api().version);
        on.ordinal = context.ordinal();
    }
    return on;
}

// A symbol name cannot contain these; a name that does is a C++ expression that was not compiled.
bool looks_like_expression(const char* name) { return std::strpbrk(name, "<>():, &*") != nullptr; }

}  // namespace

Module::Module(std::shared_ptr<const cache::CachedImage> image, std::shared_ptr<Context> context,
               std::shared_ptr<LoadedModule> loaded, uint32_t origin, bool ptx_fallback, const cache::Key* key)
    : image_(std::move(image)),
      context_(std::move(context)),
      loaded_(std::move(loaded)),
      origin_(origin),
      ptx_fallback_(ptx_fallback),
      has_key_(key != nullptr),
      key_(key != nullptr ? *key : cache::Key{}) {}

Status Module::compile(std::shared_ptr<Context> context, const char* source, const CompileOptions& options,
                       std::shared_ptr<Module>* out, const CompileControl& control) {
    CompileInput input;
    input.source = source;
    input.options = &options;
    input.device = &context->info();
    input.control = control;
    CompileOutcome outcome;
    Status status = cuabi::compile(input, &context->counters(), &outcome);
    if (status != CUABI_SUCCESS || outcome.image == nullptr) return status;
    // A link input (LTO-IR, relocatable code) may call what only the link defines: not loaded.
    if ((options.flags & (CUABI_COMPILE_LTO_IR | CUABI_COMPILE_RELOCATABLE)) != 0) {
        *out = std::make_shared<Module>(std::move(outcome.image), nullptr, nullptr, origin_of(outcome.layer), false,
                                        &outcome.key);
        return CUABI_SUCCESS;
    }
    return load_made(std::move(context), std::move(outcome.image), outcome.key, outcome.layer,
                     !outcome.image->untrusted, outcome.target.fallback, "cuabi's own compile", out);
}

Status Module::load_made(std::shared_ptr<Context> context, std::shared_ptr<const cache::CachedImage> image,
                         const cache::Key& key, cache::Layer layer, bool trusted, bool fallback, const char* made_by,
                         std::shared_ptr<Module>* out) {
    // cuabi's own output is trusted; only "verify all" sends it to the verifier. Entries that came
    // from a read-only layer, a bundle or a remote are not cuabi's own, wherever they are now, nor
    // is a link of the caller's bytes.
    Status status = report_verification_environment(context->image_verification());
    if (status != CUABI_SUCCESS) return status;
    if (must_verify(image_verification_policy(context->image_verification()), trusted) &&
        (status = verify_image(verified_on(*context), key, *image,
                               !trusted                     ? "an untrusted image (the caller's link inputs, a "
                                                              "read-only layer, bundle or remote)"
                               : layer == cache::Layer::None ? made_by
                                                             : "cuabi's kernel cache")) != CUABI_SUCCESS)
        return status;
    std::shared_ptr<LoadedModule> loaded;
    status = acquire_loaded_module(context, key, *image, &loaded);
    if (status != CUABI_SUCCESS) return status;
    *out = std::make_shared<Module>(std::move(image), std::move(context), std::move(loaded), origin_of(layer), fallback,
                                    &key);
    return CUABI_SUCCESS;
}

Status Module::link(std::shared_ptr<Context> context, const std::vector<LinkInput>& inputs,
                    const LinkOptions& options, std::shared_ptr<Module>* out) {
    LinkOutcome outcome;
    Status status = cuabi::link(inputs, options, &context->info(), &context->counters(), &outcome);
    if (status != CUABI_SUCCESS) return status;
    return load_made(std::move(context), std::move(outcome.image), outcome.key, outcome.layer,
                     outcome.trusted && !outcome.image->untrusted, false, "cuabi's own link", out);
}

Status Module::link_offline(const std::vector<LinkInput>& inputs, const LinkOptions& options,
                            std::shared_ptr<Module>* out) {
    LinkOutcome outcome;
    Status status = cuabi::link(inputs, options, nullptr, nullptr, &outcome);
    if (status != CUABI_SUCCESS) return status;
    *out = std::make_shared<Module>(std::move(outcome.image), nullptr, nullptr, origin_of(outcome.layer), false,
                                    &outcome.key);
    return CUABI_SUCCESS;
}

Status Module::compile_offline(const char* source, const CompileOptions& options,
                               std::shared_ptr<Module>* out, const CompileControl& control) {
    CompileInput input;
    input.source = source;
    input.options = &options;
    input.control = control;
    CompileOutcome outcome;
    Status status = cuabi::compile(input, nullptr, &outcome);
    if (status != CUABI_SUCCESS || outcome.image == nullptr) return status;
    *out = std::make_shared<Module>(std::move(outcome.image), nullptr, nullptr, origin_of(outcome.layer), false,
                                    &outcome.key);
    return CUABI_SUCCESS;
}

Status Module::load_image(std::shared_ptr<Context> context, const void* data, size_t size,
                          std::shared_ptr<Module>* out) {
    ImageFacts facts;
    Status status = inspect_image(data, size, &facts);
    if (status != CUABI_SUCCESS) return status;
    const DeviceInfo& device = context->info();
    status = check_image_runs_on(facts, device.compute_capability_major, device.compute_capability_minor, device.name);
    if (status != CUABI_SUCCESS) return status;

    auto image = std::make_shared<cache::CachedImage>();
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    image->image.assign(bytes, bytes + size);
    if (facts.kind == CUABI_IMAGE_PTX && image->image.back() != 0) image->image.push_back(0);  // the driver needs it
    image->image_kind = facts.kind;
    image->target = facts.target;

    // Libraries of loaded images are shared by content, as compiled ones are by compile key.
    cache::KeyBuilder builder;
    builder.add("image", image->image.data(), image->image.size());
    cache::Key key = builder.finish();
    if ((status = report_verification_environment(context->image_verification())) != CUABI_SUCCESS) return status;
    if (must_verify(image_verification_policy(context->image_verification()), false) &&
        (status = verify_image(verified_on(*context), key, *image, "the caller's bytes (cuabi_module_load_image)")) !=
            CUABI_SUCCESS)
        return status;
    std::shared_ptr<LoadedModule> loaded;
    status = acquire_loaded_module(context, key, *image, &loaded);
    if (status != CUABI_SUCCESS) return status;
    *out = std::make_shared<Module>(std::move(image), std::move(context), std::move(loaded),
                                    CUABI_MODULE_ORIGIN_IMAGE, false, nullptr);
    return CUABI_SUCCESS;
}

const std::string* Module::lowered_name(std::string_view expression) const {
    // Linear: a module has a handful of expressions, and this does not depend on the order the
    // cache layers keep them in.
    for (const auto& entry : image_->lowered_names)
        if (entry.first == expression) return &entry.second;
    return nullptr;
}

std::string Module::expression_names() const {
    std::string expressions;
    for (const auto& entry : image_->lowered_names)
        expressions += format("%s\"%s\"", expressions.empty() ? "" : ", ", bounded(entry.first.c_str()).c_str());
    return format("name expressions compiled: %s", expressions.empty() ? "none" : expressions.c_str());
}

std::string Module::available_names() const {
    std::string text = expression_names();
    const DriverApi& api = context_->api();
    unsigned int count = 0;
    if (api.cuModuleGetFunctionCount == nullptr || api.cuModuleEnumerateFunctions == nullptr ||
        api.cuFuncGetName == nullptr || api.cuModuleGetFunctionCount(&count, loaded_->get()) != CUDA_SUCCESS)
        return text;
    std::vector<CUfunction> kernels(count);
    if (count > 0 && api.cuModuleEnumerateFunctions(kernels.data(), count, loaded_->get()) != CUDA_SUCCESS)
        return text;
    std::string symbols;
    const unsigned int shown = std::min(count, 20u);
    for (unsigned int i = 0; i < shown; ++i) {
        const char* symbol = nullptr;
        if (api.cuFuncGetName(&symbol, kernels[i]) == CUDA_SUCCESS && symbol != nullptr)
            symbols += format("%s\"%s\"", symbols.empty() ? "" : ", ", symbol);
    }
    if (count > shown) symbols += format(" and %u more", count - shown);
    return text + format("; kernels in the image: %s", symbols.empty() ? "none" : symbols.c_str());
}

Status Module::get_kernel(const std::shared_ptr<Module>& module, const char* name, std::shared_ptr<Kernel>* out) {
    if (!module->loaded())
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "load its image into a context with cuabi_module_load_image(), compile with "
                    "cuabi_module_compile(), or (for a link input) link it with cuabi_module_link()",
                    "the module was compiled offline for %s (or linked offline, or is %s link input) and is not "
                    "loaded in any context, so kernel '%s' cannot be looked up",
                    module->image_->target.c_str(),
                    module->image_->image_kind == CUABI_IMAGE_LTOIR ? "an LTO-IR" : "a", bounded(name).c_str());
    const std::string* lowered = module->lowered_name(name);
    const char* symbol = lowered != nullptr ? lowered->c_str() : name;
    Status status = module->context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUfunction function = nullptr;
    CUresult result = CUDA_ERROR_NOT_FOUND;
    if (lowered != nullptr || !looks_like_expression(name)) {
        // Under lazy loading this is where the kernel's code reaches the device.
        range::Scope scope(range::Phase::ModuleLoad, name);
        result = module->context_->api().cuModuleGetFunction(&function, module->loaded_->get(), symbol);
    }
    if (result == CUDA_ERROR_NOT_FOUND)
        return fail(CUABI_ERROR_KERNEL_NOT_FOUND,
                    looks_like_expression(name)
                        ? "add the expression to cuabi_compile_options.name_expressions when compiling (the text "
                          "must match exactly)"
                        : "use the name of an extern \"C\" __global__ function, or compile the C++ name as a name "
                          "expression",
                    "the module (%s) has no kernel '%s'; %s", describe_image(*module->image_).c_str(),
                    bounded(name).c_str(), module->available_names().c_str());
    if (result != CUDA_SUCCESS)
        return fail_image(result, "cuModuleGetFunction",
                          format("kernel '%s' of the %s on %s", bounded(name).c_str(), describe_image(*module->image_).c_str(),
                                 module->context_->info().name));
    *out = std::make_shared<Kernel>(module, module->context_, function, name, symbol);
    register_kernel(*out);  // so a graph's inventory can name the kernel behind a node
    return CUABI_SUCCESS;
}

Status Module::get_global(const std::shared_ptr<Module>& module, const char* name, std::shared_ptr<Buffer>* out) {
    if (!module->loaded())
        return fail(CUABI_ERROR_UNSUPPORTED,
                    "load its image into a context with cuabi_module_load_image(), or compile with "
                    "cuabi_module_compile()",
                    "the module was compiled offline for %s and is not loaded on any device, so it has no variable "
                    "'%s' in device memory",
                    module->image_->target.c_str(), bounded(name).c_str());
    const std::string* lowered = module->lowered_name(name);
    const char* symbol = lowered != nullptr ? lowered->c_str() : name;
    const Context& context = *module->context_;
    Status status = context.make_current();
    if (status != CUABI_SUCCESS) return status;
    CUdeviceptr address = 0;
    size_t size = 0;
    CUresult result = CUDA_ERROR_NOT_FOUND;
    if (lowered != nullptr || !looks_like_expression(name))
        result = context.api().cuModuleGetGlobal(&address, &size, module->loaded_->get(), symbol);
    // The driver answers INVALID_VALUE for a symbol that exists but is no variable (a kernel's name).
    if (result == CUDA_ERROR_NOT_FOUND || result == CUDA_ERROR_INVALID_VALUE)
        return fail(CUABI_ERROR_NOT_FOUND,
                    looks_like_expression(name)
                        ? "add the expression to cuabi_compile_options.name_expressions when compiling (the text "
                          "must match exactly; a variable's is its address or name, e.g. \"&scale\" or "
                          "\"table<float>\")"
                        : "use the name of a __device__ or __constant__ variable at namespace scope, or compile the "
                          "C++ name as a name expression",
                    "the module (%s) has no __device__ or __constant__ variable '%s'; %s",
                    describe_image(*module->image_).c_str(), bounded(name).c_str(), module->expression_names().c_str());
    if (result != CUDA_SUCCESS)
        return fail_image(result, "cuModuleGetGlobal", format("variable '%s'", bounded(name).c_str()));
    // The variable lives as long as the image is loaded, which the module keeps.
    return Buffer::view(module->context_, address, size, module, out);
}

}  // namespace cuabi
